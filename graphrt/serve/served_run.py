"""`ServedRun`: one run as the server tracks it: its status, node states, outcome and event log.

Statuses and node states, as clients see them, are graphrt.base.states' RunStatus
(queued, running, interrupted: a node asked a question and `resume` answers it,
finished, failed, cancelled) and, for nodes, the engine's own NodeState. What the
server knows of each node is in the run's NodeLedger (node_ledger.py); its events,
numbered for the readers of its stream, in its EventLog (events.py).
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
from graphrt.observe.trace import event_record
from graphrt.serve.catalog import ServedGraph
from graphrt.serve.events import DEFAULT_KEPT, EventLog
from graphrt.serve.node_ledger import NodeLedger

__all__ = ["ServedRun"]

log = logging.getLogger("graphrt.serve")


class ServedRun:
    """One run as the server tracks it: its status, node states, outcome and event log."""

    def __init__(self, run_id: str, graph: ServedGraph, redactor: Redactor, *,
                 status: RunStatus = RunStatus.QUEUED, all_results: bool = False,
                 created_at: float | None = None, event_limit: int = DEFAULT_KEPT, events: EventLog | None = None,
                 shown: Callable[[str], str] | None = None) -> None:
        self.id = run_id
        self.graph = graph
        self.status = status
        self.all_results = all_results
        self.created_at = created_at or time.time()
        self.updated_at = self.created_at
        self.started_at: float | None = None
        self.ended_at: float | None = None
        self.results: Any = None
        self.error: str | None = None
        self.question: str | None = None
        self.inputs: dict[str, Any] = {}  # the values the run was started with (redacted), by static node
        self.parent: dict[str, Any] | None = None  # a fork's origin: {"run_id", "node_id", "set"}
        self.answers: list[dict[str, Any]] = []  # what people answered, in order: {"key", "answer", "time"}
        self.ledger = NodeLedger([node["id"] for node in graph.description.get("drawing", {}).get("nodes", [])
                                  if node["kind"] == "computed"])
        self.events = events if events is not None else EventLog(event_limit)
        self.cancel_requested = False
        self.watchers: list[Callable[[Event], Any]] = []  # given each event on the event loop (`watch`)
        self.scope: anyio.CancelScope | None = None
        self._redactor = redactor
        self._shown = shown or redactor.text  # an error's text as clients see it (no credentials, no server paths)
        self._settled = anyio.Event()
        self._loop_thread = threading.get_ident()

    # ----- what happens to it -----

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
        """The top-level nodes' states."""
        return self.ledger.states()

    def watch(self, watcher: Callable[[Event], Any]) -> Callable[[], None]:
        """Gives `watcher` each event of the run from now on, on the event loop; returns what stops it.

        A watcher that raises is stopped (and said once in the log): it never costs the run an event."""
        self.watchers.append(watcher)

        def stop() -> None:
            if watcher in self.watchers:
                self.watchers.remove(watcher)

        return stop

    def _record_event(self, event: Event, *, notify: bool = True) -> None:
        """Logs the event as readers get it (a node's event names the `state` it leaves the node in), then
        gives it to the watchers."""
        record = event_record(event, self._redactor)
        if isinstance(record.get("error"), str):
            record["error"] = self._shown(record["error"])
        self.ledger.record(event, record)
        self.events.append(record, notify=notify)
        if notify:  # on the event loop (the other case is a thread anyio did not start): watchers use its streams
            for watcher in tuple(self.watchers):  # a copy: a watcher may stop itself
                try:
                    watcher(event)
                except Exception:  # noqa: BLE001 - a watcher's fault is its own: the run and its log go on
                    log.exception("run %s: an event watcher failed and no longer watches", self.id)
                    if watcher in self.watchers:
                        self.watchers.remove(watcher)

    def set_status(self, status: RunStatus, *, results: Any = None, error: str | None = None,
                   question: str | None = None, announce: bool = True) -> None:
        """Sets how the run stands, and tells its readers with a RunStatus event (unless not `announce`: a run
        read back from the store whose saved log says it already)."""
        self.status = status
        self.updated_at = time.time()
        if status == RunStatus.RUNNING and self.started_at is None:
            self.started_at = self.updated_at
        if status in RunStatus.ENDED:
            self.ended_at = self.updated_at
        self.results = results
        self.error = error
        self.question = question
        if status in RunStatus.SETTLED:
            self._settled.set()
        elif self._settled.is_set():
            self._settled = anyio.Event()
        if announce:
            self.events.append({"type": "RunStatus", "run_id": self.id, "time": self.updated_at, **self._outcome(),
                               "nodes": dict(self.nodes)})
        if status in RunStatus.ENDED:
            self.events.close()
            self.watchers.clear()  # no event follows: a watcher whose reader never came is let go too

    async def settled(self) -> None:
        """Waits until the run ends or asks a question."""
        while self.status not in RunStatus.SETTLED:
            await self._settled.wait()

    # ----- what a client sees -----

    def _outcome(self) -> dict[str, Any]:
        outcome: dict[str, Any] = {"status": self.status}
        if self.results is not None:
            outcome["results"] = self.results
        if self.error is not None:
            outcome["error"] = self.error
        if self.question is not None:
            outcome["question"] = self.question
        if self.answers:
            outcome["answers"] = list(self.answers)
        return outcome

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "graph": self.graph.name,
            **self._outcome(),
            "nodes": dict(self.nodes),
            "inputs": self.inputs,
            **({"parent": self.parent} if self.parent is not None else {}),
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "last_event_id": self.events.last_id,
        }

