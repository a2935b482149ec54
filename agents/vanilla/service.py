"""GraphAI's vanillaFetchAgent: one HTTP request, over httpx, with the Fetch API's rules (graphrt_agents._http).

The request is described as GraphAI describes it (WHATWG URL normalisation,
`URLSearchParams` query strings, a JSON body), so `params.debug: true` gives the
same description on both runtimes without touching the network.
"""

from __future__ import annotations

from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.jsvalue import UNDEFINED, is_null, is_truthy, js_string, json_stringify

from .._http import (
    LIMITS_CONFIG,
    Limits,
    Response,
    changes_something,
    error_body,
    harmless_again,
    request_method,
    request_url,
    response_json,
    response_text,
    send,
)

__all__ = ["AGENTS", "vanilla_fetch_agent"]

_ALLOWED_METHODS = ("GET", "HEAD", "POST", "OPTIONS", "PUT", "DELETE", "PATCH")
_METHODS_REQUIRING_BODY = ("POST", "PUT", "PATCH")


def _header_object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _check_method(method: str, body: Any) -> None:
    if method not in _ALLOWED_METHODS:
        raise ValueError(f"fetchAgent: invalid method: {method}")
    if method in _METHODS_REQUIRING_BODY and not is_truthy(body):
        raise ValueError(f"fetchAgent: The request body is required for this method: {method}")


def _response_body(response: Response, response_type: Any) -> Any:
    if response_type == "json":
        return response_json(response)
    if response_type == "text":
        return response_text(response)
    raise ValueError(f"Unknown Type! {js_string(response_type)}")


async def vanilla_fetch_agent(ctx: AgentContext) -> Any:
    """Makes an HTTP request and returns the response body (JSON by default).

    `url`, `method`, `queryParams` and `body` come from inputs or params (inputs
    win); headers from both are merged. A non-2xx status raises "HTTP error: N",
    or, with `supressError`, returns `{onError: {message, status, error}}`.
    `debug: true` returns the request description instead of sending it.
    The agent's config bounds the request (`timeout`, `maxBytes`, `maxRedirects`:
    graphrt_agents._http.Limits) and may give an `authorization` header.
    """
    params = ctx.params
    request = {**params, **ctx.inputs}
    url = request.get("url", UNDEFINED)
    if not is_truthy(url):
        raise ValueError("fetchAgent: no url")
    body = request.get("body", UNDEFINED)

    full_url = request_url(url, request.get("queryParams"))
    headers = {**_header_object(params.get("headers")), **_header_object(ctx.inputs.get("headers"))}
    authorization = ctx.config.get("authorization") if ctx.config else None
    if is_truthy(authorization):
        headers["Authorization"] = authorization
    if is_truthy(body):
        headers["Content-Type"] = "application/json"
    method = request_method(request.get("method"), body)
    content = json_stringify(body) if is_truthy(body) else None
    _check_method(method, body)

    if is_truthy(params.get("debug")):
        return {"url": full_url, "method": method, "headers": headers, "body": UNDEFINED if content is None else content}

    response = await send(method, full_url, headers, content, Limits.from_config(ctx.config, "vanillaFetchAgent"))
    response_type = params.get("type")
    if is_null(response_type):
        response_type = "json"
    if not response.ok:
        return _http_error(response, response_type, params.get("supressError"))
    data = _response_body(response, response_type)
    return {"data": data} if params.get("flatResponse") is False else data


def _method_of(ctx: AgentContext) -> str | None:
    """The request's method, or None when nothing is sent (`debug`) or the method is not one."""
    if is_truthy(ctx.params.get("debug")):
        return None
    request = {**ctx.params, **ctx.inputs}
    try:
        return request_method(request.get("method"), request.get("body", UNDEFINED))
    except TypeError:
        return None


def _changes_something(ctx: AgentContext) -> bool:
    """Whether the request may change something on the server (its method), for the run's journal."""
    return changes_something(_method_of(ctx))


def _harmless_again(ctx: AgentContext) -> bool:
    """Whether sending the request again does what sending it once does (its method, or its key)."""
    headers = {**_header_object(ctx.params.get("headers")), **_header_object(ctx.inputs.get("headers"))}
    return harmless_again(_method_of(ctx), headers)


def _http_error(response: Response, response_type: Any, supress_error: Any) -> dict[str, Any]:
    """GraphAI's non-2xx handling: the body is read first (as text if it is not the type's JSON: the status is
    what counts), then returned under `onError` or raised."""
    error = error_body(response, js_string(response_type))
    message = f"HTTP error: {response.status}"
    if is_truthy(supress_error):
        return {"onError": {"message": message, "status": response.status, "error": error}}
    raise RuntimeError(message)


_REQUEST_FIELDS: dict[str, Any] = {
    "url": {"type": "string", "description": "The request URL. Can be provided in either 'inputs' or 'params'."},
    "method": {
        "type": "string",
        "description": "The HTTP method to use (GET, POST, PUT, etc.). "
        "Defaults to GET if not specified and no body is provided; otherwise POST.",
    },
    "headers": {
        "type": "object",
        "description": "Optional HTTP headers to include in the request. Values from both inputs and params are merged.",
    },
    "queryParams": {"type": "object", "description": "Optional query parameters to append to the URL."},
    "body": {
        "description": "Optional request body to send with POST, PUT, or PATCH methods.",
        "anyOf": [{"type": "string"}, {"type": "object"}],
    },
}

