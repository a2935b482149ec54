"""GraphAI's test agents: small, predictable agents for tests, docs and demos."""

from __future__ import annotations

import inspect
import math
from typing import Any

import anyio

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.jsvalue import (
    UNDEFINED,
    is_named_inputs,
    is_null,
    is_truthy,
    js_number,
)
from graphrt.base.limits import MAX_ITEMS

from ._arrays import require_array

__all__ = [
    "AGENTS",
    "echo_agent",
    "counting_agent",
    "copy_message_agent",
    "copy2_array_agent",
    "merge_node_id_agent",
    "stream_mock_agent",
]

_METADATA: dict[str, Any] = {
    "category": ("test",),
    "author": "Receptron team",
    "repository": "https://github.com/receptron/graphai",
    "package": "@graphai/vanilla",
    "license": "MIT",
}
_SOURCE = "https://github.com/receptron/graphai/blob/main/agents/vanilla_agents/src/test_agents/"
_NO_INPUTS: dict[str, Any] = {
    "type": "object",
    "description": "This agent does not use any inputs. Leave empty.",
    "properties": {},
    "additionalProperties": False,
}
_MAX_ARRAY_LENGTH = 2**32 - 1
_DEFAULT_TOKEN_PAUSE_MS = 100


def _js_array_size(count: Any) -> int:
    """How many slots `new Array(count)` has.

    A number is the length (an invalid one is a RangeError, as in JavaScript);
    any other value, even a missing count, makes a one-element array.
    """
    if isinstance(count, bool) or not isinstance(count, (int, float)):
        return 1
    if count != count or count in (math.inf, -math.inf) or count != int(count) or not 0 <= count <= _MAX_ARRAY_LENGTH:
        raise ValueError("Invalid array length")
    if count > MAX_ITEMS:  # JavaScript would try, and take minutes and gigabytes
        raise ValueError(f"count must be at most {MAX_ITEMS:,} (the most items graphrt makes one array of)")
    return int(count)


async def echo_agent(ctx: AgentContext) -> dict[str, Any]:
    """Returns its params, or its filter params when `params.filterParams` is set.

    Graph tests use it to see which params (or agent filter params) a node got.
    """
    if is_truthy(ctx.params.get("filterParams")):
        return ctx.filter_params
    return ctx.params


async def counting_agent(ctx: AgentContext) -> dict[str, list[int]]:
    """Returns `{list: [0, 1, ..., count - 1]}`, a ready-made array for map and loop tests."""
    return {"list": list(range(_js_array_size(ctx.params.get("count", UNDEFINED))))}


async def copy_message_agent(ctx: AgentContext) -> dict[str, list[Any]]:
    """Returns `{messages: [message, ...]}` with `params.message` repeated `params.count` times."""
    message = ctx.params.get("message")
    return {"messages": [message] * _js_array_size(ctx.params.get("count", UNDEFINED))}


async def copy2_array_agent(ctx: AgentContext) -> list[Any]:
    """Returns a list of `params.count` copies of `inputs.item`, or of all inputs when there is no item."""
    if not is_named_inputs(ctx.inputs):
        raise ValueError("copy2ArrayAgent: namedInputs is UNDEFINED!")
    item = ctx.inputs.get("item")
    value = item if is_truthy(item) else ctx.inputs
    return [value] * _js_array_size(ctx.params.get("count", UNDEFINED))


def _spread(value: Any) -> dict[str, Any]:
    """The entries `{...value}` adds in JavaScript: an object's own, a string's or list's by index."""
    if isinstance(value, dict):
        return value
    if isinstance(value, (str, list)):
        return {str(index): item for index, item in enumerate(value)}
    return {}


async def merge_node_id_agent(ctx: AgentContext) -> dict[str, Any]:
    """Merges the objects in `inputs.array` over `{<node id>: "hello"}`.

    Tests use it to check which node produced a result, e.g. inside nested graphs.
    """
    require_array("mergeNodeIdAgent", ctx.inputs)
    merged: dict[str, Any] = {ctx.node_id: "hello"}
    for item in ctx.inputs["array"]:
        merged.update(_spread(item))
    return merged


