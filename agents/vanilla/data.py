"""GraphAI's vanilla data agents: totals, sums, property filters, copy, lookup and merge.

These agents treat values as JavaScript objects: `+` concatenates as soon as a
string is involved, keys are looked up by their text (`1` reads key "1"), and
lists and strings have index keys ("0", "1", ...).
"""

from __future__ import annotations

import re
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
from graphrt.base.limits import MAX_ITEMS

from ._arrays import require_array
from ._js import read_error, strict_equal

__all__ = [
    "AGENTS",
    "copy_agent",
    "data_sum_template_agent",
    "lookup_dictionary_agent",
    "merge_object_agent",
    "property_filter_agent",
    "total_agent",
]

_META: dict[str, Any] = {
    "category": ("data",),
    "repository": "https://github.com/receptron/graphai",
    "package": "@graphai/vanilla",
    "license": "MIT",
}
_SOURCE = "https://github.com/receptron/graphai/blob/main/agents/vanilla_agents/src/data_agents/"
_NOT_REDUCIBLE = "namedInputs.array.reduce is not a function"
_ARRAY_HINT = " Set inputs: { array: :arrayNodeId }"
_INDEX = re.compile(r"0|[1-9][0-9]*")


# --- JavaScript object semantics -------------------------------------------------


def _key(value: Any) -> str:
    """The property key JavaScript makes of a value: `String(value)`."""
    return value if isinstance(value, str) else js_string(value)


def _get(obj: Any, key: Any) -> Any:
    """`obj[key]`: undefined where there is no such property; null and undefined cannot be read."""
    name = _key(key)
    if isinstance(obj, dict):
        return obj.get(name, UNDEFINED)
    if is_null(obj):
        raise read_error(obj, name)
    if isinstance(obj, (list, tuple, str)):
        if name == "length":
            return len(obj)
        if _INDEX.fullmatch(name) and int(name) < len(obj):
            return obj[int(name)]
    return UNDEFINED


def _entries(obj: Any) -> list[tuple[str, Any]]:
    """`Object.entries(obj)`; numbers and booleans have none, null and undefined are an error."""
    if isinstance(obj, dict):
        return list(obj.items())
    if is_null(obj):
        raise TypeError("Cannot convert undefined or null to object")
    if isinstance(obj, (list, tuple, str)):
        if isinstance(obj, str) and len(obj) > MAX_ITEMS:  # each character a property: ~100 bytes each
            raise ValueError(f"a text of {len(obj):,} characters has a property per character, more than the "
                             f"{MAX_ITEMS:,} properties graphrt makes one object of")
        return [(str(index), item) for index, item in enumerate(obj)]
    return []


def _plus(left: Any, right: Any) -> Any:
    """JavaScript's `left + right`: text if either side is text (or a list or dict), else numbers."""
    left, right = (js_string(x) if isinstance(x, (list, tuple, dict)) else x for x in (left, right))
    if isinstance(left, str) or isinstance(right, str):
        return js_string(left) + js_string(right)
    return js_number(left) + js_number(right)


# --- totalAgent, dataSumTemplateAgent --------------------------------------------


async def total_agent(ctx: AgentContext) -> dict[str, Any]:
    """Adds up the dicts in `array` key by key; an item may also be a list of dicts.

    The result is `{data: totals}`, or just the totals with `params.flatResponse`.
    As in GraphAI, a key whose running total is falsy (0) restarts from the next value.
    """
    totals: dict[str, Any] = {}
    for item in require_array("totalAgent", ctx.inputs, _ARRAY_HINT, _NOT_REDUCIBLE):
        for record in item if isinstance(item, (list, tuple)) else [item]:
            for key, value in _entries(record):
                totals[key] = _plus(totals[key], value) if is_truthy(totals.get(key)) else value
    return totals if is_truthy(ctx.params.get("flatResponse")) else {"data": totals}


async def data_sum_template_agent(ctx: AgentContext) -> Any:
    """Adds up the numbers in `array` with JavaScript's `+`.

    The result is `{result: sum}`, or just the sum with `params.flatResponse`.
    """
    total: Any = 0
    for value in require_array("dataSumTemplateAgent", ctx.inputs, _ARRAY_HINT, _NOT_REDUCIBLE):
        total = _plus(total, value)
    return total if is_truthy(ctx.params.get("flatResponse")) else {"result": total}


# --- propertyFilterAgent ----------------------------------------------------------


