"""Graph files as MCP tools: a name, a description and an input schema per graph, and its run.

A graph's tool is named after its file (`graphs/hello.yaml` is `hello`). Its arguments are
the graph's injectable inputs: the static nodes without `update` (loop state is not an
input), each typed after its value, which is also the default; a static node without a
value is required. The graph's `metadata.inputs` may add JSON Schema per input (a
`description`, a `type` for a required input, an `enum`). Its result is the graph's results
(`isResult` nodes): the structured content is `{nodeId: result}`, the text is the one string
result, or the results as JSON. Its description is `metadata.description`, else the comment
block that opens the file.

    metadata:
      description: Greets someone.
      inputs:
        name: {type: string, description: who to greet}
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from graphrt.base.errors import GraphError, GraphLoadError
from graphrt.base.jsvalue import to_json_compatible
from graphrt.base.limits import MAX_SHOWN, cut
from graphrt.base.schema import format_path, violations
from graphrt.base.secrets import known_credentials
from graphrt.engine.graph import Graph
from graphrt.graphdata.loader import load_graph
from graphrt.graphdata.inputs import inputs_schema
from graphrt.graphdata.spec import compile_graph
from graphrt.observe.events import Event

__all__ = ["GraphTool", "collect_graph_tools", "graph_tool", "input_schema", "result_text", "runnable_tools"]

_GRAPH_SUFFIXES = (".yaml", ".yml", ".json")


def input_schema(graph_data: dict[str, Any], source: Any = None) -> dict[str, Any]:
    """The JSON Schema of a graph's injectable inputs (graphrt.graphdata.inputs)."""
    return inputs_schema(compile_graph(graph_data, source), graph_data)


def _description(graph_data: dict[str, Any], path: Path) -> str:
    metadata = graph_data.get("metadata") if isinstance(graph_data.get("metadata"), dict) else {}
    written = metadata.get("description")
    if isinstance(written, str) and written.strip():
        return written.strip()
    lines = []
    try:
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.startswith("#"):
                break
            lines.append(line.lstrip("#").strip())
    except OSError:
        pass
    return " ".join(line for line in lines if line) or f"Runs the graph {path.name}."


def result_text(results: dict[str, Any]) -> str:
    """What a client's LLM reads: the one string result as it is, else the results as JSON."""
    if len(results) == 1:
        (value,) = results.values()
        if isinstance(value, str):
            return value
    return json.dumps(to_json_compatible(results), ensure_ascii=False, indent=2)


@dataclass(frozen=True)
class GraphTool:
    """One graph file served as a tool."""

    name: str
    path: Path
    description: str
    input_schema: dict[str, Any]
    credentials: frozenset[str] = frozenset()
    """The credentials the graph file writes in its params (graphrt.base.secrets.known_credentials): hidden in
    what a call answers, as the environment's are."""

    def check(self, arguments: dict[str, Any]) -> None:
        """Raises GraphError naming every bad argument (checked before the graph runs)."""
        found = violations(self.input_schema, arguments)
        if found:
            details = "; ".join(cut(f"{format_path(v.path)}: {v.message}" if v.path else v.message, 2 * MAX_SHOWN)
                                for v in found[:20])
            raise GraphError(f"invalid arguments: {details}")

    async def run(self, arguments: dict[str, Any], *, services: Any = None, agents: Any = None,
                  config: dict[str, Any] | None = None, on_event: Callable[[Event], Any] | None = None) -> dict[str, Any]:
        """Runs the graph with `arguments` injected; returns its results.

        Raises:
            GraphError: bad arguments, or the run failed (the message names the node).
        """
        self.check(arguments)
        graph = Graph(self.path, agents=agents, config=config, services=services)
        return await graph.arun(inject=arguments, subscribe=(on_event,) if on_event is not None else ())


def _tool_name(path: Path, taken: set[str]) -> str:
    base = re.sub(r"[^A-Za-z0-9_-]", "_", path.stem) or "graph"
    name, number = base, 2
    while name in taken:
        name, number = f"{base}_{number}", number + 1
    return name


def collect_graph_tools(paths: list[str | Path]) -> list[GraphTool]:
    """The tools of graph files, and of the graph files directly in folders.

    Raises:
        GraphLoadError: a path does not exist, or a folder holds no graph file.
        GraphError: a graph file cannot be loaded or compiled (the message names the file).
    """
    files: list[tuple[Path, bool]] = []  # (file, named on its own rather than found in a folder)
    for given in paths:
        path = Path(given)
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.is_file() and p.suffix in _GRAPH_SUFFIXES)
            if not found:
                raise GraphLoadError(f"{path}: no graph files (.yaml, .yml, .json) in this folder")
            files += [(file, False) for file in found]
        elif path.is_file():
            files.append((path, True))
        else:
            raise GraphLoadError(f"{path}: no such file or folder")
    tools: list[GraphTool] = []
    taken: set[str] = set()
    for path, named in files:
        data, source = load_graph(path)
        if not named and not isinstance(data.get("nodes"), dict):
            continue  # a folder's other JSON/YAML files (e.g. an mcp.json beside the graphs)
        name = _tool_name(path, taken)
        taken.add(name)
        tools.append(GraphTool(name, path, _description(data, path), input_schema(data, source),
                                known_credentials(None, data)))
    return tools


def runnable_tools(tools: list[GraphTool], agents: Any = None) -> tuple[list[GraphTool], list[str]]:
    """The tools whose graphs pass validation with these agents, and why each other one does not (a graph with
    an unknown agent or a dangling reference would be a tool that always fails)."""
    runnable, problems = [], []
    for tool in tools:
        try:
            Graph(tool.path, agents=agents)
        except GraphError as error:
            problems.append(f"{tool.name}: {error}")
            continue
        runnable.append(tool)
    return runnable, problems


def graph_tool(path: str | Path, name: str) -> GraphTool:
    """The tool of one graph file, named `name`.

    Raises:
        GraphError: the file cannot be loaded or compiled.
    """
    path = Path(path)
    data, source = load_graph(path)
    return GraphTool(name, path, _description(data, path), input_schema(data, source), known_credentials(None, data))