async def _emit_token(callback: Any, token: str) -> None:
    """Hands one token to the stream callback, awaiting it when it is async."""
    outcome = callback(token)
    if inspect.isawaitable(outcome):
        await outcome


async def stream_mock_agent(ctx: AgentContext) -> dict[str, Any]:
    """Streams a message one character at a time and returns `{message}`.

    It stands in for a streaming LLM: each character goes to
    `filter_params["streamTokenCallback"]`, with `params.sleep` ms (100 by default) between them.
    """
    message = ctx.params.get("message")
    if is_null(message):
        message = ctx.inputs.get("message")
    if is_null(message):
        message = ""
    if not isinstance(message, str):
        raise TypeError("message.split is not a function")

    pause = ctx.params.get("sleep")
    milliseconds = js_number(pause) if is_truthy(pause) else _DEFAULT_TOKEN_PAUSE_MS
    seconds = 0.0 if math.isnan(milliseconds) else max(milliseconds, 0) / 1000
    callback = ctx.filter_params.get("streamTokenCallback")
    for token in message:
        if callable(callback):
            await _emit_token(callback, token)
        await anyio.sleep(seconds)
    return {"message": message}


def _repeat(value: Any, count: int) -> list[Any]:
    return [value] * count


echo_agent_info = AgentInfo(
    name="echoAgent",
    runs_local=True,  # pure and quick: a trip to a cluster worker would cost more than the call
    func=echo_agent,
    description="Echo agent",
    inputs={**_NO_INPUTS, "description": "This agent does not use inputs. Leave empty."},
    params={
        "type": "object",
        "description": "Any parameters you want to echo back. "
        "If 'filterParams' is true, only filtered parameters will be returned.",
        "properties": {
            "filterParams": {
                "type": "boolean",
                "description": "If true, returns 'filterParams' instead of the full 'params'.",
            },
        },
        "additionalProperties": True,
    },
    output={
        "type": "object",
        "description": "Returns the full 'params' object or the 'filterParams' object if 'filterParams' is set to true.",
        "additionalProperties": True,
    },
    samples=(
        Sample(inputs={}, params={"text": "this is test"}, result={"text": "this is test"}),
        Sample(
            inputs={},
            params={"text": "If you add filterParams option, it will respond to filterParams", "filterParams": True},
            result={},
        ),
    ),
    source=_SOURCE + "echo_agent.ts",
    cache_type="pureAgent",
    **_METADATA,
)

counting_agent_info = AgentInfo(
    name="countingAgent",
    runs_local=True,  # pure and quick: a trip to a cluster worker would cost more than the call
    func=counting_agent,
    description="Counting agent",
    inputs={**_NO_INPUTS, "description": "This agent does not require any inputs. Leave empty."},
    params={
        "type": "object",
        "description": "Parameter that defines how many numbers to generate, starting from 0.",
        "properties": {
            "count": {
                "type": "integer",
                "minimum": 0,
                "description": "The number of integers to generate, starting from 0 up to count - 1.",
            },
        },
        "required": ["count"],
        "additionalProperties": False,
    },
    output={
        "type": "object",
        "description": "An object containing a list of sequential integers.",
        "properties": {
            "list": {
                "type": "array",
                "description": "An array of integers from 0 to count - 1.",
                "items": {"type": "integer"},
            },
        },
        "required": ["list"],
        "additionalProperties": False,
    },
    samples=(Sample(inputs={}, params={"count": 4}, result={"list": [0, 1, 2, 3]}),),
    source=_SOURCE + "counting_agent.ts",
    cache_type="pureAgent",
    **_METADATA,
)