def _select(obj: Any, params: dict[str, Any]) -> dict[str, Any]:
    """The properties named by `include` (default: all) minus `exclude`, with `alter` applied."""
    include, exclude, alter = (params.get(name) for name in ("include", "exclude", "alter"))
    if is_truthy(include) and not isinstance(include, (list, tuple)):
        raise TypeError("include.reduce is not a function")
    excluded = [] if is_null(exclude) else list(exclude)
    if not is_truthy(include) and not excluded and not is_truthy(alter):
        return dict(_entries(obj))  # every property as it is: what the loop below makes, a key at a time
    prop_ids = include if is_truthy(include) else [key for key, _ in _entries(obj)]
    selected: dict[str, Any] = {}
    for prop_id in prop_ids:
        if any(strict_equal(prop_id, other) for other in excluded):
            continue
        value = _get(obj, prop_id)
        mapping = _get(alter, prop_id) if is_truthy(alter) else UNDEFINED
        replacement = _get(mapping, value) if is_truthy(mapping) else UNDEFINED
        selected[_key(prop_id)] = replacement if is_truthy(replacement) else value
    return selected


def _inject(result: dict[str, Any], index: int, sources: list[Any], rules: list[Any]) -> None:
    """Sets `propId` to `sources[from]` on every object, or only on the one at `index`."""
    for rule in rules:
        target = _get(rule, "index")
        if target is UNDEFINED or strict_equal(target, index):
            result[_key(_get(rule, "propId"))] = _get(sources, _get(rule, "from"))


def _inspect(result: dict[str, Any], sources: list[Any], rules: list[Any]) -> None:
    """Sets `propId` to whether `sources[from]` (default 1) is `equal` to, or `notEqual` to, a value."""
    for rule in rules:
        source = _get(rule, "from")
        value = _get(sources, 1 if is_null(source) else source)
        equal, not_equal = _get(rule, "equal"), _get(rule, "notEqual")
        if is_truthy(equal):
            result[_key(_get(rule, "propId"))] = strict_equal(equal, value)
        elif is_truthy(not_equal):
            result[_key(_get(rule, "propId"))] = not strict_equal(not_equal, value)


def _swap(result: dict[str, Any], pairs: Any) -> None:
    """Exchanges the values of each `key: other` pair of properties, one pair after the other."""
    for key, other in _entries(pairs):
        other = _key(other)
        result[key], result[other] = result.get(other, UNDEFINED), result.get(key, UNDEFINED)


def _filter(obj: Any, index: int, sources: list[Any], params: dict[str, Any]) -> dict[str, Any]:
    """Applies every rule of propertyFilterAgent to one object, in GraphAI's order."""
    result = _select(obj, params)
    inject, inspect, swap = (params.get(name) for name in ("inject", "inspect", "swap"))
    if is_truthy(inject):
        _inject(result, index, sources, inject)
    if is_truthy(inspect):
        _inspect(result, sources, inspect)
    if is_truthy(swap):
        _swap(result, swap)
    return result


def _first(array: Any) -> Any:
    """`const [first] = array`: the first element, undefined when empty."""
    if isinstance(array, (list, tuple, str)):
        return array[0] if array else UNDEFINED
    raise TypeError("namedInputs.array is not iterable")


async def property_filter_agent(ctx: AgentContext) -> Any:
    """Reshapes an object, or each object of a list, with include/exclude/alter/inject/inspect/swap.

    The object comes from `item`, or from `array[0]`; a list there is filtered
    object by object. `inject` and `inspect` read their values from the other
    elements of `array`. Without array or item the result is false.
    """
    array, item = ctx.inputs.get("array"), ctx.inputs.get("item")
    if is_truthy(array):
        target = _first(array)
        if isinstance(target, (list, tuple)):
            return [_filter(obj, index, list(array), ctx.params) for index, obj in enumerate(target)]
        return _filter(target, 0, list(array), ctx.params)
    if is_truthy(item):
        return _filter(item, 0, [], ctx.params)
    return False


# --- copyAgent, lookupDictionaryAgent, mergeObjectAgent ---------------------------


async def copy_agent(ctx: AgentContext) -> Any:
    """Returns the named inputs as a dict, or the one named by `params.namedKey`.

    Graphs use it to gather, rename or pass on values.
    """
    inputs = ctx.inputs
    named_key = ctx.params.get("namedKey")
    if type(inputs) is dict and inputs and type(named_key) is str and named_key:
        return inputs.get(named_key, UNDEFINED)  # the usual call, as `_get` reads it (a JS key is its string)
    if not is_named_inputs(inputs):
        raise ValueError("copyAgent: namedInputs is UNDEFINED!")
    if is_truthy(named_key):
        return _get(ctx.inputs, named_key)
    return dict(ctx.inputs)


