"""Local HTTP servers on 127.0.0.1 for the fetching agents: a scripted one, and a MediaWiki stand-in."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import pytest
from graphrt_agents.service.wiki_standin import MediaWikiStandIn, WikiPage

Reply = tuple[int, dict[str, str], "bytes | Iterator[bytes]"]  # a body, or its chunks as they are sent


@dataclass
class Scripted:
    """A server whose paths answer as scripted; it records every request it receives."""

    base: str = ""
    routes: dict[str, Callable[[dict[str, Any]], Reply]] = field(default_factory=dict)
    received: list[dict[str, Any]] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)  # what a hanging route waits for

    def trickle(self, path: str, size: int, every: float = 0.05) -> str:
        """Scripts `path` to answer 200 with a body of `size` bytes sent one at a time, one every `every` seconds
        (a server that holds a request by sending a little at a time); returns its URL."""

        def answer(_request: dict[str, Any]) -> Reply:
            return 200, {"Content-Type": "text/plain", "Content-Length": str(size)}, _dripped(size, every, self.release)

        self.routes[path] = answer
        return self.base + path

    def route(self, path: str, status: int = 200, body: Any = b"", content_type: str = "application/json",
              headers: dict[str, str] | None = None) -> str:
        """Scripts `path` to answer `body` (bytes, text, or JSON for anything else); returns its URL."""
        data = body if isinstance(body, bytes) else body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.routes[path] = lambda _request: (status, {"Content-Type": content_type, **(headers or {})}, data)
        return self.base + path


def _dripped(size: int, every: float, release: threading.Event) -> Iterator[bytes]:
    """`size` bytes, one at a time, each after `every` seconds (none once `release` is set: the test has ended)."""
    for _ in range(size):
        if release.wait(every):
            return
        yield b"x"


def _handler(script: Scripted) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            url = urlsplit(self.path)
            request = {"method": self.command, "path": url.path, "query": url.query,
                       "headers": {name.lower(): value for name, value in self.headers.items()},
                       "body": self.rfile.read(length).decode()}
            script.received.append(request)
            route = script.routes.get(url.path)
            if route is None:
                status, headers, data = 200, {"Content-Type": "application/json"}, json.dumps(request).encode()
            else:
                status, headers, data = route(request)
            self.send_response(status)
            if isinstance(data, bytes):
                headers.setdefault("Content-Length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            if self.command == "HEAD":
                return
            try:
                for chunk in [data] if isinstance(data, bytes) else data:
                    self.wfile.write(chunk)
                    self.wfile.flush()
            except OSError:  # the client went away
                pass

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_HEAD = _answer

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


def _serve(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def http() -> Iterator[Scripted]:
    """A scripted HTTP server on 127.0.0.1 (unscripted paths echo the request as JSON)."""
    script = Scripted()
    server = _serve(_handler(script))
    script.base = next(server)
    try:
        yield script
    finally:
        script.release.set()
        next(server, None)


PAGES = (
    WikiPage("Ada Lovelace", 974, "Augusta Ada King, Countess of Lovelace, was an English mathematician.\n\n"
             "== Life ==\nShe worked on Charles Babbage's Analytical Engine.", description="English mathematician"),
    WikiPage("Analytical Engine", 1271, "The Analytical Engine was a proposed digital mechanical computer designed "
             "by Charles Babbage.", description="Proposed mechanical computer"),
    WikiPage("AC/DC", 2431, "AC/DC are an Australian rock band formed in Sydney in 1973.", description="Rock band"),
)


@pytest.fixture
def mediawiki() -> Iterator[tuple[str, MediaWikiStandIn]]:
    """A MediaWiki stand-in holding PAGES, served over HTTP on 127.0.0.1: (base URL, stand-in)."""
    wiki = MediaWikiStandIn(PAGES)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            status, data = wiki.answer("GET", self.path)
            body = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = _serve(Handler)
    base = next(server)
    try:
        yield base, wiki
    finally:
        next(server, None)
