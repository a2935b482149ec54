"""The HTTP API and the viewer page, as a Starlette app around a RunService.

    settings = ServerSettings(max_runs=4)  # graphrt.base's defaults for the rest (serve/settings.py)
    app = create_app(GraphCatalog(["graphs"], registry), "runs.db", settings)
    uvicorn.run(app, host=settings.host, port=settings.port)

Routes (the OpenAPI document at /openapi.json describes them): GET /graphs,
POST /graphs/{name}/runs, GET /runs, GET /runs/{id}, GET /runs/{id}/events
(Server-Sent Events), GET /runs/{id}/nodes and /runs/{id}/nodes/{key} (what the run's
nodes did: graphrt.serve.node_routes), POST /runs/{id}/fork (a new run from one of its nodes),
POST /runs/{id}/resume, POST /runs/{id}/cancel, GET /runs/{id}/webhooks (how its webhook
calls stand: graphrt.serve.webhook_routes), GET /health, and the viewer page at GET / with its
files under /static/. A run's POST may name a `webhook` to call when the run settles
(graphrt.serve.webhooks).

Requests pass, in order: serve/origin.py (the Host a request names and the page
it comes from: DNS rebinding and cross-site requests are refused), serve/cors.py
(CORS headers for the origins `cors_origins` allows) and serve/security.py (the
API key, the body size).

Other features plug in as an `Extension` (the MCP endpoint, say): its routes are
mounted beside the API, behind the same guard (API key, body size), and its
`lifespan` runs while the server does, with the RunService at hand.
"""

from __future__ import annotations

import json
import logging
import secrets
from dataclasses import dataclass
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from importlib import resources
from typing import Any, Protocol

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from graphrt.base.errors import GraphError, RequestError
from graphrt.base.limits import parse_json
from graphrt.base.states import vocabulary
from graphrt.checkpoint import CheckpointTarget
from graphrt.checkpoint.errors import StoreFailed
from graphrt.serve.catalog import GraphCatalog
from graphrt.serve.completions import COMPLETIONS_PREFIX, completion_routes, guard_error
from graphrt.serve.cors import with_cors
from graphrt.serve.json_answer import JSONAnswer
from graphrt.serve.lease import StoreLease
from graphrt.serve.node_routes import get_node, list_nodes, start_fork
from graphrt.serve.openapi import openapi_document
from graphrt.serve.origin import OriginGuard, OriginPolicy
from graphrt.serve.refusals import RunNotFound
from graphrt.serve.runs import RunService
from graphrt.serve.security import BodyTooLarge, Guard
from graphrt.serve.served_run import ServedRun
from graphrt.serve.settings import ServerSettings
from graphrt.serve.webhook_routes import list_webhooks

__all__ = ["create_app"]

log = logging.getLogger("graphrt.serve")

_KEEP_ALIVE_SECONDS = 15
_STATIC = {  # the viewer's files: a fixed list, so a request names no path
    "app.js": "text/javascript; charset=utf-8",
    "graph.js": "text/javascript; charset=utf-8",
    "detail.js": "text/javascript; charset=utf-8",
    "inside.js": "text/javascript; charset=utf-8",
    "style.css": "text/css; charset=utf-8",
}


class Extension(Protocol):
    """A feature served by `graphrt serve` beside its API (e.g. graphrt.mcp's endpoint at /mcp)."""

    def routes(self, service: RunService) -> Sequence[BaseRoute]:
        """Its routes (a `Mount("/mcp", app=...)`); they may use `service` to run graphs."""

    def lifespan(self, service: RunService) -> AbstractAsyncContextManager[None]:
        """Entered once the RunService serves, left before it stops (start and stop session managers here)."""


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONAnswer:
    return JSONAnswer({"error": message}, status_code=status, headers=headers)


async def _json_body(request: Request) -> dict[str, Any]:
    try:
        body = await request.body()
    except BodyTooLarge:
        raise RequestError("the request body is too large", status=413) from None
    if not body.strip():
        return {}
    data = parse_json(body, "the request body")  # depth, digits, Unicode: a 400 that says which (base/limits)
    if not isinstance(data, dict):
        raise RequestError("the request body must be a JSON object")
    return data


