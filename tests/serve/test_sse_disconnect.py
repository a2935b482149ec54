"""A reader that leaves an event stream mid-run: the server stops writing to it, so asyncio does not log
"socket.send() raised exception." for every event that follows."""

from __future__ import annotations

import logging
import socket
import struct
import threading
from typing import Any

import anyio

from graphrt.authoring.agent_info import AgentContext, AgentInfo

from ..waiting import wait_until

TICK = "version: 0.5\nnodes:\n  t:\n    agent: tickAgent\n    isResult: true\n"


def test_a_reader_that_leaves_floods_no_log(serve, caplog):
    left, ticks = threading.Event(), []

    async def tick(ctx: AgentContext) -> Any:
        ctx.stream_token("first")
        await anyio.to_thread.run_sync(left.wait, 60)
        for number in range(200):  # events after the reader left, each one a write it will never read
            ctx.stream_token(f"t{number}")
            ticks.append(number)
            await anyio.sleep(0)
        return "done"

    served = serve({"tick.yaml": TICK}, agents=[AgentInfo(name="tickAgent", func=tick)])
    caplog.set_level(logging.WARNING, logger="asyncio")
    with served.client() as client:
        run_id = client.post("/graphs/tick/runs", json={}).json()["id"]
        reader = socket.create_connection(("127.0.0.1", served.server.config.port))
        reader.sendall(f"GET /runs/{run_id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        assert b"200 OK" in reader.recv(4096)
        reader.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # a reset, as a lost client
        reader.close()
        left.set()
        wait_until(lambda: client.get(f"/runs/{run_id}").json()["status"] == "finished", "the run finishing")
    assert len(ticks) == 200
    assert not [record for record in caplog.records if "socket.send() raised exception" in record.getMessage()]
