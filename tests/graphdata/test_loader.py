"""Loading graphs from dicts, YAML/JSON text and files, with positions for errors (graphrt/graphdata/loader.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import graphrt
from graphrt.base.collector import LARGE_TEXT
from graphrt.base.errors import GraphLoadError, Location
from graphrt.graphdata.loader import load_graph, parse_graph_text

HELLO_YAML = """\
version: 0.5
nodes:
  name:
    value: World
  greeting:
    agent: stringTemplateAgent
    inputs:
      name: :name
    params:
      template: "Hello, ${name}!"
    isResult: true
"""

HELLO_DATA = {
    "version": 0.5,
    "nodes": {
        "name": {"value": "World"},
        "greeting": {
            "agent": "stringTemplateAgent",
            "inputs": {"name": ":name"},
            "params": {"template": "Hello, ${name}!"},
            "isResult": True,
        },
    },
}


def load_error(graph: str | Path) -> GraphLoadError:
    with pytest.raises(GraphLoadError) as caught:
        load_graph(graph)
    return caught.value


# ----- what can be loaded -----


def test_a_dict_is_used_as_graph_data() -> None:
    data, source = load_graph(HELLO_DATA)
    assert data == HELLO_DATA and source.file is None


def test_a_dict_is_copied_at_the_top_level() -> None:
    data, _ = load_graph(HELLO_DATA)
    data["extra"] = 1
    assert "extra" not in HELLO_DATA


def test_yaml_text_is_parsed() -> None:
    data, source = load_graph(HELLO_YAML)
    assert data == HELLO_DATA and source.file is None


def test_json_text_is_parsed() -> None:
    data, _ = load_graph('{"version": 0.5, "nodes": {"a": {"value": [1, 2]}}}')
    assert data == {"version": 0.5, "nodes": {"a": {"value": [1, 2]}}}


def test_a_yaml_file_is_read_from_a_path_string(tmp_path: Path) -> None:
    path = tmp_path / "hello.yaml"
    path.write_text(HELLO_YAML, encoding="utf-8")
    data, source = load_graph(str(path))
    assert data == HELLO_DATA and source.file == str(path)


def test_a_json_file_is_read_from_a_path_object(tmp_path: Path) -> None:
    path = tmp_path / "hello.json"
    path.write_text('{"nodes": {"a": {"value": "é"}}}', encoding="utf-8")
    data, source = load_graph(path)
    assert data == {"nodes": {"a": {"value": "é"}}} and source.file == str(path)


def test_a_file_without_a_graph_suffix_is_read_when_it_exists(tmp_path: Path) -> None:
    path = tmp_path / "graph.txt"
    path.write_text("nodes: {a: {value: 1}}", encoding="utf-8")
    assert load_graph(str(path))[0] == {"nodes": {"a": {"value": 1}}}


def test_yaml_anchors_and_aliases_are_plain_data() -> None:
    data, _ = load_graph("nodes:\n  a: {value: &v [1, 2]}\n  b: {value: *v}\n")
    assert data["nodes"]["b"] == {"value": [1, 2]}


def test_run_accepts_a_file_path(tmp_path: Path) -> None:
    path = tmp_path / "hello.yaml"
    path.write_text(HELLO_YAML, encoding="utf-8")
    assert graphrt.run(str(path), inject={"name": "Ada"}) == {"greeting": "Hello, Ada!"}


def test_run_accepts_yaml_text() -> None:
    assert graphrt.run(HELLO_YAML) == {"greeting": "Hello, World!"}


# ----- what cannot -----


def test_malformed_yaml_names_the_file_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("nodes:\n  a:\n    value: [1, 2\n  b: {}\n", encoding="utf-8")
    error = load_error(str(path))
    assert str(error) == f"{path}:4:4: not valid YAML/JSON: did not find expected ',' or ']'"
    assert error.location == Location(str(path), 4, 4)


def test_malformed_yaml_text_is_located_in_graph() -> None:
    error = load_error("nodes:\n  a: {value: 1\n")
    assert str(error) == "<graph>:3:1: not valid YAML/JSON: did not find expected ',' or '}'"


def test_a_tab_indent_is_a_load_error_at_its_position() -> None:
    assert str(load_error("nodes:\n\ta: 1\n")) == "<graph>:2:1: not valid YAML/JSON: found character that cannot start any token"


def test_malformed_json_names_the_file_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{\n  "nodes": {\n    "a": {"value": 1,}\n  }\n}\n', encoding="utf-8")
    error = load_error(path)
    assert str(error) == f"{path}:3:22: not valid YAML/JSON: Expecting property name enclosed in double quotes"


def test_python_tags_are_refused_not_evaluated() -> None:
    error = load_error('nodes: !!python/object/apply:os.system ["echo hacked"]\n')
    assert str(error) == (
        "<graph>:1:8: not valid YAML/JSON: could not determine a constructor for the tag "
        "'tag:yaml.org,2002:python/object/apply:os.system'"
    )


def test_a_yaml_list_is_not_a_graph(tmp_path: Path) -> None:
    path = tmp_path / "list.yaml"
    path.write_text("- 1\n- 2\n", encoding="utf-8")
    assert str(load_error(str(path))) == f"{path}:1:1: a graph must be a mapping with 'nodes', got list"


def test_an_empty_file_is_not_a_graph(tmp_path: Path) -> None:
    path = tmp_path / "empty.yaml"
    path.write_text("", encoding="utf-8")
    assert str(load_error(path)) == f"{path}:1:1: a graph must be a mapping with 'nodes', got empty"


def test_a_scalar_text_is_not_a_graph() -> None:
    assert str(load_error("42\n")) == "<graph>:1:1: a graph must be a mapping with 'nodes', got int"


def test_one_line_json_text_of_any_length_is_parsed_not_taken_for_a_path() -> None:
    nodes = {f"node{i}": {"value": i} for i in range(100)}
    data, _ = load_graph(json.dumps({"nodes": nodes}))
    assert data == {"nodes": nodes}


def test_a_missing_file_without_a_graph_suffix_is_a_load_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "graph"
    assert str(load_error(str(path))) == f"{path}: cannot read graph file: No such file or directory"


def test_a_directory_is_a_load_error_naming_it(tmp_path: Path) -> None:
    assert str(load_error(str(tmp_path))) == f"{tmp_path}: cannot read graph file: Is a directory"


def test_a_missing_file_is_a_load_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "nope.yaml"
    assert str(load_error(str(path))) == f"{path}: cannot read graph file: No such file or directory"


def test_something_else_is_not_a_graph() -> None:
    with pytest.raises(GraphLoadError, match="^a graph must be a dict, a path or YAML/JSON text, got int$"):
        load_graph(42)  # type: ignore[arg-type]


def test_load_errors_are_graph_errors() -> None:
    with pytest.raises(graphrt.GraphError):
        graphrt.run("nodes: [")


# ----- positions -----


def test_locate_finds_a_nested_key() -> None:
    _, source = parse_graph_text(HELLO_YAML, file="hello.yaml")
    assert source.locate("nodes", "greeting", "inputs", "name") == Location("hello.yaml", 8, 7)


def test_locate_stops_at_the_deepest_key_that_exists() -> None:
    _, source = parse_graph_text(HELLO_YAML, file="hello.yaml")
    assert source.locate("nodes", "greeting", "timeout") == Location("hello.yaml", 5, 3)


def test_locate_finds_an_item_of_a_list() -> None:
    _, source = parse_graph_text("nodes:\n  a:\n    value:\n      - 1\n      - 2\n")
    assert source.locate("nodes", "a", "value", 1) == Location(None, 5, 9)


def test_locate_in_a_nested_source_starts_at_its_prefix() -> None:
    _, source = parse_graph_text("nodes:\n  n:\n    agent: nestedAgent\n    graph:\n      nodes:\n        inner: {value: 1}\n")
    assert source.nested("nodes", "n", "graph").locate("nodes", "inner") == Location(None, 6, 9)


def test_a_dict_graph_has_no_location() -> None:
    _, source = load_graph(HELLO_DATA)
    assert source.locate("nodes", "name") is None


# ----- keys as JavaScript has them -----


def test_yaml_keys_that_are_not_strings_become_strings_as_in_javascript() -> None:
    data, _ = load_graph("nodes:\n  1:\n    value: {2: x, true: y, null: z, 1.5: w}\n")
    assert data == {"nodes": {"1": {"value": {"2": "x", "true": "y", "null": "z", "1.5": "w"}}}}


def test_a_numeric_node_id_can_be_referenced() -> None:
    text = "nodes:\n  1:\n    value: {2: x}\n  2:\n    agent: copyAgent\n    inputs:\n      v: :1.2\n    isResult: true\n"
    assert graphrt.run(text) == {"2": {"v": "x"}}



# ----- plain scalars as js-yaml (GraphAI's YAML 1.2) reads them -----


@pytest.mark.parametrize(
    "text, value",
    [
        ("yes", "yes"),
        ("no", "no"),
        ("on", "on"),
        ("Off", "Off"),
        ("true", True),
        ("False", False),
        ("012", 12),
        ("0777", 777),
        ("0o17", 15),
        ("0x1F", 31),
        ("-0x1F", -31),
        ("0b101", 5),
        ("+12", 12),
        ("1_000", "1_000"),
        ("1:30", "1:30"),
        ("190:20:30", "190:20:30"),
        ("1e3", 1000.0),
        (".5", 0.5),
        ("1.", 1.0),
        ("~", None),
        ("null", None),
        ("=", "="),
        ("2024-01-01", "2024-01-01"),
        ("2024-01-01T10:00:00Z", "2024-01-01T10:00:00Z"),
        ("!!timestamp 2024-01-01", "2024-01-01"),
    ],
)
def test_plain_scalars_read_as_in_graphai(text: str, value) -> None:
    data, _ = load_graph(f"nodes:\n  a:\n    value: {text}\n")
    assert data["nodes"]["a"]["value"] == value and type(data["nodes"]["a"]["value"]) is type(value)


def test_infinity_and_nan_are_read_as_numbers() -> None:
    data, _ = load_graph("nodes:\n  a:\n    value: [.inf, -.Inf, .nan]\n")
    inf, minus_inf, nan = data["nodes"]["a"]["value"]
    assert (inf, minus_inf, nan != nan) == (float("inf"), float("-inf"), True)


def test_merge_keys_still_merge() -> None:
    data, _ = load_graph("base: &b {k: 1}\nnodes:\n  a:\n    value:\n      <<: *b\n      z: 2\n")
    assert data["nodes"]["a"]["value"] == {"k": 1, "z": 2}


def test_a_date_in_a_graph_file_runs_and_prints_as_text(tmp_path: Path) -> None:
    path = tmp_path / "date.yaml"
    path.write_text("nodes:\n  d:\n    value: 2024-01-01\n  t:\n    agent: copyAgent\n    inputs:\n      s: on ${:d}\n    isResult: true\n")
    assert graphrt.run(path) == {"t": {"s": "on 2024-01-01"}}


def test_a_node_id_written_twice_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "twice.yaml"
    path.write_text("version: 0.5\nnodes:\n  a: {value: 1}\n  a: {value: 2}\n")
    with pytest.raises(GraphLoadError) as caught:
        load_graph(path)
    assert str(caught.value) == f"{path}:4:3: not valid YAML/JSON: duplicated mapping key 'a'"


@pytest.mark.parametrize("text, merged", [
    # a list of mappings: the first that has a key gives it (PyYAML 6 gave the last, for keys not one string object)
    ("a: &a {temperature: 1, model: x}\nb: &b {temperature: 2, top_p: 3}\nc:\n  <<: [*a, *b]\n",
     {"temperature": 1, "model": "x", "top_p": 3}),
    # the merged keys where the merge key stands, a key written after it changing one at its place (PyYAML 6 put
    # every merged key first)
    ("a: &a {p: 1, q: 2}\nc:\n  z: 0\n  <<: *a\n  p: 5\n", {"z": 0, "p": 5, "q": 2}),
    ("a: &a {p: 1}\nc: {p: 3, <<: *a}\n", {"p": 3}),  # a key written before it stays
])
def test_merge_keys_merge_as_graphais_yaml_reader_merges_them(text: str, merged: dict) -> None:
    for read in (parse_graph_text(text)[0]["c"], parse_graph_text("x: !!str x\n" + text)[0]["c"]):  # quick, full
        assert read == merged and list(read) == list(merged)


def test_a_yaml_merge_key_may_override_what_it_merges() -> None:
    data, _ = parse_graph_text("base: &b {x: 1}\nnodes:\n  a: {value: {<<: *b, x: 2}}\n")
    assert data["nodes"]["a"] == {"value": {"x": 2}}


# ----- positions of issues in large files -----


def _fan_out_without_sink(n: int) -> str:
    """`n` computed nodes that nobody reads: one 'nothing uses this node' warning each, one per line."""
    lines = ["version: 0.5", "nodes:", '  source: {"value": 0}']
    lines += [f'  f{i}: {{"agent": "copyAgent", "inputs": {{"v": ":source"}}}}' for i in range(1, n + 1)]
    return "\n".join(lines) + "\n"


@pytest.fixture
def compositions(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of every text composed for positions."""
    import yaml

    composed: list[int] = []
    compose = yaml.compose

    def counting(stream, Loader):  # noqa: N803 - yaml's own argument name
        composed.append(len(stream))
        return compose(stream, Loader=Loader)

    monkeypatch.setattr(yaml, "compose", counting)
    return composed