@dataclass
class _Readers:
    """How many event streams are open, the most the server keeps, and whether a reader was refused yet."""

    limit: int
    open: int = 0
    refused: bool = False


def _service(request: Request) -> RunService:
    return request.app.state.service


def _run_json(run: ServedRun) -> dict[str, Any]:
    return {**run.to_json(), "url": f"/runs/{run.id}", "events_url": f"/runs/{run.id}/events"}


def _handled(handler):
    """Turns the service's exceptions into JSON errors with their status codes."""

    async def route(request: Request) -> Response:
        try:
            return await handler(request)
        except RequestError as error:  # the request's own fault, or the server's state: its status says which
            # redacted too: it may quote what the request named (a graph, a node), which may hold a key
            return _error(error.status, _service(request).shown(str(error)), error.headers)
        except StoreFailed as error:  # the store failed: the server's state, not the request's fault
            return _error(503, _service(request).redactor.text(str(error)), {"Retry-After": "5"})
        except GraphError as error:
            return _error(400, _service(request).shown(str(error)))

    route.__name__ = handler.__name__
    route.__doc__ = handler.__doc__
    return route


# ----- graphs -----


@_handled
async def list_graphs(request: Request) -> Response:
    return JSONAnswer({"graphs": _service(request).catalog.listing()})


@_handled
async def get_graph(request: Request) -> Response:
    served = _service(request).catalog.get(request.path_params["name"])
    if served is None:
        raise RunNotFound(f"no graph named {request.path_params['name']!r}")
    return JSONAnswer(GraphCatalog.entry(served))


@_handled
async def start_run(request: Request) -> Response:
    service = _service(request)
    body = await _json_body(request)
    inputs = body.get("inputs", {})
    if not isinstance(inputs, dict):
        raise RequestError("'inputs' must be an object of static node ids to values")
    run = await service.submit(request.path_params["name"], inputs, all_results=bool(body.get("all_results", False)),
                               webhook=body.get("webhook"), budget=body.get("budget"))
    if request.query_params.get("wait", "").lower() in ("1", "true", "yes"):
        return JSONAnswer(_run_json(await service.settled(run)))  # wherever it runs: another server may
    return JSONAnswer(_run_json(run), status_code=202, headers={"Location": f"/runs/{run.id}"})


# ----- runs -----


@_handled
async def list_runs(request: Request) -> Response:
    given = request.query_params.get("limit", "50")
    if not (given.isascii() and given.isdigit() and len(given) <= 6):
        raise RequestError("'limit' must be a number from 1 to 500")
    limit = min(500, max(1, int(given)))
    offset = request.query_params.get("offset", "0")
    if not (offset.isascii() and offset.isdigit() and len(offset) <= 9):
        raise RequestError("'offset' must be a whole number of runs to skip")
    return JSONAnswer({"runs": await _service(request).recent(limit, int(offset))})


@_handled
async def get_run(request: Request) -> Response:
    return JSONAnswer(_run_json(await _service(request).get(request.path_params["run_id"])))


@_handled
async def resume_run(request: Request) -> Response:
    body = await _json_body(request)
    if "answer" not in body:
        raise RequestError("send {\"answer\": ...}")
    service = _service(request)
    run = await service.resume(request.path_params["run_id"], body["answer"])
    if request.query_params.get("wait", "").lower() in ("1", "true", "yes"):
        return JSONAnswer(_run_json(await service.settled(run)))
    return JSONAnswer(_run_json(run), status_code=202)


@_handled
async def fork_run(request: Request) -> Response:
    return await start_fork(request, await _json_body(request))


@_handled
async def cancel_run(request: Request) -> Response:
    run = await _service(request).cancel(request.path_params["run_id"])
    return JSONAnswer(_run_json(run))


def _epoch(request: Request) -> str:
    """What event ids start with: nothing when the store keeps event logs (an id means the same event after a
    restart), else this server's own mark (an id of an earlier server's log means nothing here)."""
    return "" if _service(request).durable_events else request.app.state.epoch


