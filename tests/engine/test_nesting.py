"""Graphs inside nodes: nestedAgent and mapAgent with their params, and errors from nested nodes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

import graphrt
from graphrt import AgentContext, AgentInfo
from graphrt.base.errors import AgentError

pytestmark = pytest.mark.anyio


async def fail(ctx: AgentContext) -> Any:
    raise ValueError(f"row {ctx.inputs.get('row')} broke")


FAIL = AgentInfo(name="failAgent", func=fail)

ECHO_ROW = {"nodes": {"out": {"agent": "copyAgent", "inputs": {"row": ":row"}, "isResult": True}}}
FAILING = {"nodes": {"x": {"agent": "failAgent", "inputs": {"row": ":row"}, "isResult": True}}}


def mapped(rows: Any, graph: dict[str, Any] = ECHO_ROW, inputs: dict[str, Any] | None = None, **params: Any) -> dict[str, Any]:
    return {
        "nodes": {
            "rows": {"value": rows},
            "m": {"agent": "mapAgent", "inputs": {"rows": ":rows", **(inputs or {})}, "params": params, "graph": graph, "isResult": True},
        }
    }


def nested(graph: dict[str, Any], inputs: dict[str, Any], **params: Any) -> dict[str, Any]:
    return {
        "nodes": {
            "a": {"value": 1},
            "b": {"value": 2},
            "n": {"agent": "nestedAgent", "inputs": inputs, "params": params, "graph": graph, "isResult": True},
        }
    }


# ----- nestedAgent -----


async def test_nested_agent_passes_inputs_in_as_static_nodes() -> None:
    graph = nested({"nodes": {"x": {"agent": "copyAgent", "inputs": {"v": ":v"}, "isResult": True}}}, {"v": ":a"})
    assert await graphrt.arun(graph) == {"n": {"x": {"v": 1}}}


async def test_nested_agent_input_replaces_an_inner_static_value() -> None:
    inner = {"nodes": {"v": {"value": "inner"}, "x": {"agent": "copyAgent", "inputs": {"v": ":v"}, "isResult": True}}}
    assert await graphrt.arun(nested(inner, {"v": ":a"})) == {"n": {"x": {"v": 1}}}


async def test_nested_agent_keeps_inner_static_nodes_it_is_not_given() -> None:
    inner = {"nodes": {"k": {"value": "kept"}, "x": {"agent": "copyAgent", "inputs": {"v": ":v", "k": ":k"}, "isResult": True}}}
    assert await graphrt.arun(nested(inner, {"v": ":a"})) == {"n": {"x": {"v": 1, "k": "kept"}}}


async def test_nested_agent_result_node_id_picks_one_result() -> None:
    inner = {"nodes": {"x": {"agent": "copyAgent", "inputs": {"v": ":v"}, "isResult": True}}}
    assert await graphrt.arun(nested(inner, {"v": ":a"}, resultNodeId="x")) == {"n": {"v": 1}}


async def test_nested_agent_loop_count_input_loops_the_inner_graph() -> None:
    inner = {"nodes": {"x": {"agent": "copyAgent", "inputs": {"i": "@loop"}, "isResult": True}}}
    assert await graphrt.arun(nested(inner, {"loopCount": 4})) == {"n": {"x": {"i": 3}}}


async def test_nested_agent_takes_its_graph_from_another_node() -> None:
    graph = {
        "nodes": {
            "gd": {"value": {"nodes": {"x": {"agent": "copyAgent", "inputs": {"v": ":inner"}, "isResult": True}}}},
            "n": {"agent": "nestedAgent", "graph": ":gd", "inputs": {"inner": 7}, "isResult": True},
        }
    }
    assert await graphrt.arun(graph) == {"n": {"x": {"v": 7}}}


async def test_a_graph_reference_to_something_else_fails_the_node() -> None:
    graph = {"nodes": {"gd": {"value": 3}, "n": {"agent": "nestedAgent", "graph": ":gd", "inputs": {"i": 7}}}}
    with pytest.raises(graphrt.GraphError) as caught:
        await graphrt.arun(graph)
    assert str(caught.value) == "node 'n', field 'graph': ':gd' is not a graph (got int)"


async def test_a_nested_graph_cannot_see_outer_nodes_it_is_not_given() -> None:
    inner = {"nodes": {"x": {"agent": "copyAgent", "inputs": {"v": ":v", "w": ":b"}, "isResult": True}}}
    with pytest.raises(graphrt.GraphError, match=r"^node 'n' > 'x', field 'inputs.w': unknown node 'b'"):
        await graphrt.arun(nested(inner, {"v": ":a"}))


async def test_a_nested_graph_without_result_nodes_gives_an_empty_result() -> None:
    inner = {"nodes": {"x": {"agent": "copyAgent", "inputs": {"v": ":v"}}}}
    assert await graphrt.arun(nested(inner, {"v": ":a"})) == {"n": {}}


async def test_an_error_in_a_nested_node_names_the_path_to_it() -> None:
    with pytest.raises(AgentError) as caught:
        await graphrt.arun(nested(FAILING, {"row": ":a"}), agents=[FAIL])
    error = caught.value
    assert (str(error), error.node_id, error.nested) == ("node 'n' > 'x': ValueError: row 1 broke (agent failAgent)", "n", ("x",))


async def test_an_error_two_levels_down_names_every_level() -> None:
    middle = {"nodes": {"deep": {"agent": "nestedAgent", "inputs": {"row": ":row"}, "graph": FAILING, "isResult": True}}}
    with pytest.raises(AgentError, match=r"^node 'n' > 'deep' > 'x': ValueError: row 1 broke \(agent failAgent\)$"):
        await graphrt.arun(nested(middle, {"row": ":a"}), agents=[FAIL])


async def test_an_error_in_a_nested_node_of_a_file_points_at_the_inner_node(tmp_path: Path) -> None:
    path = tmp_path / "nested.yaml"
    path.write_text(
        "nodes:\n"
        "  a:\n"
        "    value: 1\n"
        "  n:\n"
        "    agent: nestedAgent\n"
        "    inputs:\n"
        "      row: :a\n"
        "    graph:\n"
        "      nodes:\n"
        "        x:\n"
        "          agent: failAgent\n"
        "          inputs:\n"
        "            row: :row\n",
        encoding="utf-8",
    )
    with pytest.raises(AgentError) as caught:
        await graphrt.arun(str(path), agents=[FAIL])
    assert str(caught.value) == f"{path}:10:9: node 'n' > 'x': ValueError: row 1 broke (agent failAgent)"


async def test_supress_error_turns_a_nested_failure_into_an_on_error_result() -> None:
    results = await graphrt.arun(nested(FAILING, {"row": ":a"}, supressError=True), agents=[FAIL])
    assert results["n"]["onError"]["message"] == "ValueError: row 1 broke"


async def test_nodes_after_a_supressed_error_can_branch_on_it() -> None:
    graph = nested(FAILING, {"row": ":a"}, supressError=True)
    graph["nodes"]["handled"] = {"agent": "copyAgent", "inputs": {"m": ":n.onError.message"}, "if": ":n.onError", "isResult": True}
    results = await graphrt.arun(graph, agents=[FAIL])
    assert results["handled"] == {"m": "ValueError: row 1 broke"}


# ----- mapAgent -----


async def test_map_agent_runs_the_graph_once_per_row_in_row_order() -> None:
    assert await graphrt.arun(mapped(["a", "b", "c"])) == {"m": [{"out": {"row": "a"}}, {"out": {"row": "b"}}, {"out": {"row": "c"}}]}


async def test_map_agent_over_no_rows_gives_an_empty_list() -> None:
    assert await graphrt.arun(mapped([])) == {"m": []}


async def test_map_agent_row_key_renames_the_row_node() -> None:
    inner = {"nodes": {"out": {"agent": "copyAgent", "inputs": {"item": ":item"}, "isResult": True}}}
    assert await graphrt.arun(mapped([1, 2], inner, rowKey="item")) == {"m": [{"out": {"item": 1}}, {"out": {"item": 2}}]}


async def test_map_agent_limit_uses_only_the_first_rows() -> None:
    assert await graphrt.arun(mapped(["a", "b", "c"], limit=2)) == {"m": [{"out": {"row": "a"}}, {"out": {"row": "b"}}]}


async def test_map_agent_limit_above_the_row_count_uses_every_row() -> None:
    assert await graphrt.arun(mapped(["a"], limit=5)) == {"m": [{"out": {"row": "a"}}]}


async def test_map_agent_gives_each_row_its_index() -> None:
    inner = {"nodes": {"out": {"agent": "copyAgent", "inputs": {"i": ":__mapIndex"}, "isResult": True}}}
    assert await graphrt.arun(mapped(["a", "b"], inner)) == {"m": [{"out": {"i": 0}}, {"out": {"i": 1}}]}


async def test_map_agent_result_all_returns_every_inner_node() -> None:
    inner = {"nodes": {"k": {"value": "static"}, "out": {"agent": "copyAgent", "inputs": {"row": ":row"}}}}
    results = await graphrt.arun(mapped(["a", "b"], inner, resultAll=True))
    assert results == {
        "m": [
            {"k": "static", "out": {"row": "a"}, "__mapIndex": 0, "row": "a"},
            {"k": "static", "out": {"row": "b"}, "__mapIndex": 1, "row": "b"},
        ]
    }


async def test_map_agent_composite_result_groups_results_by_node() -> None:
    inner = {"nodes": {"x": {"agent": "copyAgent", "inputs": {"r": ":row"}, "isResult": True}, "y": {"agent": "copyAgent", "params": {"namedKey": "r"}, "inputs": {"r": ":row"}, "isResult": True}}}
    assert await graphrt.arun(mapped([1, 2], inner, compositeResult=True)) == {"m": {"x": [{"r": 1}, {"r": 2}], "y": [1, 2]}}


async def test_map_agent_composite_result_key_returns_one_node_list() -> None:
    inner = {"nodes": {"x": {"agent": "copyAgent", "params": {"namedKey": "r"}, "inputs": {"r": ":row"}, "isResult": True}}}
    assert await graphrt.arun(mapped([1, 2], inner, compositeResultKey="x")) == {"m": [1, 2]}


async def test_map_agent_expand_keys_give_each_row_its_own_item() -> None:
    inner = {"nodes": {"out": {"agent": "copyAgent", "inputs": {"fruit": ":row", "colour": ":colour"}, "isResult": True}}}
    graph = mapped(["apple", "lemon"], inner, {"colour": ":colours"}, expandKeys=["colour"])
    graph["nodes"]["colours"] = {"value": ["red", "yellow"]}
    assert await graphrt.arun(graph) == {"m": [{"out": {"fruit": "apple", "colour": "red"}}, {"out": {"fruit": "lemon", "colour": "yellow"}}]}


def test_map_agent_says_what_each_of_its_params_does() -> None:
    # The agent reference is generated from these descriptions; without them compositeResultKey had to be guessed.
    from graphrt.engine.graph import make_registry

    params = make_registry(None).get("mapAgent").params["properties"]
    assert [name for name, schema in params.items() if not schema.get("description")] == []


async def test_map_agent_other_inputs_are_shared_by_every_row() -> None:
    inner = {"nodes": {"out": {"agent": "copyAgent", "inputs": {"row": ":row", "all": ":shared"}, "isResult": True}}}
    graph = mapped([1, 2], inner, {"shared": "same"})
    assert await graphrt.arun(graph) == {"m": [{"out": {"row": 1, "all": "same"}}, {"out": {"row": 2, "all": "same"}}]}


async def test_map_agent_rows_that_are_not_a_list_fail_the_node() -> None:
    with pytest.raises(AgentError) as caught:
        await graphrt.arun(mapped(3))
    assert str(caught.value) == "node 'm': TypeError: mapAgent: rows must be an array, got int (agent mapAgent)"


async def test_map_agent_without_rows_fails_the_node() -> None:
    graph = {"nodes": {"a": {"value": 1}, "m": {"agent": "mapAgent", "inputs": {"other": ":a"}, "graph": ECHO_ROW}}}
    with pytest.raises(AgentError) as caught:
        await graphrt.arun(graph)
    assert str(caught.value) == "node 'm': ValueError: mapAgent: rows property is required in namedInput (agent mapAgent)"


async def test_an_error_in_one_row_fails_the_map_naming_the_inner_node() -> None:
    with pytest.raises(AgentError) as caught:
        await graphrt.arun(mapped([1], FAILING), agents=[FAIL])
    assert str(caught.value) == "node 'm' > 'x': ValueError: row 1 broke (agent failAgent)"


async def test_map_agent_supress_error_returns_on_error_instead_of_failing() -> None:
    results = await graphrt.arun(mapped([1, 2], FAILING, supressError=True), agents=[FAIL])
    assert set(results["m"]) == {"onError"} and results["m"]["onError"]["message"].startswith("ValueError: row ")


async def test_a_map_inside_a_map_runs_every_inner_row() -> None:
    inner_map = {"nodes": {"m2": {"agent": "mapAgent", "inputs": {"rows": ":row"}, "graph": ECHO_ROW, "isResult": True}}}
    assert await graphrt.arun(mapped([[1, 2], [3]], inner_map, compositeResultKey="m2")) == {
        "m": [[{"out": {"row": 1}}, {"out": {"row": 2}}], [{"out": {"row": 3}}]]
    }


async def test_a_looping_graph_inside_a_map_loops_per_row() -> None:
    inner = {
        "loop": {"count": 2},
        "nodes": {
            "acc": {"value": [], "update": ":push.array"},
            "push": {"agent": "pushAgent", "inputs": {"array": ":acc", "item": ":row"}, "isResult": True},
        },
    }
    assert await graphrt.arun(mapped(["a", "b"], inner, compositeResultKey="push")) == {"m": [{"array": ["a", "a"]}, {"array": ["b", "b"]}]}


async def test_a_timeout_on_a_map_node_cancels_the_agent_of_every_row() -> None:
    cancelled: list[tuple[Any, ...]] = []

    async def hang(ctx: AgentContext) -> None:
        try:
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            cancelled.append(ctx.path)
            raise

    graph = mapped([1, 2], {"nodes": {"h": {"agent": "hangAgent", "inputs": {"r": ":row"}}}})
    graph["nodes"]["m"]["timeout"] = 10
    with pytest.raises(graphrt.NodeTimeoutError, match=r"^node 'm', field 'timeout': timed out after 10 ms$"):
        await graphrt.arun(graph, agents=[AgentInfo(name="hangAgent", func=hang)])
    assert sorted(cancelled) == [("m", 0), ("m", 1)]


async def test_a_map_retried_after_a_timeout_at_concurrency_one_gets_its_slots_back() -> None:
    calls: list[Any] = []

    async def hang_first_two(ctx: AgentContext) -> Any:
        calls.append(ctx.path)
        if len(calls) == 1:  # the first row of the first attempt hangs; the second row may not start before the timeout
            await anyio.sleep_forever()
        return ctx.inputs["r"]

    graph = mapped([1, 2], {"nodes": {"h": {"agent": "hangAgent", "inputs": {"r": ":row"}, "isResult": True}}}, compositeResultKey="h")
    graph["concurrency"] = 1
    graph["nodes"]["m"].update(timeout=20, retry=1)
    graph["nodes"]["after"] = {"agent": "copyAgent", "inputs": {"m": ":m"}, "isResult": True}
    with anyio.fail_after(5):  # a guard against a leaked slot, not a timing check
        results = await graphrt.arun(graph, agents=[AgentInfo(name="hangAgent", func=hang_first_two)])
    assert results == {"m": [1, 2], "after": {"m": [1, 2]}}



async def test_an_error_in_a_nested_node_keeps_the_inner_agent_name() -> None:
    with pytest.raises(AgentError) as caught:
        await graphrt.arun(nested(FAILING, {"row": ":a"}), agents=[FAIL])
    assert str(caught.value) == "node 'n' > 'x': ValueError: row 1 broke (agent failAgent)"


def test_a_nested_graph_in_every_map_row_is_compiled_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import graphrt.engine.nesting

    compiled: list[Any] = []
    original = graphrt.engine.nesting.compile_graph
    monkeypatch.setattr(graphrt.engine.nesting, "compile_graph", lambda data, source: compiled.append(data) or original(data, source))
    inner = {"nodes": {"y": {"agent": "copyAgent", "inputs": {"v": ":v"}, "isResult": True}}}
    row_graph = {"nodes": {"n": {"agent": "nestedAgent", "inputs": {"v": ":row"}, "graph": inner, "isResult": True}}}
    results = graphrt.run(mapped([1, 2, 3], row_graph, compositeResultKey="n"))
    assert results == {"m": [{"y": {"v": 1}}, {"y": {"v": 2}}, {"y": {"v": 3}}]}
    assert len(compiled) == 2  # the map's row graph once, the nested graph once (not once per row)


def test_a_nested_graph_is_compiled_once_for_every_run_of_one_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    import graphrt.engine.nesting

    compiled: list[Any] = []
    original = graphrt.engine.nesting.compile_graph
    monkeypatch.setattr(graphrt.engine.nesting, "compile_graph",
                        lambda data, source: compiled.append(data) or original(data, source))
    graph = graphrt.Graph(nested({"nodes": {"x": {"agent": "copyAgent", "inputs": {"v": ":v"}, "isResult": True}}},
                                 {"v": ":a"}))
    assert [graph.run(), graph.run(), graph.replace(config={}).run()] == [{"n": {"x": {"v": 1}}}] * 3
    assert len(compiled) == 1


def test_running_a_graph_agent_leaves_the_compiled_graph_as_it_was() -> None:
    """A GraphSpec is shared by every run of a Graph: what runs compile is kept beside it, not written into it."""
    import copy

    inner = {"nodes": {"y": {"agent": "copyAgent", "inputs": {"v": ":v"}, "isResult": True}}}
    graph = graphrt.Graph(mapped([1, 2], {"nodes": {"n": {"agent": "nestedAgent", "inputs": {"v": ":row"},
                                                          "graph": inner, "isResult": True}}}))
    spec = graph.spec
    spec.computed, spec.statics, spec.updated_statics  # cached on first use: read before, as a run reads them
    before = {name: copy.copy(value) for name, value in vars(spec).items()}
    graph.run()
    assert {name: copy.copy(value) for name, value in vars(spec).items()} == before


async def test_a_graph_agent_asks_its_parent_run_to_lend_its_slot_and_to_reclaim_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The run owns every state change: nesting releases and takes back no slot itself."""
    from graphrt.engine.execution import GraphRun

    calls: list[tuple[str, tuple[str | int, ...], str]] = []
    lend, reclaim = GraphRun.lend, GraphRun.reclaim
    monkeypatch.setattr(GraphRun, "lend", lambda run, ticket: calls.append(("lend", run.path, ticket.node.spec.node_id))
                        or lend(run, ticket))
    monkeypatch.setattr(GraphRun, "reclaim", lambda run, ticket: calls.append(
        ("reclaim", run.path, ticket.node.spec.node_id)) or reclaim(run, ticket))
    graph = mapped([1, 2, 3])
    graph["concurrency"] = 1
    assert await graphrt.arun(graph) == {"m": [{"out": {"row": row}} for row in (1, 2, 3)]}
    assert calls == [("lend", (), "m"), ("reclaim", (), "m")] * 3  # at concurrency 1 the rows run one by one


