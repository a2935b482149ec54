"""GraphAI's vanilla array agents: push, pop, shift, flat, join, to-object, find-first-exists."""

from __future__ import annotations

import math

import pytest
from graphrt_agents.vanilla.array import (
    AGENTS,
    array_find_first_exists_agent,
    array_flat_agent,
    array_join_agent,
    array_to_object_agent,
    pop_agent,
    push_agent,
    shift_agent,
)

from graphrt.base.jsvalue import UNDEFINED
from graphrt.testing import SampleCase, parametrize_samples
from graphrt.testing import agent_context as context

pytestmark = pytest.mark.anyio


@parametrize_samples(*AGENTS)
def test_every_sample_gives_its_result(sample_case: SampleCase) -> None:
    sample_case.check()  # through a real one-node graph, as `graphrt test-agents` runs it


def test_the_module_has_graphai_s_array_agents() -> None:
    assert [info.name for info in AGENTS] == [
        "pushAgent",
        "popAgent",
        "shiftAgent",
        "arrayFlatAgent",
        "arrayJoinAgent",
        "arrayToObjectAgent",
        "arrayFindFirstExistsAgent",
    ]


def test_every_array_agent_is_a_pure_agent_for_caching() -> None:
    assert {info.cache_type for info in AGENTS} == {"pureAgent"}


# --- the array input, checked the same way by every agent that takes one -------------

_ARRAY_AGENTS = [
    ("popAgent", pop_agent),
    ("shiftAgent", shift_agent),
    ("arrayFlatAgent", array_flat_agent),
    ("arrayJoinAgent", array_join_agent),
    ("arrayFindFirstExistsAgent", array_find_first_exists_agent),
]
_BAD_ARRAYS = [
    ({}, "namedInputs is UNDEFINED!"),
    ({"other": 1}, "namedInputs.array is UNDEFINED!"),
    ({"array": ""}, "namedInputs.array is UNDEFINED!"),
    ({"array": "abc"}, "namedInputs.array is not Array."),
]


@pytest.mark.parametrize("name, agent", _ARRAY_AGENTS, ids=[name for name, _ in _ARRAY_AGENTS])
@pytest.mark.parametrize("inputs, problem", _BAD_ARRAYS, ids=["no inputs", "no array", "falsy", "text"])
async def test_a_missing_or_wrong_array_fails_with_graphai_s_message(name, agent, inputs, problem) -> None:
    with pytest.raises(ValueError) as failure:
        await agent(context(inputs))
    assert str(failure.value) == f"{name}: {problem}"


async def test_push_adds_the_hint_to_its_array_messages() -> None:
    with pytest.raises(ValueError) as failure:
        await push_agent(context({"item": 1}))
    assert str(failure.value) == (
        "pushAgent: namedInputs.array is UNDEFINED! Set inputs: { array: :arrayNodeId, item: :itemNodeId }"
    )


# --- pushAgent -------------------------------------------------------------------


async def test_push_appends_to_a_copy_of_the_array() -> None:
    array = [1, 2]
    assert await push_agent(context({"array": array, "item": 3})) == {"array": [1, 2, 3]}
    assert array == [1, 2]


async def test_push_appends_the_item_before_the_items() -> None:
    result = await push_agent(context({"array": [1], "item": 2, "items": [3, 4]}))
    assert result == {"array": [1, 2, 3, 4]}


async def test_push_appends_a_null_item() -> None:
    assert await push_agent(context({"array": [1], "item": None})) == {"array": [1, None]}


async def test_push_passes_other_inputs_through() -> None:
    result = await push_agent(context({"array": [], "item": 1, "data": {"x": 2}}))
    assert result == {"array": [1], "data": {"x": 2}}


async def test_push_puts_the_array_under_params_array_key() -> None:
    assert await push_agent(context({"array": [], "item": 1}, {"arrayKey": "list"})) == {"list": [1]}


async def test_push_needs_an_item_or_items() -> None:
    with pytest.raises(ValueError) as failure:
        await push_agent(context({"array": [1]}))
    assert str(failure.value) == (
        "pushAgent: namedInputs.item and namedInputs.items are UNDEFINED! "
        "Set inputs: { array: :arrayNodeId, item: :itemNodeId }"
    )


