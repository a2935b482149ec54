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


def test_each_unknown_key_of_a_wide_field_is_said_once_and_nothing_it_is_under_again() -> None:
    # 20,000 keys: the check of what was already said went through every issue so far (quadratic: 35 s,
    # and minutes for the campaign's 200,000); each key is one warning, and `console` itself none.
    keys = {f"k{i}": i for i in range(20_000)}
    graph = {"version": 0.5, "nodes": {"s": {"value": 1}, "a": {"agent": "copyAgent", "inputs": {"x": ":s"},
                                                                 "console": keys, "isResult": True}}}
    found = [issue for issue in collect_issues(graph, graphrt.default_registry()) if issue.node_id == "a"]
    assert sorted(issue.field for issue in found) == sorted(f"console.{key}" for key in keys)


def test_what_is_under_or_above_a_place_said_counts_as_said() -> None:
    from graphrt.check.graphdata_schema import Reported

    reported = Reported()
    reported.add("a", "console.k1")
    reported.add("b", None)
    reported.add(None, "loop.count")
    assert reported.covers("a", "console.k1") and reported.covers("a", "console")  # itself, and above it
    assert reported.covers("a", "console.k1.deeper")  # under it
    assert not reported.covers("a", "console.k10") and not reported.covers("a", "cons")
    assert not reported.covers("a", None)
    assert reported.covers("b", None) and not reported.covers("b", "console")
    assert reported.covers(None, "loop") and not reported.covers(None, "retry") and not reported.covers("c", "loop")
