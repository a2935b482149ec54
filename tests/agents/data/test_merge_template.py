"""dataObjectMergeTemplateAgent: GraphAI's samples, and its errors for inputs GraphAI's reduce cannot take."""

from __future__ import annotations

import pytest
from graphrt_agents.data.merge_template import AGENTS

import graphrt
from graphrt.testing import SampleCase, parametrize_samples


@parametrize_samples(*AGENTS)
def test_every_sample_gives_its_result(sample_case: SampleCase) -> None:
    sample_case.check()


def merge(array, **params) -> dict:
    graph = {"version": 0.5, "nodes": {"src": {"value": array},
                                       "out": {"agent": "dataObjectMergeTemplateAgent", "inputs": {"array": ":src"},
                                               "params": params, "isResult": True}}}
    return graphrt.run(graph)["out"]


def test_lists_concatenate_and_scalars_replace_as_deepmerge_does() -> None:
    assert merge([{"a": [1], "b": {"x": 1}}, {"a": [2], "b": 2}]) == {"data": {"a": [1, 2], "b": 2}}


def test_the_result_shares_nothing_with_the_inputs() -> None:
    first = {"a": {"b": 1}}
    result = merge([first, {}], flatResponse=True)
    assert result == first and result["a"] is not first["a"]


def test_no_array_fails_as_graphais_reduce_does() -> None:
    graph = {"version": 0.5, "nodes": {"out": {"agent": "dataObjectMergeTemplateAgent", "isResult": True}}}
    with pytest.raises(graphrt.GraphError, match=r"Cannot read properties of undefined \(reading 'reduce'\)"):
        graphrt.run(graph)


def test_a_null_item_fails_as_deepmerge_does() -> None:
    with pytest.raises(graphrt.GraphError, match="Cannot convert undefined or null to object"):
        merge([{"a": 1}, None])


def test_an_array_that_is_not_a_list_fails() -> None:
    with pytest.raises(graphrt.GraphError, match="namedInputs.array.reduce is not a function"):
        merge({"a": 1})
