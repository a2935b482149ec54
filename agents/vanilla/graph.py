"""nestedAgent and mapAgent: run a graph inside a node, once or once per row.

The nested graph sees only what the node passes in: each input becomes a static
node of the nested graph (replacing the value of a static node of the same
name). mapAgent runs one copy of the graph per row, all under the run's
concurrency limit.
"""

from __future__ import annotations

from typing import Any, Mapping

import anyio

from graphrt.authoring.agent_info import AgentContext, AgentInfo, NestedGraph, Sample
from graphrt.base.errors import BudgetExceeded, GraphError, caused_by
from graphrt.base.jsvalue import UNDEFINED, is_truthy, js_number
from graphrt.check.rules import MAX_LOOP_COUNT

__all__ = ["AGENTS", "nested_agent", "map_agent"]

_GRAPH_VERSION = 0.5
_META: dict[str, Any] = {
    "category": ("graph",),
    "author": "Receptron team",
    "repository": "https://github.com/receptron/graphai",
    "package": "@graphai/vanilla",
    "license": "MIT",
    "has_graph_data": True,
}


def _suppressed(error: Exception) -> dict[str, Any]:
    """The result of a failed nested run under `supressError` (GraphAI's spelling)."""
    message = error.message if isinstance(error, GraphError) else str(error)
    return {"onError": {"message": message, "error": {"name": type(error).__name__, "message": message}}}


def _nested_nodes(graph: dict[str, Any]) -> dict[str, Any]:
    """A copy of the graph's nodes that can be changed without touching the file's graph."""
    nodes = graph.get("nodes")
    if not isinstance(nodes, dict):
        raise ValueError("nestedAgent: graph is required")
    copied = {}
    for node_id, node in nodes.items():
        if isinstance(node, dict) and "agent" not in node:
            copied[node_id] = {key: node[key] for key in ("value", "update", "isResult", "console") if key in node}
        else:
            copied[node_id] = dict(node) if isinstance(node, dict) else node
    return copied


async def nested_agent(ctx: AgentContext) -> Any:
    """Runs the node's `graph` with the node's inputs as static nodes; returns its results.

    `params.resultNodeId` picks one result; `inputs.loopCount` sets the nested loop count.
    """
    if ctx.graph_data is None:
        raise ValueError("nestedAgent: graph is required")
    nodes = _nested_nodes(ctx.graph_data)
    inject = {}
    for name, value in ctx.inputs.items():
        if name not in nodes:
            nodes[name] = {}  # a static node; the input's value is injected
        elif value is UNDEFINED:
            continue  # GraphAI: an undefined input leaves the node's own value alone
        inject[name] = value  # (a computed node of that name refuses it)
    graph = {**ctx.graph_data, "nodes": nodes, "version": _GRAPH_VERSION}
    loop_count = _loop_count(ctx.inputs.get("loopCount"))
    try:
        spec = ctx.nesting.compile(graph, key=("nestedAgent", *ctx.inputs)) if ctx.nesting else graph
        results = await ctx.run_graph(spec, inject=inject, loop_count=loop_count)
    except Exception as error:
        if ctx.params.get("supressError"):
            return _suppressed(error)
        raise
    result_node_id = ctx.params.get("resultNodeId")
    if result_node_id:
        return results.get(result_node_id, UNDEFINED)
    return results


def _loop_count(value: Any) -> int | float | None:
    """`inputs.loopCount` as the nested run's loop count (None: the graph's own loop), read as JS reads a number.

    Raises:
        ValueError: more iterations than graphrt runs (graphrt.check.rules.MAX_LOOP_COUNT).
    """
    if not is_truthy(value):
        return None
    number = js_number(value) if not isinstance(value, (list, dict)) else float("nan")
    if number != number:  # NaN: GraphAI compares the counter with it, always false, and runs once
        return 1
    if number > MAX_LOOP_COUNT:
        raise ValueError(f"nestedAgent: loopCount must be at most {MAX_LOOP_COUNT:,}")
    return number


