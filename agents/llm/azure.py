"""Azure OpenAI: when an OpenAI provider's server is Azure's, and how requests to it are signed.

GraphAI's openAIAgent asks Azure OpenAI when `baseURL`'s host ends in `.openai.azure.com`, with
`apiVersion` (default "2025-04-01-preview"), and its `model` names the deployment. graphrt does
the same through the openai SDK's AsyncAzureOpenAI (`OpenAIProvider.client`), and lets a node
say so itself: `azure: true` (or false) in params or config decides first, for an endpoint the
rule does not know (a gateway, a proxy, a server on 127.0.0.1). Without a base URL from the node
or OPENAI_BASE_URL, AZURE_OPENAI_ENDPOINT (the SDK's variable) is one, and Azure's.

Azure takes one credential: `apiKey` (sent as `api-key`), a Microsoft Entra ID token
(`azureADToken`, sent as `Authorization: Bearer`), or `azureADTokenProvider`, a function the
Python API puts in the run's config that returns a fresh token before each request. Without
one: GRAPHRT_AZURE_AD_TOKEN_PROVIDER, a function named `module:attribute` for the command line
(never a graph's), then the SDK's AZURE_OPENAI_AD_TOKEN and AZURE_OPENAI_API_KEY. OPENAI_API_KEY
is OpenAI's and never goes to Azure. `deployment` pins the deployment when its name is not the
model's; the api-version is `apiVersion`, else OPENAI_API_VERSION, else GraphAI's default.

    # tokens.py, on PYTHONPATH: azure-identity's provider refreshes the token before it expires
    from azure.identity import DefaultAzureCredential, get_bearer_token_provider
    entra = get_bearer_token_provider(DefaultAzureCredential(), "https://cognitiveservices.azure.com/.default")

    GRAPHRT_AZURE_AD_TOKEN_PROVIDER=tokens:entra AZURE_OPENAI_ENDPOINT=https://NAME.openai.azure.com graphrt run g.yaml
"""

from __future__ import annotations

import importlib
from typing import Any, Mapping
from urllib.parse import urlsplit

from graphrt.base.jsvalue import is_null
from graphrt.base.secrets import hide_credentials

from .errors import LLMRequestError
from .settings import AZURE_API_VERSION, AzureSettings, ServerSettings, first_text

__all__ = ["AZURE_ENVIRONMENT", "AZURE_HOST_SUFFIX", "is_azure_endpoint", "with_azure"]

AZURE_HOST_SUFFIX = ".openai.azure.com"
_ENDPOINT_ENV = "AZURE_OPENAI_ENDPOINT"
_KEY_ENV = "AZURE_OPENAI_API_KEY"
_TOKEN_ENV = "AZURE_OPENAI_AD_TOKEN"
_VERSION_ENV = "OPENAI_API_VERSION"
_PROVIDER_ENV = "GRAPHRT_AZURE_AD_TOKEN_PROVIDER"
AZURE_ENVIRONMENT = (_ENDPOINT_ENV, _KEY_ENV, _TOKEN_ENV, _PROVIDER_ENV, _VERSION_ENV)
"""The environment variables an Azure OpenAI server is found and signed in with (the openai SDK's)."""
_CREDENTIALS = ("apiKey", "azureADToken", "azureADTokenProvider")


def is_azure_endpoint(url: str | None) -> bool:
    """GraphAI's rule: a URL whose host ends in `.openai.azure.com` is Azure OpenAI's (a URL that does not parse is
    not)."""
    try:
        host = urlsplit(url or "").hostname
    except ValueError:
        return False
    return bool(host) and host.endswith(AZURE_HOST_SUFFIX)


def _text(agent: str, options: Mapping[str, Any], name: str) -> str | None:
    """Option `name` as stripped text; None when it is not set.

    Raises:
        LLMRequestError: it is set to something else than text.
    """
    value = options.get(name)
    if is_null(value):
        return None
    if not isinstance(value, str):
        raise LLMRequestError(f"{agent}: {name} must be text, got {type(value).__name__}", agent_id=agent)
    return value.strip() or None


def _chosen(agent: str, options: Mapping[str, Any]) -> bool | None:
    """The node's `azure`: True or False, None when it does not say.

    Raises:
        LLMRequestError: it is neither true nor false.
    """
    value = options.get("azure")
    if is_null(value):
        return None
    if not isinstance(value, bool):
        raise LLMRequestError(f"{agent}: azure must be true or false, got {type(value).__name__}", agent_id=agent)
    return value