def test_thousands_of_issues_are_located_with_one_pass_over_the_text_at_most(tmp_path: Path, compositions) -> None:
    from graphrt.check.validate import collect_issues
    from graphrt.authoring.plugins import default_registry

    path = tmp_path / "wide.yaml"
    path.write_text(_fan_out_without_sink(3000))
    data, source = load_graph(path)

    issues = collect_issues(data, default_registry(), source)

    assert len(issues) == 3000
    assert [(issue.node_id, issue.location.line, issue.location.column) for issue in issues[:2]] == [("f1", 4, 3), ("f2", 5, 3)]
    assert all(issue.location.line == int(issue.node_id[1:]) + 3 for issue in issues)
    assert sum(compositions) <= len(path.read_text())  # each node's own line, not the file again and again


def test_a_valid_file_is_never_composed_for_positions(tmp_path: Path, compositions) -> None:
    path = tmp_path / "ok.yaml"
    path.write_text("version: 0.5\nnodes:\n  a: {value: 1}\n  b: {agent: copyAgent, inputs: {v: ':a'}, isResult: true}\n")

    assert graphrt.run(path) == {"b": {"v": 1}}
    assert compositions == []


def test_issues_of_nested_graphs_are_located_in_their_node_s_lines(compositions) -> None:
    from graphrt.check.validate import collect_issues
    from graphrt.authoring.plugins import default_registry

    text = ("version: 0.5\nnodes:\n  rows: {value: [1]}\n  unused: {agent: copyAgent, inputs: {v: ':rows'}}\n"
            "  map:\n    agent: mapAgent\n    inputs: {rows: ':rows'}\n    isResult: true\n    graph:\n      nodes:\n"
            "        inner: {agent: copyAgent, inputs: {v: ':rwo'}, isResult: true}\n")
    data, source = parse_graph_text(text, file="g.yaml")

    issues = collect_issues(data, default_registry(), source)

    assert sorted(str(issue.location) for issue in issues) == ["g.yaml:11:44", "g.yaml:4:3"]
    assert sum(compositions) <= len(text)


