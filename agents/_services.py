"""What the agents of outside services share: where their key and base URL come from, and GraphAI's `supressError`.

GraphAI's service agents take their key from `params.apiKey`, then the agent's config
(`config: {braveSearchAgent: {apiKey: ...}}`), then an environment variable; graphrt's
take their base URL the same way (`params.baseURL`, then the config's `baseURL`, then
the service's own), so that a graph can be pointed at another server (a proxy, a
stand-in on 127.0.0.1). The keys never appear in results or errors: a request's
description (`params.debug`) shows MASK in their place, and _http names URLs without
their query.
"""

from __future__ import annotations

import os
from typing import Any

from graphrt.authoring.agent_info import AgentContext
from graphrt.base.jsvalue import UNDEFINED, is_null, is_truthy, js_string

from ._http import LIMITS_CONFIG

__all__ = ["credential", "base_url", "SERVICE_CONFIG", "service_params", "error_text", "input_or_param"]


def credential(ctx: AgentContext, env: str) -> str | None:
    """The service's key: `params.apiKey`, the agent's config `apiKey`, or the environment variable `env`."""
    for value in (ctx.params.get("apiKey"), (ctx.config or {}).get("apiKey"), os.environ.get(env)):
        if is_truthy(value):
            return js_string(value)
    return None


def base_url(ctx: AgentContext, default: str) -> str:
    """Where the service is: `params.baseURL`, the agent's config `baseURL`, or `default`; without a trailing /."""
    for value in (ctx.params.get("baseURL"), (ctx.config or {}).get("baseURL")):
        if is_truthy(value):
            return js_string(value).rstrip("/")
    return default.rstrip("/")


def service_params(key_about: str, default_url: str) -> dict[str, Any]:
    """The params schema's properties every service agent takes: apiKey, baseURL, debug, supressError."""
    return {
        "apiKey": {"type": "string", "description": key_about},
        "baseURL": {"type": "string", "description": f"the service's address (default {default_url})"},
        "supressError": {"type": "boolean",
                         "description": "return a failure as {onError: {message, ...}} instead of failing the node"},
    }


SERVICE_CONFIG: dict[str, Any] = {"type": "object", "properties": {
    "apiKey": {"type": "string", "description": "the service's key, when params do not give one"},
    "baseURL": {"type": "string", "description": "the service's address, when params do not give one"},
    **LIMITS_CONFIG,
}}
"""The agent's config (`config: {agentName: {...}}`): key, base URL and the request limits of _http."""


def error_text(error: BaseException) -> str:
    """`error.toString()` of GraphAI's onError: `Name: message`."""
    name = "TypeError" if isinstance(error, TypeError) else "Error"
    return f"{name}: {error}"


def input_or_param(ctx: AgentContext, key: str) -> Any:
    """`namedInputs[key] ?? params[key]`, as GraphAI's agents take a value from either."""
    value = ctx.inputs.get(key, UNDEFINED)
    return ctx.params.get(key, UNDEFINED) if is_null(value) else value
