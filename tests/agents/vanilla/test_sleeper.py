"""sleeperAgent: a cancellable pause that passes its inputs through."""

from __future__ import annotations

import anyio
import pytest
from graphrt_agents.vanilla.sleeper import AGENTS, sleeper_agent

from graphrt.testing import SampleCase, parametrize_samples
from graphrt.testing import agent_context as context

pytestmark = pytest.mark.anyio


@parametrize_samples(*AGENTS)
def test_every_sample_gives_its_result(sample_case: SampleCase) -> None:
    sample_case.check()  # through a real one-node graph, as `graphrt test-agents` runs it


async def test_the_inputs_come_back_unchanged() -> None:
    inputs = {"a": [1, {"b": None}]}
    result = await sleeper_agent(context(inputs, {"duration": 0}))
    assert result == {"a": [1, {"b": None}]}


async def test_a_cancel_scope_stops_a_long_sleep() -> None:
    with anyio.CancelScope() as scope:
        async with anyio.create_task_group() as group:
            group.start_soon(sleeper_agent, context(params={"duration": 60_000}))
            await anyio.wait_all_tasks_blocked()  # the agent is asleep
            scope.cancel()
    assert scope.cancelled_caught


async def test_a_non_numeric_duration_does_not_wait() -> None:
    with anyio.fail_after(5):
        result = await sleeper_agent(context({"x": 1}, {"duration": "soon"}))
    assert result == {"x": 1}
