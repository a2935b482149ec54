"""GraphAI's @graphai/sleeper_agents (0.2.0): wait, then deep-merge the inputs.

GraphAI's own tests and samples use them to build graphs whose nodes take time
and whose results show where their data came from.
"""

from __future__ import annotations

import copy
from typing import Any

import anyio

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.jsvalue import is_null, is_truthy, js_number
from graphrt_agents.vanilla.sleeper import set_timeout_seconds

from .deepmerge import deepmerge

__all__ = ["AGENTS", "sleep_and_merge_agent", "sleeper_agent_debug", "INTENTIONAL_ERROR"]

INTENTIONAL_ERROR = "Intentional Error for Debugging"  # GraphAI's strIntentionalError
_DEFAULT_DURATION_MS = 10


def _merged(ctx: AgentContext) -> Any:
    """`(inputs.array ?? []).reduce(deepmerge, params.value ?? {})`."""
    array = ctx.inputs.get("array")
    value = ctx.params.get("value")
    result = {} if is_null(value) else copy.deepcopy(value)
    if is_null(array):
        return result
    if not isinstance(array, list):
        raise TypeError("namedInputs.array.reduce is not a function")
    for item in array:
        result = deepmerge(result, item)
    return result


async def sleep_and_merge_agent(ctx: AgentContext) -> Any:
    """Sleeps `params.duration` ms (10 by default), then deep-merges `inputs.array` over `params.value`."""
    duration = ctx.params.get("duration")
    await anyio.sleep(set_timeout_seconds(_DEFAULT_DURATION_MS if is_null(duration) else duration))
    return _merged(ctx)


async def sleeper_agent_debug(ctx: AgentContext) -> Any:
    """sleepAndMergeAgent for retry tests: sleeps `duration / (retry + 1)` ms; with `params.fail`,
    the first two attempts fail with GraphAI's intentional error."""
    await anyio.sleep(set_timeout_seconds(js_number(ctx.params.get("duration")) / (ctx.retry_count + 1)))
    if is_truthy(ctx.params.get("fail")) and ctx.retry_count < 2:
        raise RuntimeError(INTENTIONAL_ERROR)
    return _merged(ctx)


_META: dict[str, Any] = {
    "category": ("sleeper",),
    "author": "Receptron team",
    "repository": "https://github.com/receptron/graphai",
    "license": "MIT",
}
_SAMPLES = (
    Sample(inputs={}, params={"duration": 1}, result={}),
    Sample(inputs={"array": [{"a": 1}, {"b": 2}]}, params={"duration": 1}, result={"a": 1, "b": 2}),
)
_PARAMS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "duration": {"type": "number", "description": "milliseconds to wait before merging (default 10)"},
        "value": {"type": "object", "description": "the object the inputs are merged into"},
    },
}
_INPUTS: dict[str, Any] = {
    "type": "object",
    "properties": {"array": {"type": "array", "description": "objects to deep-merge, in order (lists concatenate)"}},
}

AGENTS: list[AgentInfo] = [
    AgentInfo(
        name="sleepAndMergeAgent",
        func=sleep_and_merge_agent,
        description="sleeper and merge Agent",
        inputs=_INPUTS,
        params=_PARAMS,
        samples=_SAMPLES,
        source="https://github.com/receptron/graphai/blob/main/agents/sleeper_agents/src/sleep_and_merge_agent.ts",
        package="@graphai/sleeper_agents",
        **_META,
    ),
    AgentInfo(
        name="sleeperAgentDebug",
        func=sleeper_agent_debug,
        description="sleeper debug Agent",
        inputs=_INPUTS,
        params={**_PARAMS, "properties": {**_PARAMS["properties"], "fail": {"type": "boolean"}}},
        samples=_SAMPLES,
        source="https://github.com/receptron/graphai/blob/main/agents/sleeper_agents/src/sleeper_agent_debug.ts",
        package="@graphai/sleeper_agents",
        **_META,
    ),
]
