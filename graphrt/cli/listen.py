"""Serving an ASGI app with uvicorn on a socket this module binds: one line for a port that is taken.

`graphrt serve` and `graphrt mcp --http` both serve this way. The socket is bound
before uvicorn starts, so a port already in use (or an address that is not this
machine's) is a GraphError of one line instead of uvicorn's `sys.exit` inside a task
group (a 50-line BaseExceptionGroup); the URL is printed once the app has started
and the socket takes connections, never before.

Every connection holds a file descriptor; with none left the server cannot accept,
and new clients wait unanswered (1,100 event-stream readers once left new runs timing
out). So the process's soft limit of open files is raised to its hard one at start,
and past `max_connections` open connections a new one is answered 503 and closed at
once (`_guarded`), well below that limit: the files a run opens (its store, an MCP
server's pipes) still open. The first such refusal says the limit, once. A connection
takes its descriptor when accepted, before it can be refused: so a few are accepted at
each turn of the event loop (`_ACCEPTS_AT_ONCE`), and a burst of clients past the cap
never takes the descriptors kept for files (400 readers at once past a limit of 256
files were 9,091 "socket.accept() out of system resource" tracebacks, and a new run's
POST got 503). Should the process run out all the same, that is said once, not per try.

A connection that sends a request's head (its request line and headers) slowly, or
never ends it, would hold one of those connections for as long as it likes (uvicorn
times out only idle keep-alive connections, and its httptools parser takes headers
of any size). So a head must be complete within `HEAD_TIMEOUT` seconds of its first
byte (else 408) and within `MAX_HEAD_BYTES` (else 431), and the connection is closed;
a body's own time limit is the app's (serve/security.py).

One HTTP parser, httptools (uvicorn's C parser), serves every request: the guards
above and the wire tests are written against it, and uvicorn's pure-Python h11 path
answers differently (no 400 for a request without Host, tracebacks on some bytes). Both
extras that serve (`serve`, `mcp`) install it; without it `serve_app` says so in one line.

An answer sent before its request's body was read (a 413) is closed the way HTTP
servers close it (nginx's lingering close): the server's side is shut for writing,
and what the client still sends is read and dropped, until it closes its side or
`LINGER_SECONDS` have passed. Closed at once, the unread bytes make the kernel reset
the connection, and a client still sending loses the answer it was given.
"""

from __future__ import annotations

import asyncio
import errno
import os
import resource
import socket
import sys
from typing import Any, Callable

from graphrt.base.errors import GraphError
from graphrt.base.limits import MAX_CONNECTIONS

__all__ = ["HEAD_TIMEOUT", "LINGER_SECONDS", "MAX_HEAD_BYTES", "bind", "connections_allowed", "serve_app", "url_of"]

_FILES_KEPT = 128
"""File descriptors left for what is not a connection: the store, logs, an MCP server's pipes, a run's files."""

_ACCEPTS_AT_ONCE = 16
"""Connections accepted at each turn of the event loop (asyncio's `backlog` of a server): each holds a descriptor
until the cap answers it, a turn or two later; a burst past the cap takes a few turns' worth of _FILES_KEPT."""

_LISTEN_BACKLOG = 2048
"""Connections the kernel holds for the server until they are accepted."""

HEAD_TIMEOUT = 20.0
"""Seconds a request's head may take from its first byte to its last (Apache's RequestReadTimeout: 20-40)."""

MAX_HEAD_BYTES = 64 * 1024
"""Bytes a request's head may have: its line and headers (nginx takes 32 KiB by default, Node's http 16 KiB)."""

LINGER_SECONDS = 5.0
"""How long a connection answered before its request's body was read is read from and dropped (nginx: 5 s)."""

_MAX_LINGER_BYTES = 64 * 1024 * 1024
"""Bytes a lingering connection may still send before it is closed at once."""


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on (host, port); port 0 picks a free one.

    Raises:
        GraphError: the address is taken, not this machine's, or not an address at all.
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as error:
        raise GraphError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    family, _, _, _, address = infos[0]
    try:
        return socket.create_server(address, family=family, backlog=_LISTEN_BACKLOG)
    except OSError as error:
        reason = os.strerror(error.errno) if error.errno else str(error)
        hint = "; another process listens there: choose another port, or 0 for a free one" \
            if error.errno == errno.EADDRINUSE else ""
        raise GraphError(f"cannot listen on {host}:{port}: {reason}{hint}") from None


