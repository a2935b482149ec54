"""GraphAI's fetchAgent (@graphai/service_agents): one HTTP request from the node's inputs, JSON, text or XML back.

Unlike vanillaFetchAgent it reads the request from `inputs` only, checks no
method, and parses XML (`params.type: xml`, as xml2js does: service/xml.py).
A non-2xx answer raises "HTTP error: N", or with `params.supressError` is
returned as GraphAI returns it: `{onError: {message, status, error}}`, `error`
being the body (parsed as JSON for `type: json`, as text otherwise, and as text
when it is not JSON: a 404 page in HTML still says 404). The request is bounded
by the agent's config (`timeout` for the whole request, `maxBytes`,
`maxRedirects`: see graphrt_agents._http).

A run journals each request (graphrt/engine/journal.py): its reply is taken from the journal on
resume and in a replay. GET, HEAD and OPTIONS change nothing; any other method may, so a request
that started and left no reply is sent again only when that is harmless: PUT and DELETE, or a
request that carries an `Idempotency-Key` (`params.idempotencyKey: true` sends the call's own key,
the same whenever the run makes that call again; or give the header yourself).
"""

from __future__ import annotations

from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.jsvalue import UNDEFINED, is_null, is_truthy, js_string, json_stringify

from .._http import (
    IDEMPOTENCY_HEADER,
    LIMITS_CONFIG,
    Limits,
    Response,
    changes_something,
    error_body,
    harmless_again,
    has_key_header,
    request_method,
    request_url,
    response_json,
    response_text,
    send,
)
from .xml import parse_xml

__all__ = ["AGENTS", "fetch_agent"]

# Methods fetch refuses to send (the Fetch standard's forbidden methods); any other token is sent as is.
_FORBIDDEN_METHODS = ("CONNECT", "TRACE", "TRACK")


def _check_method(method: str) -> None:
    if method in _FORBIDDEN_METHODS or not method.isascii() or not method.replace("-", "").isalnum():
        raise TypeError(f"'{method}' HTTP method is unsupported.")


def _response_body(response: Response, response_type: str) -> Any:
    if response_type == "json":
        return response_json(response)
    if response_type == "xml":
        return parse_xml(response_text(response))
    if response_type == "text":
        return response_text(response)
    raise ValueError(f"Unknown Type! {response_type}")


async def fetch_agent(ctx: AgentContext) -> Any:
    """Fetches `inputs.url` and returns the body: parsed JSON by default, text or XML (as JSON) by `params.type`.

    `inputs.queryParams` replace the URL's query, `inputs.headers` are sent, and
    a truthy `inputs.body` is sent as JSON (POST unless `inputs.method` says
    otherwise). `params.debug: true` returns the request instead of sending it.

    Raises:
        TypeError: an invalid URL or method; "fetch failed: ..." when there is no answer within the limits.
        RuntimeError: "HTTP error: N" for a non-2xx answer (unless `params.supressError`).
        ValueError: a body that is not what `params.type` says (JSON, XML), or an unknown type.
    """
    inputs, params = ctx.inputs, ctx.params
    body = inputs.get("body", UNDEFINED)
    url = request_url(inputs.get("url", UNDEFINED), inputs.get("queryParams"))
    headers = dict(inputs["headers"]) if isinstance(inputs.get("headers"), dict) else {}
    if is_truthy(body):
        headers["Content-Type"] = "application/json"
    if is_truthy(params.get("idempotencyKey")) and ctx.idempotency_key and not has_key_header(headers):
        headers[IDEMPOTENCY_HEADER] = ctx.idempotency_key
    method = request_method(inputs.get("method"), body)
    content = json_stringify(body) if is_truthy(body) else None

    if is_truthy(params.get("debug")):
        return {"url": url, "method": method, "headers": headers, "body": UNDEFINED if content is None else content}

    _check_method(method)
    response = await send(method, url, headers, content, Limits.from_config(ctx.config, "fetchAgent"))
    response_type = "json" if is_null(params.get("type")) else js_string(params.get("type"))
    if not response.ok:
        error = error_body(response, response_type)
        message = f"HTTP error: {response.status}"
        if is_truthy(params.get("supressError")):
            return {"onError": {"message": message, "status": response.status, "error": error}}
        raise RuntimeError(message)
    return _response_body(response, response_type)


