"""Error messages built from their fields: file, node, field, message (graphrt/base/errors.py)."""

from __future__ import annotations

import pytest

from graphrt.base.errors import (
    AgentError,
    GraphAbortedError,
    GraphError,
    GraphLoadError,
    GraphValidationError,
    Location,
    NodeTimeoutError,
    RegistrationError,
    ResolveError,
    ToolCallError,
    ValidationIssue,
)


def test_a_location_reads_file_line_column() -> None:
    assert str(Location("g.yaml", 3, 7)) == "g.yaml:3:7"


def test_a_location_without_a_file_reads_graph() -> None:
    assert str(Location(None, 3, 7)) == "<graph>:3:7"


def test_a_location_without_a_line_is_just_the_file() -> None:
    assert str(Location("g.yaml")) == "g.yaml"


def test_a_message_alone_is_the_message() -> None:
    assert str(GraphError("broke")) == "broke"


def test_a_message_names_location_node_and_field() -> None:
    error = GraphError("broke", node_id="n", field="inputs.x", location=Location("g.yaml", 3, 7))
    assert str(error) == "g.yaml:3:7: node 'n', field 'inputs.x': broke"


def test_a_location_without_file_or_line_is_left_out() -> None:
    assert str(GraphError("broke", node_id="n", location=Location())) == "node 'n': broke"


def test_a_nested_error_names_the_path_of_nodes() -> None:
    error = GraphError("broke", node_id="outer")
    error.nested = ("middle", "inner")
    assert str(error) == "node 'outer' > 'middle' > 'inner': broke"


def test_with_context_fills_only_what_is_missing() -> None:
    error = GraphError("broke", node_id="known")
    error.with_context(node_id="other", location=Location("g.yaml", 1, 1))
    assert (error.node_id, error.location) == ("known", Location("g.yaml", 1, 1))


def test_an_agent_error_names_its_agent_last() -> None:
    assert str(AgentError("broke", agent_id="copyAgent", node_id="n")) == "node 'n': broke (agent copyAgent)"


def test_a_validation_error_lists_every_issue() -> None:
    issues = [ValidationIssue("first", "a", "x", Location("g.yaml", 2, 3)), ValidationIssue("second", "b")]
    error = GraphValidationError(issues)
    assert str(error) == "g.yaml:2:3: node 'a', field 'x': first\n  ... and 1 more:\n  node 'b': second"
    assert (error.node_id, error.field, error.location, error.issues) == ("a", "x", Location("g.yaml", 2, 3), issues)


def test_a_validation_error_with_one_issue_is_one_line() -> None:
    assert str(GraphValidationError([ValidationIssue("only", None, "loop")])) == "field 'loop': only"


def test_a_validation_issue_defaults_to_an_error() -> None:
    assert ValidationIssue("x").severity == "error"


@pytest.mark.parametrize(
    "kind",
    [GraphLoadError, GraphValidationError, ResolveError, AgentError, NodeTimeoutError, GraphAbortedError, RegistrationError, ToolCallError],
)
def test_every_graphrt_error_is_a_graph_error(kind: type) -> None:
    assert issubclass(kind, GraphError)


def test_a_node_timeout_is_also_a_timeout_error() -> None:
    assert issubclass(NodeTimeoutError, TimeoutError)


# ----- GraphError.from_exception: the one way to wrap and locate -----

_GRAPH = "version: 0.5\nnodes:\n  a:\n    value: 1\n  b:\n    agent: copyAgent\n    inputs:\n      x: :a.nope\n"


def _source():
    from graphrt.graphdata.loader import parse_graph_text

    return parse_graph_text(_GRAPH, "g.yaml")[1]


def test_a_foreign_exception_becomes_the_kind_called_on_with_its_node_field_place_and_cause() -> None:
    cause = KeyError("nope")

    error = ResolveError.from_exception(cause, node_id="b", field="inputs", source=_source(),
                                        doing="cannot compute the inputs")

    assert type(error) is ResolveError and error.__cause__ is cause
    assert str(error) == "g.yaml:7:5: node 'b', field 'inputs': cannot compute the inputs: KeyError: 'nope'"


def test_a_graph_error_keeps_its_kind_message_and_what_it_knows() -> None:
    raised = AgentError("bad", agent_id="copyAgent", field="inputs.x")

    error = ResolveError.from_exception(raised, node_id="b", field="console", source=_source())

    assert error is raised and type(error) is AgentError
    assert (error.node_id, error.field, str(error.location)) == ("b", "inputs.x", "g.yaml:8:7")


def test_a_known_place_is_not_moved() -> None:
    raised = ResolveError("x", node_id="a", location=Location("other.yaml", 1, 1))

    error = GraphError.from_exception(raised, node_id="b", field="inputs", source=_source())

    assert (error.node_id, error.field, str(error.location)) == ("a", "inputs", "other.yaml:1:1")


def test_without_a_node_the_error_is_placed_at_the_graphs_field() -> None:
    error = ResolveError.from_exception(ValueError("no"), field="nodes", source=_source())

    assert str(error) == "g.yaml:2:1: field 'nodes': ValueError: no"


def test_without_a_source_the_error_is_not_placed() -> None:
    error = GraphError.from_exception(RuntimeError("down"), node_id="b")

    assert type(error) is GraphError and error.location is None and str(error) == "node 'b': RuntimeError: down"
