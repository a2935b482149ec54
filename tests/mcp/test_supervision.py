"""MCP servers of a long-lived set of run services (graphrt serve's, graphrt mcp's) are restarted when they die,
with backoff, and an error tells what the server wrote during that call only (graphrt/mcp/supervision.py)."""

from __future__ import annotations

import pytest

import graphrt
from graphrt import ServiceError
from graphrt.authoring.services import RunServices
from graphrt.mcp import supervision

pytestmark = pytest.mark.anyio


def call(tool: str, arguments: dict | None = None) -> dict:
    return {"version": 0.5, "nodes": {"c": {"agent": "mcpToolsCallAgent", "isResult": True,
                                            "inputs": {"tools": {"name": tool, "arguments": arguments or {}}}}}}


async def pid_of(services: RunServices) -> str:
    results = await graphrt.arun(call("tests--whoami"), services=services)
    return results["c"]["response"]["content"][0]["text"].split()[0]


async def test_a_server_that_died_is_started_again_for_the_next_run(kit):
    async with RunServices(kit.config(tests=kit.stdio())) as services:
        first = await pid_of(services)
        with pytest.raises(ServiceError, match="closed the connection") as died:
            await graphrt.arun(call("tests--die"), services=services)
        assert "dying on purpose" in str(died.value)

        second = await pid_of(services)  # was: "closed the connection" with the dead server's stderr, every run after
        assert second != first and kit.alive(int(second)) and not kit.alive(int(first))
        assert await pid_of(services) == second  # and then it is shared again


async def test_an_error_quotes_the_stderr_of_its_own_call_only(kit):
    async with RunServices(kit.config(tests=kit.stdio())) as services:
        await graphrt.arun(call("tests--note", {"text": "an earlier call's note"}), services=services)
        with pytest.raises(ServiceError) as vanished:
            await graphrt.arun(call("tests--vanish"), services=services)
    assert "closed the connection" in str(vanished.value)
    assert "an earlier call's note" not in str(vanished.value)


async def test_restarts_back_off_when_the_server_keeps_dying(kit, monkeypatch):
    monkeypatch.setattr(supervision, "FIRST_BACKOFF_SECONDS", 600.0)  # the wait outlasts the test, however slow
    async with RunServices(kit.config(tests=kit.stdio())) as services:
        for _ in range(2):
            with pytest.raises(ServiceError, match="closed the connection"):
                await graphrt.arun(call("tests--die"), services=services)
        with pytest.raises(ServiceError) as waiting:
            await graphrt.arun(call("tests--whoami"), services=services)
    assert "after 2 failures in a row it is started again in" in str(waiting.value)


async def test_a_server_that_failed_to_start_is_tried_again_later(kit, tmp_path):
    script = tmp_path / "server.py"
    script.write_text("import sys; sys.exit('not yet')\n")
    async with RunServices(kit.config(tests={"command": kit.stdio()["command"], "args": [str(script)]})) as services:
        with pytest.raises(ServiceError, match="failed to start"):
            await graphrt.arun(call("tests--whoami"), services=services)
        script.write_text(kit.server_script.read_text())  # fixed: the next call starts it
        assert (await pid_of(services)).isdigit()
