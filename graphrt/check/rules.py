"""GraphAI's own rules for GraphData, checked before anything runs (validate.py adds lint.py's).

The rules are GraphAI's (validator.ts and validators/): known attributes only,
no `agent` together with `value`, references to existing nodes only, a valid
`loop` and `concurrency`, and every computed node reachable from the static
ones. Each issue names the node and field, and the file position when the
graph came from a file.
"""

from __future__ import annotations

import itertools
from typing import Any, Callable, Container, Iterable, Iterator

from graphrt.base.errors import ValidationIssue
from graphrt.base.jsvalue import js_number
from graphrt.graphdata.loader import GraphSource
from graphrt.graphdata.refs import LOOP_COUNTER, node_references, parse_ref, ref_node_id

__all__ = ["GRAPH_KEYS", "COMPUTED_NODE_KEYS", "STATIC_NODE_KEYS", "MAX_SUGGESTED", "MAX_RETRY", "MAX_LOOP_COUNT",
           "rule_issues"]

GRAPH_KEYS = frozenset({"nodes", "concurrency", "agentId", "loop", "verbose", "version", "metadata", "retry"})
COMPUTED_NODE_KEYS = frozenset(
    {
        "inputs", "output", "anyInput", "params", "retry", "repeatUntil", "timeout", "agent", "graph",
        "graphLoader", "isResult", "priority", "label", "if", "unless", "defaultValue", "filterParams",
        "console", "passThrough",
    }
)  # fmt: skip
STATIC_NODE_KEYS = frozenset({"value", "update", "isResult", "console"})
MAX_SUGGESTED = 20
"""Unknown node names that get `did you mean` hints, at most (each costs a comparison with every node)."""
MAX_RETRY = 1_000
"""The most retries a node (or a graph) may ask for: past it, a failing agent would be called for hours."""
MAX_LOOP_COUNT = 1_000_000
"""The most iterations `loop.count` (or nestedAgent's `loopCount`) may ask for: more is a run that never ends."""


def _is_positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _over(value: Any, maximum: int) -> bool:
    """True if `value`, read as GraphAI reads a number field (`"1e9"` is 1e9), is more than `maximum`."""
    number = js_number(value) if not isinstance(value, (bool, list, dict)) and value is not None else 0
    return isinstance(number, (int, float)) and number > maximum  # NaN compares False; inf is over


_FIELD_CHECKS: tuple[tuple[str, Callable[[Any], bool], str], ...] = (
    ("retry", _is_count, "a non-negative integer"),
    ("timeout", lambda v: _is_number(v) and v >= 0, "a number of milliseconds"),
    ("priority", _is_number, "a number"),
    ("anyInput", lambda v: isinstance(v, bool), "true or false"),
    ("isResult", lambda v: isinstance(v, bool), "true or false"),
    ("params", lambda v: isinstance(v, dict), "a mapping"),
    ("filterParams", lambda v: isinstance(v, dict), "a mapping"),
    ("passThrough", lambda v: isinstance(v, dict), "a mapping"),
    ("repeatUntil", lambda v: isinstance(v, dict), "a mapping like {exists: .path}"),
)


