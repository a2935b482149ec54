"""A local OpenAI-compatible server that answers chat completions and injects faults.

Each answer is a pure function of the prompt (`answer(prompt)`), so a run's
right results are known in advance. A share of requests (`fault_rate`) gets a
fault instead, drawn from `FAULTS` with a seeded random generator:

    rate_limit    429 with Retry-After: 0
    server_error  500 or 503
    slow          a right answer, but only after `slow_seconds` (past the client's timeout)
    not_json      200 with an HTML page
    no_choices    200 with JSON that has no choices
    cut_short     200 with JSON cut off half-way
    disconnect    the connection closes without an answer

`force(...)` queues outcomes for the next requests, for tests. The server
listens on 127.0.0.1 only and stops with `close()`.
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
import time
from collections import Counter, deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["FAULTS", "FaultyOpenAIServer", "answer"]

FAULTS = ("rate_limit", "server_error", "slow", "not_json", "no_choices", "cut_short", "disconnect")


def answer(prompt: str) -> str:
    """The server's answer to a prompt: a short digest of it, then the prompt, so any mix-up shows."""
    return f"re[{hashlib.sha256(prompt.encode()).hexdigest()[:8]}] {prompt}"


def _completion(text: str, number: int, model: str) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{number}", "object": "chat.completion", "created": 1700000000, "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10},
    }


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up (it timed out, or it was told to) is part of the soak, not news."""


class FaultyOpenAIServer:
    """The server; `outcomes` counts what it did ("ok" or a fault), `answered` each prompt answered right."""

    def __init__(self, fault_rate: float = 0.1, *, seed: int = 0, slow_seconds: float = 1.0,
                 faults: tuple[str, ...] = FAULTS) -> None:
        self.fault_rate = fault_rate
        self.slow_seconds = slow_seconds
        self.faults = faults
        self.outcomes: Counter[str] = Counter()
        self.answered: Counter[str] = Counter()
        self._random = random.Random(seed)
        self._forced: deque[str] = deque()
        self._lock = threading.Lock()
        self._requests = 0
        self._httpd = _QuietServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> "FaultyOpenAIServer":
        self._thread.start()
        return self

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> "FaultyOpenAIServer":
        return self.start()

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def force(self, *outcomes: str) -> None:
        """The next requests get these outcomes ("ok" or a fault name), in order."""
        unknown = set(outcomes) - {"ok", *FAULTS}
        if unknown:
            raise ValueError(f"unknown outcomes {sorted(unknown)} (known: ok, {', '.join(FAULTS)})")
        with self._lock:
            self._forced.extend(outcomes)

    def _next(self) -> tuple[str, int]:
        with self._lock:
            self._requests += 1
            if self._forced:
                outcome = self._forced.popleft()
            elif self._random.random() < self.fault_rate:
                outcome = self._random.choice(self.faults)
            else:
                outcome = "ok"
            self.outcomes[outcome] += 1
            return outcome, self._requests

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                messages = body.get("messages") or [{}]
                prompt = str(messages[-1].get("content", ""))
                outcome, number = server._next()
                try:
                    self._answer(outcome, prompt, number, str(body.get("model", "soak")))
                except (BrokenPipeError, ConnectionResetError):  # the client gave up first (a timeout)
                    pass

            def _answer(self, outcome: str, prompt: str, number: int, model: str) -> None:
                if outcome == "disconnect":
                    self.close_connection = True
                    return
                if outcome == "rate_limit":
                    return self._send(429, {"error": {"message": "slow down", "type": "rate_limit"}}, {"retry-after": "0"})
                if outcome == "server_error":
                    return self._send(500 + 3 * (number % 2), {"error": {"message": "upstream failed", "type": "server"}})
                if outcome == "not_json":
                    return self._send(200, b"<html><body>Bad gateway</body></html>", content_type="text/html")
                if outcome == "no_choices":
                    return self._send(200, {"id": f"chatcmpl-{number}", "object": "chat.completion", "model": model})
                if outcome == "cut_short":
                    whole = json.dumps(_completion(answer(prompt), number, model)).encode()
                    return self._send(200, whole[: len(whole) // 2])
                if outcome == "slow":
                    time.sleep(server.slow_seconds)
                self._send(200, _completion(answer(prompt), number, model))
                if outcome == "ok":
                    with server._lock:
                        server.answered[prompt] += 1

            def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None,
                      content_type: str = "application/json") -> None:
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

        return Handler
