"""Which OpenAI-compatible server an LLM agent talks to, and with which model.

The standard variables (`OPENAI_BASE_URL`, `OPENAI_API_KEY`, `OPENAI_MODEL`)
choose the server, so OpenAI, Ollama, vLLM and llama.cpp servers all work; a
node's params or the run's config (`baseURL`, `apiKey`, `model`) override them.
With neither a key nor a base URL, the embedded local model is used.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from graphrt.base.secrets import MASK, hide_credentials

__all__ = ["ServerSettings", "resolve_server", "retry_count", "DEFAULT_OPENAI_MODEL", "MAX_RETRIES"]

DEFAULT_OPENAI_MODEL = "gpt-4o"  # GraphAI's default
_PLACEHOLDER_KEY = "not-needed"  # the SDK insists on a key; local servers ignore it


@dataclass(frozen=True)
class ServerSettings:
    """Where requests go. `api_key` never appears in repr, logs or error messages."""

    base_url: str | None
    api_key: str | None = field(default=None, repr=False)
    model: str | None = None
    embedded: bool = False

    @property
    def is_configured(self) -> bool:
        """True when the user chose a server (a key or a base URL); False means "use the embedded model"."""
        return bool(self.base_url or self.api_key)

    @property
    def is_openai(self) -> bool:
        """True for OpenAI's own API (no base URL, or api.openai.com)."""
        return not self.base_url or "api.openai.com" in self.base_url

    def client_key(self) -> str:
        """The key to hand the SDK: the real one, or a placeholder for servers that need none."""
        return self.api_key or _PLACEHOLDER_KEY

    def with_model(self, model: str | None) -> "ServerSettings":
        return replace(self, model=model) if model else self

    def redact(self, text: str) -> str:
        """`text` with the API key and any other credential blanked out, for error messages."""
        if self.api_key and len(self.api_key) >= 4:
            text = text.replace(self.api_key, MASK)
        return hide_credentials(text)


def _first(*values: Any) -> str | None:
    for value in values:
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def resolve_server(options: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> ServerSettings:
    """Picks the server and model: the node's options first, then the environment.

    Args:
        options: the run's config for the agent, overridden by the node's params and
            inputs (`baseURL`, `apiKey`, `model`).
        environ: the environment; `os.environ` when None.

    Returns:
        The settings; `model` is None when nothing chose one (the caller picks a default).
    """
    env = os.environ if environ is None else environ
    return ServerSettings(
        base_url=_first(options.get("baseURL"), env.get("OPENAI_BASE_URL")),
        api_key=_first(options.get("apiKey"), env.get("OPENAI_API_KEY")),
        model=_first(options.get("model"), env.get("OPENAI_MODEL")),
    )


MAX_RETRIES = 100
"""The most retries an LLM agent makes of one request (`maxRetries`): more is a node that never gives up."""


def retry_count(options: dict[str, Any], default: int) -> int:
    """`maxRetries` of an LLM agent's options: a whole number from 0 to MAX_RETRIES.

    Raises:
        ValueError: any other value, said in a line (the node's error).
    """
    value = options.get("maxRetries", default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or value != int(value) \
            or not 0 <= value <= MAX_RETRIES:
        shown = type(value).__name__ if isinstance(value, (str, list, dict)) or abs(value) > 10**9 else repr(value)
        raise ValueError(f"maxRetries must be a whole number from 0 to {MAX_RETRIES}, got {shown}")
    return int(value)