def _named_function(agent: str, name: str) -> Any:
    """The function GRAPHRT_AZURE_AD_TOKEN_PROVIDER names (`module:attribute`), imported.

    Raises:
        LLMRequestError: the name is not of that form, or names nothing that can be called.
    """
    module, _, attribute = name.partition(":")
    if not module or not attribute:
        raise LLMRequestError(f"{agent}: {_PROVIDER_ENV} must name a function as module:attribute, got {name!r}",
                              agent_id=agent)
    try:
        found = importlib.import_module(module)
        for part in attribute.split("."):
            found = getattr(found, part)
    except Exception as error:  # the user's module may fail in any way as it is imported
        raise LLMRequestError(f"{agent}: {_PROVIDER_ENV}={name}: cannot import it ({type(error).__name__}: {error})",
                              agent_id=agent) from error
    if not callable(found):
        raise LLMRequestError(f"{agent}: {_PROVIDER_ENV}={name} is {type(found).__name__}, not a function",
                              agent_id=agent)
    return found


def _credential(agent: str, options: Mapping[str, Any], environ: Mapping[str, str],
                endpoint: str) -> tuple[str | None, dict[str, Any]]:
    """The key or token requests are signed with, and how (AzureSettings' `entra_token`, `token_provider`).

    Raises:
        LLMRequestError: more than one credential given, one of the wrong kind, or none at all.
    """
    given = [name for name in _CREDENTIALS if not is_null(options.get(name))]
    if len(given) > 1:
        raise LLMRequestError(f"{agent}: Azure OpenAI takes one credential, not {' and '.join(given)}", agent_id=agent)
    if given == ["azureADTokenProvider"]:
        provider = options["azureADTokenProvider"]
        if not callable(provider):
            raise LLMRequestError(f"{agent}: azureADTokenProvider must be a function that returns a Microsoft Entra "
                                  f"ID token (given in the run's config from Python), got {type(provider).__name__}",
                                  agent_id=agent)
        return None, {"token_provider": provider}
    if given == ["azureADToken"]:
        return _text(agent, options, "azureADToken"), {"entra_token": True}
    if given == ["apiKey"]:
        return _text(agent, options, "apiKey"), {}
    named = first_text(environ.get(_PROVIDER_ENV))
    if named is not None:
        return None, {"token_provider": _named_function(agent, named)}
    token = first_text(environ.get(_TOKEN_ENV))
    if token is not None:
        return token, {"entra_token": True}
    key = first_text(environ.get(_KEY_ENV))
    if key is not None:
        return key, {}
    raise LLMRequestError(hide_credentials(
        f"{agent}: {endpoint} is Azure OpenAI, which needs a credential: apiKey, azureADToken or azureADTokenProvider "
        f"in params or config, or {_KEY_ENV}, {_TOKEN_ENV} or {_PROVIDER_ENV}"), agent_id=agent)


def with_azure(agent: str, found: ServerSettings, options: Mapping[str, Any],
               environ: Mapping[str, str]) -> ServerSettings:
    """`found` (the node's server as an OpenAI provider reads it), as Azure OpenAI's when it is one.

    Args:
        agent: the agent asking, for errors.
        found: the server, key and model from the node's options and the OpenAI variables.
        options: the node's options (`azure`, `apiVersion`, `deployment`, the credentials).
        environ: the environment.

    Returns:
        `found` unchanged when the server is not Azure's; else its endpoint, credential and AzureSettings.

    Raises:
        LLMRequestError: an Azure server without an endpoint or a credential, or an option of the wrong kind.
    """
    chosen = _chosen(agent, options)
    endpoint = found.base_url
    if endpoint is None and chosen is not False:
        endpoint = first_text(environ.get(_ENDPOINT_ENV))
        chosen = True if endpoint is not None else chosen
    if not (chosen if chosen is not None else is_azure_endpoint(endpoint)):
        return found
    if endpoint is None:
        raise LLMRequestError(f"{agent}: Azure OpenAI needs its endpoint: baseURL in params or config, or "
                              f"{_ENDPOINT_ENV}", agent_id=agent)
    api_key, signing = _credential(agent, options, environ, endpoint)
    version = _text(agent, options, "apiVersion") or first_text(environ.get(_VERSION_ENV)) or AZURE_API_VERSION
    azure = AzureSettings(api_version=version, deployment=_text(agent, options, "deployment"), **signing)
    return ServerSettings(endpoint, api_key, found.model, azure=azure)
