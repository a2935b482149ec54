"""`ServedRun`: one run as the server shows it: how it stands, what its nodes did, its event log and watchers.

How a run stands (its status, results, error, question) is one record, the
RunStatus record it last showed: its stream's readers get that record, and
GET /runs/{id}, `?wait=true` and the webhooks read theirs from it, so they cannot
disagree. It has no other copy. It changes through `show`, which only
serve/transitions.py calls, once the store has taken the change (graphrt.durable's
SavedRun saves every change of a saved run's status). A node's state is carried the
same way, by the run's events (the `state` the run set), into its NodeLedger.

Statuses and node states are graphrt.base.states' RunStatus (queued, running,
interrupted: a node asked a question and `resume` answers it, finished, failed,
cancelled) and the engine's own NodeState. Its events, numbered for the readers
of its stream, are in its EventLog (events.py).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import anyio

from graphrt.base.secrets import Redactor
from graphrt.base.states import NodeState, RunStatus
from graphrt.observe.events import Event
from graphrt.observe.streamed_text import StreamedText
from graphrt.observe.trace import event_record
from graphrt.observe.usage_ledger import UsageLedger
from graphrt.serve.catalog import ServedGraph
from graphrt.serve.events import EventLog
from graphrt.serve.node_ledger import NodeLedger

__all__ = ["SPENDING_EVENTS", "ServedRun"]

SPENDING_EVENTS = frozenset({"LlmCallStarted", "LlmCallFinished", "ToolCalled", "NodeStarted", "NodeRetried"})
"""The events whose records say what a run spent (UsageLedger.take)."""

log = logging.getLogger("graphrt.serve")


class ServedRun:
    """One run as the server shows it: how it stands (`status`...), its nodes (`ledger`), its events (`events`).

    `cancel_requested` and `scope` are this server's hold on it: a cancel asked for, and the cancel scope
    of its run while a worker runs it (workers.py).
    """

    def __init__(self, run_id: str, graph: ServedGraph, redactor: Redactor, *, events: EventLog,
                 all_results: bool = False, created_at: float | None = None,
                 shown: Callable[[str], str] | None = None) -> None:
        self.id = run_id
        self.graph = graph
        self.all_results = all_results
        self.created_at = created_at or time.time()
        self.updated_at = self.created_at
        self._outcome: dict[str, Any] = {"status": RunStatus.QUEUED}  # of the RunStatus record it last showed
        self.inputs: dict[str, Any] = {}  # the values the run was started with (redacted), by static node
        self.parent: dict[str, Any] | None = None  # a fork's origin: {"run_id", "node_id", "set"}
        self.answers: list[dict[str, Any]] = []  # what people answered, in order: {"key", "answer", "time"}
        self.ledger = NodeLedger([node["id"] for node in graph.description.get("drawing", {}).get("nodes", [])
                                  if node["kind"] == "computed"])
        self.events = events
        self.spent = UsageLedger()  # what the run spent, per node too, as its events say
        self.final_usage: dict[str, Any] | None = None  # what its end said (its RunFinished, its saved record)
        self.cancel_requested = False
        self.scope: anyio.CancelScope | None = None
        self._watchers: list[Callable[[Event], Any]] = []  # given each event on the event loop (`watch`)
        # What hides a credential in what clients see of this run: the environment's, and those its graph file
        # writes in params (one of its agents may echo one into a result, an error or a token).
        self.redactor = redactor.knowing(graph.credentials)
        self._streamed = StreamedText(self.redactor)  # its tokens, a credential cut across them hidden too
        self._shown_by_server = shown
        self._settled = anyio.Event()
        self._loop_thread = threading.get_ident()

    # ----- how it stands: read from the RunStatus record it last showed -----

    @property
    def status(self) -> RunStatus:
        return self._outcome["status"]

    @property
    def results(self) -> Any:
        """What a finished run returned (redacted), else None."""
        return self._outcome.get("results")

    @property
    def error(self) -> str | None:
        """Why a failed run failed, as clients see it."""
        return self._outcome.get("error")

    @property
    def question(self) -> str | None:
        """What an interrupted run asks."""
        return self._outcome.get("question")

    def show(self, status: RunStatus, *, results: Any = None, error: str | None = None,
             question: str | None = None, announce: bool = True, updated_at: float | None = None,
             budget: dict[str, Any] | None = None) -> None:
        """How the run stands from now on (serve/transitions.py calls this, and nothing else does).

        Its RunStatus record goes to its readers, unless not `announce` (a run read back from the store whose saved
        log says it already, or whose log another server of a shared store writes); `updated_at`: when it changed, if not now (as the store saved it); `budget`: the
        budget that stopped a failed run (BudgetExceeded.to_dict())."""
        now = time.time()
        self._outcome = {"status": status, **({"results": results} if results is not None else {}),
                         **({"error": error} if error is not None else {}),
                         **({"question": question} if question is not None else {}),
                         **({"budget": budget} if budget is not None else {})}
        self.updated_at = updated_at if updated_at is not None else now
        if status in RunStatus.SETTLED:
            self._settled.set()
        elif self._settled.is_set():
            self._settled = anyio.Event()
        if announce:
            self.events.append({"type": "RunStatus", "run_id": self.id, "time": now, **self._shown_outcome(),
                               "nodes": dict(self.nodes)})
        if status in RunStatus.ENDED:
            self.events.close()
            self._watchers.clear()  # no event follows: a watcher whose reader never came is let go too

    async def settled(self) -> None:
        """Waits until the run ends or asks a question."""
        while self.status not in RunStatus.SETTLED:
            await self._settled.wait()

    # ----- its events -----

    def on_event(self, event: Event) -> None:
        """The graph's subscriber; sync agents call it from worker threads."""
        if threading.get_ident() == self._loop_thread:
            self._record_event(event)
            return
        try:
            anyio.from_thread.run_sync(self._record_event, event)
        except RuntimeError:  # a thread anyio did not start: record it, readers poll
            self._record_event(event, notify=False)

    @property
    def nodes(self) -> dict[str, NodeState]:
        """The top-level nodes' states, as the run's events left them."""
        return self.ledger.states()

    def watch(self, watcher: Callable[[Event], Any]) -> Callable[[], None]:
        """Gives `watcher` each event of the run from now on, on the event loop; returns what stops it.

        A watcher that raises is stopped (and said once in the log): it never costs the run an event."""
        self._watchers.append(watcher)

        def stop() -> None:
            if watcher in self._watchers:
                self._watchers.remove(watcher)

        return stop

    def _record_event(self, event: Event, *, notify: bool = True) -> None:
        """Logs the event as readers get it (a node's event names the `state` it leaves the node in), then
        gives it to the watchers; a streamed token as much of it as may be shown (graphrt.observe.streamed_text)."""
        for shown in self._streamed.events(event):
            self._record_shown(shown, notify)

    def _record_shown(self, event: Event, notify: bool) -> None:
        record = event_record(event, self.redactor)
        if isinstance(record.get("error"), str):
            record["error"] = self.shown(record["error"])
        self.ledger.record(event, record)
        kind = record["type"]
        if kind in SPENDING_EVENTS:
            self.spent.take(record)
        elif kind == "RunFinished" and not record.get("path") and isinstance(record.get("usage"), dict):
            self.final_usage = record["usage"]
        self.events.append(record, notify=notify)
        if notify:  # on the event loop (the other case is a thread anyio did not start): watchers use its streams
            for watcher in tuple(self._watchers):  # a copy: a watcher may stop itself
                try:
                    watcher(event)
                except Exception:  # noqa: BLE001 - a watcher's fault is its own: the run and its log go on
                    log.exception("run %s: an event watcher failed and no longer watches", self.id)
                    if watcher in self._watchers:
                        self._watchers.remove(watcher)

    # ----- what a client sees -----

    def shown(self, text: str) -> str:
        """An error's text as clients see it: no credential the run knows, no server path."""
        return self.redactor.text(self._shown_by_server(text) if self._shown_by_server is not None else text)

    def spent_before(self, records: list[dict[str, Any]]) -> None:
        """What a run read back spent before, per node too: the SPENDING_EVENTS records of its saved log, oldest first,
        counted before any event of its own (its log goes on after them)."""
        for record in records:
            self.spent.take(record)

    @property
    def usage(self) -> dict[str, Any]:
        """What the run spent (graphrt.base.usage's `Usage.to_dict()`): as its end said it, else as its events say
        so far."""
        if self.final_usage is not None:
            return self.final_usage
        return self.spent.run.to_dict()

    def _shown_outcome(self) -> dict[str, Any]:
        return {**self._outcome, **({"answers": list(self.answers)} if self.answers else {}), "usage": self.usage}

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "graph": self.graph.name,
            **self._shown_outcome(),
            "nodes": dict(self.nodes),
            "inputs": self.inputs,
            **({"parent": self.parent} if self.parent is not None else {}),
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "last_event_id": self.events.last_id,
        }
