"""compareAgent: JavaScript comparison rules, operator sources and errors."""

from __future__ import annotations

from typing import Any

import pytest
from graphrt_agents.vanilla.compare import AGENTS, compare_agent

from graphrt.testing import SampleCase, parametrize_samples
from graphrt.testing import agent_context as context

pytestmark = pytest.mark.anyio


async def compare(inputs: dict[str, Any], params: dict[str, Any] | None = None) -> Any:
    result = await compare_agent(context(inputs, params))
    return result["result"]


@parametrize_samples(*AGENTS)
def test_every_sample_gives_its_result(sample_case: SampleCase) -> None:
    sample_case.check()  # through a real one-node graph, as `graphrt test-agents` runs it


async def test_compare_agent_carries_all_of_graphais_samples() -> None:
    assert len(AGENTS[0].samples) == 67


async def test_equality_is_strict_so_a_string_never_equals_a_number() -> None:
    assert await compare({"array": ["10", "==", 10]}) is False


async def test_true_does_not_equal_one() -> None:
    assert await compare({"array": [True, "==", 1]}) is False


async def test_an_integer_equals_the_same_float() -> None:
    assert await compare({"array": [1, "==", 1.0]}) is True


async def test_null_equals_null() -> None:
    assert await compare({"array": [None, "==", None]}) is True


async def test_equal_looking_objects_are_not_equal() -> None:
    assert await compare({"array": [{"a": 1}, "==", {"a": 1}]}) is False


async def test_ordering_compares_strings_as_numbers() -> None:
    assert await compare({"array": ["10", ">", "9"]}) is True


async def test_ordering_with_a_non_numeric_string_is_false_both_ways() -> None:
    assert await compare({"array": ["abc", ">", 1]}) is False
    assert await compare({"array": ["abc", "<=", 1]}) is False


async def test_ordering_treats_null_as_zero_and_booleans_as_numbers() -> None:
    assert await compare({"array": [None, "<", True]}) is True


async def test_logical_operators_use_javascript_truthiness() -> None:
    assert await compare({"array": [{}, "&&", "0"]}) is True
    assert await compare({"array": [0, "||", ""]}) is False


async def test_nested_arrays_are_evaluated_before_the_outer_operator() -> None:
    assert await compare({"array": [["a", "==", "a"], "XOR", [2, ">", 1]]}) is False


async def test_a_value_mapping_without_the_key_falls_back_to_the_boolean() -> None:
    assert await compare({"array": [1, "==", 2]}, {"value": {"true": "yes"}}) is False


async def test_a_value_mapping_can_map_to_a_falsy_value() -> None:
    assert await compare({"array": [1, "==", 2]}, {"value": {"false": 0}}) == 0


async def test_a_three_element_array_ignores_params_operator() -> None:
    assert await compare({"array": [1, "==", 1]}, {"operator": "!="}) is True


async def test_left_and_right_values_use_params_operator() -> None:
    assert await compare({"leftValue": 3, "rightValue": 2}, {"operator": ">"}) is True


async def test_a_two_character_string_is_indexed_like_an_array() -> None:
    assert await compare({"array": "aa"}, {"operator": "=="}) is True


async def test_an_unknown_operator_raises() -> None:
    with pytest.raises(ValueError, match="^unknown compare operator$"):
        await compare({"array": [1, "===", 1]})


async def test_a_short_nested_array_has_no_operator() -> None:
    with pytest.raises(ValueError, match="^unknown compare operator$"):
        await compare({"array": [[1], "||", True]})


async def test_a_two_element_array_without_an_operator_raises() -> None:
    with pytest.raises(ValueError, match=r"^compare inputs is wrong\.$"):
        await compare({"array": [1, 2]})


async def test_left_and_right_values_without_an_operator_raise() -> None:
    with pytest.raises(ValueError, match=r"^compare inputs is wrong\.$"):
        await compare({"leftValue": 1, "rightValue": 1})


async def test_a_null_right_value_raises() -> None:
    with pytest.raises(ValueError, match=r"^compare inputs is wrong\.$"):
        await compare({"leftValue": 1, "rightValue": None}, {"operator": "=="})


async def test_no_inputs_raise() -> None:
    with pytest.raises(ValueError, match=r"^compare inputs is wrong\.$"):
        await compare({}, {"operator": "=="})