def _map_graph(ctx: AgentContext, row_key: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The graph every row runs, and the values its static nodes get from the node's inputs."""
    if ctx.graph_data is None:
        raise ValueError("mapAgent: graph is required")
    nodes = _nested_nodes(ctx.graph_data)
    nodes["__mapIndex"] = {}
    shared = {}
    for name, value in ctx.inputs.items():
        node_id = row_key if name == "rows" else name
        if node_id not in nodes:
            nodes[node_id] = {}
        if "agent" not in nodes[node_id]:  # GraphAI leaves a computed node of that name alone
            shared[node_id] = value
    return {**ctx.graph_data, "nodes": nodes, "version": _GRAPH_VERSION}, shared


async def map_agent(ctx: AgentContext) -> Any:
    """Runs the node's `graph` once per item of `inputs.rows`, concurrently; returns the results in row order.

    Params: `limit` (rows to use), `rowKey` (the row's node id, default `row`),
    `resultAll`, `compositeResult` / `compositeResultKey` (results by node
    instead of by row), `expandKeys` (inputs that hold one value per row),
    `supressError` (return `{onError}` instead of failing).
    """
    params = ctx.params
    rows = ctx.inputs.get("rows", UNDEFINED)
    if not is_truthy(rows):
        raise ValueError("mapAgent: rows property is required in namedInput")
    if not isinstance(rows, list):
        raise TypeError(f"mapAgent: rows must be an array, got {type(rows).__name__}")
    limit = params.get("limit")
    if limit and limit < len(rows):
        rows = rows[:limit]
    row_key = params.get("rowKey") or "row"
    result_all = bool(params.get("resultAll"))
    expand_keys = params.get("expandKeys") or []
    try:
        graph, shared = _map_graph(ctx, row_key)
        spec = ctx.nesting.compile(graph, key=("mapAgent", row_key, *shared)) if ctx.nesting else None
        results: list[Any] = [None] * len(rows)

        async def run_row(index: int) -> None:
            inject = {**shared, row_key: rows[index], "__mapIndex": index}
            for key in expand_keys:
                column = ctx.inputs.get(key)
                inject[key] = column[index] if isinstance(column, list) and index < len(column) else UNDEFINED
            try:
                results[index] = await ctx.run_graph(spec, inject=inject, all_results=result_all, map_index=index)
            except GraphError as error:
                if caused_by(error, BudgetExceeded) is None:
                    raise
                # A budget stopped the row: no row starts after it, and the rows in flight are not cancelled
                # (their calls were paid for); the node fails with it once they end.
                stopped.append(error)

        # As many row workers as the run can run nodes at once, each taking the next row: the rows
        # run as concurrently as with a task each (their nodes wait for slots anyway), without
        # a task per row.
        pending = iter(range(len(rows)))
        stopped: list[GraphError] = []

        async def row_worker() -> None:
            for index in pending:
                if stopped:
                    return
                await run_row(index)

        workers = min(len(rows), ctx.nesting.concurrency if ctx.nesting else len(rows))
        async with anyio.create_task_group() as rows_group:
            for _ in range(workers):
                rows_group.start_soon(row_worker)
        if stopped:
            raise stopped[0]
    except Exception as error:
        error = _first_of_group(error)
        if params.get("supressError"):
            return _suppressed(error)
        raise error from None
    if not rows:
        return []
    composite_key = params.get("compositeResultKey")
    if params.get("compositeResult") or composite_key:
        composite = {node_id: [result.get(node_id) for result in results] for node_id in results[0]}
        return composite.get(composite_key, UNDEFINED) if composite_key else composite
    return results


def _nested_graph(inputs: frozenset[str], params: Mapping[str, Any]) -> NestedGraph:
    """nestedAgent's graph gets the node's inputs; its failure fails the node unless `supressError`."""
    return NestedGraph(inputs, fails_node=not params.get("supressError"))


def _map_nested_graph(inputs: frozenset[str], params: Mapping[str, Any]) -> NestedGraph:
    """mapAgent's graph gets the inputs with `rows` as the row's node (`rowKey`), and `__mapIndex`."""
    row_key = params.get("rowKey") if isinstance(params.get("rowKey"), str) and params.get("rowKey") else "row"
    return NestedGraph(frozenset({row_key if name == "rows" else name for name in inputs} | {row_key, "__mapIndex"}),
                       all_results=bool(params.get("resultAll")), fails_node=not params.get("supressError"))


def _first_of_group(error: Exception) -> Exception:
    """The row error inside an ExceptionGroup from the row task group."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


_COPY_ROWS = {"agent": "copyAgent", "params": {"namedKey": "rows"}, "inputs": {"rows": [":row"]}, "isResult": True}
_LOVE = {"agent": "stringTemplateAgent", "params": {"template": "I love ${row}."}, "inputs": {"row": ":row"}, "isResult": True}
_FRUITS = ["apple", "orange", "banana"]

nested_agent_info = AgentInfo(
    name="nestedAgent",
    func=nested_agent,
    nested_graph=_nested_graph,
    description="Runs a nested graph with the node's inputs as its static nodes",
    params={
        "type": "object",
        "properties": {
            "resultNodeId": {"type": "string", "description": "return only this node's result"},
            "supressError": {"type": "boolean", "description": "return {onError} instead of failing"},
        },
    },
    samples=(
        Sample(inputs={"message": "hello"}, params={}, result={"test": ["hello"]},
               graph={"nodes": {"test": {**_COPY_ROWS, "params": {"namedKey": "messages"}, "inputs": {"messages": [":message"]}}}}),
        Sample(inputs={"message": "hello"}, params={"resultNodeId": "test"}, result=["hello"],
               graph={"nodes": {"test": {**_COPY_ROWS, "params": {"namedKey": "messages"}, "inputs": {"messages": [":message"]}}}}),
        Sample(inputs={"loopCount": 5}, params={"resultNodeId": "test"}, result=4,
               graph={"nodes": {"test": {"agent": "copyAgent", "params": {"namedKey": "count"}, "inputs": {"count": "@loop"}, "isResult": True}}}),
    ),
    **_META,
)

map_agent_info = AgentInfo(
    name="mapAgent",
    func=map_agent,
    nested_graph=_map_nested_graph,
    description="Runs a nested graph once per row, concurrently",
    inputs={
        "type": "object",
        "properties": {"rows": {"type": "array", "description": "one nested run per item"}},
        "required": ["rows"],
    },
    params={
        "type": "object",
        "properties": {
            "limit": {"type": "integer", "description": "use only the first N rows"},
            "rowKey": {"type": "string", "description": "the nested graph's node that holds the row (default `row`)"},
            "resultAll": {"type": "boolean", "description": "each row's every node, not only its isResult ones"},
            "compositeResult": {"type": "boolean",
                                "description": "results by node: {node: [one value per row]}, not [{node: value}]"},
            "compositeResultKey": {"type": "string",
                                   "description": "this node's values only, one per row: [value, ...]"},
            "expandKeys": {"type": "array", "items": {"type": "string"},
                           "description": "inputs that are arrays with one item per row: each row gets its item"},
            "supressError": {"type": "boolean",
                             "description": "a row's error is the result ({onError}), not the node's failure"},
        },
    },
    samples=(
        Sample(inputs={"rows": ["apple", "orange"], "color": ["red", "orange"]},
               params={"compositeResult": True, "expandKeys": ["color"]},
               result={"node2": [{"a": "apple", "b": "red"}, {"a": "orange", "b": "orange"}]},
               graph={"version": 0.5, "nodes": {"node2": {"agent": "copyAgent", "inputs": {"a": ":row", "b": ":color"}, "isResult": True}}}),
        Sample(inputs={"rows": [1, 2]}, params={}, result=[{"test": [1]}, {"test": [2]}],
               graph={"nodes": {"test": _COPY_ROWS}}),
        Sample(inputs={"rows": [1, 2]}, params={"rowKey": "myKey"}, result=[{"test": [1]}, {"test": [2]}],
               graph={"nodes": {"test": {**_COPY_ROWS, "inputs": {"rows": [":myKey"]}}}}),
        Sample(inputs={"rows": _FRUITS}, params={}, result=[{"node2": f"I love {f}."} for f in _FRUITS],
               graph={"nodes": {"node2": _LOVE}}),
        Sample(inputs={"rows": [1, 2]}, params={"resultAll": True},
               result=[{"__mapIndex": 0, "test": [1], "row": 1}, {"__mapIndex": 1, "test": [2], "row": 2}],
               graph={"nodes": {"test": {**_COPY_ROWS, "isResult": False}}}),
        Sample(inputs={"rows": _FRUITS}, params={"compositeResult": True, "compositeResultKey": "node2"},
               result=[f"I love {f}." for f in _FRUITS], graph={"nodes": {"node2": _LOVE}}),
    ),
    **_META,
)

AGENTS: list[AgentInfo] = [nested_agent_info, map_agent_info]