_PARAMS_FIELDS: dict[str, Any] = {
    "url": {"type": "string", "description": "The request URL (overridden if also specified in inputs)."},
    "method": {"type": "string", "description": "The HTTP method (overridden if also specified in inputs)."},
    "headers": {"type": "object", "description": "Additional headers. Merged with inputs.headers."},
    "queryParams": {"type": "object", "description": "Query parameters to append to the URL."},
    "body": {
        "description": "Request body to be sent, used with POST/PUT/PATCH.",
        "anyOf": [{"type": "string"}, {"type": "object"}],
    },
    "debug": {
        "type": "boolean",
        "description": "If true, returns the prepared request details instead of performing the actual fetch.",
    },
    "supressError": {
        "type": "boolean",
        "description": "If true, suppresses thrown errors and returns the error response instead.",
    },
    "flatResponse": {
        "type": "boolean",
        "description": "If true, returns the raw response. If false, wraps the response in an object with a 'data' key. "
        "Default is false.",
    },
    "type": {
        "type": "string",
        "enum": ["json", "text"],
        "description": "Response type to parse. Either 'json' or 'text'. Defaults to 'json'.",
    },
}

_OUTPUT_SCHEMA: dict[str, Any] = {
    "description": "Returns either the HTTP response body or a debug object. "
    "If an error occurs and 'supressError' is true, returns an object with an 'onError' key.",
    "anyOf": [
        {
            "type": "object",
            "properties": {
                "onError": {
                    "type": "object",
                    "properties": {"message": {"type": "string"}, "status": {"type": "integer"}, "error": {}},
                    "required": ["message", "status", "error"],
                },
            },
            "required": ["onError"],
            "additionalProperties": True,
        },
        {
            "type": "object",
            "description": "Debug information returned when 'debug' is true.",
            "properties": {"method": {"type": "string"}, "url": {"type": "string"}, "headers": {"type": "object"}, "body": {}},
            "required": ["method", "url", "headers"],
        },
        {},
        {
            "type": "object",
            "description": "When 'flatResponse' is false, the response is wrapped as { data: ... }.",
            "properties": {"data": {}},
            "required": ["data"],
            "additionalProperties": True,
        },
    ],
}

_JSON = {"Content-Type": "application/json"}
_FOO_BAR = '{"foo":"bar"}'


def _debug_result(method: str, url: str, headers: dict[str, str], body: Any = UNDEFINED) -> dict[str, Any]:
    return {"method": method, "url": url, "headers": headers, "body": body}


_SAMPLES = (
    Sample(
        inputs={"url": "https://example.com", "queryParams": {"foo": "bar"}, "headers": {"x-myHeader": "secret"}},
        params={"debug": True},
        result=_debug_result("GET", "https://example.com/?foo=bar", {"x-myHeader": "secret"}),
    ),
    Sample(
        inputs={"url": "https://example.com", "body": {"foo": "bar"}},
        params={"debug": True},
        result=_debug_result("POST", "https://example.com/", _JSON, _FOO_BAR),
    ),
    Sample(
        inputs={"url": "https://example.com", "body": {"foo": "bar"}, "method": "PUT"},
        params={"debug": True},
        result=_debug_result("PUT", "https://example.com/", _JSON, _FOO_BAR),
    ),
    Sample(
        inputs={"url": "https://example.com", "method": "options"},
        params={"debug": True},
        result=_debug_result("OPTIONS", "https://example.com/", {}),
    ),
    Sample(
        inputs={},
        params={"url": "https://example.com", "body": {"foo": "bar"}, "method": "PUT", "debug": True},
        result=_debug_result("PUT", "https://example.com/", _JSON, _FOO_BAR),
    ),
    Sample(
        inputs={"method": "DELETE", "headers": {"authentication": "bearer XXX"}},
        params={
            "url": "https://example.com",
            "body": {"foo": "bar"},
            "method": "PUT",
            "headers": {"Content-Type": "application/json"},
            "debug": True,
        },
        result=_debug_result("DELETE", "https://example.com/", {**_JSON, "authentication": "bearer XXX"}, _FOO_BAR),
    ),
)

vanilla_fetch_agent_info = AgentInfo(
    name="vanillaFetchAgent",
    outside=True, side_effects=_changes_something, idempotent=_harmless_again,
    func=vanilla_fetch_agent,
    description="Retrieves JSON data from the specified URL",
    inputs={"type": "object", "properties": _REQUEST_FIELDS, "required": [], "additionalProperties": False},
    params={"type": "object", "properties": _PARAMS_FIELDS, "required": [], "additionalProperties": False},
    output=_OUTPUT_SCHEMA,
    config={"type": "object", "properties": {
        "authorization": {"type": "string", "description": "An Authorization header for every request"}, **LIMITS_CONFIG}},
    samples=_SAMPLES,
    category=("service",),
    author="Receptron team",
    repository="https://github.com/receptron/graphai",
    source="https://github.com/receptron/graphai/blob/main/agents/vanilla_agents/src/service_agents/vanilla_fetch_agent.ts",
    package="@graphai/vanilla",
    license="MIT",
)

AGENTS: list[AgentInfo] = [vanilla_fetch_agent_info]
