"""`graphrt mcp --http`: a client that leaves a long tools/call cancels its run (it went on with no one to answer)."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import anyio
import httpx
import pytest

import uvicorn

from graphrt.authoring.agent_info import AgentInfo
from graphrt.engine.graph import make_registry
from graphrt.mcp.graph_tools import collect_graph_tools
from graphrt.mcp.server import GraphToolServer

from ..waiting import wait_until

pytestmark = pytest.mark.needs("mcp")

HELD = """\
# Holds until cancelled.
version: 0.5
nodes:
  x:
    value: 1
  held:
    agent: heldAgent
    inputs:
      x: :x
    isResult: true
"""

HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def test_a_client_that_disconnects_from_a_long_call_cancels_its_run(tmp_path: Path) -> None:
    started, cancelled = threading.Event(), threading.Event()

    async def held(ctx) -> dict:
        started.set()
        try:
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            cancelled.set()
            raise
        return {}

    (tmp_path / "held.yaml").write_text(HELD, encoding="utf-8")
    registry = make_registry([AgentInfo(name="heldAgent", func=held, description="holds until cancelled")])
    app = GraphToolServer(collect_graph_tools([tmp_path / "held.yaml"]), agents=registry).http_app()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_until(lambda: server.started, "the server starting")
        url = f"http://127.0.0.1:{port}/mcp"
        opened = httpx.post(url, headers=HEADERS, json={
            "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
        session = {**HEADERS, "mcp-session-id": opened.headers["mcp-session-id"],
                   "mcp-protocol-version": "2025-06-18"}
        httpx.post(url, headers=session, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        with httpx.Client(timeout=30) as client:
            with client.stream("POST", url, headers=session, json={
                    "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "held", "arguments": {}}}):
                wait_until(started.is_set, "the call's agent starting")
        # The connection is closed, the session kept: the run is cancelled (it ran on, before).
        wait_until(cancelled.is_set, "the held agent cancelled")
    finally:
        server.should_exit = True
        thread.join(15)