class _Checker:
    """Collects the issues of one graph."""

    def __init__(self, data: dict[str, Any], agents: Container[str], source: GraphSource | None) -> None:
        self.data = data
        self.agents = agents
        self.source = source or GraphSource()
        self.issues: list[ValidationIssue] = []
        self.dependencies: dict[str, list[tuple[str, str]]] = {}
        self._suggestions: dict[str, str] = {}  # unknown node name -> its hint
        self._agent_hints: dict[str, str] = {}  # unknown agent name -> its hint

    def add(self, message: str, node_id: str | None = None, field: str | None = None, severity: str = "error") -> None:
        self.issues.append(ValidationIssue(message, node_id, field, self.source.locate_field(node_id, field), severity))

    def run(self) -> list[ValidationIssue]:
        nodes = self.data.get("nodes")
        if "nodes" not in self.data:
            self.add("the graph has no 'nodes'")
        elif not isinstance(nodes, dict):
            self.add(f"'nodes' must be a mapping of node ids to nodes, got {type(nodes).__name__}", field="nodes")
        elif not nodes:
            self.add("'nodes' is empty", field="nodes")
        for key in self.data:
            if key not in GRAPH_KEYS:
                self.add(f"unknown graph attribute '{key}' (allowed: {', '.join(sorted(GRAPH_KEYS))})", field=key)
        self.check_loop(self.data.get("loop"))
        if "concurrency" in self.data:  # present, even as null, it must be valid (as in GraphAI)
            self.check_concurrency(self.data["concurrency"])
        if "retry" in self.data and not _is_count(self.data["retry"]):
            self.add(f"graph 'retry' must be a non-negative integer, got {self.data['retry']!r}", field="retry")
        elif _over(self.data.get("retry"), MAX_RETRY):
            self.add(f"graph 'retry' must be at most {MAX_RETRY:,}", field="retry")
        if isinstance(nodes, dict) and nodes:
            for node_id, node in nodes.items():
                if not isinstance(node_id, str):  # a dict built in Python; the loader makes file keys strings
                    self.add(f"a node id must be a string, got {type(node_id).__name__} {node_id!r}", str(node_id))
                    continue
                self.check_node(node_id, node, nodes)
            if not any(issue.severity == "error" for issue in self.issues):
                self.check_reachability(nodes)
        return self.issues

    def check_loop(self, loop: Any) -> None:
        if loop is None:
            return
        if not isinstance(loop, dict):
            self.add(f"'loop' must be a mapping with 'count' or 'while', got {type(loop).__name__}", field="loop")
            return
        if "count" not in loop and "while" not in loop:
            self.add("'loop' needs either 'count' or 'while'", field="loop")
        if "count" in loop and "while" in loop:
            self.add("'loop' cannot have both 'count' and 'while'", field="loop")
        if "count" in loop and _over(loop["count"], MAX_LOOP_COUNT):
            self.add(f"'loop.count' must be at most {MAX_LOOP_COUNT:,} (a longer loop is 'while' with a --timeout)",
                     field="loop")
        elif "count" in loop and not _is_count(loop["count"]):
            # GraphAI runs one iteration for a count it cannot compare with; so does graphrt, with a warning.
            self.add(f"'loop.count' should be a non-negative integer, got {loop['count']!r}", field="loop", severity="warning")
        for key in loop:
            if key not in ("count", "while"):
                self.add(f"unknown loop attribute '{key}' (allowed: count, while)", field="loop")
        condition = loop.get("while")
        if "while" in loop and not isinstance(condition, bool) and parse_ref(condition) is None:
            # Any other value is always true or always false: GraphAI loops forever or runs once.
            hint = f" (did you mean ':{condition}'?)" if isinstance(condition, str) and condition else ""
            self.add(f"'loop.while' must be a reference like ':node.prop' or a boolean, got {condition!r}{hint}", field="loop")
        if condition is True:
            self.add("'loop.while' is always true: the run ends only when a node fails or asks a question, or when "
                     "it is aborted or times out (graphrt run --timeout)", field="loop", severity="warning")
        ref = parse_ref(condition)
        if ref is not None and isinstance(self.data.get("nodes"), dict) and not self.known(ref.node_id):
            self.add(f"'loop.while' refers to unknown node '{ref.node_id}'{self.suggest(ref.node_id)}", field="loop")

    def check_concurrency(self, concurrency: Any) -> None:
        if isinstance(concurrency, dict):
            for key in concurrency:
                if key not in ("global", "labels"):
                    self.add(f"unknown concurrency attribute '{key}' (allowed: global, labels)", field="concurrency")
            if "global" not in concurrency:
                self.add("'concurrency' as a mapping needs a 'global' limit", field="concurrency")
            elif not _is_positive_int(concurrency["global"]):
                self.add(f"'concurrency.global' must be a positive integer, got {concurrency['global']!r}", field="concurrency")
            labels = concurrency.get("labels", {})
            if not isinstance(labels, dict):  # null too: it would turn the label limits off
                labels_type = "null" if labels is None else type(labels).__name__
                self.add(f"'concurrency.labels' must be a mapping of label to limit, got {labels_type}", field="concurrency")
            elif labels:
                for label, limit in labels.items():
                    if not _is_positive_int(limit):
                        self.add(f"'concurrency.labels.{label}' must be a positive integer, got {limit!r}", field="concurrency")
        elif not _is_positive_int(concurrency):
            shown = "null" if concurrency is None else repr(concurrency)
            self.add(f"'concurrency' must be a positive integer or {{global, labels}}, got {shown}", field="concurrency")

    def known(self, node_id: str) -> bool:
        """A node of the file; the loop counter is internal (read it with `@loop`), as in GraphAI."""
        return node_id in self.data["nodes"]

    def suggest(self, node_id: str) -> str:
        """` (did you mean a, b?)` or ` (known: ...)`; worked out once per unknown name.

        Close matches cost a comparison with every node, so only the first
        MAX_SUGGESTED unknown names get them: a graph with thousands of dangling
        references stays linear, and its first errors still get their hints.
        """
        hint = self._suggestions.get(node_id)
        if hint is None:
            import difflib  # only a graph with a dangling reference needs it

            names = self.data["nodes"]
            close = difflib.get_close_matches(node_id, map(str, names), n=3) if len(self._suggestions) < MAX_SUGGESTED else []
            if close:
                hint = f" (did you mean {', '.join(close)}?)"
            else:
                shown = ", ".join(str(name) for name in itertools.islice(names, 10))
                hint = f" (known: {shown}{', ...' if len(names) > 10 else ''})"
            self._suggestions[node_id] = hint
        return hint

    @staticmethod
    def references(node: dict[str, Any]) -> Iterator[tuple[str, str]]:
        """Every `(field, node id)` a node reads (a computed node waits for them before it runs)."""
        for field, text in node_references(node):
            yield field, ref_node_id(text)

    def check_refs(self, node_id: str, refs: Iterator[tuple[str, str]]) -> None:
        for field, ref_id in refs:
            if not self.known(ref_id):
                self.add(f"unknown node '{ref_id}'{self.suggest(ref_id)}", node_id, field)

    def check_node(self, node_id: str, node: Any, nodes: dict) -> None:
        if node_id == LOOP_COUNTER:
            self.add(f"'{LOOP_COUNTER}' is a reserved node id (the loop counter; read it with '@loop')", node_id)
            return
        if not isinstance(node, dict):
            self.add(f"a node must be a mapping, got {type(node).__name__}", node_id)
            return
        if "agent" in node:
            self.check_computed(node_id, node)
        else:
            self.check_static(node_id, node)

    def check_static(self, node_id: str, node: dict) -> None:
        for key in node:
            if key not in STATIC_NODE_KEYS:
                hint = " (a computed node needs 'agent')" if key in COMPUTED_NODE_KEYS else ""
                self.add(f"static node does not allow '{key}'{hint}", node_id, key)
        if "update" in node:
            if parse_ref(node["update"]) is None:
                self.add(f"'update' must be a reference like ':node.prop', got {node['update']!r}", node_id, "update")
            else:
                self.check_refs(node_id, self.references(node))

    def check_computed(self, node_id: str, node: dict) -> None:
        for key in node:
            if key == "value":
                self.add("a node cannot have both 'agent' and 'value'", node_id, "value")
            elif key not in COMPUTED_NODE_KEYS:
                self.add(f"computed node does not allow '{key}'", node_id, key)
        self.check_agent(node_id, node["agent"])
        inputs = node.get("inputs")
        if isinstance(inputs, list):
            self.add("'inputs' must be a mapping of names to references; array inputs were removed in GraphAI 0.5", node_id, "inputs")
        elif inputs is not None and not isinstance(inputs, dict):
            self.add(f"'inputs' must be a mapping, got {type(inputs).__name__}", node_id, "inputs")
        for field in ("if", "unless"):
            if field in node and parse_ref(node[field]) is None:
                self.add(f"'{field}' must be a reference like ':node.prop', got {node[field]!r}", node_id, field)
        graph = node.get("graph")
        if graph is not None and not isinstance(graph, dict) and parse_ref(graph) is None:
            self.add(f"'graph' must be a graph or a reference to one, got {graph!r}", node_id, "graph")
        if "graphLoader" in node:
            self.check_graph_loader(node_id, node["graphLoader"])
        if "label" in node and not isinstance(node["label"], str):
            self.add(f"'label' must be a string, got {node['label']!r}", node_id, "label")
        if _over(node.get("retry"), MAX_RETRY):
            self.add(f"'retry' must be at most {MAX_RETRY:,}", node_id, "retry")
        for field, check, expected in _FIELD_CHECKS:
            # GraphAI runs these anyway (reading "100" as 100, "yes" as true): a warning, not an error.
            if field in node and node[field] is not None and not check(node[field]):
                self.add(f"'{field}' should be {expected}, got {node[field]!r}", node_id, field, severity="warning")
        self.dependencies[node_id] = list(self.references(node))
        self.check_refs(node_id, iter(self.dependencies[node_id]))

    def check_graph_loader(self, node_id: str, loader: Any) -> None:
        """`graphLoader: {fileName: FILE}`: a file name the run can open, known before the run."""
        file_name = loader.get("fileName") if isinstance(loader, dict) else None
        if not isinstance(file_name, str) or not file_name.strip():
            got = f"{type(loader).__name__} {loader!r}" if not isinstance(loader, dict) else f"fileName {file_name!r}"
            self.add(f"'graphLoader' must be a mapping with a 'fileName', got {got}"[:300], node_id, "graphLoader")
        elif "\0" in file_name:
            self.add("'graphLoader.fileName' cannot hold a NUL character", node_id, "graphLoader.fileName")

    def check_agent(self, node_id: str, agent: Any) -> None:
        if callable(agent):
            return
        if not isinstance(agent, str) or not agent:
            self.add(f"'agent' must be an agent name or a reference like ':node', got {agent!r}", node_id, "agent")
            return
        if agent.startswith(":"):
            return
        unavailable = _why_unavailable(self.agents, agent)
        if unavailable:
            self.add(unavailable, node_id, "agent")
            return
        if agent in self.agents:
            return
        hint = self._agent_hints.get(agent)
        if hint is None:
            import difflib

            names = _agent_names(self.agents)
            close = difflib.get_close_matches(agent, names, n=3)
            hint = self._agent_hints[agent] = f" (did you mean {', '.join(close)}?)" if close else ""
        self.add(f"unknown agent '{agent}'{hint}", node_id, "agent")

    def check_reachability(self, nodes: dict[str, Any]) -> None:
        """GraphAI's rule: starting from static nodes, every computed node must become runnable."""
        static = {node_id for node_id, node in nodes.items() if "agent" not in node} | {LOOP_COUNTER}
        missing: dict[str, set[str]] = {}
        dependents: dict[str, list[str]] = {}
        for node_id, node in nodes.items():
            if "agent" in node:
                missing[node_id] = {ref for _, ref in self.dependencies[node_id]} - static
                for ref in missing[node_id]:
                    dependents.setdefault(ref, []).append(node_id)
        runnable = [node_id for node_id, refs in missing.items() if not refs]
        if not missing:
            self.add("no node can start: the graph has no computed node (a node with 'agent')")
            return
        if not runnable:
            self.add("no node can start: every computed node waits for another computed node")
            self.report_stuck(nodes, missing)
            return
        while runnable:  # Kahn's algorithm: linear in nodes and references
            node_id = runnable.pop()
            del missing[node_id]
            for dependent in dependents.get(node_id, ()):
                refs = missing[dependent]
                refs.discard(node_id)
                if not refs:
                    runnable.append(dependent)
        if missing:
            self.report_stuck(nodes, missing)

    def report_stuck(self, nodes: dict[str, Any], waiting: dict[str, set[str]]) -> None:
        """Names one cycle per knot of nodes that wait for each other, and every other node left waiting.

        Linear in nodes and references: a graph of 11 nodes that all wait for each other has
        millions of cycles, so they are never enumerated.
        """
        import networkx as nx  # only needed to name a cycle; importing it costs ~0.15 s

        order = {node_id: index for index, node_id in enumerate(nodes)}
        dependencies = nx.DiGraph()
        dependencies.add_nodes_from(sorted(waiting, key=order.__getitem__))
        for node_id in list(dependencies):
            refs = sorted((ref for ref in waiting[node_id] if ref in waiting), key=order.__getitem__)
            dependencies.add_edges_from((ref, node_id) for ref in refs)
        cycles = []
        knot_of: dict[str, str] = {}  # node id -> the first node of its cycle, for nodes not on the cycle named
        for knot in nx.strongly_connected_components(dependencies):
            first = min(knot, key=order.__getitem__)
            if len(knot) > 1 or dependencies.has_edge(first, first):
                cycle = _shortest_cycle(dependencies, first, knot)
                cycles.append(cycle)
                knot_of.update((node_id, first) for node_id in knot.difference(cycle))
        cycles.sort(key=lambda cycle: order[cycle[0]])
        named = {node_id for cycle in cycles for node_id in cycle}
        for cycle in cycles:
            path = " -> ".join([*cycle, cycle[0]])
            self.add(f"a cycle between computed nodes can never run: {path} (loops go through a static node's 'update')", cycle[0])
        for node_id in waiting:
            if node_id in named:
                continue
            refs = ", ".join(sorted(waiting[node_id]))
            if node_id in knot_of:
                self.add(f"can never run: it waits for {refs}, in a cycle with '{knot_of[node_id]}'", node_id)
            else:
                verb = "never completes" if len(waiting[node_id]) == 1 else "never complete"
                self.add(f"can never run: it waits for {refs}, which {verb}", node_id)


