"""Hostile graph files: YAML alias loops and bombs, deep nesting and odd text end in a GraphLoadError, fast."""

from __future__ import annotations

from pathlib import Path

import pytest

import graphrt
from graphrt.base.errors import GraphLoadError
from graphrt.graphdata.loader import MAX_DEPTH, parse_graph_text

COPY_A = "  b:\n    agent: copyAgent\n    inputs: {x: ':a'}\n    isResult: true\n"


def test_an_alias_that_holds_itself_is_refused() -> None:
    with pytest.raises(GraphLoadError, match="^a YAML alias refers to a value that contains it$"):
        graphrt.Graph("version: 0.5\nnodes:\n  a: &x\n    value: [*x]\n" + COPY_A)


def test_a_list_that_holds_itself_is_refused() -> None:
    with pytest.raises(GraphLoadError, match="a YAML alias refers to a value that contains it"):
        parse_graph_text("nodes:\n  a:\n    value: &x [1, *x]\n")


def test_aliases_of_aliases_that_expand_to_a_billion_values_are_refused() -> None:
    levels = "".join(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]\n" for i in range(1, 9))
    text = "l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + levels + "nodes:\n  a:\n    value: *l8\n"

    with pytest.raises(GraphLoadError, match=r"the graph expands to more than 1,000,000 values \(YAML aliases of aliases\?\)"):
        parse_graph_text(text)


def test_aliases_used_as_intended_still_load() -> None:
    text = "version: 0.5\nnodes:\n  a:\n    value: &v {x: 1}\n  c:\n    value: *v\n" + COPY_A

    assert graphrt.run(text) == {"b": {"x": {"x": 1}}}


def test_nesting_deeper_than_the_limit_is_refused(tmp_path: Path) -> None:
    deep = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
    (tmp_path / "deep.yaml").write_text(f"version: 0.5\nnodes:\n  a:\n    value: {deep}\n" + COPY_A)

    with pytest.raises(GraphLoadError) as caught:
        graphrt.Graph(tmp_path / "deep.yaml")

    assert str(caught.value) == f"{tmp_path / 'deep.yaml'}: the graph is nested more than {MAX_DEPTH} levels deep"


def test_nesting_within_the_limit_runs() -> None:
    nested = "[" * 90 + "]" * 90

    assert graphrt.Graph(f"version: 0.5\nnodes:\n  a:\n    value: {nested}\n" + COPY_A).run()["b"]["x"]


def test_a_json_file_nested_past_what_json_can_read_is_refused(tmp_path: Path) -> None:
    (tmp_path / "deep.json").write_text('{"nodes": ' + "[" * 20000 + "]" * 20000 + "}")

    with pytest.raises(GraphLoadError, match="deep.json: not valid YAML/JSON: nested more than 100 levels deep"):
        graphrt.Graph(tmp_path / "deep.json")


def test_an_alias_reused_deep_down_counts_its_own_depth() -> None:
    inner = "[" * 60 + "]" * 60
    text = f"x: &x {inner}\nnodes:\n  a:\n    value: " + "[" * 50 + "*x" + "]" * 50 + "\n"

    with pytest.raises(GraphLoadError, match="nested more than 100 levels deep"):
        parse_graph_text(text)


@pytest.mark.parametrize("text", ["x" * 5000, "a" * 300 + ": b", "\x00", "nodes\x00: 1", "{" * 3, "version: 0.5\nnodes: 1"])
def test_odd_text_is_a_graph_error(text: str) -> None:
    with pytest.raises(graphrt.GraphError):
        graphrt.Graph(text)


@pytest.mark.parametrize("levels", [101, 20000])
def test_json_parse_of_text_nested_too_deep_is_a_resolve_error(levels: int) -> None:
    graph = {"version": 0.5, "nodes": {"a": {"value": "[" * levels + "]" * levels},
                                       "b": {"agent": "copyAgent", "inputs": {"x": ":a.jsonParse()"}}}}

    with pytest.raises(graphrt.ResolveError, match="jsonParse\\(\\) failed: the JSON is nested more than 100 levels deep"):
        graphrt.run(graph)


def test_json_parse_of_text_nested_100_levels_works() -> None:
    graph = {"version": 0.5, "nodes": {"a": {"value": "[" * 100 + "]" * 100},
                                       "b": {"agent": "copyAgent", "inputs": {"x": ":a.jsonParse()"}, "isResult": True}}}

    assert graphrt.run(graph)["b"]["x"]
