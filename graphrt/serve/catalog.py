"""The graphs a server serves: found once at start-up, in the folder (or files) it was given.

A graph is named by its path under the served folder, without the suffix
(`hello`, `team/review`). Requests name graphs, never paths: the catalog is the
only way from a request to a file, so no request can make the server read a
file outside the folder (symlinks that lead out of it are skipped too).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphrt.authoring.registry import Registry
from graphrt.base.errors import GraphError
from graphrt.base.secrets import Redactor
from graphrt.check.viz import graph_model, to_mermaid
from graphrt.engine.executor import Executor
from graphrt.engine.graph import Graph
from graphrt.graphdata.loader import load_graph

__all__ = ["GRAPH_SUFFIXES", "CatalogError", "GraphCatalog", "ServedGraph"]

GRAPH_SUFFIXES = (".yaml", ".yml", ".json")


class CatalogError(GraphError):
    """The folder or files given to serve hold no graph, or two graphs would have one name."""


@dataclass
class ServedGraph:
    """One graph file: its name, its path, and what a caller needs to run it (or why it cannot run)."""

    name: str
    path: Path
    error: str | None = None  # the load or validation error; the graph is listed but cannot run
    description: dict[str, Any] = field(default_factory=dict)
    _built: tuple[tuple[Any, ...], Graph] | None = field(default=None, init=False, repr=False, compare=False)

    def build(self, registry: Registry, executor: Executor | None = None, services: Any = None) -> Graph:
        """The file's Graph as it is now, with the server's agents, executor and shared `services` (MCP servers).

        A Graph does not change once made, so it is built again only when the file has changed (its size,
        modification time or inode) or the server's parts differ: parsing, validating and compiling
        the file for every request was a sixth of the server's CPU time under load (issue 26).
        """
        stat = self.path.stat()
        key = (stat.st_mtime_ns, stat.st_size, stat.st_ino, id(registry), id(executor), id(services))
        if self._built is None or self._built[0] != key:
            self._built = (key, Graph(self.path, agents=registry, executor=executor, services=services))
        return self._built[1]


def _files(targets: Iterable[str | Path]) -> list[tuple[str, Path]]:
    """(name, resolved path) of every graph file: a folder's, recursively, and files given by name."""
    found: list[tuple[str, Path]] = []
    for target in targets:
        target = Path(target)
        if target.is_dir():
            root = target.resolve()
            for path in sorted(root.rglob("*")):
                relative = path.relative_to(root)
                if path.suffix not in GRAPH_SUFFIXES or any(part.startswith(".") for part in relative.parts):
                    continue
                resolved = path.resolve()
                if not resolved.is_file() or not resolved.is_relative_to(root):
                    continue  # a symlink out of the served folder
                found.append((relative.with_suffix("").as_posix(), resolved))
        elif target.is_file():
            found.append((target.stem, target.resolve()))
        else:
            raise CatalogError(f"{target}: no such file or folder")
    return found


def describe(graph: Graph, redactor: Redactor) -> dict[str, Any]:
    """What GET /graphs shows of a graph: inputs, results, Mermaid text and the drawing's nodes and edges."""
    data = graph._loaded[0]
    nodes = data.get("nodes") or {}
    inputs = {
        node_id: {"default": redactor.value(node.get("value")) if "value" in node else None}
        for node_id, node in nodes.items()
        if "agent" not in node and not str(node_id).startswith("__")
    }
    results = [node_id for node_id, node in nodes.items() if node.get("isResult")]
    model = graph_model(data, graph.registry)
    drawing = _drawing(model, None)
    # Each nested graph (a nestedAgent's or mapAgent's `graph:`) drawn alike, by the node path that runs it: "outer/inner".
    nested = {"/".join(key): _drawing(model, key) for key, attributes in model.nodes(data=True)
              if attributes.get("nested")}
    if nested:
        drawing["nested"] = nested
    return {
        "inputs": inputs,
        "results": results,
        "mermaid": to_mermaid(model),
        "drawing": drawing,
        "loop": "loop" in data,
    }


def _drawing(model: Any, parent: tuple[str, ...] | None) -> dict[str, list[dict[str, Any]]]:
    """The nodes and edges of one graph of the model: the top level (`parent` None) or a nested graph."""
    nodes = [
        {
            "id": key[-1],
            "label": attributes["name"],
            "kind": attributes["kind"],
            "agent": attributes.get("agent"),
            "result": bool(attributes.get("result")),
            "nested": bool(attributes.get("nested")),
        }
        for key, attributes in model.nodes(data=True) if attributes["parent"] == parent
    ]
    edges = [
        {"source": source[-1], "target": target[-1], "label": attributes["label"], "kind": attributes["kind"]}
        for source, target, attributes in model.edges(data=True)
        if model.nodes[source]["parent"] == parent and model.nodes[target]["parent"] == parent
    ]
    return {"nodes": nodes, "edges": edges}


class GraphCatalog:
    """Every graph file under the served folder(s), by name."""

    def __init__(self, targets: Iterable[str | Path], registry: Registry, redactor: Redactor | None = None,
                 executor: Executor | None = None) -> None:
        self.registry = registry
        self.executor = executor  # where every run's agent calls run (graphrt.executors); None: in this process
        self.services: Any = None  # run services every run shares (the MCP servers of --mcp-config), while served
        redactor = redactor or Redactor()
        self.graphs: dict[str, ServedGraph] = {}
        for name, path in _files(targets):
            if name in self.graphs:
                raise CatalogError(f"two graphs are named {name!r}: {self.graphs[name].path} and {path}")
            served = ServedGraph(name, path)
            try:
                data, _ = load_graph(path)
            except GraphError as error:
                if path.suffix == ".json":
                    continue  # a JSON file that is not a graph (package.json, ...)
                served.error = redactor.text(str(error))
                self.graphs[name] = served
                continue
            if not isinstance(data, dict) or "nodes" not in data:
                continue  # YAML or JSON, but not GraphData
            try:
                served.description = describe(served.build(registry), redactor)
            except GraphError as error:
                served.error = redactor.text(str(error))
            self.graphs[name] = served
        if not self.graphs:
            shown = ", ".join(str(target) for target in targets)
            raise CatalogError(f"no graph files (*.yaml, *.yml, *.json with 'nodes') in {shown}")

    def get(self, name: str) -> ServedGraph | None:
        return self.graphs.get(name)

    def by_path(self, path: str | None) -> ServedGraph | None:
        """The served graph of a saved run's file, if this server serves it."""
        if path is None:
            return None
        resolved = Path(path).resolve()
        return next((served for served in self.graphs.values() if served.path == resolved), None)

    def listing(self) -> list[dict[str, Any]]:
        return [self.entry(served) for served in self.graphs.values()]

    @staticmethod
    def entry(served: ServedGraph) -> dict[str, Any]:
        entry: dict[str, Any] = {"name": served.name, "file": served.path.name}
        if served.error is not None:
            entry["error"] = served.error
        entry.update(served.description)
        return entry
