"""The server's guards, as one ASGI middleware: the API key, and the size limit on request bodies.

A body is read whole by the guard before the route sees it (at most `max_body`
bytes, within `body_seconds`): a body over the limit, announced or chunked, is a
413 whatever route it was sent to (an extension's too: the MCP endpoint's own
handler would turn an exception into a 500), and a body sent half and then held
back is a 408 instead of a request that holds its connection for ever, and a client
that leaves before its body is whole gets no answer (no route is called to read a body
that will never come: Starlette's ClientDisconnect was a traceback in the log).

The key is checked on every request except the viewer page's own files (which
hold no data; the page asks for the key and sends it with its API calls).
It is compared in constant time: both sides are hashed first, so neither
their content nor their length shows in the time a refusal takes.

A refusal's body is `{"error": message}`; the paths of an API with its own error shape
(the OpenAI-compatible endpoint's) are refused in that shape (`error_shapes`), which
that API's clients read.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from graphrt.base.errors import RequestError

__all__ = ["PUBLIC_PATHS", "BodyTooLarge", "ErrorShape", "Guard", "key_matches"]

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
ErrorShape = Callable[[int, str], dict[str, Any]]
"""(status, message) -> the JSON body of a refusal."""

PUBLIC_PATHS = ("/", "/favicon.ico", "/health")
PUBLIC_PREFIXES = ("/static/",)


def key_matches(given: str | None, key: str) -> bool:
    """Whether `given` is `key`, in time that depends on neither."""
    given_digest = hashlib.sha256((given or "").encode("utf-8")).digest()
    return hmac.compare_digest(given_digest, hashlib.sha256(key.encode("utf-8")).digest()) and given is not None


def _presented_key(scope: Scope) -> str | None:
    """The key from `Authorization: Bearer KEY` or `X-API-Key: KEY`."""
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            if scheme.lower() == "bearer":
                return token.strip()
        elif name == b"x-api-key":
            return value.decode("latin-1").strip()
    return None


def _plain(status: int, message: str) -> dict[str, Any]:
    return {"error": message}


_CLOSE = [(b"connection", b"close")]
"""With a refusal of a body not read (413, 408): the connection ends with the answer, and what the client still
sends is dropped (cli/listen.py's lingering close), as nginx ends it, rather than read as that request's body."""


async def _refuse(send: Send, status: int, message: str, headers: list[tuple[bytes, bytes]] = (),
                  shape: ErrorShape = _plain) -> None:
    body = json.dumps(shape(status, message)).encode("utf-8")
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            *headers]})
    await send({"type": "http.response.body", "body": body})


class BodyTooLarge(RequestError):
    """A request body over the limit (413); the guard refuses it before a route reads it."""

    status = 413


_BODILESS = frozenset({"GET", "HEAD", "OPTIONS"})
_GONE = 499  # not sent: what _read_body says when the client left before its body ended


class Guard:
    """ASGI middleware: 401 without the key (when one is set), 413 for a body over `max_body` bytes,
    408 for one not sent within `body_seconds`; in the shape `error_shapes` gives the paths under a prefix."""

    def __init__(self, app: ASGIApp, *, api_key: str | None, max_body: int, body_seconds: float = 30.0,
                 error_shapes: Mapping[str, ErrorShape] | None = None) -> None:
        self.app = app
        self.api_key = api_key or None
        self.max_body = max_body
        self.body_seconds = body_seconds
        self.error_shapes = dict(error_shapes or {})

    def _shape(self, path: str) -> ErrorShape:
        return next((shape for prefix, shape in self.error_shapes.items() if path.startswith(prefix)), _plain)

    async def _read_body(self, receive: Receive) -> tuple[list[dict[str, Any]], int | None]:
        """The request's body messages, read whole; (messages, None), or ([], the status that refuses it).

        On asyncio (uvicorn's) the time limit is asyncio's own timeout, on another loop anyio's: every POST
        pays for it, and anyio's scope asks sniffio twice which library runs (issue 26)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            import anyio

            with anyio.move_on_after(self.body_seconds):
                return await self._read_all(receive)
            return [], 408
        try:
            async with asyncio.timeout(self.body_seconds):
                return await self._read_all(receive)
        except TimeoutError:
            return [], 408

    async def _read_all(self, receive: Receive) -> tuple[list[dict[str, Any]], int | None]:
        messages: list[dict[str, Any]] = []
        received = 0
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                return [], _GONE  # the client went away before its body was whole: no one to answer
            received += len(message.get("body", b""))
            if received > self.max_body:
                return [], 413
            if not message.get("more_body", False):
                return messages, None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        public = path in PUBLIC_PATHS or path.startswith(PUBLIC_PREFIXES)
        shape = self._shape(path)
        if self.api_key is not None and not public and not key_matches(_presented_key(scope), self.api_key):
            await _refuse(send, 401, "missing or wrong API key (send 'Authorization: Bearer KEY')",
                          [(b"www-authenticate", b'Bearer realm="graphrt"')], shape)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length" and value.isdigit() and int(value) > self.max_body:
                await _refuse(send, 413, f"the request body is over {self.max_body} bytes", _CLOSE, shape)
                return
        if scope.get("method") in _BODILESS:
            await self.app(scope, receive, send)
            return
        buffered, refused = await self._read_body(receive)
        if refused == _GONE:
            return
        if refused == 413:
            await _refuse(send, 413, f"the request body is over {self.max_body} bytes", _CLOSE, shape)
            return
        if refused == 408:
            await _refuse(send, 408, f"the request body was not sent within {self.body_seconds:g} s", _CLOSE, shape)
            return

        async def replayed() -> dict[str, Any]:
            return buffered.pop(0) if buffered else await receive()

        await self.app(scope, replayed, send)
