"""The graphs a server serves: the graph files in the folder (or files) it was given, as they are now.

A graph is named by its path under the served folder, without the suffix
(`hello`, `team/review`). Requests name graphs, never paths: the catalog is the
only way from a request to a file, so no request can make the server read a
file outside the folder: symlinks that lead out of it are skipped, and every read
of a file checks, on the file it opened, that it is a regular file whose real path
is inside the folder (graphdata.loader's read_graph_file), so a file swapped for a
symlink out of the folder between a scan and a read is not read either. A FIFO or
a device in the folder is listed with that error and never opened for a wait.

The catalog follows the folder while the server runs: a request for a graph looks
at its file (one `stat`) and reloads it when it changed, and a listing scans the
folder, so new, edited and removed files are picked up without a restart. A file
that does not load is listed with its error; the others keep working. A run keeps
the version it started with (`as_started`): the file while it is unchanged, else
the copy saved with the run.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import time
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphrt.authoring.registry import Registry
from graphrt.base.errors import GraphError
from graphrt.base.secrets import Redactor
from graphrt.check.viz import graph_model, to_mermaid
from graphrt.checkpoint.records import RunRecord
from graphrt.engine.executor import Executor
from graphrt.engine.graph import Graph
from graphrt.graphdata.inputs import inputs_schema
from graphrt.graphdata.loader import GraphFile, parse_graph_text, read_graph_file

__all__ = ["GRAPH_SUFFIXES", "CatalogError", "GraphCatalog", "ServedGraph"]

GRAPH_SUFFIXES = (".yaml", ".yml", ".json")
_KEPT_VERSIONS = 64  # earlier versions of graphs that runs started with, described once and kept

log = logging.getLogger("graphrt.serve")


class CatalogError(GraphError):
    """The folder or files given to serve hold no graph, or two graphs would have one name."""


Stamp = tuple[int, int, int]  # (inode, size, mtime in ns): a file is read again when this changes


@dataclass(frozen=True)
class ServedGraph:
    """One version of a graph file: its name, path, text, and what a caller needs to run it (or why it cannot)."""

    name: str
    path: Path
    root: Path | None = None  # the folder its file must be inside when it is opened
    error: str | None = None  # the load or validation error; the graph is listed but cannot run
    description: dict[str, Any] = field(default_factory=dict)
    text: str | None = None  # the version's text: the file's as loaded, or the copy saved with a run
    digest: str = ""  # sha256 of the file's text, as a saved run's graph_hash says it
    stamp: Stamp | None = field(default=None, compare=False)  # the file's, for the version read from it
    saved_copy: bool = False  # an earlier version, from a run's saved copy (credentials left out; no graphLoader)
    credentials: frozenset[str] = frozenset()  # what its config and params hold (known_credentials): never shown

    @property
    def built_from(self) -> tuple[str, str]:
        """What its Graph is built from: its file (read as it is then), or, for an earlier version, its saved copy."""
        return ("copy", self.digest) if self.saved_copy and self.text is not None else ("file", str(self.path))


_SETTLED_NS = 2_000_000_000  # a file's times tick coarsely (a kernel tick): a younger file is compared by its text


def _stamp(path: Path) -> Stamp | None:
    """The file's stamp; None for a file modified in the last 2 s (its next edit may keep this stamp)."""
    try:
        info = path.stat()
    except OSError:
        return None
    if time.time_ns() - info.st_mtime_ns < _SETTLED_NS:
        return None
    return info.st_ino, info.st_size, info.st_mtime_ns


