"""The viewer's look inside a run, and back: GET /runs/{id}/nodes (every node, briefly, a page at a time),
GET /runs/{id}/nodes/{key} (one node, everything), POST /runs/{id}/fork (a new run from one of its nodes).

A node's key is its path of nested graphs and its id (`react/0/think`, see
graphrt.serve.node_ledger); what the routes answer is what the run's
NodeLedger holds, redacted as traces are, and one node's answer adds the
outside calls it made, from the run's journal in the store (`calls`:
graphrt/engine/journal.py), the calls of the graphs it ran included.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response

from graphrt.base.errors import RequestError
from graphrt.checkpoint.guard import GuardedStore
from graphrt.engine.journal import node_key
from graphrt.engine.journal_shared import whole_requests, whole_results
from graphrt.serve.json_answer import JSONAnswer
from graphrt.serve.refusals import RunNotFound
from graphrt.serve.runs import RunService
from graphrt.serve.served_run import ServedRun

__all__ = ["DEFAULT_NODE_PAGE", "MAX_NODE_PAGE", "list_nodes", "get_node", "start_fork"]

DEFAULT_NODE_PAGE = 1000  # nodes of a page of GET /runs/{id}/nodes: ~300 KB (20,000 at once were 5.8 MB)
MAX_NODE_PAGE = 5000


def _service(request: Request) -> RunService:
    return request.app.state.service


def _number(request: Request, name: str, default: int, low: int, high: int, wanted: str) -> int:
    given = request.query_params.get(name, str(default))
    if not (given.isascii() and given.isdigit() and len(given) <= 9 and low <= int(given) <= high):
        raise RequestError(f"{name!r} must be {wanted}")
    return int(given)


async def list_nodes(request: Request) -> Response:
    """The nodes the run has seen, a page at a time (`offset`, `limit`; `next` links the next page): state,
    agent, timings, attempts, error or question, what it spent (`usage`); no values. `total` is how many nodes the server keeps for the
    run, and `left_out` says (when not null) that nodes past the most it keeps were left out."""
    offset = _number(request, "offset", 0, 0, 10**9 - 1, "a whole number of nodes to skip")
    limit = _number(request, "limit", DEFAULT_NODE_PAGE, 1, MAX_NODE_PAGE, f"a number from 1 to {MAX_NODE_PAGE}")
    run = await _service(request).get(request.path_params["run_id"])
    ledger = run.ledger
    total = len(ledger)
    following = offset + limit
    left_out = None
    if ledger.untracked:
        left_out = {"events": ledger.untracked, "max_nodes": ledger.max_nodes,
                    "message": f"this run has more nodes than the {ledger.max_nodes:,} the server keeps for a run "
                               f"(nested graphs' and map rows'): {ledger.untracked:,} events of the others were not "
                               "kept, and those nodes are not listed"}
    nodes = ledger.summary(offset, limit)
    for key, node in nodes.items():
        node["usage"] = run.spent.keyed(key)  # what it spent, with what was nested in it; null: nothing
    return JSONAnswer({"run": run.id, "nodes": nodes, "offset": offset, "limit": limit,
                       "total": total, "left_out": left_out,
                       "next": f"/runs/{quote(run.id, safe='')}/nodes?offset={following}&limit={limit}"
                               if following < total else None})


async def get_node(request: Request) -> Response:
    """One node: its resolved inputs, result, error with location, attempts, timings, tokens, tool calls, LLM calls,
    what it spent (`usage`, with what was nested in it) and the outside calls of its journal (`calls`; null where
    the store keeps no journal)."""
    service = _service(request)
    run = await service.get(request.path_params["run_id"])
    key = request.path_params["key"]
    node = run.ledger.node(key)
    if node is None:
        raise RunNotFound(f"run {run.id!r} has no node {key!r}")
    return JSONAnswer({"run": run.id, **node, "usage": run.spent.keyed(key),
                       "calls": await _calls(service.store, run, key)})


async def _calls(store: GuardedStore, run: ServedRun, key: str) -> list[dict[str, Any]] | None:
    """The journaled calls of the node `key` and of the graphs it ran, in the order they were made, redacted as
    the run's other answers are (its redactor knows its graph's credentials); None where the store keeps none."""
    if not store.abilities.journal:
        return None
    below = key + "/"
    calls = []
    entries = await store.get_calls(run.id)
    requests, results = whole_requests(entries), whole_results(entries)  # each whole (journal_shared)
    for entry in entries:
        node = node_key(entry.path)
        if node != key and not node.startswith(below):
            continue
        calls.append(run.redactor.value({
            "path": entry.path, "index": entry.index, "kind": entry.kind, "agent": entry.agent, "state": entry.state,
            "request": _parsed(requests[entry.path, entry.index]), "result": _parsed(results[entry.path, entry.index]),
            "started_at": entry.started_at, "ended_at": entry.ended_at}))
    return sorted(calls, key=lambda call: call["started_at"])


def _parsed(text: str | None) -> Any:
    return None if text is None else json.loads(text)


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