copy_message_agent_info = AgentInfo(
    name="copyMessageAgent",
    runs_local=True,  # pure and quick: a trip to a cluster worker would cost more than the call
    func=copy_message_agent,
    description="CopyMessage agent",
    inputs=_NO_INPUTS,
    params={
        "type": "object",
        "description": "Parameters to define the message and how many times to repeat it.",
        "properties": {
            "count": {
                "type": "integer",
                "minimum": 1,
                "description": "The number of times the message should be duplicated in the array.",
            },
            "message": {"type": "string", "description": "The message string to be repeated."},
        },
        "required": ["count", "message"],
        "additionalProperties": False,
    },
    output={
        "type": "object",
        "description": "An object containing the repeated messages.",
        "properties": {
            "messages": {
                "type": "array",
                "description": "An array of repeated message strings.",
                "items": {"type": "string"},
            },
        },
        "required": ["messages"],
        "additionalProperties": False,
    },
    samples=(
        Sample(inputs={}, params={"count": 4, "message": "hello"}, result={"messages": _repeat("hello", 4)}),
    ),
    source=_SOURCE + "copy_message_agent.ts",
    cache_type="pureAgent",
    **_METADATA,
)

_ANY_ITEM = [{"type": "object"}, {"type": "string"}, {"type": "number"}, {"type": "array"}, {"type": "boolean"}]

copy2_array_agent_info = AgentInfo(
    name="copy2ArrayAgent",
    func=copy2_array_agent,
    description="Copy2Array agent",
    inputs={
        "type": "object",
        "description": "The input item to be duplicated. Can be provided as 'item' or as a free-form object.",
        "properties": {
            "item": {
                "description": "The item to be copied into each element of the resulting array.",
                "anyOf": _ANY_ITEM,
            },
        },
        "additionalProperties": True,
    },
    params={
        "type": "object",
        "description": "Parameters controlling the number of copies to return.",
        "properties": {
            "count": {
                "type": "integer",
                "description": "The number of times to copy the input item into the output array.",
                "minimum": 1,
            },
        },
        "required": ["count"],
        "additionalProperties": False,
    },
    output={
        "type": "array",
        "description": "An array of 'count' copies of the input item.",
        "items": {"description": "A duplicated copy of the input item.", "anyOf": _ANY_ITEM},
    },
    samples=(
        Sample(inputs={"item": {"message": "hello"}}, params={"count": 10}, result=_repeat({"message": "hello"}, 10)),
        Sample(inputs={"message": "hello"}, params={"count": 10}, result=_repeat({"message": "hello"}, 10)),
        Sample(inputs={"item": "hello"}, params={"count": 10}, result=_repeat("hello", 10)),
    ),
    source=_SOURCE + "copy2array_agent.ts",
    cache_type="pureAgent",
    **_METADATA,
)

merge_node_id_agent_info = AgentInfo(
    name="mergeNodeIdAgent",
    runs_local=True,  # pure and quick: a trip to a cluster worker would cost more than the call
    func=merge_node_id_agent,
    description="merge node id agent",
    inputs={
        "type": "object",
        "properties": {
            "array": {
                "type": "array",
                "description": "An array of objects to be merged together into a single object. "
                "Each object represents a partial result or state.",
                "items": {"type": "object", "description": "A single object containing key-value pairs to merge."},
            },
        },
        "required": ["array"],
        "additionalProperties": False,
    },
    params={
        "type": "object",
        "description": "This agent does not take any parameters. The object must be empty.",
        "properties": {},
        "additionalProperties": False,
    },
    samples=(
        Sample(
            inputs={"array": [{"message": "hello"}]},
            params={},
            result={"message": "hello", "test": "hello"},
            description="the node id here is 'test'",
        ),
    ),
    source=_SOURCE + "merge_node_id_agent.ts",
    **_METADATA,
)

stream_mock_agent_info = AgentInfo(
    name="streamMockAgent",
    func=stream_mock_agent,
    description="Stream mock agent",
    inputs={
        "anyOf": [
            {
                "type": "object",
                "properties": {"message": {"type": "string", "description": "streaming message"}},
            },
            {"type": "array"},
        ],
    },
    samples=(
        Sample(inputs={}, params={"message": "this is params test"}, result={"message": "this is params test"}),
        Sample(
            inputs={"message": "this is named inputs test"},
            params={},
            result={"message": "this is named inputs test"},
        ),
    ),
    source=_SOURCE + "stream_mock_agent.ts",
    stream=True,
    **_METADATA,
)

AGENTS: list[AgentInfo] = [
    echo_agent_info,
    counting_agent_info,
    copy_message_agent_info,
    copy2_array_agent_info,
    merge_node_id_agent_info,
    stream_mock_agent_info,
]
