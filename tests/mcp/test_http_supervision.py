"""An HTTP MCP server (streamable HTTP) that went away is reached again by the next call once it is back, with
backoff while it stays away, and an error names the server and why (graphrt/mcp/supervision.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator

import pytest

import graphrt
from graphrt import ServiceError
from graphrt.authoring.services import RunServices
from graphrt.mcp import supervision

from .conftest import SERVER

pytestmark = pytest.mark.anyio


def call(tool: str) -> dict:
    return {"version": 0.5, "nodes": {"c": {"agent": "mcpToolsCallAgent", "isResult": True,
                                            "inputs": {"tools": {"name": tool, "arguments": {}}}}}}


async def pid_of(services: RunServices) -> int:
    results = await graphrt.arun(call("web--whoami"), services=services)
    return int(results["c"]["response"]["content"][0]["text"].split()[0])


class HttpServer:
    """The tool server over streamable HTTP, as a process that can be killed and started again on its port."""

    def __init__(self, kit) -> None:
        self.kit = kit
        self.port = kit.free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen([sys.executable, str(SERVER), "--http", str(self.port)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.kit.wait_for_http(self.url, self.process)

    def kill(self) -> None:
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()


@pytest.fixture
def web(kit) -> Iterator[HttpServer]:
    server = HttpServer(kit)
    server.start()
    yield server
    if server.process is not None and server.process.poll() is None:
        server.process.terminate()
        server.process.wait(10)


async def test_an_http_server_killed_and_started_again_is_reached_by_the_next_call(kit, web):
    async with RunServices(kit.config(web={"url": web.url, "timeout": 20})) as services:
        first = await pid_of(services)
        web.kill()
        with pytest.raises(ServiceError) as gone:
            await pid_of(services)
        said = str(gone.value)
        assert f"MCP server 'web' at {web.url} went away during tools/call 'whoami'" in said
        assert "the connection was refused (is it running?)" in said

        web.start()
        second = await pid_of(services)  # a new session with the new process
        assert second != first and second == web.process.pid
        assert await pid_of(services) == second


async def test_an_http_server_that_stays_away_is_tried_again_with_backoff(kit, web, monkeypatch):
    monkeypatch.setattr(supervision, "FIRST_BACKOFF_SECONDS", 600.0)  # the wait outlasts the test, however slow
    async with RunServices(kit.config(web={"url": web.url, "timeout": 20})) as services:
        await pid_of(services)
        web.kill()
        for _ in range(2):  # the call that finds it gone, then the reconnection tried at once
            with pytest.raises(ServiceError, match="refused"):
                await pid_of(services)
        with pytest.raises(ServiceError) as waiting:
            await pid_of(services)
        assert "MCP server 'web'" in str(waiting.value)
        assert "after 2 failures in a row it is tried again in" in str(waiting.value)


async def test_an_http_server_restarted_between_calls_is_reached_in_a_new_session(kit, web):
    async with RunServices(kit.config(web={"url": web.url, "timeout": 20})) as services:
        first = await pid_of(services)
        web.kill()
        web.start()  # no call saw it gone: the next one meets a server that does not know its session
        second = await pid_of(services)
        assert second != first and second == web.process.pid
