"""The CI wrapper of GraphAI's own graphs (.ci/graphai_own.py): its documented deviation is narrow."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

import graphrt

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wrapper() -> ModuleType:
    spec = importlib.util.spec_from_file_location("graphai_own", ROOT / ".ci" / "graphai_own.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


# GraphAI's result for its test 'test nest invalid 1' (packages/agents/tests/graphai/test_nest.ts)
GRAPHAI = {
    "nested": {"onError": {"message": "\u001b[41mInputs not match: NodeId result, Inputs: badsource\u001b[0m", "error": {}}},
    "catch": {"message": "\u001b[41mInputs not match: NodeId result, Inputs: badsource\u001b[0m"},
}


def graphrt_result() -> dict:
    graph = {"version": 0.5, "nodes": {
        "nested": {"agent": "nestedAgent", "isResult": True, "params": {"supressError": True}, "graph": {"nodes": {
            "source": {"value": 1},
            "result": {"agent": "copyAgent", "inputs": {"text": ":badsource"}, "isResult": True},
        }}},
        "catch": {"agent": "propertyFilterAgent", "params": {"include": ["message"]}, "if": ":nested.onError",
                  "inputs": {"item": ":nested.onError"}, "isResult": True},
    }}
    return graphrt.run(graph)


def test_graphrt_gives_on_error_graphai_s_shape(wrapper: ModuleType) -> None:
    result = graphrt_result()
    assert set(result["nested"]["onError"]) == {"message", "error"}
    assert result["nested"]["onError"]["error"]["name"] == "GraphValidationError"
    normalize = wrapper.on_error_as_graphrt_words_it
    assert normalize(result) == normalize(GRAPHAI) == {
        "nested": {"onError": {"message": "<onError.message>", "error": "<onError.error>"}},
        "catch": {"message": "<onError.message>"},
    }


def test_the_deviation_does_not_hide_other_differences(wrapper: ModuleType) -> None:
    normalize = wrapper.on_error_as_graphrt_words_it
    other = {**graphrt_result(), "catch": {"message": "something else"}}
    assert normalize(other) != normalize(GRAPHAI)
    assert normalize({"nested": {"result": 1}}) != normalize(GRAPHAI)
