"""HTTP for GraphAI's fetching agents (vanillaFetchAgent, fetchAgent, wikipediaAgent): the Fetch API's rules, bounded.

GraphAI's agents call `fetch`: URLs normalised as WHATWG's `new URL` does,
query strings written as `URLSearchParams` writes them, headers as `new Headers`
sends them, bodies read as `response.text()` and `response.json()` read them.
What the Fetch API leaves open is bounded here, from the agent's config
(`config: {fetchAgent: {timeout: 30}}`), so that a graph cannot hang a run or
fill its memory: `timeout` (seconds the whole request may take, redirects and body
included, 300 by default, as `AbortSignal.timeout` bounds a fetch: a server that
sends a byte a second cannot hold it for longer), `maxBytes` (a response body's
size; 32 MiB) and `maxRedirects` (fetch's 20).

A non-2xx answer's body is read as the agent's type says (`error_body`), and as
text when it is not what the type says (a 404 page in HTML under the default
JSON): the status is what the agent reports, never the body's parse error.

What a request does to the server, as the run's journal of outside calls reads it
(graphrt/engine/journal.py), is RFC 9110's: GET, HEAD and OPTIONS change nothing
(`changes_something`), and PUT and DELETE, or a request carrying an
`Idempotency-Key`, may be sent twice (`harmless_again`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping
from urllib.parse import parse_qsl, quote, quote_plus, urlsplit

import anyio

from graphrt.base.errors import AgentError
from graphrt.base.jsvalue import UNDEFINED, is_truthy, js_string

if TYPE_CHECKING:
    import httpx  # imported when a request is sent: importing httpx costs ~0.1 s at startup

__all__ = [
    "IDEMPOTENCY_HEADER", "LIMITS_CONFIG", "Limits", "Response", "FetchFailed", "request_url", "request_method",
    "wire_headers", "send", "response_text", "response_json", "error_body", "shown_url", "changes_something",
    "harmless_again", "has_key_header",
]

IDEMPOTENCY_HEADER = "Idempotency-Key"
_SAFE_METHODS = ("GET", "HEAD", "OPTIONS")  # RFC 9110: they change nothing on the server
_IDEMPOTENT_METHODS = ("PUT", "DELETE")  # RFC 9110: sent twice, they do what they do once


def changes_something(method: str | None) -> bool:
    """Whether a request may change something on the server: any method but GET, HEAD and OPTIONS (None: nothing is
    sent)."""
    return method is not None and method not in _SAFE_METHODS


def harmless_again(method: str | None, headers: Any) -> bool:
    """Whether sending a request again does what sending it once does: PUT, DELETE, or a key the server reads."""
    return method in _IDEMPOTENT_METHODS or (isinstance(headers, Mapping) and has_key_header(headers))


def has_key_header(headers: Mapping[str, Any]) -> bool:
    """Whether the headers carry an Idempotency-Key (in any case)."""
    return any(isinstance(name, str) and name.lower() == IDEMPOTENCY_HEADER.lower() for name in headers)

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


def request_url(url: Any, query_params: Any) -> str:
    """The URL to fetch, as `new URL(url)` writes it; truthy `queryParams` replace its query (even with nothing).

    Raises:
        TypeError: "Invalid URL" (no scheme, no host, a bad port).
    """
    base, query, fragment = _normalize_url(url)
    if is_truthy(query_params):
        query = _query_string(query_params)
    return f"{base}?{query}{fragment}" if query else f"{base}{fragment}"


# --- request ---------------------------------------------------------------------------


def request_method(method: Any, body: Any) -> str:
    """The method in upper case; without one, POST when there is a body, else GET."""
    if not is_truthy(method):
        return "POST" if is_truthy(body) else "GET"
    if not isinstance(method, str):
        raise TypeError("method.toUpperCase is not a function")
    return method.upper()


def wire_headers(headers: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The headers as `new Headers(...)` sends them: values as strings, same names (any case) joined."""
    joined: dict[str, tuple[str, str]] = {}
    for name, value in headers.items():
        text = js_string(value).strip(" \t\r\n")
        key = name.lower()
        joined[key] = (joined[key][0], f"{joined[key][1]}, {text}") if key in joined else (name, text)
    return list(joined.values())


# The config schema's properties of the limits, for the function info of every agent that reads them.
LIMITS_CONFIG: dict[str, Any] = {
    "timeout": {"type": "number", "description": "Seconds a request may take in all, its body included (default 300)"},
    "maxBytes": {"type": "integer", "description": "Largest response body read, once decoded (default 32 MiB)"},
    "maxRedirects": {"type": "integer", "description": "Redirects followed (default 20)"},
}


