"""A real webhook receiver on 127.0.0.1 for the tests: it records every request, and fails the first ones.

It can also answer as a hostile receiver does: `answer="endless"` sends 200 and then a body without end (up to
`ENDLESS_CAP` bytes, so that a client that reads it all ends), `answer="trickle"` sends its answer one byte at a
time, its headers never ending, until the client goes away.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ENDLESS_CAP = 64 * 1024 * 1024
"""What an endless answer sends at most: a client that reads that much has read what it should not."""


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
    """`with Receiver(fail_first=2) as receiver:` ... `receiver.url`; `receiver.calls` as they came.

    With `answer="endless"` or `"trickle"`, `sent` is the bytes of answer sent to each call that has ended (the
    client closed, or the cap was reached), `ended` is set at the first, and `called` at the first request.
    """

    def __init__(self, fail_first: int = 0, port: int = 0, answer: str = "ok") -> None:
        self.fail_first = fail_first
        self.answer = answer
        self.calls: list[Received] = []
        self.sent: list[int] = []
        self.called = threading.Event()
        self.ended = threading.Event()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with receiver._lock:
                    status = 500 if receiver.fail_first > 0 else 200
                    receiver.fail_first -= status == 500
                    receiver.calls.append(Received(self.path, dict(self.headers), body, status))
                receiver.called.set()
                if receiver.answer != "ok":
                    receiver._hostile(self)
                    return
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/hook"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def _hostile(self, handler: BaseHTTPRequestHandler) -> None:
        """Answers as `answer` says until the client goes (or the cap, or the receiver's end); counts what it sent."""
        sent = 0
        try:
            if self.answer == "endless":
                handler.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n")
                chunk = b"x" * 65536
                while sent < ENDLESS_CAP and not self._stop.is_set():
                    handler.wfile.write(chunk)
                    sent += len(chunk)
            else:  # trickle: a byte every 50 ms of an answer whose headers never end
                start = b"HTTP/1.1 200 OK\r\nX-Slow: "
                while not self._stop.wait(0.05):
                    handler.wfile.write(start[sent:sent + 1] or b"a")
                    handler.wfile.flush()
                    sent += 1
        except OSError:  # the client closed the connection
            pass
        finally:
            with self._lock:
                self.sent.append(sent)
            self.ended.set()

    def accepted(self) -> list[Received]:
        with self._lock:
            return [call for call in self.calls if call.answered == 200 and self.answer == "ok"]

    def __enter__(self) -> "Receiver":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self.server.shutdown()
        self.server.server_close()
