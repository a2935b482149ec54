"""Pictures of graphs: GraphData as a networkx graph, drawn as Mermaid or Graphviz DOT text.

`graph_model` reads the file's structure, without running anything: a node per
graph node (keyed by its path, e.g. `("sentences", "sentence")` inside a
nested graph) and an edge per reference, labelled with the property it reads.
`to_mermaid` and `to_dot` draw that model: agents on computed nodes, static
nodes and the inputs a nested graph receives in their own shapes, `update`
edges dotted, nested graphs (nestedAgent/mapAgent `graph:`) as subgraphs, loops
as a hexagon saying how the graph loops, results in bold.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Container, Hashable

if TYPE_CHECKING:
    import networkx as nx

from graphrt.base.collector import collector_paused, is_large
from graphrt.check.agent_schemas import agent_info
from graphrt.check.lint import nested_graph
from graphrt.graphdata.refs import graph_references

__all__ = ["LOOP", "graph_model", "to_mermaid", "to_dot"]

LOOP = "@loop"  # the last part of a loop marker's key; `@` cannot start a node reference

_MERMAID_WORDS = {"end", "graph", "subgraph", "flowchart", "style", "class", "classdef", "click", "linkstyle", "direction", "default"}


def _edge_kind(field: str) -> str:
    head = field.split(".", 1)[0]
    return {"inputs": "input", "loop": "while"}.get(head, head)


def graph_model(data: dict[str, Any], agents: Container[str] | None = None) -> nx.MultiDiGraph:
    """GraphData (already validated) as a MultiDiGraph; see the module docstring.

    `agents` (default: the installed ones) say what a nested graph receives (their info's `nested_graph`).
    """
    import networkx as nx  # on first use: importing it costs ~0.2 s at start

    if agents is None:
        from graphrt.authoring.plugins import default_registry

        agents = default_registry()
    model = nx.MultiDiGraph()
    with collector_paused(is_large(data)):
        _add_graph(model, data, agents, (), None, frozenset())
    return model


def _add_graph(model: nx.MultiDiGraph, data: dict[str, Any], agents: Container[str], prefix: tuple[str, ...],
               parent: Hashable | None, injected: frozenset[str]) -> None:
    nodes = data.get("nodes") or {}
    for node_id, node in nodes.items():
        key = (*prefix, str(node_id))
        is_result = bool(node.get("isResult"))
        if "agent" in node:
            agent = node["agent"] if isinstance(node["agent"], str) else getattr(node["agent"], "__name__", "function")
            nested = isinstance(node.get("graph"), dict)
            model.add_node(key, kind="computed", name=str(node_id), agent=agent, result=is_result, parent=parent, nested=nested)
        else:
            model.add_node(key, kind="static", name=str(node_id), result=is_result, parent=parent)
    loop = data.get("loop")
    if isinstance(loop, dict):
        text = f"loop while {loop['while']}" if "while" in loop else f"loop {loop.get('count')} times"
        model.add_node((*prefix, LOOP), kind="loop", name=text, parent=parent)
    for owner, field, ref in graph_references(data):
        source = (*prefix, ref.node_id)
        if source not in model:
            if ref.node_id not in injected:
                continue  # the loop counter, or a reference validation reports
            model.add_node(source, kind="injected", name=ref.node_id, parent=parent)
        target = (*prefix, LOOP) if owner is None else (*prefix, owner)
        attributes = {"label": ".".join(ref.props), "kind": _edge_kind(field)}
        if not any(existing == attributes for existing in model.get_edge_data(source, target, default={}).values()):
            model.add_edge(source, target, **attributes)
    for node_id, node in nodes.items():
        if "agent" in node and isinstance(node.get("graph"), dict):
            key = (*prefix, str(node_id))
            inputs = nested_graph(node, agent_info(agents, node["agent"])).inputs
            _add_graph(model, node["graph"], agents, key, key, inputs)


def _children(model: nx.MultiDiGraph) -> dict[Hashable | None, list[Hashable]]:
    children: dict[Hashable | None, list[Hashable]] = {}
    for key, attributes in model.nodes(data=True):
        children.setdefault(attributes["parent"], []).append(key)
    return children


# ----- Mermaid -----


class _MermaidIds:
    """Readable, unique Mermaid ids for node keys."""

    def __init__(self) -> None:
        self._ids: dict[Hashable, str] = {}
        self._taken: set[str] = set()

    def __getitem__(self, key: tuple[str, ...]) -> str:
        if key not in self._ids:
            base = "__".join(re.sub(r"\W", "_", part) for part in key) or "node"
            if base.lower() in _MERMAID_WORDS or base[0].isdigit():
                base = f"n_{base}"
            candidate, counter = base, 1
            while candidate in self._taken:
                counter += 1
                candidate = f"{base}_{counter}"
            self._ids[key] = candidate
            self._taken.add(candidate)
        return self._ids[key]


def _mermaid_escape(text: str) -> str:
    return text.replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;")


def _mermaid_text(text: str) -> str:
    return f'"{_mermaid_escape(text)}"'


def _mermaid_label(attributes: dict[str, Any]) -> str:
    if attributes["kind"] == "computed":
        return f'"{_mermaid_escape(attributes["name"])}<br/>{_mermaid_escape(attributes["agent"])}"'
    return _mermaid_text(attributes["name"])


_MERMAID_SHAPES = {"computed": "[{}]", "static": "[({})]", "injected": ">{}]", "loop": "{{{{{}}}}}"}


def to_mermaid(model: nx.MultiDiGraph, direction: str = "TD") -> str:
    """A Mermaid flowchart of the model, as Markdown renderers (GitHub, GitLab) draw it."""
    ids = _MermaidIds()
    children = _children(model)
    lines = [f"flowchart {direction}"]
    classes: dict[str, list[str]] = {}
    results: list[str] = []

    def declare(parent: Hashable | None, indent: str) -> None:
        for key in children.get(parent, []):
            attributes = model.nodes[key]
            node_id = ids[key]
            if attributes.get("nested"):
                lines.append(f"{indent}subgraph {node_id}[{_mermaid_label(attributes)}]")
                declare(key, indent + "  ")
                lines.append(f"{indent}end")
            else:
                lines.append(indent + node_id + _MERMAID_SHAPES[attributes["kind"]].format(_mermaid_label(attributes)))
                if attributes["kind"] != "computed":
                    classes.setdefault(attributes["kind"], []).append(node_id)
            if attributes.get("result"):
                results.append(node_id)

    declare(None, "  ")
    for source, target, attributes in model.edges(data=True):
        label = attributes["label"] if attributes["kind"] in ("input", "update") else " ".join(
            part for part in (attributes["kind"], attributes["label"]) if part)
        arrow = "-.->" if attributes["kind"] == "update" else "-->"
        lines.append(f"  {ids[source]} {arrow}{'|' + _mermaid_text(label) + '|' if label else ''} {ids[target]}")
    lines += [
        "  classDef static fill:#eef3ff,stroke:#5b6fb3",
        "  classDef injected fill:#f3f3f3,stroke:#888,stroke-dasharray:3 3",
        "  classDef loop fill:#fff6d5,stroke:#b39200",
    ]
    lines += [f"  class {','.join(members)} {kind}" for kind, members in classes.items()]
    lines += [f"  style {node_id} stroke-width:3px" for node_id in results]
    return "\n".join(lines) + "\n"


# ----- Graphviz DOT -----


def _dot_text(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _dot_id(key: tuple[str, ...]) -> str:
    return _dot_text("/".join(key))


_DOT_SHAPES = {"computed": "box", "static": "cylinder", "injected": "cds", "loop": "hexagon"}


def to_dot(model: nx.MultiDiGraph, name: str = "graph", direction: str = "TD") -> str:
    """A Graphviz DOT digraph of the model; `dot -Tsvg` draws it. `direction` is "TD" or "LR"."""
    children = _children(model)
    lines = [
        f"digraph {_dot_text(name)} {{",
        f"  rankdir={'LR' if direction == 'LR' else 'TB'}; compound=true;",
        "  graph [fontname=Helvetica, fontsize=10];",
        "  node [fontname=Helvetica, fontsize=11, shape=box, style=rounded];",
        "  edge [fontname=Helvetica, fontsize=9];",
    ]

    def declare(parent: Hashable | None, indent: str) -> None:
        for key in children.get(parent, []):
            attributes = model.nodes[key]
            label = attributes["name"] + (f"\n{attributes['agent']}" if attributes["kind"] == "computed" else "")
            options = [f"label={_dot_text(label)}", f"shape={_DOT_SHAPES[attributes['kind']]}"]
            if attributes["kind"] == "static":
                options.append('style=filled, fillcolor="#eef3ff"')
            elif attributes["kind"] == "injected":
                options.append("style=dashed")
            elif attributes["kind"] == "loop":
                options.append('style=filled, fillcolor="#fff6d5"')
            if attributes.get("result"):
                options.append("penwidth=2.5")
            node = f"{indent}{_dot_id(key)} [{', '.join(options)}];"
            if attributes.get("nested"):
                lines.append(f"{indent}subgraph {_dot_text('cluster_' + '/'.join(key))} {{")
                lines.append(f'{indent}  style="rounded,dashed"; label={_dot_text(attributes["agent"] + " graph")};')
                lines.append("  " + node)
                declare(key, indent + "  ")
                lines.append(f"{indent}}}")
            else:
                lines.append(node)

    declare(None, "  ")
    for source, target, attributes in model.edges(data=True):
        label = attributes["label"] if attributes["kind"] in ("input", "update") else " ".join(
            part for part in (attributes["kind"], attributes["label"]) if part)
        options = [f"label={_dot_text(label)}"] if label else []
        if attributes["kind"] == "update":
            options.append("style=dashed, constraint=false")
        lines.append(f"  {_dot_id(source)} -> {_dot_id(target)}{' [' + ', '.join(options) + ']' if options else ''};")
    lines.append("}")
    return "\n".join(lines) + "\n"
