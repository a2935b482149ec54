"""Raw HTTP/1.1 on a loopback socket, for the serve and mcp-http surfaces: requests no client library would send.

A request is bytes as written (a foreign Host, a half-sent body, bad chunking, two
requests in one write); an answer is read until the server closes the connection or
the deadline passes. `None` is no answer by the deadline (a hang); status 0 is a
connection closed with no answer.
"""

from __future__ import annotations

import socket
import time
from dataclasses import dataclass, field
from typing import Callable

__all__ = ["Answer", "exchange", "request", "send_and_hold"]


@dataclass
class Answer:
    """One HTTP answer: status, headers (lower-case names), the body (chunked coding removed), and its raw bytes."""

    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    raw: bytes = b""

    @property
    def cut(self) -> bool:
        """Whether the body is shorter than its Content-Length said: the connection was reset part way (a server
        that refuses a 10 MB body closes while it is still coming; the kernel then drops what was unread)."""
        length = self.headers.get("content-length", "")
        return length.isdigit() and len(self.body) < int(length)

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")

    def json(self):
        import json

        return json.loads(self.body)


def request(method: str, path: str, *, host: str, headers: dict[str, str] | list[tuple[str, str]] | None = None,
            body: bytes | str = b"", length: bool = True) -> bytes:
    """The bytes of one request, closing the connection after its answer; `length` adds Content-Length."""
    body = body.encode("utf-8", errors="surrogatepass") if isinstance(body, str) else body
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}", "Connection: close"]
    items = list(headers.items()) if isinstance(headers, dict) else list(headers or [])
    if length and (body or method in ("POST", "PUT", "PATCH")) and not any(k.lower() in ("content-length",
                                                                                         "transfer-encoding")
                                                                           for k, _ in items):
        items.append(("Content-Length", str(len(body))))
    lines += [f"{name}: {value}" for name, value in items]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", errors="replace") + body


def _parse(raw: bytes) -> Answer:
    head, sep, rest = raw.partition(b"\r\n\r\n")
    if not raw:
        return Answer(0)
    lines = head.split(b"\r\n")
    try:
        status = int(lines[0].split()[1])
    except (IndexError, ValueError):
        return Answer(-1, raw=raw)  # not HTTP
    headers = {}
    for line in lines[1:]:
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    body = rest
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body, rest = b"", rest
        while rest:
            size_line, _, rest = rest.partition(b"\r\n")
            try:
                size = int(size_line.split(b";")[0], 16)
            except ValueError:
                break
            if size == 0:
                break
            body += rest[:size]
            rest = rest[size + 2:]
    elif "content-length" in headers and headers["content-length"].isdigit():
        body = rest[:int(headers["content-length"])]
    return Answer(status, headers, body, raw)


def _complete(raw: bytes | bytearray) -> bool:
    """Whether the first answer in `raw` is whole (its length or last chunk arrived): no need to wait for close."""
    head, sep, rest = raw.partition(b"\r\n\r\n")
    if not sep:
        return False
    lowered = head.lower()
    for line in lowered.split(b"\r\n")[1:]:
        if line.startswith(b"content-length:"):
            try:
                return len(rest) >= int(line.split(b":", 1)[1])
            except ValueError:
                return False
    if b"transfer-encoding: chunked" in lowered:
        return rest.endswith(b"0\r\n\r\n")
    return False


def exchange(port: int, data: bytes | list[bytes], deadline: float, *, pause: float = 0.0,
             shut_write: bool = False, keep_reading: bool = False, limit: int = 64 << 20) -> Answer | None:
    """Sends `data` (a list: written one part at a time, `pause` s apart) and reads the answer.

    Reads until the server closes, the first answer is whole (unless `keep_reading`: pipelined answers),
    or `deadline` seconds pass (then None, a hang). `shut_write` closes the sending side after the data.
    """
    end = time.monotonic() + deadline
    raw = bytearray()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=deadline) as sock:
            for number, part in enumerate(data if isinstance(data, list) else [data]):
                if number and pause:
                    time.sleep(pause)
                try:
                    sock.sendall(part)
                except (BrokenPipeError, ConnectionResetError):
                    break  # the server refused part way: its answer (if any) is read below
            if shut_write:
                sock.shutdown(socket.SHUT_WR)
            if not _receive(sock, end, raw, lambda got: len(got) > limit or (not keep_reading and _complete(got))):
                return None
    except ConnectionRefusedError:
        return Answer(-2)  # the server is not there
    except OSError:
        if not raw:
            return Answer(0)
    return _parse(bytes(raw))


def _receive(sock: socket.socket, end: float, raw: bytearray, done: Callable[[bytearray], bool]) -> bool:
    """Reads into `raw` until the server closes or resets the connection or `done(raw)`; False: `end` (a
    time.monotonic()) passed first, a hang."""
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return False
        sock.settimeout(left)
        try:
            chunk = sock.recv(1 << 16)
        except socket.timeout:
            return False
        except ConnectionResetError:
            return True
        if not chunk:
            return True
        raw += chunk
        if done(raw):
            return True


def send_and_hold(port: int, data: bytes) -> socket.socket:
    """A connection that sent `data` and then holds (a half-sent request); the caller reads or closes it."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.sendall(data)
    return sock


def read_held(sock: socket.socket, deadline: float) -> Answer | None:
    """The answer a held connection gets by `deadline` seconds (None: none), then the connection is closed."""
    raw = bytearray()
    try:
        if not _receive(sock, time.monotonic() + deadline, raw, _complete):
            return None
    finally:
        sock.close()
    return _parse(bytes(raw))