LARGE = "nodes:\n" + "".join(f"  n{i}: {{value: {i}}}\n" for i in range(LARGE_TEXT // 16))  # past LARGE_TEXT


def test_the_garbage_collector_is_on_again_after_a_large_parse_good_or_bad_and_stays_off_if_it_was() -> None:
    import gc

    assert len(LARGE) >= LARGE_TEXT
    parse_graph_text(LARGE)
    assert gc.isenabled()
    with pytest.raises(GraphLoadError):
        parse_graph_text(LARGE + "nodes: [")
    assert gc.isenabled()
    gc.disable()
    try:
        parse_graph_text(LARGE)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_only_a_large_graph_turns_the_process_s_garbage_collector_off(monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    switched: list[str] = []
    monkeypatch.setattr(gc, "disable", lambda: switched.append("off"))
    monkeypatch.setattr(gc, "enable", lambda: switched.append("on"))
    graphrt.Graph({"version": 0.5, "nodes": {"a": {"value": 1}, "b": {"agent": "copyAgent", "inputs": {"a": ":a"}}}})
    parse_graph_text("nodes:\n  a: {value: 1}\n")
    assert switched == []  # a small graph, as a server builds one for a run: every thread's collector left alone
    parse_graph_text(LARGE)
    assert switched == ["off", "on"]
