"""Every registered agent, fed wrong inputs and wrong params: the run gives results or a GraphError, never
another exception, and ends within a time bound (the node's timeout)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

import graphrt
from graphrt.authoring.plugins import default_registry
from graphrt.base.errors import GraphError

pytestmark = pytest.mark.anyio

WRONG = [None, 0, -1, 2.5, "", "text", [], [1, "a", None, {"x": []}], {}, {"a": {"b": [1]}}, True, "9" * 30]
GENERIC_INPUTS = ["array", "item", "items", "text", "texts", "value", "values", "data", "rows", "prompt", "messages",
                  "message", "left", "right", "args", "url", "query", "matrix", "vector", "object", "key", "array1",
                  "array2", "inputs", "tools"]
AGENTS = default_registry().names()
DEAD_SERVER = "http://127.0.0.1:9/v1"  # nothing listens: an LLM agent fails at once


def _names(schema: Any, fallback: list[str]) -> list[str]:
    properties = schema.get("properties") if isinstance(schema, dict) else None
    return sorted(properties) if isinstance(properties, dict) and properties else fallback


def _graph(agent: str, wrong: Any, wrong_params: bool) -> dict[str, Any]:
    info = default_registry().get(agent)
    inputs = {name: ":wrong" for name in _names(info.inputs, GENERIC_INPUTS)}
    params = {name: wrong for name in _names(info.params, [])} if wrong_params else {}
    node: dict[str, Any] = {"agent": agent, "inputs": inputs, "params": params, "timeout": 2000, "isResult": True}
    if info.has_graph_data:
        node["graph"] = {"version": 0.5, "nodes": {"inner": {"agent": "copyAgent", "inputs": {"v": ":row"}, "isResult": True}}}
    return {"version": 0.5, "nodes": {"wrong": {"value": wrong}, "node": node}}


@pytest.fixture(autouse=True)
def _no_llm(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", DEAD_SERVER)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-used-0123456789abcdef")


@pytest.mark.parametrize("agent", AGENTS)
async def test_an_agent_fed_wrong_inputs_gives_results_or_a_graph_error(agent: str, capsys) -> None:
    config = {"openAIAgent": {"baseURL": DEAD_SERVER, "maxRetries": 0}}
    outcomes = []
    for wrong_params in (False, True):
        for wrong in WRONG:
            with anyio.fail_after(10):  # the node's timeout is 2 s; anything longer is a hang
                try:
                    await graphrt.Graph(_graph(agent, wrong, wrong_params), config=config).arun()
                    outcomes.append("results")
                except GraphError as error:
                    assert str(error)  # a message that says something
                    outcomes.append("error")
    assert len(outcomes) == 2 * len(WRONG)