async def lookup_dictionary_agent(ctx: AgentContext) -> Any:
    """Returns `params[inputs.namedKey]`: params serve as the dictionary.

    A missing entry is an error unless `params.supressError` (GraphAI's spelling)
    is set; then the result is undefined.
    """
    named_key = ctx.inputs.get("namedKey", UNDEFINED)
    if not is_named_inputs(ctx.inputs):
        raise ValueError("lookupDictionaryAgent: namedInputs is UNDEFINED!")
    result = _get(ctx.params, named_key)
    if result is UNDEFINED and not is_truthy(ctx.params.get("supressError")):
        raise ValueError(f"lookupDictionaryAgent error: {js_string(named_key)} is missing")
    return result


async def merge_object_agent(ctx: AgentContext) -> dict[str, Any]:
    """Merges the dicts in `items` into one; later keys win (`Object.assign({}, ...items)`).

    Null items are skipped.
    """
    if not is_named_inputs(ctx.inputs):
        raise ValueError("mergeObjectAgent: namedInputs is UNDEFINED!")
    items = ctx.inputs.get("items", UNDEFINED)
    if not isinstance(items, (list, tuple)):
        raise ValueError("mergeObjectAgent: namedInputs.items is not array!")
    merged: dict[str, Any] = {}
    for item in items:
        if not is_null(item):
            merged.update(_entries(item))
    return merged


# --- function info ----------------------------------------------------------------


def _with_flat_response(samples: list[tuple[list[Any], Any]], wrap: str) -> tuple[Sample, ...]:
    """Each sample twice: with the result wrapped in `{wrap: ...}`, then with `flatResponse`."""
    wrapped = [Sample(inputs={"array": a}, params={}, result={wrap: r}) for a, r in samples]
    flat = [Sample(inputs={"array": a}, params={"flatResponse": True}, result=r) for a, r in samples]
    return (*wrapped, *flat)


_NESTED_TOTALS = [[{"a": 1, "b": -1}, {"c": 10}], [{"a": 2, "b": -1}], [{"a": 3, "b": -2}, {"d": -10}]]

TOTAL_AGENT = AgentInfo(
    name="totalAgent",
    runs_local=True,  # pure and quick: a trip to a cluster worker would cost more than the call
    func=total_agent,
    description="Returns the sum of input values",
    inputs={
        "type": "object",
        "properties": {
            "array": {
                "type": "array",
                "description": "An array of objects or arrays of objects. Each inner object must have numeric values "
                "which will be aggregated by key.",
                "items": {
                    "anyOf": [
                        {"type": "object", "description": "A flat object containing numeric values to be summed."},
                        {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "description": "Nested array of objects, each containing numeric values to be summed.",
                            },
                        },
                    ]
                },
            }
        },
        "required": ["array"],
        "additionalProperties": False,
    },
    params={
        "type": "object",
        "properties": {
            "flatResponse": {
                "type": "boolean",
                "description": "If true, the result will be returned as a plain object (e.g., { a: 6 }); otherwise, "
                "wrapped in { data: {...} }.",
            }
        },
        "additionalProperties": False,
    },
    output={"type": "object"},
    samples=_with_flat_response(
        [
            ([{"a": 1}, {"a": 2}, {"a": 3}], {"a": 6}),
            (_NESTED_TOTALS, {"a": 6, "b": -4, "c": 10, "d": -10}),
            ([{"a": 1}], {"a": 1}),
            ([{"a": 1}, {"a": 2}], {"a": 3}),
            ([{"a": 1}, {"a": 2}, {"a": 3}], {"a": 6}),
            ([{"a": 1, "b": 1}, {"a": 2, "b": 2}, {"a": 3, "b": 0}], {"a": 6, "b": 3}),
            ([{"a": 1}, {"a": 2, "b": 2}, {"a": 3, "b": 0}], {"a": 6, "b": 2}),
        ],
        wrap="data",
    ),
    author="Satoshi Nakajima",
    source=_SOURCE + "total_agent.ts",
    **{**_META, "repository": "https://github.com/snakajima/graphai"},
)