def _text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def describe(graph: Graph, redactor: Redactor) -> dict[str, Any]:
    """What GET /graphs shows of a graph: inputs, results, Mermaid text and the drawing's nodes and edges."""
    data = graph.data
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
        "input_schema": redactor.value(inputs_schema(graph.spec, data)),
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
    """Every graph file under the served folder(s), by name, as the files are now."""

    def __init__(self, targets: Iterable[str | Path], registry: Registry, redactor: Redactor | None = None,
                 executor: Executor | None = None, config: Mapping[str, Any] | None = None) -> None:
        self._registry = registry
        self._executor = executor
        self._config = dict(config or {})
        self._services: Any = None
        self._built: dict[tuple[str, str], tuple[Stamp | None, Graph]] = {}  # built_from -> (file's stamp, Graph)
        self._redactor = redactor or Redactor()
        self._targets = [Path(target) for target in targets]
        for target in self._targets:
            if not target.is_dir() and not target.is_file():
                raise CatalogError(f"{target}: no such file or folder")
        self._roots = [target.resolve() for target in self._targets if target.is_dir()]
        self._versions: OrderedDict[str, ServedGraph] = OrderedDict()  # earlier versions runs started with, by digest
        self.graphs: dict[str, ServedGraph] = {}
        self._update(self._found(), starting=True)
        if not self.graphs:
            shown = ", ".join(str(target) for target in self._targets)
            raise CatalogError(f"no graph files (*.yaml, *.yml, *.json with 'nodes') in {shown}")

    # ----- the server's parts, and the Graphs built with them -----

    @property
    def registry(self) -> Registry:
        """The agents every graph runs with."""
        return self._registry

    @property
    def executor(self) -> Executor | None:
        """Where every run's agent calls run (graphrt.executors); None: in this process."""
        return self._executor

    @property
    def config(self) -> dict[str, Any]:
        """Every graph's config (`--config`: the agents' settings, prices, each run's budget, rate limits)."""
        return self._config

    @property
    def continued_config(self) -> dict[str, Any]:
        """The config a saved run continues with (resumed, forked, recovered): the server's over the one it saved,
        but for the budget, which it saved as its own (the server's, or lower)."""
        return {key: value for key, value in self._config.items() if key != "budget"}

    @property
    def services(self) -> Any:
        """Run services every run shares (the MCP servers of --mcp-config), while served; None otherwise."""
        return self._services

    @services.setter
    def services(self, services: Any) -> None:
        if services is not self._services:
            self._built.clear()  # built with the services let go
        self._services = services

    def build(self, served: ServedGraph) -> Graph:
        """The Graph of version `served`, with the catalog's agents, executor, services and config.

        The current version is read from its file (so that its errors name it and graphLoader finds files
        beside it); a saved run records what was read, so a run is pinned to that. A Graph does not change
        once made, so it is built again only when the file has changed (its size, modification time or
        inode) or the services did: parsing, validating and compiling the file for every request was a sixth
        of the server's CPU time under load (issue 26). One Graph is kept per served file and per earlier
        version kept (`as_started`).
        """
        source: str | GraphFile
        stamp: Stamp | None = None
        if served.built_from[0] == "copy":
            source = served.text  # type: ignore[assignment] - a saved copy has its text
        else:
            source = GraphFile(served.path, served.root)  # checked again as it is opened
            try:
                info = served.path.stat()
                stamp = (info.st_ino, info.st_size, info.st_mtime_ns)
            except OSError:  # gone: Graph's read says so
                pass
        kept = self._built.get(served.built_from)
        if kept is not None and kept[0] == stamp:
            return kept[1]
        graph = Graph(source, agents=self._registry, executor=self._executor, services=self._services,
                      config=self._config)
        self._built[served.built_from] = (stamp, graph)
        return graph

    def _keep_built(self) -> None:
        """Lets go of the Graphs of files no longer served and of versions no longer kept."""
        live = {served.built_from for served in (*self.graphs.values(), *self._versions.values())}
        for key in self._built.keys() - live:
            del self._built[key]

    # ----- following the folder -----

    def _found(self) -> dict[str, list[GraphFile]]:
        """name -> every graph file now (a folder's, recursively, and files given by name), each with the folder
        it must stay in when it is read. A symlink out of the folder is skipped (as if not there); a FIFO or a
        device in it is kept, so that its read is refused with the reason and the name is listed with it."""
        found: dict[str, list[GraphFile]] = {}
        for target in self._targets:
            if target.is_dir():
                root = target.resolve()
                for path in sorted(root.rglob("*")):
                    relative = path.relative_to(root)
                    if path.suffix not in GRAPH_SUFFIXES or any(part.startswith(".") for part in relative.parts):
                        continue
                    if path.is_dir():
                        continue
                    resolved = path.resolve()
                    if not resolved.is_relative_to(root):
                        continue  # a symlink out of the served folder
                    found.setdefault(relative.with_suffix("").as_posix(), []).append(GraphFile(resolved, root))
            elif target.is_file():
                resolved = target.resolve()
                found.setdefault(target.stem, []).append(GraphFile(resolved, resolved.parent))
        return found

    def _update(self, found: dict[str, list[GraphFile]], *, starting: bool = False) -> None:
        """The catalog as `found` says the folder is now: unchanged files kept, the others read again.

        Raises:
            CatalogError: at start, two graph files have one name (later, that name is listed with the error).
        """
        graphs: dict[str, ServedGraph] = {}
        for name, files in found.items():
            held = self.graphs.get(name)
            kept = self._unchanged(held) if held is not None and held.path == files[0].path and len(files) == 1 else None
            if kept is not None:
                graphs[name] = kept
                continue
            versions = [served for served in (self._load(name, file) for file in files) if served is not None]
            if len(versions) > 1:  # a.yaml and a.json, both graphs (a JSON file that is not one is no rival)
                problem = f"two graphs are named {name!r}: {versions[0].path.name} and {versions[1].path.name}"
                if starting:
                    raise CatalogError(f"{problem} ({versions[0].path.parent}); rename one")
                graphs[name] = ServedGraph(name, versions[0].path, versions[0].root,
                                           error=f"{problem}; rename one")
            elif versions:
                graphs[name] = versions[0]
        for name in self.graphs.keys() - graphs.keys():
            log.info("graph %r is gone from the served folder", name)
        self.graphs = graphs
        self._keep_built()

    @staticmethod
    def _unchanged(held: ServedGraph) -> ServedGraph | None:
        """The version read from a file if the file still holds it (its stamp says so, or else its text: then
        stamped anew), None if it changed."""
        stamp = _stamp(held.path)
        if held.stamp is not None and held.stamp == stamp:
            return held
        try:
            same = held.text is not None and _text_digest(read_graph_file(held.path, held.root)) == held.digest
        except GraphError:  # gone, replaced by a symlink out of the folder or a FIFO, not UTF-8 any more
            return None
        return dataclasses.replace(held, stamp=stamp) if same else None

    def _load(self, name: str, file: GraphFile) -> ServedGraph | None:
        """The file's version now; None if it is not GraphData (package.json, a YAML list...)."""
        path = file.path
        stamp = _stamp(path)
        text: str | None = None
        try:
            text = read_graph_file(path, file.root)
            data, _ = parse_graph_text(text, file=str(path))
        except GraphError as error:
            if path.suffix == ".json":
                return None  # a JSON file that is not a graph
            return ServedGraph(name, path, file.root, error=self.shown(error), stamp=stamp, text=text,
                               digest=_text_digest(text) if text is not None else "")
        if not isinstance(data, dict) or "nodes" not in data:
            return None  # YAML or JSON, but not GraphData
        return self._version(name, path, text, stamp, root=file.root)

    def _version(self, name: str, path: Path, text: str, stamp: Stamp | None = None, *,
                 digest: str | None = None, root: Path | None = None) -> ServedGraph:
        """A version described: the file's (`stamp` given), or a saved copy's (`digest` the file's it was of)."""
        version = ServedGraph(name, path, root, text=text, digest=digest or _text_digest(text), stamp=stamp,
                              saved_copy=digest is not None)
        try:
            graph = self.build(version)
            credentials = graph.credentials
            description = describe(graph, self._redactor.knowing(credentials))
        except GraphError as error:
            return dataclasses.replace(version, error=self.shown(error))
        return dataclasses.replace(version, description=description, credentials=credentials)

    def shown(self, error: BaseException | str) -> str:
        """An error as clients see it: without credentials, and naming files as served (`team/ask.yaml`), not by
        the server's paths."""
        text = str(error)
        for root in self._roots:
            text = text.replace(f"{root}/", "")
        for target in self._targets:
            if target.is_file():
                text = text.replace(str(target.resolve()), target.name)
        return self._redactor.text(text)

    def refresh(self) -> None:
        """Scans the folder again: new, edited and removed files (a listing does this)."""
        self._update(self._found())

    # ----- reading it -----

    def get(self, name: str) -> ServedGraph | None:
        """The graph `name` as its file is now (reloaded when it changed; a new file is found too)."""
        held = self.graphs.get(name)
        kept = self._unchanged(held) if held is not None else None
        if kept is not None:
            self.graphs[name] = kept
            return kept
        self.refresh()
        return self.graphs.get(name)

    def name_of(self, path: str | None) -> str | None:
        """The name a saved run's file has (or had) here; None if it is not under the served folder(s)."""
        if path is None:
            return None
        resolved = Path(path)
        for root in self._roots:
            if resolved.is_relative_to(root) and resolved.suffix in GRAPH_SUFFIXES:
                return resolved.relative_to(root).with_suffix("").as_posix()
        for target in self._targets:
            if target.is_file() and target.resolve() == resolved:
                return target.stem
        return None

    def by_path(self, path: str | None) -> ServedGraph | None:
        """The served graph of a saved run's file, as the file is now, if this server serves it."""
        name = self.name_of(path)
        if name is None:
            return None
        served = self.graphs.get(name)
        return served if served is not None and str(served.path) == path else None

    def as_started(self, record: RunRecord) -> ServedGraph | None:
        """The version of its graph a saved run started with: the file while unchanged, else the copy saved
        with the run (described once, kept among the last versions); None if the run's graph is not served here.
        """
        name = self.name_of(record.graph_file)
        if name is None:
            return None
        current = self.graphs.get(name)
        if current is not None and current.digest == record.graph_hash:
            return current
        kept = self._versions.get(record.graph_hash)
        if kept is None:
            path = Path(record.graph_file)  # type: ignore[arg-type] - name_of found it
            if record.graph_text is None:
                kept = ServedGraph(name, path, digest=record.graph_hash, error=(
                    f"{path.name} changed since this run started, and the run's saved copy was not kept "
                    "(its credentials could not be left out of it)"))
            else:
                kept = self._version(name, path, record.graph_text, digest=record.graph_hash)
            self._versions[record.graph_hash] = kept
            while len(self._versions) > _KEPT_VERSIONS:
                self._versions.popitem(last=False)
            self._keep_built()
        return kept

    def listing(self) -> list[dict[str, Any]]:
        """Every graph as the folder holds it now."""
        self.refresh()
        return [self.entry(served) for served in self.graphs.values()]

    @staticmethod
    def entry(served: ServedGraph) -> dict[str, Any]:
        entry: dict[str, Any] = {"name": served.name, "file": served.path.name}
        if served.error is not None:
            entry["error"] = served.error
        entry.update(served.description)
        return entry
