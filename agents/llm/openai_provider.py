"""OpenAI-compatible servers as a `Provider`: the `openai` SDK's client, and how its exceptions read.

openAIAgent (and groqAgent through it) and stringEmbeddingsAgent reach their servers through the
official `openai` SDK, its own retries off: the retry loop (retries.py) asks again, after reading
each failure here. A timeout, a connection that failed, 408, 409, 429 and 5xx answers are worth
another attempt (unless the server's `x-should-retry` says not); other refusals fail at once with
the server's own words. A server on Azure OpenAI (azure.py says when) gets the SDK's
AsyncAzureOpenAI: the same requests, to the deployment's path with Azure's `api-version` and
signing. `OPENAI` is openAIAgent's provider; it keeps what it learned of the servers it asked
(which refused a grammar: `grammars`).
"""

from __future__ import annotations

import inspect
import os
import ssl
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Mapping

from .azure import with_azure
from .errors import LLMRequestError
from .openai_request import Grammars
from .provider import Failure, Provider, retry_after, worth_retrying
from .settings import DEFAULT_OPENAI_MODEL, ServerSettings, TokenProvider

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

    def settings(self, options: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> ServerSettings:
        """The node's server as `Provider.settings` finds it, as Azure OpenAI's when it is one (azure.py).

        Raises:
            LLMRequestError: an Azure server without an endpoint or a credential, or an Azure option of the wrong kind.
        """
        env = os.environ if environ is None else environ
        return with_azure(self.agent, super().settings(options, env), options, env)

    def client(self, server: ServerSettings, timeout: float) -> "openai.AsyncOpenAI":
        """A client for `server` (AsyncAzureOpenAI for Azure's) that asks once per call (the retry loop asks again),
        each attempt at most `timeout` seconds."""
        import openai

        http_client = openai.DefaultAsyncHttpxClient(verify=_ssl_context())
        azure = server.azure
        if azure is None:
            return openai.AsyncOpenAI(base_url=server.base_url, api_key=server.client_key(), max_retries=0,
                                      timeout=timeout, http_client=http_client)
        if azure.token_provider is not None:
            signing: dict[str, Any] = {"azure_ad_token_provider": self._token_source(azure.token_provider)}
        else:
            signing = {"azure_ad_token" if azure.entra_token else "api_key": server.api_key}
        return openai.AsyncAzureOpenAI(azure_endpoint=server.base_url or "", azure_deployment=azure.deployment,
                                       api_version=azure.api_version, max_retries=0, timeout=timeout,
                                       http_client=http_client, **signing)

    def _token_source(self, provider: TokenProvider) -> TokenProvider:
        """`provider` as the SDK calls it before each request, its failure said as this agent's error."""

        async def token() -> str:
            try:
                value = provider()
                if inspect.isawaitable(value):
                    value = await value
            except Exception as error:
                raise LLMRequestError(f"{self.agent}: azureADTokenProvider failed: {type(error).__name__}: {error}",
                                      agent_id=self.agent) from error
            if not isinstance(value, str) or not value:
                raise LLMRequestError(f"{self.agent}: azureADTokenProvider returned {type(value).__name__}, not a "
                                      "token", agent_id=self.agent)
            return value

        return token


OPENAI = OpenAIProvider(agent="openAIAgent", system="openai", host="api.openai.com", default_model=DEFAULT_OPENAI_MODEL,
                        keys=("OPENAI_API_KEY",), base_urls=("OPENAI_BASE_URL",), models=("OPENAI_MODEL",))
"""openAIAgent's provider: OpenAI's API, any OpenAI-compatible server (`baseURL`, OPENAI_BASE_URL), or Azure OpenAI."""
