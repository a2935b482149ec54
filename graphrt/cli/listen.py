"""Serving an ASGI app with uvicorn on a socket this module binds: one line for a port that is taken.

`graphrt serve` and `graphrt mcp --http` both serve this way. The socket is bound
before uvicorn starts, so a port already in use (or an address that is not this
machine's) is a GraphError of one line instead of uvicorn's `sys.exit` inside a task
group (a 50-line BaseExceptionGroup); the URL is printed once the app has started
and the socket takes connections, never before.
"""

from __future__ import annotations

import asyncio
import errno
import os
import socket
import sys
from typing import Any, Callable

from graphrt.base.errors import GraphError

__all__ = ["bind", "serve_app", "url_of"]


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


def serve_app(app: Any, sock: socket.socket, *, on_listening: Callable[[], None],
              timeout_graceful_shutdown: int = 5, should_stop: Callable[[], bool] | None = None) -> int:
    """Serves `app` on `sock` until stopped (Ctrl-C, SIGTERM, or `should_stop()` true: asked ten times a
    second); 1 if the app failed to start, else 0.

    `on_listening` is called once the app's lifespan has started and the socket takes connections.
    """
    import uvicorn

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            if not self.should_exit:
                on_listening()

        async def on_tick(self, counter: int) -> bool:
            return await super().on_tick(counter) or (should_stop is not None and should_stop())

    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=timeout_graceful_shutdown)
    server = Server(config)
    with sock:
        asyncio.run(server.serve(sockets=[sock]))
    if not server.started:
        print("graphrt: the server did not start (see the error above)", file=sys.stderr)
        return 1
    return 0