async def test_any_agent_can_run_a_graph_without_declaring_has_graph_data() -> None:
    async def twice(ctx: AgentContext) -> Any:
        inner = {"nodes": {"x": {}, "out": {"agent": "copyAgent", "inputs": {"v": ":x"}, "isResult": True}}}
        first = await ctx.run_graph(inner, inject={"x": ctx.inputs["n"]})
        second = await ctx.run_graph(inner, inject={"x": first["out"]["v"] * 2})
        return second["out"]["v"]

    graph = {"concurrency": 1, "nodes": {"n": {"value": 21}, "t": {"agent": "twiceAgent", "inputs": {"n": ":n"}, "isResult": True}}}
    assert await graphrt.arun(graph, agents=[AgentInfo(name="twiceAgent", func=twice)]) == {"t": 42}


async def test_a_nested_run_shares_its_parents_run_wide_context() -> None:
    seen: dict[tuple[str | int, ...], tuple[str, Any, Any]] = {}

    async def record(ctx: AgentContext) -> Any:
        seen[ctx.path] = (ctx.run_id, ctx.services, ctx.nesting.registry)  # type: ignore[union-attr]
        return 1

    graph = nested({"nodes": {"r": {"agent": "recordAgent", "isResult": True}}}, {"a": ":a"})
    graph["nodes"]["top"] = {"agent": "recordAgent", "isResult": True}
    await graphrt.Graph(graph, agents=[AgentInfo(name="recordAgent", func=record)]).arun(run_id="shared-run")
    outer, inner = seen[()], seen[("n",)]
    assert outer[0] == inner[0] == "shared-run"
    assert outer[1] is inner[1] and outer[2] is inner[2]


async def test_injecting_into_a_computed_node_of_a_nested_graph_fails_the_node_naming_it() -> None:
    inner = {"nodes": {"a": {"agent": "copyAgent", "inputs": {"v": 1}, "isResult": True}}}
    with pytest.raises(AgentError, match="cannot inject a value: 'a' is a computed node"):
        await graphrt.arun(nested(inner, {"a": ":a"}))
