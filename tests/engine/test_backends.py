"""The same graphs on asyncio and on trio: the engine makes no backend-specific calls."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

import graphrt
from graphrt import AgentContext, AgentInfo, Graph
from graphrt.base.errors import GraphAbortedError, NodeTimeoutError

pytestmark = pytest.mark.anyio

BACKENDS = ["asyncio", "trio"]

GRAPH = {
    "version": 0.5,
    "concurrency": 2,
    "loop": {"count": 2},
    "nodes": {
        "fruits": {"value": ["apple", "lemon"]},
        "seen": {"value": [], "update": ":push.array"},
        "map": {
            "agent": "mapAgent",
            "inputs": {"rows": ":fruits"},
            "params": {"compositeResultKey": "say"},
            "graph": {"nodes": {"say": {"agent": "stringTemplateAgent", "inputs": {"f": ":row"}, "params": {"template": "I like ${f}"}, "isResult": True}}},
        },
        "joined": {"agent": "copyAgent", "inputs": {"text": ":map.join(,)"}},
        "push": {"agent": "pushAgent", "inputs": {"array": ":seen", "item": ":joined.text"}, "isResult": True},
        "sleep": {"agent": "sleeperAgent", "params": {"duration": 1}, "inputs": {"v": ":joined"}, "timeout": 60_000, "isResult": True},
    },
}

EXPECTED = {
    "push": {"array": ["I like apple,I like lemon", "I like apple,I like lemon"]},
    "sleep": {"v": {"text": "I like apple,I like lemon"}},
}


@pytest.fixture(params=BACKENDS)
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return request.param


async def test_a_graph_with_a_loop_a_map_and_a_sleep_gives_the_same_results(anyio_backend: str) -> None:
    assert await graphrt.arun(GRAPH) == EXPECTED


async def test_a_timeout_cancels_the_agent(anyio_backend: str) -> None:
    cancelled: list[str] = []

    async def hang(ctx: AgentContext) -> None:
        try:
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            cancelled.append(ctx.node_id)
            raise

    graph = {"nodes": {"a": {"value": 1}, "slow": {"agent": "hangAgent", "inputs": {"a": ":a"}, "timeout": 5}}}
    with pytest.raises(NodeTimeoutError):
        await graphrt.arun(graph, agents=[AgentInfo(name="hangAgent", func=hang)])
    assert cancelled == ["slow"]


async def test_abort_cancels_the_run(anyio_backend: str) -> None:
    started = anyio.Event()

    async def wait(ctx: AgentContext) -> None:
        started.set()
        await anyio.sleep_forever()

    run = Graph({"nodes": {"a": {"value": 1}, "w": {"agent": "waitAgent", "inputs": {"a": ":a"}}}},
                agents=[AgentInfo(name="waitAgent", func=wait)]).start()

    async def abort_once_started() -> None:
        await started.wait()
        run.abort()

    with anyio.fail_after(5):
        async with anyio.create_task_group() as task_group:
            task_group.start_soon(abort_once_started)
            with pytest.raises(GraphAbortedError):
                await run.wait()


async def test_sync_agents_run_in_a_worker_thread(anyio_backend: str) -> None:
    def sync(ctx: AgentContext) -> dict[str, Any]:
        return {"doubled": ctx.inputs["n"] * 2}

    graph = {"nodes": {"n": {"value": 21}, "s": {"agent": "syncAgent", "inputs": {"n": ":n"}, "isResult": True}}}
    assert await graphrt.arun(graph, agents=[AgentInfo(name="syncAgent", func=sync)]) == {"s": {"doubled": 42}}


@pytest.mark.parametrize("backend", BACKENDS)
def test_graph_run_picks_the_backend(backend: str) -> None:
    assert Graph(GRAPH).run(backend=backend) == EXPECTED
