"""Runs' event logs saved to the store as they grow, so that SSE replay has a run's whole log after a restart.

One task writes for every run: it takes each log's unsaved records and writes them
in one store call per log, then shows them to the log's readers (events.py: a
durable log shows only saved records, so ids never change across a restart).
Under load, records that arrived while a write went on go together in the next,
so a write per event is the light-load case only. A store that fails is logged
once per failure streak, and the records are shown anyway: live readers are not
held up by a store that cannot keep them.
"""

from __future__ import annotations

import json
import logging
import threading

import anyio

from graphrt.checkpoint.base import EventStore
from graphrt.serve.events import EventLog, Record

__all__ = ["EventSaver"]

log = logging.getLogger("graphrt.serve")

_BATCH = 500  # records per write at most: one write stays short however fast a run makes events


class EventSaver:
    """Saves the event logs of a server's runs to an EventStore (`serve()` runs it as a task)."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._waiting: dict[str, EventLog] = {}  # run id -> its log, while it has unsaved records
        self._wake = anyio.Event()
        self._loop_thread = threading.get_ident()  # made on the event loop (RunService.serve)
        self._failing = False

    def log_for(self, run_id: str, limit: int, first_id: int) -> EventLog:
        """A durable log for run `run_id` whose ids start at `first_id`, saved by this saver."""
        return EventLog(limit, first_id=first_id, durable=True,
                        on_append=lambda event_log: self._appended(run_id, event_log),
                        history=lambda after, count: self._history(run_id, after, count))

    def _appended(self, run_id: str, event_log: EventLog) -> None:
        self._waiting[run_id] = event_log
        if threading.get_ident() == self._loop_thread:  # from a thread anyio did not start: the saver looks every second
            self._wake.set()

    async def _history(self, run_id: str, after: int, limit: int) -> list[Record]:
        return [(event_id, json.loads(text)) for event_id, text in await self.store.get_events(run_id, after, limit)]

    async def serve(self) -> None:
        """Saves what runs append until cancelled, then what is left (shielded)."""
        try:
            while True:
                with anyio.move_on_after(1.0):  # records appended from threads anyio did not start set no event
                    await self._wake.wait()
                self._wake = anyio.Event()
                await self.flush()
        finally:
            with anyio.CancelScope(shield=True):
                await self.flush()

    async def flush(self) -> None:
        """Writes every log's unsaved records."""
        while self._waiting:
            run_id, event_log = self._waiting.popitem()
            records = event_log.unsaved()
            for start in range(0, len(records), _BATCH):
                batch = records[start:start + _BATCH]
                try:
                    await self.store.add_events(run_id, [(event_id, json.dumps(record)) for event_id, record in batch])
                    self._failing = False
                except Exception as error:  # noqa: BLE001 - a store's failure must not stop the run or its readers
                    if not self._failing:
                        log.warning("could not save the events of run %s: %s", run_id, error)
                    self._failing = True
                event_log.saved(batch[-1][0])
