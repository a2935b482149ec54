"""A stand-in for an outside service, served on 127.0.0.1 for as long as it is needed.

The service agents' mocks (which their samples run) and the tests send the real
agent's requests to a stand-in that answers as the service's documented API does:
`serving(stand_in)` runs it on a free loopback port in a thread and yields its base
URL. A stand-in is any object with `answer(request) -> (status, headers, body)`; it
sees each request whole (`Request`) and keeps none of them unless it wants to.
"""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator, Protocol
from urllib.parse import parse_qsl, urlsplit

__all__ = ["Request", "Answer", "StandIn", "serving", "json_answer", "stand_in_mock"]

Answer = tuple[int, dict[str, str], bytes]


@dataclass(frozen=True)
class Request:
    """One request as the stand-in received it: method, path, query pairs, headers (lower-case names), body."""

    method: str
    path: str
    query: list[tuple[str, str]]
    headers: dict[str, str]
    body: bytes = b""
    raw_query: str = field(default="")

    def json(self) -> Any:
        """The body as JSON (None when it is not)."""
        try:
            return json.loads(self.body or b"null")
        except ValueError:
            return None


class StandIn(Protocol):
    def answer(self, request: Request) -> Answer:
        """The status, headers and body the service answers `request` with."""
        ...


def json_answer(status: int, data: Any) -> Answer:
    return status, {"Content-Type": "application/json; charset=utf-8"}, json.dumps(data, ensure_ascii=False).encode()


def _handler(stand_in: StandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            parts = urlsplit(self.path)
            request = Request(self.command, parts.path, parse_qsl(parts.query, keep_blank_values=True),
                              {name.lower(): value for name, value in self.headers.items()},
                              self.rfile.read(length) if length else b"", parts.query)
            status, headers, body = stand_in.answer(request)
            self.send_response(status)
            for name, value in {**headers, "Content-Length": str(len(body))}.items():
                self.send_header(name, value)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _answer

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def serving(stand_in: StandIn) -> Iterator[str]:
    """Serves `stand_in` on 127.0.0.1 (a free port) until the block ends; yields its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(stand_in))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="graphrt-stand-in", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def stand_in_mock(agent: Any, make_stand_in: Any, key: str) -> Any:
    """An agent's mock: the real agent, sent to a fresh stand-in served on 127.0.0.1 (`make_stand_in()`), with the
    stand-in's address as its config's `baseURL` and `key` as its `apiKey`; a sync agent runs in a worker thread.
    With `params.debug` (the request described, not sent) only the key is given."""
    import dataclasses
    import inspect

    import anyio

    async def run(call: Any) -> Any:
        if inspect.iscoroutinefunction(agent):
            return await agent(call)
        return await anyio.to_thread.run_sync(agent, call)

    async def mock(ctx: Any) -> Any:
        if ctx.params.get("debug") is True:
            return await run(dataclasses.replace(ctx, config={**(ctx.config or {}), "apiKey": key}))
        with serving(make_stand_in()) as base:
            return await run(dataclasses.replace(ctx, config={**(ctx.config or {}), "baseURL": base, "apiKey": key}))

    mock.__name__ = f"{getattr(agent, '__name__', 'agent')}_mock"
    return mock