DATA_SUM_TEMPLATE_AGENT = AgentInfo(
    name="dataSumTemplateAgent",
    runs_local=True,  # pure and quick: a trip to a cluster worker would cost more than the call
    func=data_sum_template_agent,
    description="Returns the sum of input values",
    inputs={
        "type": "object",
        "properties": {
            "array": {
                "type": "array",
                "description": "the array of numbers to calculate the sum of",
                "items": {"type": "integer"},
            }
        },
        "required": ["array"],
    },
    output={"type": "number"},
    samples=_with_flat_response([([1], 1), ([1, 2], 3), ([1, 2, 3], 6)], wrap="result"),
    author="Satoshi Nakajima",
    source=_SOURCE + "data_sum_template_agent.ts",
    **_META,
)

_TESLAS = [
    {"color": "red", "model": "Model 3", "type": "EV", "maker": "Tesla", "range": 300},
    {"color": "blue", "model": "Model Y", "type": "EV", "maker": "Tesla", "range": 400},
]
_TESLA_INPUTS = {"array": [_TESLAS, "Tesla Motors"]}
_MODEL_3 = _TESLAS[0]
_COLOR_MODEL = {"color": "red", "model": "Model 3"}


def _teslas(*changes: dict[str, Any]) -> list[dict[str, Any]]:
    """The two sample cars, each updated with the matching dict of changes."""
    return [{**car, **change} for car, change in zip(_TESLAS, changes)]


PROPERTY_FILTER_AGENT = AgentInfo(
    name="propertyFilterAgent",
    runs_local=True,  # pure and quick: a trip to a cluster worker would cost more than the call
    func=property_filter_agent,
    description="Filter properties based on property name either with 'include', 'exclude', 'alter', 'swap', "
    "'inject', 'inspect'",
    inputs={"type": "object"},
    output={
        "type": "any",
        "properties": {
            "array": {"type": "array", "description": "the array to apply filter"},
            "item": {"type": "object", "description": "the object to apply filter"},
        },
    },
    samples=(
        Sample(inputs={"array": [_MODEL_3]}, params={"include": ["color", "model"]}, result=_COLOR_MODEL),
        Sample(inputs={"item": _MODEL_3}, params={"include": ["color", "model"]}, result=_COLOR_MODEL),
        Sample(
            inputs=_TESLA_INPUTS,
            params={"include": ["color", "model"]},
            result=[{"color": "red", "model": "Model 3"}, {"color": "blue", "model": "Model Y"}],
        ),
        Sample(
            inputs=_TESLA_INPUTS,
            params={"exclude": ["color", "model"]},
            result=[{"type": "EV", "maker": "Tesla", "range": 300}, {"type": "EV", "maker": "Tesla", "range": 400}],
        ),
        Sample(
            inputs={"item": _MODEL_3},
            params={"exclude": ["color", "model"]},
            result={"type": "EV", "maker": "Tesla", "range": 300},
        ),
        Sample(
            inputs=_TESLA_INPUTS,
            params={"alter": {"color": {"red": "blue", "blue": "red"}}},
            result=_teslas({"color": "blue"}, {"color": "red"}),
        ),
        Sample(
            inputs={"item": _MODEL_3},
            params={"alter": {"color": {"red": "blue", "blue": "red"}}},
            result={**_MODEL_3, "color": "blue"},
        ),
        Sample(
            inputs=_TESLA_INPUTS,
            params={"swap": {"maker": "model"}},
            result=_teslas({"model": "Tesla", "maker": "Model 3"}, {"model": "Tesla", "maker": "Model Y"}),
        ),
        Sample(
            inputs={"item": _MODEL_3},
            params={"swap": {"maker": "model"}},
            result={**_MODEL_3, "model": "Tesla", "maker": "Model 3"},
        ),
        Sample(
            inputs=_TESLA_INPUTS,
            params={"inject": [{"propId": "maker", "from": 1}]},
            result=_teslas({"maker": "Tesla Motors"}, {"maker": "Tesla Motors"}),
        ),
        Sample(
            inputs=_TESLA_INPUTS,
            params={"inject": [{"propId": "maker", "from": 1, "index": 0}]},
            result=_teslas({"maker": "Tesla Motors"}, {}),
        ),
        Sample(
            inputs=_TESLA_INPUTS,
            params={
                "inspect": [
                    {"propId": "isTesla", "equal": "Tesla Motors"},
                    {"propId": "isGM", "notEqual": "Tesla Motors", "from": 1},
                ]
            },
            result=_teslas({"isTesla": True, "isGM": False}, {"isTesla": True, "isGM": False}),
        ),
    ),
    author="Receptron team",
    source=_SOURCE + "property_filter_agent.ts",
    **_META,
)

