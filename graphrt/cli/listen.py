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
once (`_capped`), well below that limit: the files a run opens (its store, an MCP
server's pipes) still open.
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

__all__ = ["bind", "connections_allowed", "serve_app", "url_of"]

_FILES_KEPT = 128
"""File descriptors left for what is not a connection: the store, logs, an MCP server's pipes, a run's files."""


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
        return socket.create_server(address, family=family, backlog=2048)
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


def _capped(protocol: type, cap: int) -> type:
    """uvicorn's HTTP protocol, answering a connection past `cap` open ones with a 503 and closing it at once
    (uvicorn's own limit_concurrency answers only once a request arrives, keeping the connection meanwhile)."""
    refusal = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
               b"retry-after: 5\r\nconnection: close\r\ncontent-length: %d\r\n\r\n")
    text = f"too many connections (at most {cap:,} at once); try again later\n".encode()
    answer = refusal % len(text) + text

    class Capped(protocol):  # type: ignore[misc, valid-type]
        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            if len(self.connections) > cap:
                transport.write(answer)
                transport.close()

    return Capped


def serve_app(app: Any, sock: socket.socket, *, on_listening: Callable[[], None],
              timeout_graceful_shutdown: int = 5, should_stop: Callable[[], bool] | None = None,
              max_connections: int = MAX_CONNECTIONS) -> int:
    """Serves `app` on `sock` until stopped (Ctrl-C, SIGTERM, or `should_stop()` true: asked ten times a
    second); 1 if the app failed to start, else 0.

    `on_listening` is called once the app's lifespan has started and the socket takes connections.
    Past `max_connections` open connections (fewer if the process may not open that many files), a new
    one is answered 503 and closed.
    """
    import uvicorn
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            if not self.should_exit:
                on_listening()

        async def on_tick(self, counter: int) -> bool:
            return await super().on_tick(counter) or (should_stop is not None and should_stop())

    cap = connections_allowed(max_connections)
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=timeout_graceful_shutdown,
                            http=_capped(AutoHTTPProtocol, cap))
    server = Server(config)
    with sock:
        asyncio.run(server.serve(sockets=[sock]))
    if not server.started:
        print("graphrt: the server did not start (see the error above)", file=sys.stderr)
        return 1
    return 0
