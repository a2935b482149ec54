"""GraphAI's dataObjectMergeTemplateAgent (@graphai/data_agents 1.0.0): `inputs.array` deep-merged, left to right.

`array.reduce(deepmerge, {})`: objects merge key by key, lists concatenate, and
anything else from a later item replaces an earlier one. The result is
`{data: merged}`, or the merged object itself with `params.flatResponse`.
"""

from __future__ import annotations

from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.jsvalue import UNDEFINED, is_truthy

from graphrt_agents.sleeper.deepmerge import deepmerge

__all__ = ["AGENTS", "data_object_merge_template_agent"]


async def data_object_merge_template_agent(ctx: AgentContext) -> Any:
    """Deep-merges the objects of `inputs.array` in order; `{data: merged}`, or `merged` with `params.flatResponse`.

    Raises:
        TypeError: as GraphAI's does: no `array` ("Cannot read properties of undefined (reading 'reduce')"),
            an `array` that is not a list, or an item that is null.
    """
    array = ctx.inputs.get("array", UNDEFINED)
    if array is UNDEFINED or array is None:
        raise TypeError(f"Cannot read properties of {'undefined' if array is UNDEFINED else 'null'} (reading 'reduce')")
    if not isinstance(array, list):
        raise TypeError("namedInputs.array.reduce is not a function")
    data: Any = {}
    for item in array:
        data = deepmerge(data, item)
    return data if is_truthy(ctx.params.get("flatResponse")) else {"data": data}


_SAMPLE_INPUTS = {"array": [{"a": 1, "b": 1}, {"a": 2, "b": 2}, {"a": 3, "b": 0, "c": 5}]}
_SAMPLE_RESULT = {"a": 3, "b": 0, "c": 5}
_DEEP = {"array": [{"a": {"b": {"c": {"d": "e"}}}}, {"b": {"c": {"d": {"e": "f"}}}}, {"b": {"d": {"e": {"f": "g"}}}}]}
_DEEP_RESULT = {"a": {"b": {"c": {"d": "e"}}}, "b": {"c": {"d": {"e": "f"}}, "d": {"e": {"f": "g"}}}}
_CASES = (  # GraphAI's samples: each with flatResponse, then each without it
    ({"array": [{"content1": "hello"}, {"content2": "test"}]}, {"content1": "hello", "content2": "test"}),
    ({"array": [{"content1": "hello"}]}, {"content1": "hello"}),
    ({"array": [{"content": "hello1"}, {"content": "hello2"}]}, {"content": "hello2"}),
    (_SAMPLE_INPUTS, _SAMPLE_RESULT),
    (_DEEP, _DEEP_RESULT),
)

AGENTS: list[AgentInfo] = [
    AgentInfo(
        name="dataObjectMergeTemplateAgent",
        func=data_object_merge_template_agent,
        description="Merge object",
        inputs={
            "type": "object",
            "properties": {"array": {"type": "array", "items": {"type": "object"},
                                     "description": "the objects to merge, later ones over earlier ones"}},
            "required": ["array"],
        },
        params={
            "type": "object",
            "properties": {"flatResponse": {"type": "boolean",
                                            "description": "return the merged object itself instead of {data}"}},
        },
        output={"type": "object", "description": "{data: the merged object}, or the merged object with flatResponse"},
        samples=(
            *(Sample(inputs=inputs, params={"flatResponse": True}, result=result) for inputs, result in _CASES),
            *(Sample(inputs=inputs, params={}, result={"data": result}) for inputs, result in _CASES),
        ),
        category=("data",),
        author="Satoshi Nakajima",
        repository="https://github.com/receptron/graphai",
        source="https://github.com/receptron/graphai/blob/main/agents/data_agents/src/data_object_merge_template_agent.ts",
        package="@graphai/data_agents",
        license="MIT",
        runs_local=True,  # pure and quick: a trip to a cluster worker would cost more than the call
    ),
]
