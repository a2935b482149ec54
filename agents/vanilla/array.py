"""GraphAI's vanilla array agents: push, pop, shift, flat, join, to-object and find-first.

None of them changes its input list; each works on a shallow copy, as GraphAI's do.
"""

from __future__ import annotations

import math
from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.jsvalue import (
    UNDEFINED,
    is_named_inputs,
    is_null,
    is_truthy,
    js_number,
    js_string,
)

from ._arrays import require_array
from ._js import read_error

__all__ = [
    "AGENTS",
    "array_find_first_exists_agent",
    "array_flat_agent",
    "array_join_agent",
    "array_to_object_agent",
    "pop_agent",
    "push_agent",
    "shift_agent",
]

_META: dict[str, Any] = {
    "category": ("array",),
    "author": "Receptron team",
    "repository": "https://github.com/receptron/graphai",
    "package": "@graphai/vanilla",
    "license": "MIT",
    "cache_type": "pureAgent",
}
_SOURCE = "https://github.com/receptron/graphai/blob/main/agents/vanilla_agents/src/array_agents/"


def _flat(items: list[Any], depth: Any) -> list[Any]:
    """`Array.prototype.flat(depth)`: the depth is truncated to an integer, NaN counts as 0."""
    levels = js_number(depth)
    levels = 0 if math.isnan(levels) else levels
    flattened: list[Any] = []
    for item in items:
        if levels >= 1 and isinstance(item, (list, tuple)):
            flattened.extend(_flat(list(item), levels - 1))
        else:
            flattened.append(item)
    return flattened


# --- agents --------------------------------------------------------------------

_PUSH_HINT = " Set inputs: { array: :arrayNodeId, item: :itemNodeId }"


async def push_agent(ctx: AgentContext) -> dict[str, Any]:
    """Appends `item` and/or every one of `items` to a copy of `array`.

    Loops accumulate results this way. Other inputs are passed through, and
    `params.arrayKey` renames the `array` key of the result.
    """
    array = require_array("pushAgent", ctx.inputs, _PUSH_HINT)
    rest = {key: value for key, value in ctx.inputs.items() if key not in ("array", "item", "items")}
    item = ctx.inputs.get("item", UNDEFINED)
    items = ctx.inputs.get("items", UNDEFINED)
    if item is UNDEFINED and items is UNDEFINED:
        raise ValueError("pushAgent: namedInputs.item and namedInputs.items are UNDEFINED!" + _PUSH_HINT)
    if items is not UNDEFINED and not isinstance(items, (list, tuple)):
        raise ValueError("pushAgent: namedInputs.items is not array!")
    if item is not UNDEFINED:
        array.append(item)
    if items is not UNDEFINED:
        array.extend(items)
    array_key = ctx.params.get("arrayKey")
    key = js_string(array_key) if is_truthy(array_key) else "array"
    return {**rest, key: array}


async def pop_agent(ctx: AgentContext) -> dict[str, Any]:
    """Takes the last item off a copy of `array`; returns `{array, item}`.

    `item` is undefined (absent) when the array is empty.
    """
    array = require_array("popAgent", ctx.inputs)
    item = array.pop() if array else UNDEFINED
    return {"array": array, "item": item}


async def shift_agent(ctx: AgentContext) -> dict[str, Any]:
    """Takes the first item off a copy of `array`; returns `{array, item}`.

    `item` is undefined (absent) when the array is empty.
    """
    array = require_array("shiftAgent", ctx.inputs)
    item = array.pop(0) if array else UNDEFINED
    return {"array": array, "item": item}


async def array_flat_agent(ctx: AgentContext) -> dict[str, list[Any]]:
    """Flattens nested lists in `array` by `params.depth` levels (default 1)."""
    array = require_array("arrayFlatAgent", ctx.inputs)
    depth = ctx.params.get("depth")
    return {"array": _flat(array, 1 if is_null(depth) else depth)}


async def array_join_agent(ctx: AgentContext) -> dict[str, str]:
    """Joins `array` into one text like JavaScript's `join`.

    Null items become "", nested lists become comma-separated text; a truthy
    `params.flat` flattens that many levels first.
    """
    array = require_array("arrayJoinAgent", ctx.inputs)
    separator = ctx.params.get("separator")
    separator = "" if is_null(separator) else js_string(separator)
    flat = ctx.params.get("flat")
    if is_truthy(flat):
        array = _flat(array, flat)
    return {"text": separator.join("" if is_null(item) else js_string(item) for item in array)}


def _property(item: Any, key: str) -> Any:
    """`item[key]` for one list element; reading from null fails as in JavaScript."""
    if is_null(item):
        raise read_error(item, key)
    return item.get(key, UNDEFINED) if isinstance(item, dict) else UNDEFINED


