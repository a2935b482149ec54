"""@graphai/sleeper_agents: sleepAndMergeAgent and sleeperAgentDebug, and npm deepmerge's rules."""

from __future__ import annotations

import pytest
from graphrt_agents.sleeper import AGENTS, INTENTIONAL_ERROR
from graphrt_agents.sleeper.deepmerge import deepmerge

import graphrt
from graphrt.testing import SampleCase, parametrize_samples


@parametrize_samples(*AGENTS)
def test_every_sample_gives_its_result(sample_case: SampleCase) -> None:
    sample_case.check()


def test_objects_merge_deeply_and_lists_concatenate() -> None:
    target = {"a": 1, "o": {"p": 1, "list": [1]}, "keep": [0]}
    source = {"a": 2, "o": {"q": 2, "list": [2]}, "new": {"n": 1}}
    merged = deepmerge(target, source)
    assert merged == {"a": 2, "o": {"p": 1, "list": [1, 2], "q": 2}, "keep": [0], "new": {"n": 1}}
    assert merged["keep"] is not target["keep"] and merged["new"] is not source["new"]  # copies, never shared
    assert target == {"a": 1, "o": {"p": 1, "list": [1]}, "keep": [0]}


def test_a_list_and_an_object_do_not_merge_the_source_wins() -> None:
    assert deepmerge({"a": 1}, [1, 2]) == [1, 2]
    assert deepmerge([1], {"a": 1}) == {"a": 1}
    assert deepmerge([1], [2]) == [1, 2]


def test_a_source_that_is_not_an_object_adds_what_object_keys_gives() -> None:
    assert deepmerge({"a": 1}, 5) == {"a": 1}
    assert deepmerge({"a": 1}, "xy") == {"a": 1, "0": "x", "1": "y"}
    with pytest.raises(TypeError):
        deepmerge({"a": 1}, None)


def test_prototype_keys_are_not_written() -> None:
    assert deepmerge({}, {"constructor": 1, "__proto__": {"x": 1}, "ok": 2}) == {"ok": 2}


# GraphAI's own graph (packages/agents/tests/graphs/test_base.yml), with shorter sleeps, and its expected result.
BASE = {"version": 0.5, "nodes": {
    "node1": {"agent": "sleepAndMergeAgent", "params": {"duration": 50, "value": {"node1": "output"}}},
    "node2": {"agent": "sleepAndMergeAgent", "params": {"duration": 10, "value": {"node2": "output"}}},
    "node3": {"agent": "sleepAndMergeAgent", "params": {"duration": 50, "value": {"node3": "output"}},
              "inputs": {"array": [":node1", ":node2"]}},
    "node4": {"agent": "sleepAndMergeAgent", "params": {"duration": 10, "value": {"node4": "output"}},
              "inputs": {"array": [":node3"]}},
    "node5": {"agent": "sleepAndMergeAgent", "params": {"duration": 50, "value": {"node5": "output"}},
              "inputs": {"array": [":node2", ":node4"]}, "isResult": True},
}}


def test_graphai_s_base_graph_gives_graphai_s_result() -> None:
    assert graphrt.run(BASE, all_results=True) == {
        "node1": {"node1": "output"},
        "node2": {"node2": "output"},
        "node3": {"node3": "output", "node1": "output", "node2": "output"},
        "node4": {"node4": "output", "node3": "output", "node1": "output", "node2": "output"},
        "node5": {"node5": "output", "node4": "output", "node3": "output", "node1": "output", "node2": "output"},
    }


def test_sleeper_agent_debug_fails_twice_then_succeeds_with_retries() -> None:
    node = {"agent": "sleeperAgentDebug", "params": {"duration": 10, "fail": True, "value": {"n": 1}}, "isResult": True}
    assert graphrt.run({"version": 0.5, "nodes": {"n": {**node, "retry": 2}}}) == {"n": {"n": 1}}
    with pytest.raises(graphrt.AgentError, match=INTENTIONAL_ERROR):
        graphrt.run({"version": 0.5, "nodes": {"n": {**node, "retry": 1}}})


def test_inputs_array_must_be_a_list() -> None:
    graph = {"version": 0.5, "nodes": {"n": {"agent": "sleepAndMergeAgent", "inputs": {"array": "text"}}}}
    with pytest.raises(graphrt.AgentError, match="reduce is not a function"):
        graphrt.run(graph)
