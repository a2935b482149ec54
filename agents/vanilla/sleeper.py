"""GraphAI's sleeper agent: waits, then passes its inputs through."""

from __future__ import annotations

import math
from typing import Any

import anyio

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.jsvalue import is_null, js_number

__all__ = ["AGENTS", "sleeper_agent", "set_timeout_seconds"]

_DEFAULT_DURATION_MS = 10
_MAX_TIMEOUT_MS = 2**31 - 1


def set_timeout_seconds(duration_ms: Any) -> float:
    """`setTimeout`'s delay in seconds: NaN and negatives wait 0 ms, delays past 2**31-1 ms wait 1 ms."""
    milliseconds = js_number(duration_ms)
    if math.isnan(milliseconds) or milliseconds < 0:
        return 0.0
    if milliseconds > _MAX_TIMEOUT_MS:
        return 0.001
    return milliseconds / 1000


async def sleeper_agent(ctx: AgentContext) -> dict[str, Any]:
    """Sleeps `params.duration` milliseconds (10 by default) and returns the inputs unchanged.

    Tests and demos use it to make a node slow; the sleep is an anyio sleep, so
    a node timeout or an aborted run cancels it.
    """
    duration = ctx.params.get("duration")
    await anyio.sleep(set_timeout_seconds(_DEFAULT_DURATION_MS if is_null(duration) else duration))
    return ctx.inputs


sleeper_agent_info = AgentInfo(
    name="sleeperAgent",
    func=sleeper_agent,
    description="sleeper Agent for test and debug",
    inputs={
        "type": "object",
        "description": "Arbitrary input data. This agent does not modify it and returns it unchanged after a delay.",
        "additionalProperties": True,
    },
    params={
        "type": "object",
        "properties": {
            "duration": {
                "type": "number",
                "description": "Optional duration in milliseconds to pause execution before returning the input. "
                "Defaults to 10ms.",
            },
        },
        "additionalProperties": False,
    },
    output={
        "type": "object",
        "description": "Returns the same object passed as 'inputs', unchanged.",
        "additionalProperties": True,
    },
    samples=(
        Sample(inputs={}, params={"duration": 1}, result={}),
        Sample(
            inputs={"array": [{"a": 1}, {"b": 2}]},
            params={"duration": 1},
            result={"array": [{"a": 1}, {"b": 2}]},
        ),
    ),
    category=("sleeper",),
    author="Receptron team",
    repository="https://github.com/receptron/graphai",
    source="https://github.com/receptron/graphai/blob/main/agents/vanilla_agents/src/sleeper_agents/sleeper_agent.ts",
    package="@graphai/vanilla",
    license="MIT",
)

AGENTS: list[AgentInfo] = [sleeper_agent_info]