def _shortest_cycle(dependencies: Any, first: str, knot: set[str]) -> list[str]:
    """The shortest cycle from `first` back to itself within its strongly connected `knot` (breadth first)."""
    came_from: dict[str, str] = {}
    frontier = [first]
    while frontier:
        following = []
        for node_id in frontier:
            for successor in dependencies.successors(node_id):
                if successor == first:
                    path = [node_id]
                    while path[-1] != first:
                        path.append(came_from[path[-1]])
                    return path[::-1]
                if successor in knot and successor not in came_from:
                    came_from[successor] = node_id
                    following.append(successor)
        frontier = following
    raise AssertionError("a strongly connected component always has a cycle")


def _why_unavailable(agents: Container[str], agent: str) -> str | None:
    """A Registry's word on a name it knows of that cannot run (its pack's extra missing, or not provided)."""
    why = getattr(agents, "why_unavailable", None)
    return why(agent) if callable(why) else None


def _agent_names(agents: Container[str]) -> list[str]:
    """The names a container of agents holds: a Registry's `names()` (which imports no agent), or its items."""
    names = getattr(agents, "names", None)
    if callable(names):
        return list(names())
    return sorted(getattr(item, "name", item) for item in agents) if isinstance(agents, Iterable) else []


def rule_issues(data: dict[str, Any], agents: Container[str], source: GraphSource | None = None) -> list[ValidationIssue]:
    """Every issue GraphAI's rules find in a graph (not in its nested graphs: lint.py checks those)."""
    return _Checker(data, agents, source).run()