COPY_AGENT = AgentInfo(
    name="copyAgent",
    runs_local=True,  # pure and quick: a trip to a cluster worker would cost more than the call
    func=copy_agent,
    description="Returns namedInputs",
    inputs={
        "type": "object",
        "description": "A dynamic object containing any number of named input fields. The agent either returns the "
        "whole object or a single value by key.",
        "additionalProperties": {
            "type": ["string", "number", "boolean", "object", "array", "null"],
            "description": "A value associated with a named input key. Can be any JSON-compatible type.",
        },
    },
    params={
        "type": "object",
        "properties": {
            "namedKey": {
                "type": "string",
                "description": "If specified, the agent will return only the value associated with this key from "
                "namedInputs.",
            }
        },
        "additionalProperties": False,
    },
    output={"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "object"}, {"type": "array"}]},
    samples=(
        Sample(inputs=_COLOR_MODEL, params={}, result=_COLOR_MODEL),
        Sample(
            inputs={"array": ["Hello World", "Discarded"]},
            params={},
            result={"array": ["Hello World", "Discarded"]},
        ),
        Sample(inputs=_COLOR_MODEL, params={"namedKey": "color"}, result="red"),
    ),
    author="Receptron team",
    source=_SOURCE + "copy_agent.ts",
    **_META,
)

_LLM_SETTINGS = {
    "openai": {"model": "gpt4-o", "temperature": 0.7},
    "groq": {"model": "llama3-8b-8192", "temperature": 0.6},
    "gemini": {"model": "gemini-2.0-pro-exp-02-05", "temperature": 0.7},
}

LOOKUP_DICTIONARY_AGENT = AgentInfo(
    name="lookupDictionaryAgent",
    runs_local=True,  # pure and quick: a trip to a cluster worker would cost more than the call
    func=lookup_dictionary_agent,
    description="Select elements with params",
    inputs={
        "type": "object",
        "properties": {
            "namedKey": {"type": "string", "description": "The key to look up in the dictionary provided by 'params'."},
            "supressError": {
                "type": "boolean",
                "description": "If true, prevents the agent from throwing an error when the key is missing in "
                "'params'. Optional.",
            },
        },
        "required": ["namedKey"],
        "additionalProperties": False,
    },
    params={
        "type": "object",
        "description": "A dictionary of values from which one is selected using the 'namedKey'.",
        "additionalProperties": {
            "type": ["string", "number", "boolean", "object", "array", "null"],
            "description": "Any JSON-compatible value associated with a key in the dictionary.",
        },
    },
    output={"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "object"}, {"type": "array"}]},
    samples=(
        Sample(inputs={"namedKey": "openai"}, params=_LLM_SETTINGS, result=_LLM_SETTINGS["openai"]),
        Sample(inputs={"namedKey": "gemini"}, params=_LLM_SETTINGS, result=_LLM_SETTINGS["gemini"]),
    ),
    author="Receptron team",
    source=_SOURCE + "lookup_dictionary_agent.ts",
    **_META,
)

# GraphAI's output schema `{"anyOf": {"type": "object"}}` is malformed (anyOf needs a list); kept as is.
MERGE_OBJECT_AGENT = AgentInfo(
    name="mergeObjectAgent",
    runs_local=True,  # pure and quick: a trip to a cluster worker would cost more than the call
    func=merge_object_agent,
    description="Returns namedInputs",
    inputs={
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "description": "An array of objects whose key-value pairs will be merged into a single object. Later "
                "objects override earlier ones on key conflict.",
                "items": {"type": "object", "description": "An individual object contributing to the merged result."},
            }
        },
        "required": ["items"],
        "additionalProperties": False,
    },
    params={
        "type": "object",
        "description": "This agent does not take any parameters. The object must be empty.",
        "properties": {},
        "additionalProperties": False,
    },
    output={"anyOf": {"type": "object"}},
    samples=(
        Sample(inputs={"items": [{"color": "red"}, {"model": "Model 3"}]}, params={}, result=_COLOR_MODEL),
    ),
    author="Receptron team",
    source=_SOURCE + "merge_objects_agent.ts",
    **_META,
)

AGENTS: list[AgentInfo] = [
    TOTAL_AGENT,
    DATA_SUM_TEMPLATE_AGENT,
    PROPERTY_FILTER_AGENT,
    COPY_AGENT,
    LOOKUP_DICTIONARY_AGENT,
    MERGE_OBJECT_AGENT,
]