def _event_id(epoch: str, number: int) -> str:
    return f"{epoch}.{number}" if epoch else str(number)


def _last_event_id(request: Request, epoch: str) -> int:
    """The id after which a reader wants events: Last-Event-ID (or ?last_event_id=), 0 if from another server."""
    text = request.headers.get("last-event-id") or request.query_params.get("last_event_id") or ""
    given_epoch, _, number = text.rpartition(".")
    if given_epoch != epoch or not (number.isascii() and number.isdigit() and len(number) <= 18):
        return 0  # from start, or an id of an earlier server: this one's log starts with the run's state
    return int(number)


async def _events(request: Request, run: ServedRun, last_id: int, epoch: str,
                  service: RunService) -> AsyncIterator[str]:
    """The Server-Sent Events of a run after `last_id`, until it ends, the reader leaves or the server stops."""
    sent = last_id
    idle = 0.0
    events = service.events_of(run)  # the run's own, or, for a run another server runs, the store's copy
    while True:
        records, missed = await events.read(sent)
        batch = []  # one write per wake-up, not one per event
        if missed:  # records no longer kept: said once, and passed over
            batch.append(f"event: EventsMissed\ndata: {json.dumps({'type': 'EventsMissed', 'count': missed})}\n\n")
            sent += missed
        for event_id, record in records:
            batch.append(f"id: {_event_id(epoch, event_id)}\nevent: {record['type']}\ndata: {json.dumps(record)}\n\n")
            sent = event_id
        if records:
            idle = 0.0
        elif idle >= _KEEP_ALIVE_SECONDS:
            batch.append(": keep-alive\n\n")
            idle = 0.0
        if batch:
            if await request.is_disconnected():  # the reader left: writing on would flood the log with
                return                           # asyncio's "socket.send() raised exception."
            yield "".join(batch)
        if (events.closed and sent >= events.last_id) or service.stopping.is_set():
            return
        before = anyio.current_time()
        await events.wait(sent, 1.0)  # 1 s: events from threads outside anyio are polled
        idle += anyio.current_time() - before