@dataclass(frozen=True)
class Limits:
    """What one request may take: seconds in all, bytes of body, redirects followed."""

    timeout: float = 300.0
    max_bytes: int = 32 * 1024 * 1024
    max_redirects: int = 20

    @classmethod
    def from_config(cls, config: Mapping[str, Any] | None, agent: str) -> "Limits":
        """The limits an agent's config sets (`timeout`, `maxBytes`, `maxRedirects`), the defaults otherwise.

        Raises:
            ValueError: a limit that is not a positive number (a count for `maxBytes`, `maxRedirects`).
        """
        config = config or {}
        values = {}
        for key, name, kind in (("timeout", "timeout", (int, float)), ("maxBytes", "max_bytes", int),
                                ("maxRedirects", "max_redirects", int)):
            if key in config:
                value = config[key]
                if isinstance(value, bool) or not isinstance(value, kind) or value < (0 if key == "maxRedirects" else 1e-9):
                    raise ValueError(f"{agent}: config '{key}' must be a positive number, got {value!r}")
                values[name] = value
        return cls(**values)


@dataclass(frozen=True)
class Response:
    """A response read whole (within the limits): status, headers, body bytes, and the URL it came from."""

    status: int
    headers: Mapping[str, str]
    content: bytes
    url: str

    @property
    def ok(self) -> bool:
        """`response.ok`: a 2xx status."""
        return 200 <= self.status < 300


class FetchFailed(AgentError, TypeError):  # a TypeError, as fetch's
    """Raised when a request cannot be made or answered within the limits (fetch's TypeError "fetch failed")."""


def shown_url(url: str) -> str:
    """A URL for a message: without its query or credentials (an API key may sit there)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


async def send(method: str, url: str, headers: Mapping[str, Any], content: str | bytes | None, limits: Limits,
               *, transport: "httpx.AsyncBaseTransport | None" = None) -> Response:
    """Sends one request as `fetch` does (redirects followed), within `limits`, and reads the whole body.

    Raises:
        TypeError: a GET or HEAD with a body, as fetch refuses it.
        FetchFailed: no connection, no answer in time, too many redirects, or a body over `max_bytes`
            (the httpx error is the cause).
    """
    if content is not None and method in ("GET", "HEAD"):
        raise TypeError("Request with GET/HEAD method cannot have body.")
    import httpx

    body = content.encode() if isinstance(content, str) else content
    timeout = httpx.Timeout(limits.timeout, connect=min(limits.timeout, 10.0))
    try:
        with anyio.fail_after(limits.timeout):  # the whole request: httpx's timeouts are each per read
            return await _exchange(method, url, headers, body, limits, timeout, transport)
    except TimeoutError:
        raise FetchFailed(f"fetch failed: {shown_url(url)} did not answer within {limits.timeout:g} s "
                          "(config timeout)") from None


async def _exchange(method: str, url: str, headers: Mapping[str, Any], body: bytes | None, limits: Limits,
                    timeout: "httpx.Timeout", transport: "httpx.AsyncBaseTransport | None") -> Response:
    """One request and its whole body, within `limits` but for the total time (`send` bounds that)."""
    import httpx

    try:
        async with httpx.AsyncClient(follow_redirects=True, max_redirects=limits.max_redirects, timeout=timeout,
                                     transport=transport) as client:
            async with client.stream(method, url, headers=wire_headers(headers), content=body) as response:
                declared = response.headers.get("content-length", "")
                if declared.isdigit() and int(declared) > limits.max_bytes:
                    raise FetchFailed(f"fetch failed: the response of {shown_url(url)} is {declared} bytes, "
                                      f"over the limit of {limits.max_bytes} (config maxBytes)")
                chunks, size = [], 0
                async for chunk in response.aiter_bytes():  # decoded (gzip...): the limit holds for what is kept
                    size += len(chunk)
                    if size > limits.max_bytes:
                        raise FetchFailed(f"fetch failed: the response of {shown_url(url)} is over the limit of "
                                          f"{limits.max_bytes} bytes (config maxBytes)")
                    chunks.append(chunk)
                return Response(response.status_code, dict(response.headers), b"".join(chunks), str(response.url))
    except httpx.TooManyRedirects as exc:
        raise FetchFailed(f"fetch failed: {shown_url(url)} redirected more than {limits.max_redirects} times "
                          "(config maxRedirects)") from exc
    except httpx.TimeoutException as exc:
        raise FetchFailed(f"fetch failed: {shown_url(url)} did not answer within {limits.timeout:g} s "
                          "(config timeout)") from exc
    except httpx.HTTPError as exc:
        raise FetchFailed(f"fetch failed: {shown_url(url)}: {type(exc).__name__}: {exc}") from exc


# --- response --------------------------------------------------------------------------


def _reject_constant(name: str) -> Any:
    raise ValueError(f"Unexpected token '{name[0]}' in JSON")


def response_text(response: Response) -> str:
    """`response.text()`: the body as UTF-8 whatever the charset, BOM removed, bad bytes replaced."""
    return response.content.decode("utf-8-sig", errors="replace")


def error_body(response: Response, response_type: str) -> Any:
    """A non-2xx answer's body, for GraphAI's `onError.error`: JSON for the JSON type, text otherwise, and text
    when it is not JSON (GraphAI's `response.json()` would throw, and its SyntaxError hide the status)."""
    if response_type == "json":
        try:
            return response_json(response)
        except ValueError:
            pass
    return response_text(response)


def response_json(response: Response) -> Any:
    """`response.json()`: strict JSON (no NaN or Infinity); an empty body is an error too."""
    text = response_text(response)
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise ValueError(f"the response is not valid JSON: {exc}") from exc
