"""sleeperAgent: a cancellable pause that passes its inputs through."""

from __future__ import annotations

import anyio
import pytest

from agents.vanilla.sleeper import AGENTS, sleeper_agent
from graphrt.jsvalue import to_json_compatible
from graphrt.registry import AgentContext

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.parametrize(
    "info, sample",
    [(info, sample) for info in AGENTS for sample in info.samples],
    ids=[f"{info.name}-{n}" for info in AGENTS for n in range(len(info.samples))],
)
async def test_every_sample_gives_its_result(info, sample) -> None:
    result = await info.func(AgentContext(inputs=sample.inputs, params=sample.params, node_id="test"))
    assert to_json_compatible(result) == to_json_compatible(sample.result)


async def test_the_inputs_come_back_unchanged() -> None:
    inputs = {"a": [1, {"b": None}]}
    result = await sleeper_agent(AgentContext(inputs=inputs, params={"duration": 0}, node_id="test"))
    assert result == {"a": [1, {"b": None}]}


async def test_a_cancel_scope_stops_a_long_sleep() -> None:
    with anyio.move_on_after(0.05) as scope:
        await sleeper_agent(AgentContext(inputs={}, params={"duration": 60_000}, node_id="test"))
    assert scope.cancelled_caught


async def test_a_non_numeric_duration_does_not_wait() -> None:
    with anyio.fail_after(5):
        result = await sleeper_agent(AgentContext(inputs={"x": 1}, params={"duration": "soon"}, node_id="test"))
    assert result == {"x": 1}
