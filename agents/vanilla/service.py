"""GraphAI's fetch agent: one HTTP request, over httpx, with the Fetch API's rules.

The request is described as GraphAI describes it (WHATWG URL normalisation,
`URLSearchParams` query strings, a JSON body), so `params.debug: true` gives the
same description on both runtimes without touching the network.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, quote, quote_plus, urlsplit

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.jsvalue import (
    UNDEFINED,
    is_null,
    is_truthy,
    js_string,
    json_stringify,
)

if TYPE_CHECKING:
    import httpx  # imported when a request is sent: importing httpx costs ~0.1 s at startup

__all__ = ["AGENTS", "vanilla_fetch_agent"]

_ALLOWED_METHODS = ("GET", "HEAD", "POST", "OPTIONS", "PUT", "DELETE", "PATCH")
_METHODS_REQUIRING_BODY = ("POST", "PUT", "PATCH")
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21}
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*")
_PRINTABLE = "".join(chr(code) for code in range(0x21, 0x7F))


def _keep_except(excluded: str) -> str:
    """The printable ASCII characters a WHATWG percent-encode set leaves alone (plus `%`)."""
    return "".join(char for char in _PRINTABLE if char not in excluded)


_PATH_SAFE = _keep_except('"#<>?`{}')
_QUERY_SAFE = _keep_except("\"#<>'")
_FRAGMENT_SAFE = _keep_except('"<>`')


# --- URL -------------------------------------------------------------------------------


def _host(parts: Any) -> str:
    """The authority as WHATWG serialises it: host lowercased, default port dropped."""
    host = parts.hostname or ""
    try:
        host = host.encode("idna").decode("ascii")
    except UnicodeError:
        pass
    if ":" in host:
        host = f"[{host}]"
    userinfo, _, _ = parts.netloc.rpartition("@")
    try:
        port = parts.port
    except ValueError as exc:
        raise TypeError("Invalid URL") from exc
    if port is not None and port != _DEFAULT_PORTS.get(parts.scheme.lower()):
        host = f"{host}:{port}"
    return f"{userinfo}@{host}" if userinfo else host


def _normalize_url(url: Any) -> tuple[str, str, str]:
    """Parses a URL as `new URL(url)` does; returns (base without query, query or "", "#fragment" or "").

    Raises:
        TypeError: "Invalid URL", as JavaScript does, when there is no scheme or no host.
    """
    text = re.sub(r"[\t\n\r]", "", js_string(url)).strip("".join(map(chr, range(0x21))))
    try:
        parts = urlsplit(text)
    except ValueError as exc:
        raise TypeError("Invalid URL") from exc
    if not parts.scheme or not _SCHEME.fullmatch(parts.scheme):
        raise TypeError("Invalid URL")
    scheme = parts.scheme.lower()
    fragment = f"#{quote(parts.fragment, safe=_FRAGMENT_SAFE)}" if "#" in text else ""
    if scheme not in _DEFAULT_PORTS:
        base, query = text.split("#", 1)[0], parts.query
        return base.split("?", 1)[0], query, fragment
    if not parts.hostname:
        raise TypeError("Invalid URL")
    path = quote(parts.path, safe=_PATH_SAFE) or "/"
    query = quote(parts.query, safe=_QUERY_SAFE)
    return f"{scheme}://{_host(parts)}{path}", query, fragment


def _form_encode(text: str) -> str:
    """`application/x-www-form-urlencoded` as URLSearchParams writes it (`*` kept, `~` encoded)."""
    return quote_plus(text, safe="*").replace("~", "%7E")


def _search_pairs(query_params: Any) -> list[tuple[str, str]]:
    """The name/value pairs `new URLSearchParams(queryParams)` holds."""
    if isinstance(query_params, dict):
        return [(key, js_string(value)) for key, value in query_params.items() if value is not UNDEFINED]
    if isinstance(query_params, list):
        pairs = []
        for pair in query_params:
            if not isinstance(pair, list) or len(pair) != 2:
                raise TypeError("Failed to construct 'URLSearchParams': Invalid sequence")
            pairs.append((js_string(pair[0]), js_string(pair[1])))
        return pairs
    return parse_qsl(js_string(query_params).removeprefix("?"), keep_blank_values=True)


def _query_string(query_params: Any) -> str:
    """`new URLSearchParams(queryParams).toString()`."""
    return "&".join(f"{_form_encode(name)}={_form_encode(value)}" for name, value in _search_pairs(query_params))


def _request_url(url: Any, query_params: Any) -> str:
    """The URL to fetch; truthy `queryParams` replace the URL's own query (even with nothing)."""
    base, query, fragment = _normalize_url(url)
    if is_truthy(query_params):
        query = _query_string(query_params)
    return f"{base}?{query}{fragment}" if query else f"{base}{fragment}"


# --- request ---------------------------------------------------------------------------


def _request_method(method: Any, body: Any) -> str:
    """The method in upper case; without one, POST when there is a body, else GET."""
    if not is_truthy(method):
        return "POST" if is_truthy(body) else "GET"
    if not isinstance(method, str):
        raise TypeError("method.toUpperCase is not a function")
    return method.upper()


