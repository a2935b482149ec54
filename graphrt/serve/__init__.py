"""`graphrt serve`: graphs over HTTP, with durable runs, live events and a run viewer page.

Needs the `serve` extra (Starlette and uvicorn): `pip install 'graphrt[serve]'`.
Layer: above graphrt.durable and graphrt.api, below graphrt.cli.

    catalog.py  the served graph files, by name, as the folder holds them now (the only way from a request to
                a file), and the version each saved run started with
    runs.py     RunService: what the API asks of the runs (submit, get, list, resume, fork, cancel), put
                together from one module per job:
      held_store.py  the checkpoint store while this server holds it: its lease (lease.py: StoreLease, one
                     server per store), every run's write fenced, given up when the server stops
      run_queue.py   the bounded queue and its slots (Retry-After when full: waits.py)
      workers.py     the workers that run queued runs with graphrt.durable's arun_checkpointed
      transitions.py every change of a run's status: saved through graphrt.durable's SavedRun, then shown
      recovery.py    saved runs read back: the unfinished ones at start, any one a request names
      event_logs.py  each run's event log: saved to the store as it grows (event_saver.py: EventSaver; a
                     run held while its events wait, event_backpressure.py), or kept in memory
      health.py      what /health says of the store
      retention.py   Retention: which ended runs the store keeps, and the sweep that deletes the others
    served_run.py  ServedRun: one run as clients see it (how it stands, its nodes, its event log, watchers)
    refusals.py    what a request is refused with: RunNotFound (404), RunConflict (409), QueueFull (429)
    events.py   EventLog: a run's numbered events for SSE replay (Last-Event-ID)
    node_ledger.py  NodeLedger: what each node of a run did (inputs, result, error, attempts, timings)
    node_routes.py  the viewer's look inside a run (GET /runs/{id}/nodes[/key]) and forks (POST /runs/{id}/fork)
    webhooks.py     Webhooks: the URLs called when runs settle, signed (base/signatures.py), retried, saved;
                    webhook_targets.py which URLs a run's own webhook may name (against request forgery)
    app.py      the Starlette routes and the viewer page (create_app); security.py the API key and body limit
    settings.py ServerSettings: how the server runs (limits, key, host, retention, webhooks), built once by the command
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
from graphrt.serve.settings import ServerSettings

__all__ = ["GraphCatalog", "RunService", "ServerSettings", "create_app"]