async def array_to_object_agent(ctx: AgentContext) -> dict[str, Any]:
    """Indexes the dicts in `items` by their `params.key` property.

    Keys are the property's text (`1` becomes "1"); a later item with the same
    key replaces an earlier one.
    """
    if not is_named_inputs(ctx.inputs):
        raise ValueError("arrayToObjectAgent: namedInputs is UNDEFINED!")
    items = ctx.inputs.get("items", UNDEFINED)
    if not isinstance(items, (list, tuple)):
        raise ValueError("arrayToObjectAgent: namedInputs.items is not array!")
    key = ctx.params.get("key")
    if is_null(key):
        raise ValueError("arrayToObjectAgent: params.key is UNDEFINED!")
    name = js_string(key)
    return {js_string(_property(item, name)): item for item in items}


async def array_find_first_exists_agent(ctx: AgentContext) -> Any:
    """Returns the first item of `array` that is neither null nor undefined.

    Falsy values such as 0 or "" count as existing. No such item: undefined.
    """
    array = require_array("arrayFindFirstExistsAgent", ctx.inputs)
    return next((item for item in array if not is_null(item)), UNDEFINED)


# --- function info -------------------------------------------------------------

_ANY_ITEM = [{"type": "string"}, {"type": "integer"}, {"type": "object"}, {"type": "array"}]


def _array_input(description: str, key: str = "array") -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {key: {"type": "array", "description": description}},
        "required": [key],
    }


def _array_with_item(verb: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "item": {"anyOf": _ANY_ITEM, "description": f"the item {verb} from the array"},
            "array": {"type": "array", "description": "the remaining array"},
        },
    }


PUSH_AGENT = AgentInfo(
    name="pushAgent",
    runs_local=True,  # pure and quick: a trip to a cluster worker would cost more than the call
    func=push_agent,
    description="push Agent",
    inputs={
        "type": "object",
        "properties": {
            "array": {"type": "array", "description": "the array to push an item to"},
            "item": {
                "anyOf": [*_ANY_ITEM, {"type": "boolean"}],
                "description": "the item push into the array",
            },
            "items": {"type": "array", "description": "items push into the array"},
        },
        "required": ["array"],
    },
    output={"type": "object", "properties": {"array": {"type": "array"}}},
    samples=(
        Sample(inputs={"array": [1, 2], "item": 3}, params={}, result={"array": [1, 2, 3]}),
        Sample(inputs={"array": [True, False], "item": False}, params={}, result={"array": [True, False, False]}),
        Sample(
            inputs={"array": [1, 2], "item": 3, "data": {"example": "hello"}},
            params={},
            result={"array": [1, 2, 3], "data": {"example": "hello"}},
        ),
        Sample(
            inputs={"array": [{"apple": 1}], "item": {"lemon": 2}},
            params={},
            result={"array": [{"apple": 1}, {"lemon": 2}]},
        ),
        Sample(
            inputs={"array": [{"apple": 1}], "items": [{"lemon": 2}, {"banana": 3}]},
            params={},
            result={"array": [{"apple": 1}, {"lemon": 2}, {"banana": 3}]},
        ),
        Sample(inputs={"array": [1, 2], "item": 3}, params={"arrayKey": "test"}, result={"test": [1, 2, 3]}),
    ),
    source=_SOURCE + "push_agent.ts",
    **_META,
)

POP_AGENT = AgentInfo(
    name="popAgent",
    runs_local=True,  # pure and quick: a trip to a cluster worker would cost more than the call
    func=pop_agent,
    description="Pop Agent",
    inputs=_array_input("the array to pop an item from"),
    output=_array_with_item("popped"),
    samples=(
        Sample(inputs={"array": [1, 2, 3]}, params={}, result={"array": [1, 2], "item": 3}),
        Sample(inputs={"array": ["a", "b", "c"]}, params={}, result={"array": ["a", "b"], "item": "c"}),
        Sample(
            inputs={"array": [1, 2, 3], "array2": ["a", "b", "c"]},
            params={},
            result={"array": [1, 2], "item": 3},
        ),
    ),
    source=_SOURCE + "pop_agent.ts",
    **_META,
)

SHIFT_AGENT = AgentInfo(
    name="shiftAgent",
    runs_local=True,  # pure and quick: a trip to a cluster worker would cost more than the call
    func=shift_agent,
    description="shift Agent",
    inputs=_array_input("the array to shift an item from"),
    output=_array_with_item("shifted"),
    samples=(
        Sample(inputs={"array": [1, 2, 3]}, params={}, result={"array": [2, 3], "item": 1}),
        Sample(inputs={"array": ["a", "b", "c"]}, params={}, result={"array": ["b", "c"], "item": "a"}),
    ),
    source=_SOURCE + "shift_agent.ts",
    **_META,
)

