"""`graphrt serve`: graphs over HTTP, with durable runs, live events and a run viewer page.

Needs the `serve` extra (Starlette and uvicorn): `pip install 'graphrt[serve]'`.
Layer: above graphrt.durable and graphrt.api, below graphrt.cli.

    catalog.py  the served graph files, by name, as the folder holds them now (the only way from a request to
                a file), and the version each saved run started with
    runs.py     RunService: the bounded queue, workers, checkpointed runs, recovery at start
    served_run.py  ServedRun: one run as clients see it (status, outcome, nodes, event log, watchers)
    refusals.py    what a request is refused with: RunNotFound (404), RunConflict (409), QueueFull (429)
    events.py   EventLog: a run's numbered events for SSE replay (Last-Event-ID)
    node_ledger.py  NodeLedger: what each node of a run did (inputs, result, error, attempts, timings)
    node_routes.py  the viewer's look inside a run (GET /runs/{id}/nodes[/key]) and forks (POST /runs/{id}/fork)
    event_saver.py  EventSaver: the event logs written to the store as they grow (replay after a restart)
    event_backpressure.py  a run held while its store has not saved its events (the unsaved queue's bound)
    webhooks.py     Webhooks: the URLs called when runs settle, signed (base/signatures.py), retried, saved;
                    webhook_targets.py which URLs a run's own webhook may name (against request forgery)
    lease.py        StoreLease: one server owns its store (a second refuses to start; an expired lease is taken over)
    retention.py    Retention: which ended runs the store keeps, and the sweep that deletes the others
    app.py      the Starlette routes and the viewer page; security.py the API key and body limit
    completions.py  the OpenAI-compatible endpoint: POST /v1/chat/completions runs a chat graph
    origin.py   the Host and Origin checks: DNS rebinding and cross-site requests refused before anything else
    cors.py     the CORS headers of the origins --cors-origin allows; json_answer.py JSON answers any value makes whole
    openapi.py  the OpenAPI document; static/ the viewer (plain HTML, CSS and JS, no build step)

Run statuses are graphrt.base.states' RunStatus, the one vocabulary of the engine's saved runs, the stores and
the API; node states are the engine's NodeState.
"""

from graphrt.serve.app import create_app
from graphrt.serve.catalog import GraphCatalog
from graphrt.serve.runs import RunService

__all__ = ["GraphCatalog", "RunService", "create_app"]
