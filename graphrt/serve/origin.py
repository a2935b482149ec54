"""Who may talk to the server from a browser: the Host and Origin checks.

A server on loopback without a key is reachable by every web page its user
opens. Two checks keep those pages out:

- **Host** (DNS rebinding: a page of `evil.example` whose name now points at
  127.0.0.1 reads the API as if it were its own). Every request must name an
  allowed host: the loopback names (`localhost`, `127.0.0.1`, `[::1]`, any
  `127.x.y.z`) by default, plus the address the server is bound to and the
  names given with `allowed_hosts` (`"*"` allows any, for a server behind a
  proxy that checks it, with a key). An HTTP/1.1 request without a Host is
  refused (400), as the protocol says.
- **Origin** (cross-site requests: a `text/plain` POST or an HTML `<form>` of a
  foreign page starts runs). A request that carries an `Origin` must come from
  the server's own origin or one of `cors_origins`; browsers send `Origin` with
  every cross-origin request that could change state or read data (POSTs, and
  the `fetch` or `EventSource` that would read an answer). `Origin: null` (a
  sandboxed frame, a file) is foreign.

This module only lets a request in or refuses it. The CORS headers that let the
pages of `cors_origins` read the answers are serve/cors.py's; every other
origin is refused here, before anything is answered. The viewer page (same
origin) needs neither.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from graphrt.base.defaults import HOST
from graphrt.base.secrets import Redactor

__all__ = ["LOOPBACK_NAMES", "OriginGuard", "OriginPolicy", "is_loopback"]

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
_WILDCARD_BINDS = frozenset({"0.0.0.0", "::", ""})


def is_loopback(host: str) -> bool:
    """Whether a host name or address is this machine's loopback (`localhost`, `127.0.0.1`, `::1`, `127.x.y.z`)."""
    host = host.strip("[]").lower()
    if host in LOOPBACK_NAMES or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _host_name(value: str) -> str:
    """The name of a Host header without its port: `[::1]:8000` -> `::1`, `Example.com:80` -> `example.com`;
    "" when what follows the name is no port (`127.0.0.1:80.evil.example`, `[::1]x`): a name no list holds."""
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        name, rest = (value[1:end], value[end + 1:]) if end != -1 else (value, "")
    elif value.count(":") == 1:
        name, _, port = value.partition(":")
        rest = ":" + port
    else:
        name, rest = value, ""
    port = rest[1:]
    if rest and not (rest.startswith(":") and (port == "" or (port.isascii() and port.isdigit()))):
        return ""
    return name


@dataclass(frozen=True)
class OriginPolicy:
    """The hosts a request may name and the foreign origins that may call the API (CORS).

    Args:
        bind_host: the address the server listens on; a concrete one is allowed as a Host too.
        allowed_hosts: more host names (without port) requests may name; `"*"`: any.
        cors_origins: origins (`https://app.example:8443`) whose pages may call the API; `"*"`: any.
    """

    bind_host: str = HOST
    allowed_hosts: frozenset[str] = field(default_factory=frozenset)
    cors_origins: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def of(cls, bind_host: str = HOST, allowed_hosts: Iterable[str] = (),
           cors_origins: Iterable[str] = ()) -> "OriginPolicy":
        return cls(bind_host, frozenset(host.strip("[]").lower() for host in allowed_hosts),
                   frozenset(origin.rstrip("/").lower() for origin in cors_origins))

    def host_allowed(self, host: str) -> bool:
        name = _host_name(host)
        if "*" in self.allowed_hosts or name in self.allowed_hosts or is_loopback(name):
            return True
        bound = self.bind_host.strip("[]").lower()
        return bound not in _WILDCARD_BINDS and name == bound

    def cors_allowed(self, origin: str) -> bool:
        return origin != "null" and ("*" in self.cors_origins or origin.rstrip("/").lower() in self.cors_origins)


def _same_origin(origin: str, host: str) -> bool:
    """Whether `Origin` names the server the request reached (the Host it names, with its port)."""
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and parts.netloc.lower() == host.strip().lower()


async def _refuse(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode("utf-8")
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"vary", b"Origin")]})
    await send({"type": "http.response.body", "body": body})


class OriginGuard:
    """ASGI middleware: 400 for an HTTP/1.1 request without a Host, 421 for a Host not allowed, 403 for a
    foreign Origin; the rest goes on to `app`."""

    def __init__(self, app: ASGIApp, policy: OriginPolicy, redactor: Redactor | None = None) -> None:
        self.app = app
        self.policy = policy
        self.redactor = redactor or Redactor()  # a refusal quotes the Host it was sent: never a credential in it

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {name: value.decode("latin-1") for name, value in scope.get("headers", [])}
        host = headers.get(b"host", "")
        if b"host" not in headers and scope.get("http_version") != "1.0":  # HTTP/1.1 requires it (RFC 9112, 3.2)
            await _refuse(send, 400, "the request names no Host (HTTP/1.1 requires one)")
            return
        if host and not self.policy.host_allowed(host):
            await _refuse(send, 421, f"this server does not answer for host {self.redactor.text(host.strip()[:100])!r} "
                          "(graphrt serve --allowed-host NAME allows one)")
            return
        origin = headers.get(b"origin")
        if origin is not None and not _same_origin(origin, host) and not self.policy.cors_allowed(origin):
            await _refuse(send, 403, "requests from other web pages are refused "
                          "(graphrt serve --cors-origin ORIGIN allows one)")
            return
        await self.app(scope, receive, send)
