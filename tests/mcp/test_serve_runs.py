"""graphrt serve's /mcp tool calls are runs of its RunService: under its limits, saved, listed in /runs
(graphrt/mcp/serve_extension.py), and the tools follow the served folder."""

from __future__ import annotations

import socket
import threading
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

import uvicorn

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from graphrt.authoring.agent_info import AgentContext, AgentInfo
from graphrt.engine.graph import make_registry
from graphrt.mcp.serve_extension import McpExtension
from graphrt.serve import GraphCatalog, create_app
from graphrt.serve.settings import ServerSettings

from ..waiting import wait_until

pytestmark = [pytest.mark.anyio, pytest.mark.needs("mcp")]

HELLO = (Path(__file__).parents[2] / "graphs" / "hello.yaml").read_text()
HOLD = "version: 0.5\nnodes:\n  wait:\n    agent: holdAgent\n    isResult: true\n"
BROKEN = "version: 0.5\nnodes:\n  a: {agent: noSuchAgent}\n"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def test_mcp_calls_are_runs_of_the_service_under_its_limits(tmp_path: Path) -> None:
    gate = threading.Event()
    started = threading.Event()

    async def hold(ctx: AgentContext) -> Any:
        started.set()
        await anyio.to_thread.run_sync(gate.wait)
        return "released"

    folder = tmp_path / "graphs"
    folder.mkdir()
    (folder / "hello.yaml").write_text(HELLO)
    (folder / "hold.yaml").write_text(HOLD)
    (folder / "broken.yaml").write_text(BROKEN)
    catalog = GraphCatalog([folder], make_registry([AgentInfo(name="holdAgent", func=hold)]))
    app = create_app(catalog, str(tmp_path / "runs.db"), ServerSettings(max_runs=1, max_queue=0),
                     extensions=[McpExtension(catalog)])
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=_free_port(), log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_until(lambda: server.started or not thread.is_alive(), "the server starting")
    base = f"http://127.0.0.1:{server.config.port}"
    try:
        async with httpx.AsyncClient(base_url=base, timeout=30) as api:
            held = (await api.post("/graphs/hold/runs", json={})).json()["id"]
            await anyio.to_thread.run_sync(started.wait, 30)  # the only slot is taken

            http_client = create_mcp_http_client()
            async with http_client, Client(streamable_http_client(f"{base}/mcp", http_client=http_client)) as client:
                tools = {tool.name for tool in (await client.list_tools()).tools}
                assert tools == {"hello", "hold"}  # a graph that cannot run is no tool
                refused = await client.call_tool("hello", {"name": "Ada"})
                assert refused.is_error and "the run queue is full" in refused.content[0].text  # was: it ran anyway

                gate.set()
                with anyio.fail_after(60):  # a hang guard: the held run ends, and its slot is free
                    while (await api.get(f"/runs/{held}")).json()["status"] != "finished":
                        await anyio.sleep(0.02)
                done = await client.call_tool("hello", {"name": "Ada"})
                assert not done.is_error and done.content[0].text == "Hello, Ada!"

                (folder / "greet.yaml").write_text(HELLO)  # the tools follow the folder
                assert "greet" in {tool.name for tool in (await client.list_tools()).tools}

            runs = (await api.get("/runs")).json()["runs"]
            by_graph = [run for run in runs if run["graph"] == "hello"]
            assert [run["status"] for run in by_graph] == ["finished"]  # the MCP call's run, saved and listed
    finally:
        gate.set()
        server.should_exit = True
        thread.join(15)