def _method_of(ctx: AgentContext) -> str | None:
    """The request's method, or None when nothing is sent (`debug`) or the method is not one."""
    if is_truthy(ctx.params.get("debug")):
        return None
    try:
        return request_method(ctx.inputs.get("method"), ctx.inputs.get("body", UNDEFINED))
    except TypeError:
        return None


def _changes_something(ctx: AgentContext) -> bool:
    """Whether the request may change something on the server (its method)."""
    return changes_something(_method_of(ctx))


def _harmless_again(ctx: AgentContext) -> bool:
    """Whether sending the request again does what sending it once does: its method, or its key."""
    return is_truthy(ctx.params.get("idempotencyKey")) or harmless_again(_method_of(ctx), ctx.inputs.get("headers"))


def _debug(method: str, url: str, headers: dict[str, str], body: Any = UNDEFINED) -> dict[str, Any]:
    return {"method": method, "url": url, "headers": headers, "body": body}


_SAMPLES = (  # GraphAI's samples, which describe the request (params.debug) and send nothing
    Sample(
        inputs={"url": "https://www.google.com", "queryParams": {"foo": "bar"}, "headers": {"x-myHeader": "secret"}},
        params={"debug": True},
        result=_debug("GET", "https://www.google.com/?foo=bar", {"x-myHeader": "secret"}),
    ),
    Sample(
        inputs={"url": "https://www.google.com", "queryParams": {"foo": "bar"}, "headers": {"x-myHeader": "secret"},
                "method": "GET"},
        params={"debug": True},
        result=_debug("GET", "https://www.google.com/?foo=bar", {"x-myHeader": "secret"}),
    ),
    Sample(
        inputs={"url": "https://www.google.com", "body": {"foo": "bar"}},
        params={"debug": True},
        result=_debug("POST", "https://www.google.com/", {"Content-Type": "application/json"}, '{"foo":"bar"}'),
    ),
)

fetch_agent_info = AgentInfo(
    name="fetchAgent",
    func=fetch_agent,
    description="Retrieves JSON data from the specified URL",
    inputs={
        "type": "object",
        "properties": {
            "url": {"type": "string", "description": "baseurl"},
            "method": {"type": "string", "description": "HTTP method"},
            "headers": {"type": "object", "description": "HTTP headers"},
            "queryParams": {"type": "object", "description": "Query parameters"},
            "body": {"anyOf": [{"type": "string"}, {"type": "object"}], "description": "body"},
        },
        "required": ["url"],
    },
    params={
        "type": "object",
        "properties": {
            "type": {"type": "string", "enum": ["json", "text", "xml"],
                     "description": "How to read the response: JSON (the default), text, or XML turned into JSON"},
            "supressError": {"type": "boolean",
                             "description": "Return a non-2xx answer as {onError: {message, status, error}} instead of failing"},
            "debug": {"type": "boolean", "description": "Return the request instead of sending it"},
            "idempotencyKey": {"type": "boolean", "description": "Send the call's idempotency key as the "
                               "Idempotency-Key header (the same whenever the run makes this call again)"},
        },
    },
    # GraphAI says {type: array}; the result is whatever the body holds, or onError, or the request (debug)
    output={"description": "The response body (parsed JSON, text, or XML as JSON); {onError: {message, status, error}} "
                           "for a non-2xx answer with supressError; the request with debug"},
    config={"type": "object", "properties": LIMITS_CONFIG},
    samples=_SAMPLES,
    category=("service",),
    author="Receptron",
    repository="https://github.com/receptron/graphai",
    source="https://github.com/receptron/graphai/blob/main/agents/service_agents/src/fetch_agent.ts",
    package="@graphai/service_agents",
    license="MIT",
    outside=True,
    side_effects=_changes_something,
    idempotent=_harmless_again,
)

AGENTS: list[AgentInfo] = [fetch_agent_info]
