"""Cancellation always reaches the run: a cancel scope, abort() and Ctrl-C stop even a retry storm."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import anyio
import pytest

from graphrt import AgentContext, AgentInfo, Graph
from graphrt.base.errors import GraphAbortedError
from graphrt.check.rules import MAX_RETRY

from ..commands import GRAPHRT

pytestmark = pytest.mark.anyio

BACKENDS = ["asyncio", "trio"]
RETRY = MAX_RETRY - 1  # each iteration's node fails this often, then succeeds: a storm of retries, loop after loop
ITERATIONS = 200
GIVE_UP = (RETRY + 1) * ITERATIONS  # without a checkpoint per retry the storm would never yield; it ends here anyway
UNDER_WAY = 100  # attempts after which the storm is under way: the test cancels it then
STORM_AGENTS = str(Path(__file__).with_name("storm_agents.py"))


def storm() -> tuple[Graph, list[int], anyio.Event]:
    """A node that fails at once, without awaiting, retried as often as graphrt allows, in a loop of ITERATIONS;
    the event says it is under way."""
    attempts = [0]
    under_way = anyio.Event()

    async def fail(ctx: AgentContext) -> None:
        attempts[0] += 1
        if attempts[0] == UNDER_WAY:
            under_way.set()
        if attempts[0] % (RETRY + 1) == 0:
            return None
        raise ValueError("down")

    graph = {"loop": {"count": ITERATIONS},
             "nodes": {"a": {"value": 1}, "b": {"agent": "failAgent", "inputs": {"a": ":a"}, "retry": RETRY}}}
    return Graph(graph, agents=[AgentInfo(name="failAgent", func=fail)]), attempts, under_way


@pytest.mark.parametrize("anyio_backend", BACKENDS)
async def test_a_cancel_scope_stops_a_retry_storm(anyio_backend: str) -> None:
    graph, attempts, under_way = storm()
    with anyio.CancelScope() as scope:
        async with anyio.create_task_group() as task_group:

            async def cancel_when_under_way() -> None:
                await under_way.wait()  # runs only if the storm lets other tasks run
                scope.cancel()

            task_group.start_soon(cancel_when_under_way)
            await graph.arun()
    assert scope.cancelled_caught
    assert UNDER_WAY <= attempts[0] < GIVE_UP


@pytest.mark.parametrize("anyio_backend", BACKENDS)
async def test_abort_stops_a_retry_storm(anyio_backend: str) -> None:
    graph, attempts, under_way = storm()
    run = graph.start()

    async def abort_when_under_way() -> None:
        await under_way.wait()
        run.abort()

    async with anyio.create_task_group() as task_group:
        task_group.start_soon(abort_when_under_way)
        with pytest.raises(GraphAbortedError):
            await run.wait()
    assert UNDER_WAY <= attempts[0] < GIVE_UP


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.parametrize("graph_text", [
    pytest.param("loop: {count: 1000000}\nnodes:\n  a: {value: 1}\n"
                 f"  b: {{agent: failMostlyAgent, inputs: {{x: ':a'}}, retry: {MAX_RETRY}}}\n",
                 id="retry-storm"),
    pytest.param("loop: {while: true}\nnodes:\n  a: {value: 1}\n  b: {agent: echoNowAgent, inputs: {x: ':a'}}\n",
                 id="endless-loop"),
])
async def test_ctrl_c_stops_the_command(anyio_backend: str, tmp_path: Path, graph_text: str) -> None:
    path = tmp_path / "storm.yaml"
    path.write_text("version: 0.5\n" + graph_text)
    command = [*GRAPHRT, "run", str(path), "--agents", STORM_AGENTS]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        before = []  # the warnings, then the agents' word that the storm is under way
        while not before or before[-1] != "storm under way\n":
            line = process.stderr.readline()
            assert line, f"the command ended before its storm was under way: {''.join(before)}"
            before.append(line)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130
    assert err.strip().endswith("graphrt: interrupted")
