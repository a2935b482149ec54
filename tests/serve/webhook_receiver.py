"""A real webhook receiver on 127.0.0.1 for the tests: it records every request, and fails the first ones."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    answered: int

    @property
    def json(self) -> dict[str, Any]:
        return json.loads(self.body)


class Receiver:
    """`with Receiver(fail_first=2) as receiver:` ... `receiver.url`; `receiver.calls` as they came."""

    def __init__(self, fail_first: int = 0, port: int = 0) -> None:
        self.fail_first = fail_first
        self.calls: list[Received] = []
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with receiver._lock:
                    status = 500 if receiver.fail_first > 0 else 200
                    receiver.fail_first -= status == 500
                    receiver.calls.append(Received(self.path, dict(self.headers), body, status))
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/hook"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def accepted(self) -> list[Received]:
        with self._lock:
            return [call for call in self.calls if call.answered == 200]

    def __enter__(self) -> "Receiver":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
