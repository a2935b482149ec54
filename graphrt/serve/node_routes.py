"""The viewer's look inside a run, and back: GET /runs/{id}/nodes (every node, briefly),
GET /runs/{id}/nodes/{key} (one node, everything), POST /runs/{id}/fork (a new run from one of its nodes).

A node's key is its path of nested graphs and its id (`react/0/think`, see
graphrt.serve.node_ledger); what the routes answer is what the run's
NodeLedger holds, redacted as traces are.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from graphrt.base.errors import RequestError
from graphrt.serve.json_answer import JSONAnswer
from graphrt.serve.runs import RunNotFound, RunService

__all__ = ["list_nodes", "get_node", "start_fork"]


def _service(request: Request) -> RunService:
    return request.app.state.service


async def list_nodes(request: Request) -> Response:
    """Every node the run has seen: state, agent, timings, attempts, error or question; no values."""
    run = await _service(request).get(request.path_params["run_id"])
    return JSONAnswer({"run": run.id, "nodes": run.ledger.summary()})


async def get_node(request: Request) -> Response:
    """One node: its resolved inputs, result, error with location, attempts, timings, tokens and tool calls."""
    run = await _service(request).get(request.path_params["run_id"])
    node = run.ledger.node(request.path_params["key"])
    if node is None:
        raise RunNotFound(f"run {run.id!r} has no node {request.path_params['key']!r}")
    return JSONAnswer({"run": run.id, **node})


async def start_fork(request: Request, body: dict[str, Any]) -> Response:
    """Starts a fork: `{"from": NODE, "set": {NODE: VALUE, ...}, "iteration": N}`; 202 with the new run, which names
    its `parent`. NODE may be inside a nested graph, named by its key here (`outer/inner`, `outer/2/inner`)."""
    node = body.get("from")
    values = body.get("set", {})
    iteration = body.get("iteration")
    if iteration is not None and (not isinstance(iteration, int) or isinstance(iteration, bool) or iteration < 0):
        raise RequestError("'iteration' must be a loop iteration's number (0, 1, ...)")
    if not isinstance(node, str) or not node:
        raise RequestError("send {\"from\": NODE} (and \"set\": {NODE: VALUE} for new values)")
    if not isinstance(values, dict):
        raise RequestError("'set' must be an object of node ids to values")
    run = await _service(request).fork(request.path_params["run_id"], node, values, iteration)
    return JSONAnswer({**run.to_json(), "url": f"/runs/{run.id}", "events_url": f"/runs/{run.id}/events"},
                        status_code=202, headers={"Location": f"/runs/{run.id}"})