@_handled
async def run_events(request: Request) -> Response:
    service = _service(request)
    run = await service.get(request.path_params["run_id"])
    epoch = _epoch(request)
    last_id = _last_event_id(request, epoch)
    readers = request.app.state.readers
    if readers.open >= readers.limit:  # each holds a connection (a file descriptor) for as long as the run goes
        if not readers.refused:  # the limit is said once, not at each refusal
            readers.refused = True
            log.warning("%d event streams are open, the most this server keeps at once; more readers are answered "
                        "503 until some end", readers.limit)
        # and the connection is closed: a refused reader holds no descriptor either
        raise RequestError(f"{readers.limit} event streams are open, the most this server keeps; "
                           "retry when one ends", status=503, headers={"Retry-After": "5", "Connection": "close"})
    readers.open += 1  # counted from here, not once it streams: a burst of readers cannot all pass the check
    return _CountedStream(readers, _events(request, run, last_id, epoch, service), media_type="text/event-stream",
                          headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


class _CountedStream(StreamingResponse):
    """An event stream that gives its reader's place back when it ends, however it ends."""

    def __init__(self, readers: _Readers, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._readers = readers

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._readers.open -= 1


# ----- the rest -----


async def health(request: Request) -> Response:
    """200 while the server can take runs; 503 when its checkpoint store does not answer (`store` says why)."""
    service = _service(request)
    problem = await service.store_problem()
    return JSONAnswer({"status": "ok" if problem is None else "unavailable", "store": problem or "ok",
                         "running": service.running, "queued": service.queued(),
                         "max_runs": service.settings.max_runs, "max_queue": service.settings.max_queue,
                         **service.server_said()},
                        status_code=200 if problem is None else 503)


@_handled
async def list_servers(request: Request) -> Response:
    """The live servers of the store, each with the runs it holds (this server alone on a store with one owner)."""
    return JSONAnswer({"servers": await _service(request).servers()})


async def openapi(request: Request) -> Response:
    return JSONAnswer(openapi_document(_service(request).catalog.listing()))


def _static_text(name: str) -> str:
    return resources.files("graphrt.serve").joinpath("static", name).read_text(encoding="utf-8")


def _index_page() -> str:
    """The viewer page, with the API's states embedded as JSON (it restates none of them)."""
    states = json.dumps(vocabulary()).replace("<", "\\u003c")  # a data block: no "</script>" can end it early
    return _static_text("index.html").replace("{{vocabulary}}", states)


async def index(request: Request) -> Response:
    return Response(_index_page(), media_type="text/html; charset=utf-8",
                    headers={"Content-Security-Policy": "default-src 'self'; style-src 'self'; script-src 'self'",
                             "X-Content-Type-Options": "nosniff"})


async def favicon(request: Request) -> Response:
    return Response(status_code=204)


async def static_file(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in _STATIC:
        return _error(404, "no such file")
    return Response(_static_text(name), media_type=_STATIC[name], headers={"X-Content-Type-Options": "nosniff"})


def create_app(catalog: GraphCatalog, checkpoint: CheckpointTarget, settings: ServerSettings | None = None, *,
               extensions: Sequence[Extension] = (), lease: StoreLease | None = None) -> Any:
    """The ASGI app: the API and viewer, behind the guards. `app.state.service` is the RunService.

    Args:
        catalog: the served graphs.
        checkpoint: where runs are saved (a SQLite file, a postgresql:// URL, or a store).
        settings: how the server runs (ServerSettings: its limits, key, host, retention, webhooks...), as
            `graphrt serve` builds them from its options; graphrt.base's defaults when not given.
        extensions: other features served beside the API, with their routes and lifespans.
        lease: how this server holds its store against a second one (default: a StoreLease of
            `settings.lease_seconds`).
    """
    settings = settings or ServerSettings()
    service = RunService(catalog, checkpoint, settings, lease=lease)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with anyio.create_task_group() as tg:
            await tg.start(service.serve)
            async with AsyncExitStack() as stack:
                for extension in extensions:
                    await stack.enter_async_context(extension.lifespan(service))
                yield
            tg.cancel_scope.cancel()

    routes: list[BaseRoute] = [
        Route("/", index),
        Route("/static/{name}", static_file),
        Route("/favicon.ico", favicon),
        Route("/openapi.json", openapi),
        Route("/health", health),
        Route("/servers", list_servers),
        Route("/graphs", list_graphs),
        Route("/graphs/{name:path}/runs", start_run, methods=["POST"]),
        Route("/graphs/{name:path}", get_graph),
        Route("/runs", list_runs),
        Route("/runs/{run_id}", get_run),
        Route("/runs/{run_id}/events", run_events),
        Route("/runs/{run_id}/nodes", _handled(list_nodes)),
        Route("/runs/{run_id}/webhooks", _handled(list_webhooks)),
        Route("/runs/{run_id}/nodes/{key:path}", _handled(get_node)),
        Route("/runs/{run_id}/fork", fork_run, methods=["POST"]),
        Route("/runs/{run_id}/resume", resume_run, methods=["POST"]),
        Route("/runs/{run_id}/cancel", cancel_run, methods=["POST"]),
        *completion_routes(),
        *(route for extension in extensions for route in extension.routes(service)),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.service = service
    app.state.epoch = secrets.token_hex(4)
    app.state.readers = _Readers(settings.max_streams)
    # Outermost the Host and Origin checks (they only refuse), then CORS headers for the origins allowed (a
    # preflight carries no key), then the key and the body limit.
    # The OpenAI-compatible endpoint's refusals in OpenAI's shape, which its clients read.
    guard = Guard(app, api_key=settings.api_key, max_body=settings.max_body,
                  error_shapes={COMPLETIONS_PREFIX: guard_error})
    guarded = OriginGuard(with_cors(guard, settings.cors_origins),
                          OriginPolicy.of(settings.host, settings.allowed_hosts, settings.cors_origins))
    guarded.state = app.state  # type: ignore[attr-defined] - so that callers reach the service from what they hold
    return guarded