def url_of(sock: socket.socket, path: str = "/") -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{path}"


def connections_allowed(wanted: int = MAX_CONNECTIONS) -> int:
    """How many connections may be open at once: `wanted`, or fewer if this process may not open that many
    files, once its soft limit is raised to the hard one (often 1,024 of 4,096 or more); a line says so."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and (hard == resource.RLIM_INFINITY or soft < hard):
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):  # a hard limit past what the kernel allows (nr_open): keep the soft one
            pass
    if soft == resource.RLIM_INFINITY or wanted + _FILES_KEPT <= soft:
        return wanted
    allowed = max(1, soft - _FILES_KEPT)
    print(f"graphrt: at most {allowed:,} connections at once, not {wanted:,}: this process may open only "
          f"{soft:,} files (ulimit -n)", file=sys.stderr)
    return allowed


def _answer(status: str, text: str, *more: str) -> bytes:
    """A whole HTTP answer of plain text that closes the connection."""
    body = text.encode()
    head = [f"HTTP/1.1 {status}", "content-type: text/plain; charset=utf-8", *more, "connection: close",
            f"content-length: {len(body)}"]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


class _LingeringTransport:
    """A connection's transport as uvicorn's protocol sees it: a `close()` while the request's body is still
    coming in (the answer was sent before it was read) shuts the writing side and lets the rest be dropped
    (`Guarded.data_received`) until the client closes its side or LINGER_SECONDS pass."""

    def __init__(self, transport: Any, protocol: Any) -> None:
        self._transport = transport
        self._protocol = protocol
        self.lingering = False
        self.dropped = 0
        self._timer: asyncio.TimerHandle | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)

    def is_closing(self) -> bool:
        return self.lingering or self._transport.is_closing()

    def write(self, data: bytes) -> None:
        # Once lingering, the answer is out and the writing side shut: what an app still sends (uvicorn answered
        # 400 to a body the parser refused, while the request's app ran on) has nowhere to go, as after close().
        if not self.lingering:
            self._transport.write(data)

    def writelines(self, lines: Any) -> None:
        if not self.lingering:
            self._transport.writelines(lines)

    def close(self) -> None:
        if self.lingering or self._transport.is_closing():
            return
        cycle = self._protocol.cycle
        if cycle is None or not cycle.more_body or cycle.disconnected or not self._transport.can_write_eof():
            self._transport.close()
            return
        self.lingering = True
        self._transport.write_eof()  # the answer, then FIN: the client reads it whole
        self._transport.resume_reading()  # paused while the app did not read the body: drop it instead
        self._timer = asyncio.get_running_loop().call_later(LINGER_SECONDS, self.abort_linger)

    def abort_linger(self) -> None:
        self._timer = None
        self._transport.close()

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


def _guarded(protocol: type, cap: int, head_timeout: float = HEAD_TIMEOUT, max_head: int = MAX_HEAD_BYTES) -> type:
    """uvicorn's HTTP protocol, answering a connection past `cap` open ones with a 503 and closing it at once
    (uvicorn's own limit_concurrency answers only once a request arrives, keeping the connection meanwhile;
    the first refusal prints the limit, once),
    and closing one whose request head takes longer than `head_timeout` (408) or more than `max_head` bytes
    (431). A head is under way from the first byte received while no request is (the connection is new, or
    its last request was answered and its body received whole) until the protocol starts a request (`cycle`).
    Its size is counted up to the blank line that ends it, before the parser sees the bytes: a head that
    arrives whole in one read is measured too."""
    too_many = _answer("503 Service Unavailable", f"too many connections (at most {cap:,} at once); try again later\n",
                       "retry-after: 5")
    too_slow = _answer("408 Request Timeout", f"the request's headers did not arrive within {head_timeout:g} s\n")
    too_big = _answer("431 Request Header Fields Too Large",
                      f"the request's line and headers are over {max_head:,} bytes\n")
    refused = [False]  # whether a connection was refused yet: the limit is said at the first

    class Guarded(protocol):  # type: ignore[misc, valid-type]
        _head_timer: asyncio.TimerHandle | None = None
        _head_of: Any = None  # the request under way when the head began: a head is complete once it is another
        _head_bytes = 0
        _head_tail = b""  # the last bytes of the head so far: its blank line may come split across two reads

        def connection_made(self, transport: Any) -> None:
            self._lingering = _LingeringTransport(transport, self)
            super().connection_made(self._lingering)
            if len(self.connections) > cap:
                transport.write(too_many)
                transport.close()
                if not refused[0]:
                    refused[0] = True
                    print(f"graphrt: {cap:,} connections are open, the most this server takes at once "
                          "(--max-connections, or what ulimit -n leaves); more are answered 503 until some close",
                          file=sys.stderr, flush=True)

        def data_received(self, data: bytes) -> None:
            if self._lingering.lingering:  # answered already: what the client still sends is dropped
                self._lingering.dropped += len(data)
                if self._lingering.dropped > _MAX_LINGER_BYTES:
                    self._lingering.abort_linger()
                return
            if self._head_timer is None and self._between_requests():
                self._head_of, self._head_bytes, self._head_tail = self.cycle, 0, b""
                self._head_timer = self.loop.call_later(head_timeout, self._head_late)
            if self._head_timer is not None:
                seen = self._head_tail + data
                end = seen.find(b"\r\n\r\n")
                self._head_bytes += (end + 4 - len(self._head_tail)) if end >= 0 else len(data)
                self._head_tail = seen[-3:]
                if self._head_bytes > max_head:
                    self._refuse_head(too_big)
                    return
            super().data_received(data)
            if self._head_timer is not None and self.cycle is not self._head_of:  # the head is complete
                self._stop_head_timer()

        def _between_requests(self) -> bool:
            """No request is under way: the connection is new, or its last request was answered and its body
            read to the end (an answer sent before the body was read leaves the body's rest to come, which the
            parser reads as that request's: it is not the next head)."""
            return self.cycle is None or (self.cycle.response_complete and not self.cycle.more_body)

        def _head_late(self) -> None:
            self._head_timer = None
            if self.cycle is self._head_of:
                self._refuse_head(too_slow)

        def _refuse_head(self, answer: bytes) -> None:
            self._stop_head_timer()
            if not self.transport.is_closing():
                self.transport.write(answer)
                self.transport.close()

        def _stop_head_timer(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_head_timer()
            self._lingering.cancel()
            super().connection_lost(exc)

    return Guarded


def _say_once_when_out_of_files(loop: asyncio.AbstractEventLoop) -> None:
    """The loop's failures to accept for want of descriptors (asyncio tries again a second later, and logs a
    traceback at each try) said in one line, the first time; its other errors as asyncio logs them."""
    said = [False]

    def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        if not (isinstance(error, OSError) and error.errno in (errno.EMFILE, errno.ENFILE)
                and str(context.get("message", "")).startswith("socket.accept()")):
            loop.default_exception_handler(context)
            return
        if not said[0]:
            said[0] = True
            soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
            print(f"graphrt: this process has no file descriptors left (it may open {soft:,} files, ulimit -n): "
                  "new connections wait until some close", file=sys.stderr, flush=True)

    loop.set_exception_handler(handle)


def serve_app(app: Any, sock: socket.socket, *, on_listening: Callable[[], None],
              timeout_graceful_shutdown: int = 5, should_stop: Callable[[], bool] | None = None,
              max_connections: int = MAX_CONNECTIONS, head_timeout: float = HEAD_TIMEOUT) -> int:
    """Serves `app` on `sock` until stopped (Ctrl-C, SIGTERM, or `should_stop()` true: asked ten times a
    second); 1 if the app failed to start, else 0.

    `on_listening` is called once the app's lifespan has started and the socket takes connections.
    Past `max_connections` open connections (fewer if the process may not open that many files), a new
    one is answered 503 and closed; one whose request head takes over `head_timeout` seconds, 408.
    """
    import uvicorn
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            _say_once_when_out_of_files(asyncio.get_running_loop())
            await super().startup(sockets=sockets)  # asyncio listens with _ACCEPTS_AT_ONCE as its backlog
            for listening in sockets or ():
                listening.listen(_LISTEN_BACKLOG)  # the kernel's queue as bind() made it
            if not self.should_exit:
                on_listening()

        async def on_tick(self, counter: int) -> bool:
            return await super().on_tick(counter) or (should_stop is not None and should_stop())

    cap = connections_allowed(max_connections)
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=timeout_graceful_shutdown,
                            http=_guarded(HttpToolsProtocol, cap, head_timeout), backlog=_ACCEPTS_AT_ONCE)
    server = Server(config)
    with sock:
        asyncio.run(server.serve(sockets=[sock]))
    if not server.started:
        print("graphrt: the server did not start (see the error above)", file=sys.stderr)
        return 1
    return 0