def _header_object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _wire_headers(headers: dict[str, Any]) -> list[tuple[str, str]]:
    """The headers as `new Headers(...)` sends them: values as strings, same names (any case) joined."""
    joined: dict[str, tuple[str, str]] = {}
    for name, value in headers.items():
        text = js_string(value).strip(" \t\r\n")
        key = name.lower()
        joined[key] = (joined[key][0], f"{joined[key][1]}, {text}") if key in joined else (name, text)
    return list(joined.values())


def _check_method(method: str, body: Any) -> None:
    if method not in _ALLOWED_METHODS:
        raise ValueError(f"fetchAgent: invalid method: {method}")
    if method in _METHODS_REQUIRING_BODY and not is_truthy(body):
        raise ValueError(f"fetchAgent: The request body is required for this method: {method}")


# --- response --------------------------------------------------------------------------


def _reject_constant(name: str) -> Any:
    raise ValueError(f"Unexpected token '{name[0]}' in JSON")


def _response_text(response: httpx.Response) -> str:
    """`response.text()`: the body as UTF-8 whatever the charset, BOM removed, bad bytes replaced."""
    return response.content.decode("utf-8-sig", errors="replace")


def _response_json(response: httpx.Response) -> Any:
    """`response.json()`: strict JSON (no NaN or Infinity); an empty body is an error too."""
    text = _response_text(response)
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise ValueError(f"the response is not valid JSON: {exc}") from exc


def _response_body(response: httpx.Response, response_type: Any) -> Any:
    if response_type == "json":
        return _response_json(response)
    if response_type == "text":
        return _response_text(response)
    raise ValueError(f"Unknown Type! {js_string(response_type)}")


async def _send(method: str, url: str, headers: dict[str, Any], content: str | None) -> httpx.Response:
    """Sends the request like `fetch`: redirects followed, no client-side timeout.

    Raises:
        TypeError: "fetch failed" when the request cannot be made (the httpx error is the cause).
    """
    if content is not None and method in ("GET", "HEAD"):
        raise TypeError("Request with GET/HEAD method cannot have body.")
    import httpx

    try:
        async with httpx.AsyncClient(follow_redirects=True, timeout=None) as client:
            return await client.request(
                method, url, headers=_wire_headers(headers), content=None if content is None else content.encode()
            )
    except httpx.HTTPError as exc:
        raise TypeError("fetch failed") from exc


async def vanilla_fetch_agent(ctx: AgentContext) -> Any:
    """Makes an HTTP request and returns the response body (JSON by default).

    `url`, `method`, `queryParams` and `body` come from inputs or params (inputs
    win); headers from both are merged. A non-2xx status raises "HTTP error: N",
    or, with `supressError`, returns `{onError: {message, status, error}}`.
    `debug: true` returns the request description instead of sending it.
    """
    params = ctx.params
    request = {**params, **ctx.inputs}
    url = request.get("url", UNDEFINED)
    if not is_truthy(url):
        raise ValueError("fetchAgent: no url")
    body = request.get("body", UNDEFINED)

    full_url = _request_url(url, request.get("queryParams"))
    headers = {**_header_object(params.get("headers")), **_header_object(ctx.inputs.get("headers"))}
    authorization = ctx.config.get("authorization") if ctx.config else None
    if is_truthy(authorization):
        headers["Authorization"] = authorization
    if is_truthy(body):
        headers["Content-Type"] = "application/json"
    method = _request_method(request.get("method"), body)
    content = json_stringify(body) if is_truthy(body) else None
    _check_method(method, body)

    if is_truthy(params.get("debug")):
        return {"url": full_url, "method": method, "headers": headers, "body": UNDEFINED if content is None else content}

    response = await _send(method, full_url, headers, content)
    response_type = params.get("type")
    if is_null(response_type):
        response_type = "json"
    if not response.is_success:
        return _http_error(response, response_type, params.get("supressError"))
    data = _response_body(response, response_type)
    return {"data": data} if params.get("flatResponse") is False else data


def _http_error(response: httpx.Response, response_type: Any, supress_error: Any) -> dict[str, Any]:
    """GraphAI's non-2xx handling: the body is read first, then returned under `onError` or raised."""
    error = _response_json(response) if response_type == "json" else _response_text(response)
    message = f"HTTP error: {response.status_code}"
    if is_truthy(supress_error):
        return {"onError": {"message": message, "status": response.status_code, "error": error}}
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
    func=vanilla_fetch_agent,
    description="Retrieves JSON data from the specified URL",
    inputs={"type": "object", "properties": _REQUEST_FIELDS, "required": [], "additionalProperties": False},
    params={"type": "object", "properties": _PARAMS_FIELDS, "required": [], "additionalProperties": False},
    output=_OUTPUT_SCHEMA,
    samples=_SAMPLES,
    category=("service",),
    author="Receptron team",
    repository="https://github.com/receptron/graphai",
    source="https://github.com/receptron/graphai/blob/main/agents/vanilla_agents/src/service_agents/vanilla_fetch_agent.ts",
    package="@graphai/vanilla",
    license="MIT",
)

AGENTS: list[AgentInfo] = [vanilla_fetch_agent_info]
