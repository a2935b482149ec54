"""GraphAI's vanilla matrix agents: dotProductAgent and sortByValuesAgent."""

from __future__ import annotations

import math

import pytest
from graphrt_agents.vanilla.matrix import (
    AGENTS,
    dot_product_agent,
    sort_by_values_agent,
)

from graphrt.testing import SampleCase, parametrize_samples
from graphrt.testing import agent_context as context

pytestmark = pytest.mark.anyio


@parametrize_samples(*AGENTS)
def test_every_sample_gives_its_result(sample_case: SampleCase) -> None:
    sample_case.check()  # through a real one-node graph, as `graphrt test-agents` runs it


def test_the_module_has_graphai_s_matrix_agents() -> None:
    assert [info.name for info in AGENTS] == ["dotProductAgent", "sortByValuesAgent"]


# --- dotProductAgent -------------------------------------------------------------


async def test_dot_product_scores_each_row_against_the_vector() -> None:
    assert await dot_product_agent(context({"matrix": [[1, 0], [0.5, 2]], "vector": [2, 3]})) == [2, 7.0]


async def test_dot_product_converts_values_with_javascript_s_number() -> None:
    assert await dot_product_agent(context({"matrix": [["2", None]], "vector": ["3", 4]})) == [6]


async def test_dot_product_of_a_row_longer_than_the_vector_is_nan() -> None:
    result = await dot_product_agent(context({"matrix": [[1], [1, 2]], "vector": [5]}))
    assert result[0] == 5 and math.isnan(result[1])


async def test_dot_product_needs_the_first_row_as_long_as_the_vector() -> None:
    with pytest.raises(ValueError, match="^dotProduct: Length of vectors do not match. 2, 1$"):
        await dot_product_agent(context({"matrix": [[1, 2]], "vector": [1]}))


async def test_dot_product_of_an_empty_matrix_fails_like_javascript() -> None:
    with pytest.raises(TypeError, match=r"^Cannot read properties of undefined \(reading 'length'\)$"):
        await dot_product_agent(context({"matrix": [], "vector": [1]}))


# --- sortByValuesAgent -----------------------------------------------------------


async def test_sort_by_values_puts_the_highest_value_first() -> None:
    result = await sort_by_values_agent(context({"array": ["a", "b", "c"], "values": [1, 3, 2]}))
    assert result == ["b", "c", "a"]


async def test_sort_by_values_puts_the_lowest_value_first_with_assendant() -> None:
    result = await sort_by_values_agent(context({"array": ["a", "b", "c"], "values": [1, 3, 2]}, {"assendant": True}))
    assert result == ["a", "c", "b"]


@pytest.mark.parametrize("assendant", [False, True])
async def test_sort_by_values_keeps_the_order_of_equal_values(assendant) -> None:
    inputs = {"array": ["a", "b", "c", "d"], "values": [1, 2, 1, 2]}
    result = await sort_by_values_agent(context(inputs, {"assendant": assendant}))
    assert result == (["a", "c", "b", "d"] if assendant else ["b", "d", "a", "c"])


async def test_sort_by_values_compares_numeric_text_as_numbers() -> None:
    result = await sort_by_values_agent(context({"array": ["two", "ten"], "values": ["2", "10"]}))
    assert result == ["ten", "two"]


async def test_sort_by_values_treats_a_missing_value_as_equal_to_any() -> None:
    assert await sort_by_values_agent(context({"array": ["a", "b"], "values": [1]})) == ["a", "b"]


@pytest.mark.parametrize("missing", ["array", "values"])
async def test_sort_by_values_needs_array_and_values(missing) -> None:
    inputs = {"array": ["a"], "values": [1]}
    del inputs[missing]
    with pytest.raises(ValueError, match=f"^sortByValue: namedInputs.{missing} is UNDEFINED!$"):
        await sort_by_values_agent(context(inputs))
