"""bench.ray_scaling's overhead workloads (a chain, a map of rows that do no work) give a Ray task's own cost only if
every call of theirs reaches the executor: an agent that is `runs_local` (copyAgent is) stays in the driver, and the
cost measured is then nothing at all."""

from __future__ import annotations

from typing import Any

import graphrt
from bench.ray_scaling import AGENTS, NO_WORK, chain_graph, map_graph
from graphrt.authoring.agent_info import AgentContext
from graphrt.engine.executor import Executor, call_in_process


class RecordingExecutor(Executor):
    """Runs each call here, and records the node it was for."""

    name = "recording"

    def __init__(self) -> None:
        self.nodes: list[str] = []

    async def call(self, call: Any, ctx: AgentContext) -> Any:
        self.nodes.append(ctx.node_id)
        return await call_in_process(call, ctx)


def test_every_call_of_the_chain_and_the_trivial_map_reaches_the_executor() -> None:
    executor = RecordingExecutor()
    assert graphrt.run(chain_graph(5), agents=AGENTS, executor=executor) == {"n5": {"v": 1}}
    assert sorted(executor.nodes) == ["n1", "n2", "n3", "n4", "n5"]
    executor.nodes.clear()
    results = graphrt.run(map_graph(4, NO_WORK, {}, 2), agents=AGENTS, executor=executor)
    assert [row["work"] for row in results["map"]] == [{"row": n} for n in range(4)]
    assert executor.nodes == ["work"] * 4
