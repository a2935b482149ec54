"""An LLM agent's settings: which server it talks to, with which model, and how often it asks again.

The standard variables (`OPENAI_BASE_URL`, `OPENAI_API_KEY`, `OPENAI_MODEL`)
choose the server, so OpenAI, Ollama, vLLM and llama.cpp servers all work; a
node's params or the run's config (`baseURL`, `apiKey`, `model`) override them.
With neither a key nor a base URL, the embedded local model is used. Another
provider names its own variables (`Provider` in provider.py). A server on Azure
OpenAI carries its `AzureSettings` (azure.py decides when). `RetryPolicy` is
what every provider's requests share: seconds per attempt, retries, first backoff.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any, Awaitable, Callable, Mapping, Union

from graphrt.base.secrets import MASK, hide_credentials

__all__ = [
    "AZURE_API_VERSION", "AzureSettings", "TokenProvider", "ServerSettings", "resolve_server", "first_text",
    "retry_count", "RetryPolicy", "DEFAULT_OPENAI_MODEL",
    "MAX_RETRIES", "DEFAULT_RETRIES", "DEFAULT_RETRY_DELAY", "DEFAULT_TIMEOUT",
]

DEFAULT_OPENAI_MODEL = "gpt-4o"  # GraphAI's default
AZURE_API_VERSION = "2025-04-01-preview"
"""The api-version of requests to Azure OpenAI when neither `apiVersion` nor OPENAI_API_VERSION says (GraphAI's)."""
_PLACEHOLDER_KEY = "not-needed"  # the SDK insists on a key; local servers ignore it

TokenProvider = Callable[[], Union[str, Awaitable[str]]]
"""A function that returns a Microsoft Entra ID token (or an awaitable of one), asked before every request."""


@dataclass(frozen=True)
class AzureSettings:
    """How a server on Azure OpenAI is asked: what openai's AsyncAzureOpenAI needs beyond the endpoint and key.

    Attributes:
        api_version: the `api-version` every request carries.
        deployment: the deployment every request goes to; None: the request's model names it, as in GraphAI.
        entra_token: the server's `api_key` is a Microsoft Entra ID token (sent as `Authorization: Bearer`),
            not a key (sent as `api-key`).
        token_provider: asked for an Entra ID token before each request, instead of any `api_key`.
    """

    api_version: str = AZURE_API_VERSION
    deployment: str | None = None
    entra_token: bool = False
    token_provider: TokenProvider | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class ServerSettings:
    """Where requests go. `api_key` never appears in repr, logs or error messages."""

    base_url: str | None
    api_key: str | None = field(default=None, repr=False)
    model: str | None = None
    embedded: bool = False
    azure: AzureSettings | None = None

    @property
    def is_configured(self) -> bool:
        """True when the user chose a server (a key or a base URL); False means "use the embedded model"."""
        return bool(self.base_url or self.api_key)

    @property
    def has_credential(self) -> bool:
        """True when requests can be signed: a key (or token), or an Entra ID token provider."""
        return self.api_key is not None or (self.azure is not None and self.azure.token_provider is not None)

    @property
    def is_openai(self) -> bool:
        """True for OpenAI's own API (no base URL, or api.openai.com) and for Azure OpenAI's, which take the same
        request (`max_completion_tokens`, no grammar)."""
        return self.azure is not None or not self.base_url or "api.openai.com" in self.base_url

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


def first_text(*values: Any) -> str | None:
    """The first of `values` that is text with something in it, stripped; None when there is none."""
    for value in values:
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def resolve_server(options: Mapping[str, Any], environ: Mapping[str, str] | None = None, *,
                   keys: tuple[str, ...] = ("OPENAI_API_KEY",), base_urls: tuple[str, ...] = ("OPENAI_BASE_URL",),
                   models: tuple[str, ...] = ("OPENAI_MODEL",)) -> ServerSettings:
    """Picks the server and model: the node's options first, then the environment.

    Args:
        options: the run's config for the agent, overridden by the node's params and
            inputs (`baseURL`, `apiKey`, `model`).
        environ: the environment; `os.environ` when None.
        keys, base_urls, models: the variables that may hold each, in order (OpenAI's by default).

    Returns:
        The settings; `model` is None when nothing chose one (the caller picks a default).
    """
    env = os.environ if environ is None else environ
    return ServerSettings(
        base_url=first_text(options.get("baseURL"), *(env.get(name) for name in base_urls)),
        api_key=first_text(options.get("apiKey"), *(env.get(name) for name in keys)),
        model=first_text(options.get("model"), *(env.get(name) for name in models)),
    )


MAX_RETRIES = 100
"""The most retries an LLM agent makes of one request (`maxRetries`): more is a node that never gives up."""
DEFAULT_RETRIES = 3
DEFAULT_RETRY_DELAY = 0.5
"""Seconds before the first retry (`retryDelay`); each next one waits about twice as long."""
DEFAULT_TIMEOUT = 300.0
"""Seconds one attempt may take (`timeout`)."""


def retry_count(options: Mapping[str, Any], default: int = DEFAULT_RETRIES) -> int:
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


@dataclass(frozen=True)
class RetryPolicy:
    """How a provider's requests are asked: seconds per attempt, and how often and how soon to ask again.

    Attributes:
        retries: how many times a failed request that may succeed later is asked again (`maxRetries`).
        delay: seconds before the first retry (`retryDelay`); each next one waits about twice as long.
        timeout: seconds one attempt may take (`timeout`).
    """

    retries: int = DEFAULT_RETRIES
    delay: float = DEFAULT_RETRY_DELAY
    timeout: float = DEFAULT_TIMEOUT

    @classmethod
    def of(cls, options: Mapping[str, Any]) -> "RetryPolicy":
        """The node's policy: `maxRetries`, `retryDelay` and `timeout` of its options, else the defaults.

        Raises:
            ValueError: `maxRetries` is not a whole number from 0 to MAX_RETRIES.
            TypeError, ValueError: `retryDelay` or `timeout` is not a number.
        """
        return cls(retry_count(options), float(options.get("retryDelay", DEFAULT_RETRY_DELAY)),
                   float(options.get("timeout") or DEFAULT_TIMEOUT))
