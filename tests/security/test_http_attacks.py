"""What bench/adversarial's serve surface found in graphrt serve's HTTP API (issue 27), each fixed and kept so.

Cases of the campaign that broke: a client leaving before its body was whole (a
traceback in the server's log), a planted secret quoted back in an error, a Host
whose port is no number let in as loopback.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest

pytest.importorskip("starlette")

from graphrt.serve.security import Guard


@pytest.mark.parametrize("first", [b'{"inputs":', b""])
def test_a_client_that_leaves_before_its_body_ends_gets_no_route_called(first: bytes) -> None:
    called: list[Any] = []
    sent: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        called.append(await receive())  # Starlette's request.body() raises ClientDisconnect here: a traceback

    messages = [{"type": "http.request", "body": first, "more_body": True}, {"type": "http.disconnect"}]

    async def receive() -> dict[str, Any]:
        return messages.pop(0)

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/graphs/hello/runs", "headers": [(b"content-length", b"100")]}
    anyio.run(Guard(app, api_key=None, max_body=1000), scope, receive, send)
    assert called == [] and sent == []
