"""The guard reads a request's body whole before any route (serve/security.py): a body held back past its
time is a 408, one that came whole goes on, one over the limit is a 413; on asyncio and on trio alike."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from graphrt.serve.security import Guard

pytestmark = [pytest.mark.anyio, pytest.mark.needs("serve")]


async def _answer(guard: Guard, messages: list[dict[str, Any]]) -> tuple[int, list[bytes]]:
    """(status, bodies the app saw): `messages` are what the client sends; past them it sends nothing more."""
    given = list(messages)
    held = anyio.Event()  # never set: a client that holds the rest of its body back
    seen: list[bytes] = []
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        if given:
            return given.pop(0)
        await held.wait()
        return {"type": "http.disconnect"}

    async def app(scope: Any, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            seen.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    guard.app = app
    await guard({"type": "http", "method": "POST", "path": "/graphs/g/runs", "headers": []}, receive, send)
    return sent[0]["status"], seen


@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_a_body_held_back_past_its_time_is_a_408_and_a_whole_one_goes_on(anyio_backend: str) -> None:
    guard = Guard(None, api_key=None, max_body=10, body_seconds=0)  # no time at all: held back is too late
    assert await _answer(guard, [{"type": "http.request", "body": b"half", "more_body": True}]) == (408, [])
    assert await _answer(guard, [{"type": "http.request", "body": b"{}", "more_body": False}]) == (200, [b"{}"])
    in_two = [{"type": "http.request", "body": b"12345", "more_body": True},
              {"type": "http.request", "body": b"678", "more_body": False}]
    assert await _answer(guard, in_two) == (200, [b"12345", b"678"])
    assert await _answer(guard, [{"type": "http.request", "body": b"123456", "more_body": True},
                                 {"type": "http.request", "body": b"78901", "more_body": False}]) == (413, [])


async def test_a_refused_body_ends_its_connection() -> None:
    # Its unread rest is dropped by the server's lingering close, not read as that request's body on a connection
    # kept alive (a client reusing it got a 431: the rest was taken for its next request's head).
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"x" * 11, "more_body": True}

    guard = Guard(None, api_key=None, max_body=10)
    for headers in ([], [(b"content-length", b"99")]):  # over the limit as it came, or as it was announced
        sent.clear()
        await guard({"type": "http", "method": "POST", "path": "/graphs/g/runs", "headers": headers}, receive, send)
        assert sent[0]["status"] == 413 and (b"connection", b"close") in sent[0]["headers"]
