"""graphrt's own checks, made before every run and by `graphrt validate`, after GraphAI's rules (rules.py).

What graphrt can tell from the file and the agents' function info, each check in
the module of its job: the GraphData JSON Schema that ships as graphdata.schema.json
(graphdata_schema.py), a node against its agent's schemas (agent_schemas.py), and,
here, nested graphs (a node's `graph:`, checked as its agent's function info says
the agent runs it: `nested_graph`) and nodes whose results nobody uses. GraphAI
checks none of these, so they are warnings. The only errors are those of a nested
graph that is sure to run (GraphAI fails on them too, only later, when the node
runs) and a literal that an agent checking its own inputs refuses.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import Any, Callable, Container

from graphrt.authoring.agent_info import AgentInfo, NestedGraph
from graphrt.base.errors import Location, ValidationIssue, describe_issue
from graphrt.check.agent_schemas import AgentSchemas, agent_info
from graphrt.check.rules import rule_issues
from graphrt.graphdata.loader import GraphSource
from graphrt.graphdata.refs import NodeRef, graph_references

__all__ = ["NestedIssue", "lint_issues", "nested_graph"]


@dataclass(slots=True, init=False, repr=False, eq=False)
class NestedIssue(ValidationIssue):
    """An issue inside a node's nested graph: `node_id` is the outer node, `nested` the inner ones."""

    nested: tuple[str, ...] = ()

    # A dataclass (fields, replace) whose methods are Frozen's and written here, not generated (base/frozen.py).
    def __init__(self, message: str, node_id: str | None = None, field: str | None = None,
                 location: Location | None = None, severity: str = "error", nested: tuple[str, ...] = ()) -> None:
        self._set(message=message, node_id=node_id, field=field, location=location, severity=severity, nested=nested)

    def __str__(self) -> str:
        return describe_issue(self.message, self.node_id, self.field, self.location, self.nested)


def lint_issues(
    data: dict[str, Any],
    agents: Container[str],
    source: GraphSource | None,
    found: list[ValidationIssue],
    *,
    warnings: bool = True,
) -> list[ValidationIssue]:
    """The issues of `data` that validate.py's checks (`found`) do not cover.

    With `warnings=False` only the checks that can find errors run (nested
    graphs, literals an agent refuses): the others cost milliseconds, more than a small run.
    """
    return _Linter(data, agents, source or GraphSource(), found, full=warnings).run()


def _add_issue(issues: list[ValidationIssue], source: GraphSource, message: str, node_id: str | None,
               field: str | None, severity: str = "warning") -> None:
    """Adds an issue of a linter's graph to `issues`, located in its `source`."""
    issues.append(ValidationIssue(message, node_id, field, source.locate_field(node_id, field), severity))


def nested_graph(node: dict[str, Any], info: AgentInfo | None) -> NestedGraph:
    """What the node's agent does with its `graph:`, as its function info says (`nested_graph`).

    An agent that says nothing gives the graph the node's inputs, and a problem in it is only a warning.
    """
    inputs = frozenset(node["inputs"]) if isinstance(node.get("inputs"), dict) else frozenset()
    if info is None or info.nested_graph is None:
        return NestedGraph(inputs)
    params = node.get("params") if isinstance(node.get("params"), dict) else {}
    return info.nested_graph(inputs, params)


class _Linter:
    """Collects the issues of one graph (and, through nested linters, of the graphs inside it)."""

    def __init__(
        self,
        data: dict[str, Any],
        agents: Container[str],
        source: GraphSource,
        found: list[ValidationIssue],
        injected: frozenset[str] = frozenset(),
        results_all: bool = False,
        full: bool = True,
    ) -> None:
        self.data = data
        self.agents = agents
        self.source = source
        self.found = found
        self.injected = injected
        self.results_all = results_all
        self.full = full
        self.issues: list[ValidationIssue] = []
        # What adds an issue, given to the schema checks: a function of the issues and the source, not a bound
        # method, whose linter <-> schemas cycle kept each Graph's data alive until a garbage collection (issue 44).
        self.add: Callable[..., None] = functools.partial(_add_issue, self.issues, source)
        self.schemas = AgentSchemas(agents, self.add)

    def run(self) -> list[ValidationIssue]:
        nodes = self.data.get("nodes")
        nodes = nodes if isinstance(nodes, dict) else {}
        nested = set()
        for node_id, node in nodes.items():
            if isinstance(node, dict) and "agent" in node and isinstance(node.get("graph"), dict):
                self.check_nested(str(node_id), node)
                nested.add(node_id)
        if not self.full:
            for node_id, node in nodes.items():
                if isinstance(node, dict) and "agent" in node:
                    self.schemas.check_agent_schemas(str(node_id), node, errors_only=True)
            return self.issues
        from graphrt.check.graphdata_schema import schema_issues  # a run checks errors only: it needs no jsonschema

        self.issues += schema_issues(self.data, self.source, itertools.chain(self.found, self.issues), nested)
        if nodes:
            refs = list(graph_references(self.data))
            self.schemas.check_output_properties(refs, nodes)
            for node_id, node in nodes.items():
                if isinstance(node, dict) and "agent" in node:
                    self.schemas.check_agent_schemas(str(node_id), node)
            self.check_unused(refs, nodes)
        return self.issues

    # ----- nested graphs -----

    def check_nested(self, node_id: str, node: dict[str, Any]) -> None:
        """Checks a node's `graph:` as the nested run will see it, with the node's inputs injected."""
        graph = node["graph"]
        run = nested_graph(node, agent_info(self.agents, node.get("agent")))
        names = run.inputs
        nested_nodes = graph.get("nodes")
        data = graph
        injected = frozenset()
        if isinstance(nested_nodes, dict) and nested_nodes:
            injected = frozenset(name for name in names if name not in nested_nodes)
            data = {**graph, "nodes": {**nested_nodes, **{name: {"value": None} for name in injected}}}
        source = self.source.nested("nodes", node_id, "graph")
        found = rule_issues(data, self.agents, source)
        inner = found + _Linter(data, self.agents, source, found, injected | names, run.all_results, self.full).run()
        # GraphAI fails on an invalid nested graph only when it runs it and does not suppress the error.
        sure_to_fail = run.fails_node and "if" not in node and "unless" not in node
        for issue in inner:
            severity = issue.severity if sure_to_fail else "warning"
            if issue.node_id is None:  # about the nested graph itself, e.g. its 'loop'
                field = "graph" + (f".{issue.field}" if issue.field else "")
                self.issues.append(NestedIssue(issue.message, node_id, field, issue.location, severity))
            else:
                nested = (issue.node_id, *getattr(issue, "nested", ()))
                self.issues.append(NestedIssue(issue.message, node_id, issue.field, issue.location, severity, nested))

    # ----- unused results -----

    def check_unused(self, refs: list[tuple[str | None, str, NodeRef]], nodes: dict[str, Any]) -> None:
        if self.results_all:
            return  # the agent returns every node's result (mapAgent's resultAll)
        used = {ref.node_id for owner, _, ref in refs if owner != ref.node_id}
        for node_id, node in nodes.items():
            node_id = str(node_id)
            if (
                not isinstance(node, dict)
                or node_id in used
                or node_id in self.injected
                or node_id.startswith("__")
                or node.get("isResult")
                or node.get("console")
            ):
                continue
            what = "result" if "agent" in node else "value"
            self.add(f"nothing uses this node's {what}: no node refers to it and it is not isResult", node_id, None)