ARRAY_FLAT_AGENT = AgentInfo(
    name="arrayFlatAgent",
    runs_local=True,  # pure and quick: a trip to a cluster worker would cost more than the call
    func=array_flat_agent,
    description="Array Flat Agent",
    inputs=_array_input("The array to be flattened"),
    output={"type": "object", "properties": {"array": {"type": "array", "description": "flattened array"}}},
    params={"type": "object", "properties": {"depth": {"type": "number", "description": "flattening depth"}}},
    samples=(
        Sample(inputs={"array": [[1], [2], [3]]}, params={}, result={"array": [1, 2, 3]}),
        Sample(inputs={"array": [[1], [2], [[3]]]}, params={}, result={"array": [1, 2, [3]]}),
        Sample(inputs={"array": [[1], [2], [[3]]]}, params={"depth": 2}, result={"array": [1, 2, 3]}),
        Sample(inputs={"array": [["a"], ["b"], ["c"]]}, params={}, result={"array": ["a", "b", "c"]}),
    ),
    source=_SOURCE + "array_flat_agent.ts",
    **_META,
)

ARRAY_JOIN_AGENT = AgentInfo(
    name="arrayJoinAgent",
    runs_local=True,  # pure and quick: a trip to a cluster worker would cost more than the call
    func=array_join_agent,
    description="Array Join Agent",
    inputs=_array_input("array join"),
    params={
        "type": "object",
        "properties": {
            "separator": {"type": "string", "description": "array join separator"},
            "flat": {"type": "number", "description": "array flat depth"},
        },
    },
    output={"type": "object", "properties": {"text": {"type": "string", "description": "joined text"}}},
    samples=(
        Sample(inputs={"array": [[1], [2], [3]]}, params={}, result={"text": "123"}),
        Sample(inputs={"array": [[1], [2], [[3]]]}, params={}, result={"text": "123"}),
        Sample(inputs={"array": [["a"], ["b"], ["c"]]}, params={}, result={"text": "abc"}),
        Sample(inputs={"array": [[1], [2], [3]]}, params={"separator": "|"}, result={"text": "1|2|3"}),
        Sample(inputs={"array": [[[1]], [[2], [3]]]}, params={"separator": "|"}, result={"text": "1|2,3"}),
        Sample(inputs={"array": [[[1]], [[2], [3]]]}, params={"separator": "|", "flat": 1}, result={"text": "1|2|3"}),
        Sample(
            inputs={"array": [[[[1]], [[2], [3]]]]},
            params={"separator": "|", "flat": 1},
            result={"text": "1|2,3"},
        ),
        Sample(
            inputs={"array": [[[[1]], [[2], [3]]]]},
            params={"separator": "|", "flat": 2},
            result={"text": "1|2|3"},
        ),
    ),
    source=_SOURCE + "array_join_agent.ts",
    **_META,
)

# GraphAI's output schema for this agent is malformed (`anyOf` sits among the properties); kept as is.
ARRAY_TO_OBJECT_AGENT = AgentInfo(
    name="arrayToObjectAgent",
    runs_local=True,  # pure and quick: a trip to a cluster worker would cost more than the call
    func=array_to_object_agent,
    description="Array To Object Agent",
    inputs=_array_input("the array to pop an item from", key="items"),
    output={
        "type": "object",
        "properties": {"anyOf": _ANY_ITEM, "description": "the item popped from the array"},
    },
    samples=(
        Sample(
            inputs={"items": [{"id": 1, "data": "a"}, {"id": 2, "data": "b"}]},
            params={"key": "id"},
            result={"1": {"id": 1, "data": "a"}, "2": {"id": 2, "data": "b"}},
        ),
    ),
    source=_SOURCE + "array_to_object.ts",
    **_META,
)

# GraphAI's description for this agent is arrayFlatAgent's ("Array Flat Agent"), a copy slip: this one says what it does.
ARRAY_FIND_FIRST_EXISTS_AGENT = AgentInfo(
    name="arrayFindFirstExistsAgent",
    runs_local=True,  # pure and quick: a trip to a cluster worker would cost more than the call
    func=array_find_first_exists_agent,
    description="Returns the first item of an array that is not null or undefined",
    inputs=_array_input("The array to be find"),
    output={"type": "object"},
    params={},
    samples=(
        Sample(inputs={"array": [None, 2]}, params={}, result=2),
        Sample(inputs={"array": [UNDEFINED, None, 3]}, params={}, result=3),
        Sample(inputs={"array": [UNDEFINED, None, 0]}, params={}, result=0),
    ),
    source=_SOURCE + "array_flat_agent.ts",
    **_META,
)

AGENTS: list[AgentInfo] = [
    PUSH_AGENT,
    POP_AGENT,
    SHIFT_AGENT,
    ARRAY_FLAT_AGENT,
    ARRAY_JOIN_AGENT,
    ARRAY_TO_OBJECT_AGENT,
    ARRAY_FIND_FIRST_EXISTS_AGENT,
]
