"""Cancellation always reaches the run: a cancel scope, abort() and Ctrl-C stop even a retry storm."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from graphrt import AgentContext, AgentInfo, Graph
from graphrt.base.errors import GraphAbortedError

pytestmark = pytest.mark.anyio

BACKENDS = ["asyncio", "trio"]
GIVE_UP = 200_000  # without a checkpoint per retry the storm would never yield; this ends the test anyway


def storm() -> tuple[Graph, list[int]]:
    """A node that fails at once, without awaiting, and is retried (nearly) forever."""
    attempts = [0]

    async def fail(ctx: AgentContext) -> None:
        attempts[0] += 1
        if attempts[0] >= GIVE_UP:
            return None
        raise ValueError("down")

    graph = {"nodes": {"a": {"value": 1}, "b": {"agent": "failAgent", "inputs": {"a": ":a"}, "retry": 10**9}}}
    return Graph(graph, agents=[AgentInfo(name="failAgent", func=fail)]), attempts


@pytest.mark.parametrize("anyio_backend", BACKENDS)
async def test_a_cancel_scope_stops_a_retry_storm(anyio_backend: str) -> None:
    graph, attempts = storm()
    with anyio.move_on_after(0.2) as scope:
        await graph.arun()
    assert scope.cancelled_caught
    assert 0 < attempts[0] < GIVE_UP


@pytest.mark.parametrize("anyio_backend", BACKENDS)
async def test_abort_stops_a_retry_storm(anyio_backend: str) -> None:
    graph, attempts = storm()
    run = graph.start()

    async def abort_soon() -> None:
        await anyio.sleep(0.2)
        run.abort()

    async with anyio.create_task_group() as task_group:
        task_group.start_soon(abort_soon)
        with pytest.raises(GraphAbortedError):
            await run.wait()
    assert 0 < attempts[0] < GIVE_UP


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.parametrize("graph_text", [
    pytest.param("nodes:\n  a: {value: 1}\n  b: {agent: popAgent, inputs: {array: ':a'}, retry: 1000000000}\n",
                 id="retry-storm"),
    pytest.param("loop: {while: true}\nnodes:\n  a: {value: 1}\n  b: {agent: copyAgent, inputs: {x: ':a'}}\n",
                 id="endless-loop"),
])
async def test_ctrl_c_stops_the_command(anyio_backend: str, tmp_path: Path, graph_text: str) -> None:
    path = tmp_path / "storm.yaml"
    path.write_text("version: 0.5\n" + graph_text)
    process = subprocess.Popen([sys.executable, "-c", "import sys; from graphrt.cli import main; sys.exit(main())", "run", str(path)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # Its first warning comes just before the run starts.
        assert "warning" in process.stderr.readline()
        await anyio.sleep(0.5)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130
    assert err.strip().endswith("graphrt: interrupted")