async def test_push_needs_items_to_be_a_list() -> None:
    with pytest.raises(ValueError, match="^pushAgent: namedInputs.items is not array!$"):
        await push_agent(context({"array": [1], "items": None}))


# --- popAgent, shiftAgent --------------------------------------------------------


async def test_pop_takes_the_last_item_off_a_copy() -> None:
    array = [1, 2, 3]
    assert await pop_agent(context({"array": array})) == {"array": [1, 2], "item": 3}
    assert array == [1, 2, 3]


async def test_pop_of_an_empty_array_has_an_undefined_item() -> None:
    assert await pop_agent(context({"array": []})) == {"array": [], "item": UNDEFINED}


async def test_shift_takes_the_first_item_off_a_copy() -> None:
    array = [1, 2, 3]
    assert await shift_agent(context({"array": array})) == {"array": [2, 3], "item": 1}
    assert array == [1, 2, 3]


async def test_shift_of_an_empty_array_has_an_undefined_item() -> None:
    assert await shift_agent(context({"array": []})) == {"array": [], "item": UNDEFINED}


# --- arrayFlatAgent --------------------------------------------------------------


@pytest.mark.parametrize(
    "depth, flattened",
    [
        (None, [1, [2, [3]]]),
        (0, [[1, [2, [3]]]]),
        (1.9, [1, [2, [3]]]),
        ("2", [1, 2, [3]]),
        (math.inf, [1, 2, 3]),
        (math.nan, [[1, [2, [3]]]]),
    ],
)
async def test_flat_takes_the_depth_as_javascript_does(depth, flattened) -> None:
    result = await array_flat_agent(context({"array": [[1, [2, [3]]]]}, {"depth": depth}))
    assert result == {"array": flattened}


# --- arrayJoinAgent --------------------------------------------------------------


async def test_join_writes_items_as_javascript_strings() -> None:
    array = [1, None, [2, [3, None]], {"a": 1}, True, 1.0, 0.5]
    result = await array_join_agent(context({"array": array}, {"separator": ";"}))
    assert result == {"text": "1;;2,3,;[object Object];true;1;0.5"}


async def test_join_with_a_null_separator_uses_none() -> None:
    assert await array_join_agent(context({"array": [1, 2]}, {"separator": None})) == {"text": "12"}


async def test_join_flattens_first_when_flat_is_truthy() -> None:
    result = await array_join_agent(context({"array": [[1, [2]], 3]}, {"separator": "-", "flat": 1}))
    assert result == {"text": "1-2-3"}


# --- arrayToObjectAgent ----------------------------------------------------------


async def test_to_object_keys_items_by_the_text_of_their_key() -> None:
    items = [{"id": 1}, {"id": None}, {"id": True}, {}]
    result = await array_to_object_agent(context({"items": items}, {"key": "id"}))
    assert result == {"1": {"id": 1}, "null": {"id": None}, "true": {"id": True}, "undefined": {}}


async def test_to_object_lets_a_later_item_replace_an_earlier_one() -> None:
    items = [{"id": 1, "v": "a"}, {"id": "1", "v": "b"}]
    assert await array_to_object_agent(context({"items": items}, {"key": "id"})) == {"1": {"id": "1", "v": "b"}}


async def test_to_object_cannot_read_a_key_of_null() -> None:
    with pytest.raises(TypeError, match=r"^Cannot read properties of null \(reading 'id'\)$"):
        await array_to_object_agent(context({"items": [None]}, {"key": "id"}))


async def test_to_object_needs_params_key() -> None:
    with pytest.raises(ValueError, match="^arrayToObjectAgent: params.key is UNDEFINED!$"):
        await array_to_object_agent(context({"items": []}))


async def test_to_object_needs_items_to_be_a_list() -> None:
    with pytest.raises(ValueError, match="^arrayToObjectAgent: namedInputs.items is not array!$"):
        await array_to_object_agent(context({"items": {}}, {"key": "id"}))


# --- arrayFindFirstExistsAgent ---------------------------------------------------


async def test_find_first_exists_skips_null_and_undefined_but_not_falsy_values() -> None:
    assert await array_find_first_exists_agent(context({"array": [None, UNDEFINED, False, 1]})) is False


async def test_find_first_exists_has_no_result_when_nothing_exists() -> None:
    assert await array_find_first_exists_agent(context({"array": [None, None]})) is UNDEFINED
