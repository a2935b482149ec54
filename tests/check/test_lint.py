"""Lint knows agents only by their function info: what a graph agent does with its `graph:`, who checks inputs."""

from __future__ import annotations

from typing import Any, Mapping

import graphrt
from graphrt.authoring.agent_info import AgentContext, AgentInfo, NestedGraph
from graphrt.check.validate import collect_issues
from graphrt.check.viz import graph_model


async def _runs_graph(ctx: AgentContext) -> Any:
    return await ctx.run_graph(ctx.graph_data, inject={"item": ctx.inputs.get("items")})


def _each_item(inputs: frozenset[str], params: Mapping[str, Any]) -> NestedGraph:
    return NestedGraph(frozenset({"item"}), all_results=bool(params.get("all")), fails_node=True)


EACH = AgentInfo(name="eachAgent", func=_runs_graph, has_graph_data=True, nested_graph=_each_item)
SILENT = AgentInfo(name="silentAgent", func=_runs_graph, has_graph_data=True)  # says nothing of its graph


def issues(node: dict[str, Any], *agents: AgentInfo) -> list[tuple[str, str]]:
    registry = graphrt.default_registry().copy()
    registry.add(*agents)
    graph = {"version": 0.5, "nodes": {"src": {"value": [1]}, "outer": {**node, "isResult": True}}}
    return [(str(issue), issue.severity) for issue in collect_issues(graph, registry)]


INNER = {"nodes": {"use": {"agent": "copyAgent", "inputs": {"v": ":item"}, "isResult": True},
                   "spare": {"agent": "copyAgent", "inputs": {"v": ":item"}}}}


def test_a_graph_agent_s_info_says_what_its_graph_receives() -> None:
    assert issues({"agent": "eachAgent", "inputs": {"items": ":src"}, "graph": INNER}, EACH) == [
        ("node 'outer' > 'spare': nothing uses this node's result: no node refers to it and it is not isResult",
         "warning"),
    ]


def test_a_graph_agent_that_returns_every_result_leaves_none_unused() -> None:
    assert issues({"agent": "eachAgent", "inputs": {"items": ":src"}, "params": {"all": True}, "graph": INNER}, EACH) == []


def test_an_error_in_the_graph_of_an_agent_that_fails_with_it_is_an_error() -> None:
    broken = {"nodes": {"use": {"agent": "copyAgent", "inputs": {"v": ":nowhere"}, "isResult": True}}}
    found = issues({"agent": "eachAgent", "inputs": {"items": ":src"}, "graph": broken}, EACH)
    assert found == [("node 'outer' > 'use', field 'inputs.v': unknown node 'nowhere' (known: use, item)", "error")]
    assert issues({"agent": "eachAgent", "inputs": {"items": ":src"}, "graph": broken, "if": ":src"}, EACH)[0][1] == "warning"


def test_an_agent_that_says_nothing_gives_its_graph_the_node_s_inputs_and_only_warnings() -> None:
    found = issues({"agent": "silentAgent", "inputs": {"items": ":src"}, "graph": INNER}, SILENT)
    assert found == [
        ("node 'outer' > 'use', field 'inputs.v': unknown node 'item' (did you mean items?)", "warning"),
        ("node 'outer' > 'spare', field 'inputs.v': unknown node 'item' (did you mean items?)", "warning"),
        ("node 'outer' > 'spare': nothing uses this node's result: no node refers to it and it is not isResult",
         "warning"),
    ]


def test_viz_draws_what_a_graph_agent_s_graph_receives() -> None:
    registry = graphrt.default_registry().copy()
    registry.add(EACH)
    graph = {"version": 0.5, "nodes": {"src": {"value": [1]},
                                       "outer": {"agent": "eachAgent", "inputs": {"items": ":src"}, "graph": INNER}}}
    model = graph_model(graph, registry)
    assert model.nodes[("outer", "item")]["kind"] == "injected"


def test_a_literal_that_breaks_the_schema_of_an_agent_that_checks_its_inputs_is_an_error() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    checking = AgentInfo(name="checkingAgent", func=lambda ctx: ctx.inputs, inputs=schema, checks_inputs=True)
    trusting = AgentInfo(name="trustingAgent", func=lambda ctx: ctx.inputs, inputs=schema)
    message = "field 'inputs.n': {} input schema: must be an integer, got string 'x'"
    assert issues({"agent": "checkingAgent", "inputs": {"n": "x", "src": ":src"}}, checking) == [
        (f"node 'outer', {message.format('checkingAgent')}", "error")]
    assert issues({"agent": "trustingAgent", "inputs": {"n": "x", "src": ":src"}}, trusting) == [
        (f"node 'outer', {message.format('trustingAgent')}", "warning")]


def test_a_function_agent_checks_its_inputs_and_a_raw_one_does_not() -> None:
    @graphrt.agent
    def double(n: int) -> int:
        """Doubles."""
        return 2 * n

    @graphrt.agent
    def raw(ctx: AgentContext) -> Any:
        """Reads the context."""
        return ctx.inputs

    assert graphrt.as_agent(double).checks_inputs and not graphrt.as_agent(raw).checks_inputs
