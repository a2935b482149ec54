"""The counters a run keeps for a display (graphrt/observe/progress.py): what they say at the end of a run."""

from __future__ import annotations

import anyio
import pytest

import graphrt
from graphrt import AgentContext, AgentInfo, Graph
from graphrt.base.errors import Interrupt
from graphrt.observe.progress import RunProgress

pytestmark = pytest.mark.anyio


async def fail(ctx: AgentContext) -> None:
    raise ValueError("always fails")


async def ask(ctx: AgentContext) -> str:
    if ctx.answer is None:
        raise Interrupt("Your name?")
    return ctx.answer


async def hang(ctx: AgentContext) -> None:
    await anyio.sleep_forever()


AGENTS = [AgentInfo(name="failAgent", func=fail), AgentInfo(name="askAgent", func=ask), AgentInfo(name="hangAgent", func=hang)]


async def test_a_run_counts_done_failed_and_skipped_nodes_nested_graphs_included() -> None:
    graph = Graph({"version": 0.5, "nodes": {
        "off": {"value": False},
        "rows": {"value": [1, 2, 3]},
        "map": {"agent": "mapAgent", "inputs": {"rows": ":rows"},
                "graph": {"nodes": {"double": {"agent": "copyAgent", "inputs": {"v": ":row"}, "isResult": True}}}},
        "skipped": {"agent": "copyAgent", "inputs": {"m": ":map"}, "if": ":off"},
        "bad": {"agent": "failAgent", "inputs": {"m": ":map"}},
    }}, agents=AGENTS)
    progress = RunProgress()

    with pytest.raises(graphrt.GraphError):
        await graph.arun(progress=progress)

    assert (progress.done, progress.failed, progress.skipped, progress.asked) == (4, 1, 1, 0)  # map and its 3 rows
    assert progress.queued == 0 and progress.running == {}
    assert progress.slowest is not None and progress.slowest[1] == ((), "map")  # it waits for its rows


async def test_a_question_is_counted_as_asked_not_failed() -> None:
    graph = Graph({"version": 0.5, "nodes": {"name": {"agent": "askAgent", "isResult": True}}}, agents=AGENTS)
    progress = RunProgress()

    with pytest.raises(graphrt.GraphInterrupted):
        await graph.arun(progress=progress)

    assert (progress.done, progress.failed, progress.asked) == (0, 0, 1)


async def test_nodes_left_queued_by_a_failure_are_not_counted_as_queued_after_the_run() -> None:
    graph = Graph({"version": 0.5, "concurrency": 1, "nodes": {
        "bad": {"agent": "failAgent", "priority": 1},
        **{f"n{i}": {"agent": "copyAgent", "inputs": {"v": i}} for i in range(5)},
    }}, agents=AGENTS)
    progress = RunProgress()

    with pytest.raises(graphrt.GraphError):
        await graph.arun(progress=progress)

    assert progress.queued == 0 and progress.running == {}
    assert progress.failed == 1 and progress.done == 5


async def test_a_running_node_is_in_the_running_set_with_its_path() -> None:
    graph = Graph({"version": 0.5, "nodes": {"wait": {"agent": "hangAgent", "isResult": True}}}, agents=AGENTS)
    progress = RunProgress()
    run = graph.start(progress=progress)

    async def wait() -> None:
        with pytest.raises(graphrt.GraphAbortedError):
            await run.wait()

    async with anyio.create_task_group() as tg:
        tg.start_soon(wait)
        await anyio.wait_all_tasks_blocked()  # the run has started its node, which hangs
        assert list(progress.running) == [((), "wait")]
        run.abort()

    assert progress.running == {} and progress.done == 0
