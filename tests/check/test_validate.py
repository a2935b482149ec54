"""Validation before a run: every problem found, each naming node, field and position (graphrt/check/)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import graphrt
from graphrt.base.errors import GraphValidationError, Location, ValidationIssue
from graphrt.check.validate import collect_issues

A = {"value": 1}


def copy(**inputs: Any) -> dict[str, Any]:
    return {"agent": "copyAgent", "inputs": inputs}


def invalid(graph: dict[str, Any] | str, **kwargs: Any) -> GraphValidationError:
    with pytest.raises(GraphValidationError) as caught:
        graphrt.Graph(graph, **kwargs)
    return caught.value


def messages(graph: dict[str, Any] | str) -> list[str]:
    return [str(issue) for issue in invalid(graph).issues]


def errors(graph: dict[str, Any], agents: Any) -> list[ValidationIssue]:
    """The errors among the issues; warnings (graphrt's own lint) are not GraphAI's rules."""
    return [issue for issue in collect_issues(graph, agents) if issue.severity == "error"]


# ----- one table: each invalid graph and the full text of its one issue -----

INVALID = [
    pytest.param(
        {"version": 0.5},
        "the graph has no 'nodes'",
        id="no-nodes",
    ),
    pytest.param(
        {"nodes": [A]},
        "field 'nodes': 'nodes' must be a mapping of node ids to nodes, got list",
        id="nodes-as-array",
    ),
    pytest.param(
        {"nodes": {}},
        "field 'nodes': 'nodes' is empty",
        id="nodes-empty",
    ),
    pytest.param(
        {"nodes": {"a": 3}},
        "node 'a': a node must be a mapping, got int",
        id="node-not-a-mapping",
    ),
    pytest.param(
        {"nodes": {"a": A}, "bogus": 1},
        "field 'bogus': unknown graph attribute 'bogus' "
        "(allowed: agentId, concurrency, loop, metadata, nodes, retry, verbose, version)",
        id="unknown-graph-attribute",
    ),
    pytest.param(
        {"nodes": {"a": {"value": 1, "inputs": {}}}},
        "node 'a', field 'inputs': static node does not allow 'inputs' (a computed node needs 'agent')",
        id="static-node-with-computed-attribute",
    ),
    pytest.param(
        {"nodes": {"a": {"value": 1, "colour": "red"}}},
        "node 'a', field 'colour': static node does not allow 'colour'",
        id="static-node-unknown-attribute",
    ),
    pytest.param(
        {"nodes": {"a": A, "b": {**copy(x=":a"), "colour": "red"}}},
        "node 'b', field 'colour': computed node does not allow 'colour'",
        id="computed-node-unknown-attribute",
    ),
    pytest.param(
        {"nodes": {"a": {"agent": "copyAgent", "value": 1}}},
        "node 'a', field 'value': a node cannot have both 'agent' and 'value'",
        id="agent-and-value",
    ),
    pytest.param(
        {"nodes": {"a": A, "b": {"agent": "copyAgent", "inputs": [":a"]}}},
        "node 'b', field 'inputs': 'inputs' must be a mapping of names to references; array inputs were removed in GraphAI 0.5",
        id="array-inputs",
    ),
    pytest.param(
        {"nodes": {"a": A, "b": {"agent": "copyAgent", "inputs": ":a"}}},
        "node 'b', field 'inputs': 'inputs' must be a mapping, got str",
        id="string-inputs",
    ),
    pytest.param(
        {"loop": 3, "nodes": {"a": A}},
        "field 'loop': 'loop' must be a mapping with 'count' or 'while', got int",
        id="loop-not-a-mapping",
    ),
    pytest.param(
        {"loop": {}, "nodes": {"a": A}},
        "field 'loop': 'loop' needs either 'count' or 'while'",
        id="loop-without-count-or-while",
    ),
    pytest.param(
        {"loop": {"count": 2, "while": ":a"}, "nodes": {"a": A}},
        "field 'loop': 'loop' cannot have both 'count' and 'while'",
        id="loop-with-count-and-while",
    ),
    pytest.param(
        {"loop": {"count": 1, "until": 2}, "nodes": {"a": A}},
        "field 'loop': unknown loop attribute 'until' (allowed: count, while)",
        id="loop-unknown-attribute",
    ),
    pytest.param(
        {"loop": {"while": 3}, "nodes": {"a": A}},
        "field 'loop': 'loop.while' must be a reference like ':node.prop' or a boolean, got 3",
        id="loop-while-not-a-reference",
    ),
    pytest.param(
        {"concurrency": 0, "nodes": {"a": A}},
        "field 'concurrency': 'concurrency' must be a positive integer or {global, labels}, got 0",
        id="concurrency-zero",
    ),
    pytest.param(
        {"concurrency": "8", "nodes": {"a": A}},
        "field 'concurrency': 'concurrency' must be a positive integer or {global, labels}, got '8'",
        id="concurrency-string",
    ),
    pytest.param(
        {"concurrency": {"labels": {"x": 1}}, "nodes": {"a": A}},
        "field 'concurrency': 'concurrency' as a mapping needs a 'global' limit",
        id="concurrency-without-global",
    ),
    pytest.param(
        {"concurrency": {"global": 0}, "nodes": {"a": A}},
        "field 'concurrency': 'concurrency.global' must be a positive integer, got 0",
        id="concurrency-global-zero",
    ),
    pytest.param(
        {"concurrency": {"global": 1, "foo": 1}, "nodes": {"a": A}},
        "field 'concurrency': unknown concurrency attribute 'foo' (allowed: global, labels)",
        id="concurrency-unknown-attribute",
    ),
    pytest.param(
        {"concurrency": {"global": 1, "labels": {"x": 0}}, "nodes": {"a": A}},
        "field 'concurrency': 'concurrency.labels.x' must be a positive integer, got 0",
        id="concurrency-label-zero",
    ),
    pytest.param(
        {"concurrency": {"global": 1, "labels": [1]}, "nodes": {"a": A}},
        "field 'concurrency': 'concurrency.labels' must be a mapping of label to limit, got list",
        id="concurrency-labels-list",
    ),
    pytest.param(  # GraphAI: "Concurrency.labels must be an object"; null would turn the label limits off
        {"concurrency": {"global": 5, "labels": None}, "nodes": {"a": A}},
        "field 'concurrency': 'concurrency.labels' must be a mapping of label to limit, got null",
        id="concurrency-labels-null",
    ),
    pytest.param(  # GraphAI: "Concurrency must be an integer"; an absent concurrency is the default
        {"concurrency": None, "nodes": {"a": A}},
        "field 'concurrency': 'concurrency' must be a positive integer or {global, labels}, got null",
        id="concurrency-null",
    ),
    pytest.param(
        {"retry": "x", "nodes": {"a": A}},
        "field 'retry': graph 'retry' must be a non-negative integer, got 'x'",
        id="graph-retry-not-a-count",
    ),
    pytest.param(
        {"nodes": {"question": A, "b": copy(text=":questoin")}},
        "node 'b', field 'inputs.text': unknown node 'questoin' (did you mean question?)",
        id="dangling-input-with-suggestion",
    ),
    pytest.param(
        {"nodes": {"a": A, "b": copy(x=":zz")}},
        "node 'b', field 'inputs.x': unknown node 'zz' (known: a, b)",
        id="dangling-input-lists-known-nodes",
    ),
    pytest.param(
        {"nodes": {"a": A, "b": copy(x="hi ${:zz.y}")}},
        "node 'b', field 'inputs.x': unknown node 'zz' (known: a, b)",
        id="dangling-template-placeholder",
    ),
    pytest.param(
        {"nodes": {"a": A, "b": copy(x=[{"y": ":zz"}])}},
        "node 'b', field 'inputs.x.0.y': unknown node 'zz' (known: a, b)",
        id="dangling-input-deep-in-a-structure",
    ),
    pytest.param(
        {"nodes": {"a": A, "b": {**copy(x=":a"), "if": ":zz"}}},
        "node 'b', field 'if': unknown node 'zz' (known: a, b)",
        id="dangling-if",
    ),
    pytest.param(
        {"nodes": {"a": A, "b": {**copy(x=":a"), "unless": ":zz.flag"}}},
        "node 'b', field 'unless': unknown node 'zz' (known: a, b)",
        id="dangling-unless",
    ),
    pytest.param(
        {"nodes": {"a": A, "b": {"agent": "nestedAgent", "inputs": {"x": ":a"}, "graph": ":zz"}}},
        "node 'b', field 'graph': unknown node 'zz' (known: a, b)",
        id="dangling-graph",
    ),
    pytest.param(
        {"nodes": {"a": A, "b": {"agent": ":zz", "inputs": {"x": ":a"}}}},
        "node 'b', field 'agent': unknown node 'zz' (known: a, b)",
        id="dangling-dynamic-agent",
    ),
    pytest.param(
        {"nodes": {"a": A, "b": {**copy(x=":a"), "passThrough": {"p": ":zz"}}}},
        "node 'b', field 'passThrough.p': unknown node 'zz' (known: a, b)",
        id="dangling-passThrough",
    ),
    pytest.param(
        {"nodes": {"a": {"value": 1, "update": ":zz"}}},
        "node 'a', field 'update': unknown node 'zz' (known: a)",
        id="dangling-update",
    ),
    pytest.param(
        {"loop": {"while": ":b"}, "nodes": {"a": A}},
        "field 'loop': 'loop.while' refers to unknown node 'b' (known: a)",
        id="dangling-loop-while",
    ),
    pytest.param(
        {"nodes": {"a": {"value": 1, "update": "a"}}},
        "node 'a', field 'update': 'update' must be a reference like ':node.prop', got 'a'",
        id="update-not-a-reference",
    ),
    pytest.param(
        {"nodes": {"a": A, "b": {**copy(x=":a"), "if": True}}},
        "node 'b', field 'if': 'if' must be a reference like ':node.prop', got True",
        id="if-not-a-reference",
    ),
    pytest.param(
        {"nodes": {"a": A, "b": {"agent": "nestedAgent", "inputs": {"x": ":a"}, "graph": 3}}},
        "node 'b', field 'graph': 'graph' must be a graph or a reference to one, got 3",
        id="graph-not-a-graph",
    ),
    pytest.param(
        {"nodes": {"a": A, "b": {"agent": 3, "inputs": {"x": ":a"}}}},
        "node 'b', field 'agent': 'agent' must be an agent name or a reference like ':node', got 3",
        id="agent-not-a-name",
    ),
    pytest.param(
        {"nodes": {"a": A, "b": {"agent": "copyAgnt", "inputs": {"x": ":a"}}}},
        "node 'b', field 'agent': unknown agent 'copyAgnt' (did you mean copyAgent, popAgent, echoAgent?)",
        id="unknown-agent-with-suggestion",
    ),
    pytest.param(
        {"nodes": {"a": A, "b": {"agent": "qqqqqq", "inputs": {"x": ":a"}}}},
        "node 'b', field 'agent': unknown agent 'qqqqqq'",
        id="unknown-agent-without-suggestion",
    ),
    pytest.param(
        {"nodes": {"a": A, "b": {**copy(x=":a"), "label": 3}}},
        "node 'b', field 'label': 'label' must be a string, got 3",
        id="label-not-a-string",
    ),
    pytest.param(
        {"nodes": {"a": A, "r": copy(x=":a"), "b": copy(x=":c"), "c": copy(x=":b")}},
        "node 'b': a cycle between computed nodes can never run: b -> c -> b (loops go through a static node's 'update')",
        id="cycle-names-its-nodes",
    ),
    pytest.param(
        {"nodes": {"a": A, "r": copy(x=":a"), "c": copy(x=":b"), "b": copy(x=":c")}},
        "node 'c': a cycle between computed nodes can never run: c -> b -> c (loops go through a static node's 'update')",
        id="cycle-starts-where-the-file-does",
    ),
    pytest.param(
        {"nodes": {"a": A, "r": copy(x=":a"), "b": copy(x=":b")}},
        "node 'b': a cycle between computed nodes can never run: b -> b (loops go through a static node's 'update')",
        id="node-waiting-for-itself",
    ),
]


@pytest.mark.parametrize("graph, expected", INVALID)
def test_an_invalid_graph_reports_one_issue_with_its_full_text(graph: dict[str, Any], expected: str) -> None:
    assert messages(graph) == [expected]


B = {**copy(x=":a"), "isResult": True}

# GraphAI runs these, reading each field as JavaScript does ("100" is 100, "yes" is true): warnings, not errors.
COERCED = [
    pytest.param({"loop": {"count": -1}, "nodes": {"a": A, "b": B}}, {"b": {"x": 1}},
                 "field 'loop': 'loop.count' should be a non-negative integer, got -1", id="loop-negative-count"),
    pytest.param({"loop": {"count": True}, "nodes": {"a": A, "b": B}}, {"b": {"x": 1}},
                 "field 'loop': 'loop.count' should be a non-negative integer, got True", id="loop-boolean-count"),
    pytest.param({"nodes": {"a": A, "b": {**B, "retry": -1}}}, {"b": {"x": 1}},
                 "node 'b', field 'retry': 'retry' should be a non-negative integer, got -1", id="retry-negative"),
    pytest.param({"nodes": {"a": A, "b": {**B, "timeout": "1s"}}}, {"b": {"x": 1}},
                 "node 'b', field 'timeout': 'timeout' should be a number of milliseconds, got '1s'", id="timeout-not-a-number"),
    pytest.param({"nodes": {"a": A, "b": {**B, "priority": "high"}}}, {"b": {"x": 1}},
                 "node 'b', field 'priority': 'priority' should be a number, got 'high'", id="priority-not-a-number"),
    pytest.param({"nodes": {"a": A, "b": {**B, "anyInput": "yes"}}}, {"b": {"x": 1}},
                 "node 'b', field 'anyInput': 'anyInput' should be true or false, got 'yes'", id="anyInput-not-a-boolean"),
    pytest.param({"nodes": {"a": A, "b": {**B, "params": [1]}}}, {"b": {"x": 1}},
                 "node 'b', field 'params': 'params' should be a mapping, got [1]", id="params-not-a-mapping"),
    pytest.param({"nodes": {"a": A, "b": {**B, "repeatUntil": ".x"}}}, {"b": {"x": 1}},
                 "node 'b', field 'repeatUntil': 'repeatUntil' should be a mapping like {exists: .path}, got '.x'",
                 id="repeatUntil-not-a-mapping"),
]


@pytest.mark.parametrize("graph, results, expected", COERCED)
def test_a_field_graphai_reads_loosely_is_a_warning_and_the_graph_runs(graph: dict[str, Any], results: dict[str, Any],
                                                                       expected: str) -> None:
    assert [str(issue) for issue in graphrt.Graph(graph).warnings if "should be" in issue.message] == [expected]
    assert graphrt.run(graph) == results


def test_a_graph_s_warnings_are_every_warning_validate_finds_with_graphai_s_rules_run_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from graphrt.check import validate
    from graphrt.engine import graph as graph_module

    nested = {"agent": "nestedAgent", "inputs": {"x": ":a"},
              "graph": {"nodes": {"n": {**copy(x=":x"), "retry": -1, "isResult": True}}}}
    data = {"loop": {"count": -1}, "nodes": {"a": A, "b": {**B, "timeout": "1s"}, "c": copy(x=":a.nothing"),
                                              "d": nested, "unused": {"value": 1}}}
    expected = [issue for issue in collect_issues(data, graphrt.default_registry()) if issue.severity != "error"]
    assert len(expected) >= 4  # GraphAI's rules' warnings, the nested graph's and lint's: each kind counts
    calls = []
    rules = validate.rule_issues
    monkeypatch.setattr(graph_module, "rule_issues", lambda *args: calls.append(args) or rules(*args), raising=False)
    monkeypatch.setattr(validate, "rule_issues", lambda *args: calls.append(args) or rules(*args))
    graph = graphrt.Graph(data)
    assert [str(issue) for issue in graph.warnings] == [str(issue) for issue in expected]
    assert len([args for args in calls if args[0] is graph.data]) == 1


def test_the_loop_counter_is_not_a_node_to_refer_to() -> None:
    graph = {"loop": {"count": 2}, "nodes": {"a": A, "b": {**copy(i=":__loopIndex"), "isResult": True}}}
    assert messages(graph) == ["node 'b', field 'inputs.i': unknown node '__loopIndex' (known: a, b)"]


def test_a_loop_while_that_is_no_reference_is_an_error_with_a_hint() -> None:
    graph = {"loop": {"while": "more"}, "nodes": {"more": {"value": False}, "b": copy(x=":more")}}
    assert messages(graph) == [
        "field 'loop': 'loop.while' must be a reference like ':node.prop' or a boolean, got 'more' (did you mean ':more'?)"
    ]


# ----- several problems at once -----


def test_every_problem_is_reported_at_once() -> None:
    graph = {
        "concurrency": 0,
        "nodes": {"a": {"value": 1, "timeout": 5}, "b": {"agent": "nope", "inputs": {"x": ":zz"}}},
    }
    assert messages(graph) == [
        "field 'concurrency': 'concurrency' must be a positive integer or {global, labels}, got 0",
        "node 'a', field 'timeout': static node does not allow 'timeout' (a computed node needs 'agent')",
        "node 'b', field 'agent': unknown agent 'nope'",
        "node 'b', field 'inputs.x': unknown node 'zz' (known: a, b)",
    ]


def test_the_error_message_shows_the_first_issue_and_lists_the_rest() -> None:
    error = invalid({"nodes": {"a": {"value": 1, "x": 1, "y": 2}}})
    assert str(error) == (
        "node 'a', field 'x': static node does not allow 'x'\n"
        "  ... and 1 more:\n"
        "  node 'a', field 'y': static node does not allow 'y'"
    )


def test_the_error_carries_the_first_issue_node_and_field() -> None:
    error = invalid({"nodes": {"a": A, "b": copy(x=":zz")}})
    assert (error.node_id, error.field, error.message) == ("b", "inputs.x", "unknown node 'zz' (known: a, b)")


def test_a_cycle_and_the_nodes_behind_it_are_reported_together() -> None:
    graph = {"nodes": {"a": A, "r": copy(x=":a"), "x": copy(p=":y", q=":a"), "y": copy(x=":x"), "z": copy(x=":y")}}
    assert messages(graph) == [
        "node 'x': a cycle between computed nodes can never run: x -> y -> x (loops go through a static node's 'update')",
        "node 'z': can never run: it waits for y, which never completes",
    ]


def test_nodes_that_all_wait_for_each_other_name_one_cycle_not_every_cycle() -> None:
    # 40 nodes that all wait for each other hold more cycles than could ever be listed.
    ids = [f"n{i}" for i in range(40)]
    nodes = {"a": A, "r": copy(x=":a"), **{i: copy(**{j: f":{j}" for j in ids if j != i}) for i in ids}}
    found = messages({"nodes": nodes})
    assert found[0] == (
        "node 'n0': a cycle between computed nodes can never run: n0 -> n1 -> n0 (loops go through a static node's 'update')"
    )
    assert len(found) == 39
    assert found[1].startswith("node 'n2': can never run: it waits for n0, n1, n10,")
    assert found[1].endswith(", in a cycle with 'n0'")


def test_separate_cycles_are_each_named_once() -> None:
    graph = {"nodes": {"a": A, "r": copy(x=":a"), "p": copy(x=":q"), "q": copy(x=":p", y=":c"),
                       "b": copy(x=":c"), "c": copy(x=":b")}}
    assert messages(graph) == [
        "node 'p': a cycle between computed nodes can never run: p -> q -> p (loops go through a static node's 'update')",
        "node 'b': a cycle between computed nodes can never run: b -> c -> b (loops go through a static node's 'update')",
    ]


def test_a_graph_where_no_node_can_start_still_names_its_cycle() -> None:
    graph = {"nodes": {"b": copy(x=":c"), "c": copy(x=":b")}}
    assert messages(graph) == [
        "no node can start: every computed node waits for another computed node",
        "node 'b': a cycle between computed nodes can never run: b -> c -> b (loops go through a static node's 'update')",
    ]


def test_a_graph_of_static_nodes_only_has_nothing_to_start() -> None:
    assert messages({"nodes": {"a": A, "b": {"value": 2}}}) == [
        "no node can start: the graph has no computed node (a node with 'agent')"
    ]


def test_reachability_is_checked_only_when_nothing_else_is_wrong() -> None:
    graph = {"nodes": {"a": A, "r": copy(x=":a"), "b": copy(x=":c"), "c": {**copy(x=":b"), "colour": 1}}}
    assert messages(graph) == ["node 'c', field 'colour': computed node does not allow 'colour'"]


# ----- positions in files -----

BROKEN_YAML = """\
version: 0.5
concurrency: 0
nodes:
  question:
    value: What is 2 + 2?
  answer:
    agent: copyAgent
    inputs:
      text: :questoin
    isResult: true
  extra:
    agent: copyAgnt
    inputs:
      text: :answer.text
    colour: red
"""


def test_issues_in_a_file_name_file_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text(BROKEN_YAML, encoding="utf-8")
    assert messages(str(path)) == [
        f"{path}:2:1: field 'concurrency': 'concurrency' must be a positive integer or {{global, labels}}, got 0",
        f"{path}:9:7: node 'answer', field 'inputs.text': unknown node 'questoin' (did you mean question?)",
        f"{path}:15:5: node 'extra', field 'colour': computed node does not allow 'colour'",
        f"{path}:12:5: node 'extra', field 'agent': unknown agent 'copyAgnt' (did you mean copyAgent, popAgent, echoAgent?)",
    ]


def test_the_error_from_a_file_starts_with_its_first_issue(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text(BROKEN_YAML, encoding="utf-8")
    error = invalid(path)
    assert str(error).splitlines()[0] == (
        f"{path}:2:1: field 'concurrency': 'concurrency' must be a positive integer or {{global, labels}}, got 0"
    )
    assert error.location == Location(str(path), 2, 1)


def test_an_issue_in_a_json_file_is_located_too(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{\n  "nodes": {\n    "a": {"value": 1},\n    "b": {"agent": "copyAgent", "inputs": {"x": ":zz"}}\n  }\n}\n')
    assert messages(str(path)) == [f"{path}:4:44: node 'b', field 'inputs.x': unknown node 'zz' (known: a, b)"]


def test_an_issue_in_yaml_text_is_located_in_graph() -> None:
    assert messages("nodes:\n  a:\n    value: 1\n    bad: 2\n") == [
        "<graph>:4:5: node 'a', field 'bad': static node does not allow 'bad'"
    ]


def test_collect_issues_returns_issues_with_their_locations(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("nodes:\n  a:\n    agent: copyAgent\n    value: 1\n", encoding="utf-8")
    error = invalid(str(path))
    assert error.issues == [
        ValidationIssue("a node cannot have both 'agent' and 'value'", "a", "value", Location(str(path), 4, 5))
    ]


# ----- validation comes first -----


def test_nothing_runs_when_the_graph_is_invalid() -> None:
    calls = []

    async def record(ctx: graphrt.AgentContext) -> int:
        calls.append(ctx.node_id)
        return 1

    graph = {"nodes": {"a": A, "first": {"agent": "recordAgent", "inputs": {"x": ":a"}}, "bad": copy(x=":zz")}}
    with pytest.raises(GraphValidationError):
        graphrt.run(graph, agents=[graphrt.AgentInfo(name="recordAgent", func=record)])
    assert calls == []


def test_validation_errors_are_graph_errors() -> None:
    assert issubclass(GraphValidationError, graphrt.GraphError)


# ----- valid graphs -----


@pytest.mark.parametrize(
    "graph",
    [
        pytest.param({"retry": 2, "nodes": {"a": A, "b": copy(x=":a")}}, id="graph-level-retry"),
        pytest.param({"loop": {"while": True}, "nodes": {"a": {"value": 1, "update": ":b"}, "b": copy(x=":a")}}, id="loop-while-true"),
        pytest.param({"loop": {"count": 0}, "nodes": {"a": A, "b": copy(x=":a")}}, id="loop-count-zero"),
        pytest.param({"nodes": {"a": A, "b": copy(i="@loop", t="${@loop}")}}, id="loop-counter-reference"),
        pytest.param({"nodes": {"a": A, "b": copy(x="zzz", y="${name}")}}, id="literal-text-is-no-reference"),
        pytest.param({"concurrency": {"global": 2, "labels": {"x": 1}}, "nodes": {"a": A, "b": copy(x=":a")}}, id="concurrency-labels"),
        pytest.param({"nodes": {"a": {"value": 1, "update": ":b"}, "b": copy(x=":a")}}, id="update-from-computed"),
        pytest.param({"nodes": {"s": {"value": "copyAgent"}, "b": {"agent": ":s", "inputs": {"x": ":s"}}}}, id="dynamic-agent"),
    ],
)
def test_a_valid_graph_has_no_errors(graph: dict[str, Any]) -> None:
    assert errors(graph, graphrt.default_registry()) == []


def test_collect_issues_accepts_a_plain_set_of_agent_names() -> None:
    graph = {"nodes": {"a": A, "b": {"agent": "copyAgnt", "inputs": {"x": ":a"}}}}
    assert [issue.message for issue in errors(graph, {"copyAgent"})] == ["unknown agent 'copyAgnt' (did you mean copyAgent?)"]


# ----- problems found when the run starts -----


@pytest.mark.parametrize(
    "graph, inject, expected",
    [
        pytest.param(
            {"nodes": {"a": {}, "b": copy(x=":a")}},
            None,
            "node 'a', field 'value': a static node needs a value: set 'value', inject one, or set 'update'",
            id="static-node-without-a-value",
        ),
        pytest.param(
            {"nodes": {"a": A, "b": copy(x=":a")}},
            {"b": 2},
            "node 'b': cannot inject a value: 'b' is a computed node",
            id="inject-into-a-computed-node",
        ),
        pytest.param(
            {"nodes": {"a": A, "b": copy(x=":a")}},
            {"zz": 2},
            "node 'zz': cannot inject a value: 'zz' is not a node of this graph (its static nodes: a)",
            id="inject-into-an-unknown-node",
        ),
    ],
)
def test_a_problem_with_what_the_run_is_given_is_reported_when_it_starts(
    graph: dict[str, Any], inject: dict[str, Any] | None, expected: str
) -> None:
    with pytest.raises(GraphValidationError) as caught:
        graphrt.run(graph, inject=inject)
    assert str(caught.value) == expected


def test_an_invalid_nested_graph_fails_its_node_naming_the_inner_node() -> None:
    graph = {
        "nodes": {
            "a": A,
            "n": {"agent": "nestedAgent", "inputs": {"x": ":a"}, "graph": {"nodes": {"c": copy(y=":nope")}}},
        }
    }
    with pytest.raises(graphrt.GraphError) as caught:
        graphrt.run(graph)
    assert str(caught.value) == "node 'n' > 'c', field 'inputs.y': unknown node 'nope' (known: c, x)"


def test_a_node_id_that_is_not_a_string_is_reported() -> None:
    assert messages({"nodes": {"a": A, True: copy(v=":a")}}) == ["node 'True': a node id must be a string, got bool True"]


def test_only_the_first_unknown_names_get_close_matches_so_many_dangling_references_stay_cheap() -> None:
    from graphrt.check.validate import MAX_SUGGESTED, collect_issues

    nodes = {"source": {"value": 1}}
    nodes.update({f"n{i}": {"agent": "copyAgent", "inputs": {"v": f":sourc{i}"}, "isResult": True} for i in range(30)})

    issues = collect_issues({"version": 0.5, "nodes": nodes}, ["copyAgent"])

    messages = [issue.message for issue in issues if issue.field == "inputs.v"]
    assert messages[:MAX_SUGGESTED] == [f"unknown node 'sourc{i}' (did you mean source?)" for i in range(MAX_SUGGESTED)]
    assert messages[MAX_SUGGESTED] == f"unknown node 'sourc{MAX_SUGGESTED}' (known: source, n0, n1, n2, n3, n4, n5, n6, n7, n8, ...)"
    assert len(messages) == 30


def test_nodes_of_one_shape_are_schema_checked_once_but_every_bad_value_is_still_found() -> None:
    """The GraphData schema runs once per node shape; a value it checks beyond its type is part of the shape."""
    def node(i: int, **extra: Any) -> dict[str, Any]:
        return {"agent": "copyAgent", "inputs": {"v": f":n{i - 1}"}, "params": {"namedKey": "v"}, **extra}

    nodes: dict[str, Any] = {"n0": {"value": 0}}
    nodes.update({f"n{i}": node(i, output={"x": ".v"}) for i in range(1, 200)})
    nodes["n50"] = node(50, output=3)
    nodes["n120"] = node(120, output={"x": ".v"}, console="loud")
    nodes["n121"] = node(121, output={"x": ".v"}, console={"before": True})
    nodes["n130"] = node(130, output={"x": ".v"}, repeatUntil={"exists": ".v"})
    nodes["n131"] = node(131, output={"x": ".v"}, repeatUntil={"exists": 3})  # the same type, a bad value inside
    nodes["n199"]["isResult"] = True

    issues = collect_issues({"version": 0.5, "nodes": nodes}, ["copyAgent"])

    assert [(issue.node_id, issue.field, issue.message) for issue in issues] == [
        ("n50", "output", "must be an object, got number 3"),
        ("n120", "console", "must be a boolean, got string 'loud'"),
        ("n131", "repeatUntil.exists", "must be a string, got number 3"),
    ]


def test_the_loop_counter_is_a_reserved_node_id() -> None:
    assert messages({"nodes": {"a": A, "__loopIndex": copy(x=":a")}}) == [
        "node '__loopIndex': '__loopIndex' is a reserved node id (the loop counter; read it with '@loop')"
    ]
