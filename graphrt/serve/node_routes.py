"""The viewer's look inside a run: GET /runs/{id}/nodes (every node, briefly) and GET /runs/{id}/nodes/{key}.

A node's key is its path of nested graphs and its id (`react/0/think`, see
graphrt.serve.node_ledger); what the routes answer is what the run's
NodeLedger holds, redacted as traces are.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from graphrt.serve.runs import RunNotFound, RunService

__all__ = ["list_nodes", "get_node"]


def _service(request: Request) -> RunService:
    return request.app.state.service


async def list_nodes(request: Request) -> Response:
    """Every node the run has seen: state, agent, timings, attempts, error or question; no values."""
    run = await _service(request).get(request.path_params["run_id"])
    return JSONResponse({"run": run.id, "nodes": run.ledger.summary()})


async def get_node(request: Request) -> Response:
    """One node: its resolved inputs, result, error with location, attempts, timings, tokens and tool calls."""
    run = await _service(request).get(request.path_params["run_id"])
    node = run.ledger.node(request.path_params["key"])
    if node is None:
        raise RunNotFound(f"run {run.id!r} has no node {request.path_params['key']!r}")
    return JSONResponse({"run": run.id, **node})
