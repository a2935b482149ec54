"""OpenAI-compatible servers as a `Provider`: the `openai` SDK's client, and how its exceptions read.

openAIAgent (and groqAgent through it) and stringEmbeddingsAgent reach their servers through the
official `openai` SDK, its own retries off: the retry loop (retries.py) asks again, after reading
each failure here. A timeout, a connection that failed, 408, 409, 429 and 5xx answers are worth
another attempt (unless the server's `x-should-retry` says not); other refusals fail at once with
the server's own words. `OPENAI` is openAIAgent's provider; it keeps what it learned of the servers
it asked (which refused a grammar: `grammars`).
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from .openai_request import Grammars
from .provider import Failure, Provider, retry_after, worth_retrying
from .settings import DEFAULT_OPENAI_MODEL

if TYPE_CHECKING:
    import openai

__all__ = ["OPENAI", "OpenAIProvider"]


@lru_cache(maxsize=1)
def _ssl_context() -> ssl.SSLContext:
    """One TLS context for every client: building one costs far more than the rest of a client."""
    import httpx

    return httpx.create_ssl_context()


def _server_message(error: Exception) -> str:
    """The server's own words from an error body (`{"error": {"message"}}` or `{"message"}`)."""
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        inner = body.get("error") if isinstance(body.get("error"), dict) else body
        if isinstance(inner.get("message"), str):
            return inner["message"]
    return str(getattr(error, "message", None) or error)


@dataclass(frozen=True)
class OpenAIProvider(Provider):
    """A provider reached through the `openai` SDK; `grammars` knows which of its servers take llama.cpp's grammar."""

    grammars: Grammars = field(default_factory=Grammars, init=False, repr=False, compare=False)

    def read(self, error: Exception) -> Failure | None:
        """The SDK's errors and lost replies; anything else (not the request's failure) is raised as it is."""
        import openai

        if not isinstance(error, openai.APIError):
            return super().read(error)
        status = getattr(error, "status_code", None)
        if isinstance(error, openai.APITimeoutError):
            what = "timed out"
        elif isinstance(error, openai.APIConnectionError):
            what = f"could not connect ({error.__cause__ or error})"
        else:
            what = f"HTTP {status}: {_server_message(error)}" if status else str(error)
        response = getattr(error, "response", None)
        headers = response.headers if response is not None else None
        transient = isinstance(error, openai.APIConnectionError) or worth_retrying(status, headers)
        return Failure(what, transient, retry_after(headers))

    def client(self, base_url: str | None, api_key: str, timeout: float) -> "openai.AsyncOpenAI":
        """A client that asks once per call (the retry loop asks again), each attempt at most `timeout` seconds."""
        import openai

        http_client = openai.DefaultAsyncHttpxClient(verify=_ssl_context())
        return openai.AsyncOpenAI(base_url=base_url, api_key=api_key, max_retries=0, timeout=timeout,
                                  http_client=http_client)


OPENAI = OpenAIProvider(agent="openAIAgent", system="openai", host="api.openai.com", default_model=DEFAULT_OPENAI_MODEL,
                        keys=("OPENAI_API_KEY",), base_urls=("OPENAI_BASE_URL",), models=("OPENAI_MODEL",))
"""openAIAgent's provider: OpenAI's API, or any OpenAI-compatible server (`baseURL`, OPENAI_BASE_URL)."""
