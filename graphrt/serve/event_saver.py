"""Runs' event logs saved to the store as they grow, so that SSE replay has a run's whole log after a restart.

One task writes for every run: it takes every log's unsaved records and writes them
in one store call (`add_event_batches`: the records of every run waiting, up to
_BATCH; a store that cannot write several runs' events at once gets one call per
log from its GuardedStore), then shows them to the logs' readers (events.py: a
durable log shows only saved records, so ids never change across a restart).
Under load, records that arrived while a write went on go together in the next,
so a write per event is the light-load case only.

A write that fails leaves its records unsaved, so unshown: they are written
again after a pause that doubles from 0.1 s up to 5 s (the store is asked first
how far it got, so a write that did land is not made twice). A lost event never
looks like a saved one. While the store cannot keep up, a run's unsaved records
reach their bound (events.py) and the run waits, or fails saying why
(workers.py). A failure streak is logged once, and its end once.

On a store several servers share, a write of a run that another server took over
is refused (LeaseLost, the store's fence of each run's claim), and so is the whole
write it was part of. Such a write is made again one run at a time, so that one
run lost here holds back no other's events: the run the store refuses is told to
`on_refused` (HeldStore.lose_run: it stops here without a write) and its unsaved
records are dropped, never shown (the run's new server continues its log after
what the store holds).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from typing import Protocol

import anyio

from graphrt.base.defaults import MAX_UNSAVED_EVENTS
from graphrt.checkpoint.base import EventBatches, EventStore
from graphrt.checkpoint.errors import LeaseLost
from graphrt.serve.events import EventLog, Record

__all__ = ["EventSaver"]

log = logging.getLogger("graphrt.serve")

_BATCH = 500  # records per write at most: one write stays short however fast a run makes events
_FIRST_PAUSE, _LONGEST_PAUSE = 0.1, 5.0  # seconds before a failed write is tried again


class BatchedEventStore(EventStore, EventBatches, Protocol):
    """An EventStore that writes several runs' events at once: a GuardedStore of any EventStore is one."""


class EventSaver:
    """Saves the event logs of a server's runs to an EventStore (`serve()` runs it as a task).

    Args:
        on_refused: on a store several servers share, called with a run whose write the store refused (another
            server holds it now); None on a store with one owner, where a refusal is the whole store's.
    """

    def __init__(self, store: BatchedEventStore, *, max_unsaved: int = MAX_UNSAVED_EVENTS,
                 on_refused: Callable[[str], None] | None = None) -> None:
        self.store = store
        self.max_unsaved = max_unsaved
        self.on_refused = on_refused
        self.failure: str | None = None  # why the last write failed, while the store fails
        self.serving = False  # its task saves what runs append (`serve`): past it, nothing appended is saved
        self._waiting: dict[str, EventLog] = {}  # run id -> its log, while it has unsaved records
        self._retry: set[str] = set()  # runs whose last write failed: the store may hold part of it
        self._wake = anyio.Event()
        self._loop_thread = threading.get_ident()  # made on the event loop (EventLogs.start)

    def log_for(self, run_id: str, limit: int, first_id: int) -> EventLog:
        """A durable log for run `run_id` whose ids start at `first_id`, saved by this saver."""
        return EventLog(limit, first_id=first_id, durable=True, max_unsaved=self.max_unsaved,
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
        pause = _FIRST_PAUSE
        self.serving = True
        try:
            while True:
                with anyio.move_on_after(1.0):  # records appended from threads anyio did not start set no event
                    await self._wake.wait()
                self._wake = anyio.Event()
                if await self.flush():
                    pause = _FIRST_PAUSE
                else:
                    await anyio.sleep(pause)
                    pause = min(_LONGEST_PAUSE, pause * 2)
        finally:
            self.serving = False
            with anyio.CancelScope(shield=True):
                await self.flush()

    async def flush(self) -> bool:
        """Writes every log's unsaved records; False when the store failed (what it did not take stays unsaved,
        for the next flush)."""
        while self._waiting:
            waiting, self._waiting = self._waiting, {}  # a log appended to meanwhile comes back for the next turn
            try:
                try:
                    await self._write_all(waiting)
                except LeaseLost:
                    if self.on_refused is None:  # a store with one owner: the whole store is lost (held_store.py)
                        raise
                    await self._write_each(waiting, self.on_refused)
            except BaseException as error:  # noqa: BLE001 - a store's failure must not stop the saver
                for run_id, event_log in waiting.items():
                    if event_log.unsaved_count:
                        self._waiting.setdefault(run_id, event_log)
                        self._retry.add(run_id)  # a write cut off (cancelled, failed) may have landed
                if not isinstance(error, Exception):
                    raise
                if self.failure is None:
                    log.warning("could not save the events of %s (they are kept and written again): %s",
                                _runs_named(waiting), error)
                self.failure = f"{type(error).__name__}: {error}"
                return False
        if self.failure is not None:
            log.warning("events are saved again")
            self.failure = None
        return True

    async def _write_each(self, waiting: dict[str, EventLog], on_refused: Callable[[str], None]) -> None:
        """The logs written one run at a time after a write the store refused (rolled back whole): a run another
        server took over is lost here and its unsaved records dropped, the others' are written."""
        for run_id, event_log in list(waiting.items()):
            try:
                await self._write_all({run_id: event_log})
            except LeaseLost:
                self._retry.discard(run_id)
                event_log.drop_unsaved()
                on_refused(run_id)
            del waiting[run_id]  # written, or dropped: a failure after it leaves the runs not written yet

    async def _write_all(self, waiting: dict[str, EventLog]) -> None:
        """The unsaved records of the logs, in writes of at most _BATCH records each, each of as many runs as
        it can hold."""
        for run_id in [run_id for run_id in waiting if run_id in self._retry]:  # what the store has is saved
            waiting[run_id].saved(await self.store.last_event_id(run_id))
            self._retry.discard(run_id)
        batch: list[tuple[str, EventLog, list[Record]]] = []
        size = 0
        for run_id, event_log in waiting.items():
            records = event_log.unsaved()
            for start in range(0, len(records), _BATCH):
                part = records[start:start + _BATCH]
                if size + len(part) > _BATCH and batch:
                    await self._write_batch(batch)
                    batch, size = [], 0
                batch.append((run_id, event_log, part))
                size += len(part)
        if batch:
            await self._write_batch(batch)

    async def _write_batch(self, batch: list[tuple[str, EventLog, list[Record]]]) -> None:
        await self.store.add_event_batches([(run_id, [(event_id, json.dumps(record)) for event_id, record in records])
                                            for run_id, _, records in batch])
        for _, event_log, records in batch:
            event_log.saved(records[-1][0])


def _runs_named(waiting: dict[str, EventLog]) -> str:
    names = list(waiting)
    if len(names) == 1:
        return f"run {names[0]}"
    return f"{len(names)} runs ({', '.join(names[:3])}{', ...' if len(names) > 3 else ''})"
