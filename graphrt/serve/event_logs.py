"""The event logs of a server's runs: saved to the store as they grow when it keeps event logs, else in memory.

With a store that keeps event logs (an EventStore), each run's log is durable: one
EventSaver task writes every log's new records (event_saver.py) and a record is
shown to readers once saved, so an event id means the same event after a restart,
and a run read back continues its log after what the store holds. Without one, a
log lives as long as the server, and a run read back starts a new one.

Where readers get a run's events from is decided here: a log kept by another
server's runs (several servers on one store) would be made here too.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anyio

from graphrt.base.defaults import EVENTS_IN_MEMORY, MAX_UNSAVED_EVENTS
from graphrt.base.states import RunStatus
from graphrt.checkpoint.guard import GuardedStore
from graphrt.serve.event_saver import EventSaver
from graphrt.serve.events import EventLog

__all__ = ["EventLogs"]

_PAGE = 1000  # saved events read back in one call


class EventLogs:
    """Makes each run's EventLog, keeping its last `limit` records in memory; `max_unsaved`: the records of one
    run that may wait for the store before the run is held (event_backpressure.py)."""

    def __init__(self, limit: int = EVENTS_IN_MEMORY, max_unsaved: int = MAX_UNSAVED_EVENTS) -> None:
        self.limit = limit
        self.max_unsaved = max_unsaved
        self._saver: EventSaver | None = None

    @property
    def durable(self) -> bool:
        """Whether runs' event logs are saved to the store (it is an EventStore): their ids hold across restarts."""
        return self._saver is not None

    @property
    def saving(self) -> bool:
        """Whether what runs append is still saved to the store as it comes and taken (it saves, and the last write
        did not fail): a run's end waits for its events only then (workers.py)."""
        return self._saver is not None and self._saver.serving and self._saver.failure is None

    @property
    def failure(self) -> str | None:
        """Why the store's last write of events failed, while it fails."""
        return self._saver.failure if self._saver is not None else None

    def start(self, store: GuardedStore, tg: anyio.abc.TaskGroup,
              on_refused: Callable[[str], None] | None = None) -> None:
        """Saves logs to `store`, by a task of `tg`, if it keeps event logs (until `stop`); `on_refused`: a run whose
        write a store several servers share refused (another server took it over)."""
        if store.abilities.events:
            self._saver = EventSaver(store, max_unsaved=self.max_unsaved, on_refused=on_refused)
            tg.start_soon(self._saver.serve)

    def stop(self) -> None:
        self._saver = None

    async def saved(self, run_id: str) -> int:
        """How many of the run's events the store holds (0 when it keeps none)."""
        return await self._saver.store.last_event_id(run_id) if self._saver is not None else 0

    async def ends_saved(self, run_id: str, saved: int) -> bool:
        """Whether the first `saved` records of an ended run's log in the store (what its log read back holds: it
        goes on after them) end with its end (its RunStatus). The server that ran it saves the run's events, then its
        end, then its status last (graphrt.serve.workers): until then, what the store holds is not the whole log;
        nor is what it held when the log was read back, though it holds the whole log by now. A server killed
        before it saved the status leaves it to the server that claims the run next (recovery.py adds it). None
        saved: not yet, as far as this server knows (the store's followed log finds out)."""
        if self._saver is None:
            return True
        if saved == 0:
            return False
        found = await self._saver.store.get_events(run_id, saved - 1, 1)
        record = json.loads(found[-1][1]) if found else {}
        return record.get("type") == "RunStatus" and record.get("status") in RunStatus.ENDED

    async def saved_records(self, run_id: str, up_to: int, kinds: frozenset[str]) -> list[dict[str, Any]]:
        """The records among the run's first `up_to` saved events whose type is one of `kinds`, oldest first: what a
        run read back had said before (none when the store keeps no events). A record is parsed only when its text
        names one of the types."""
        if self._saver is None:
            return []
        marks = tuple(f'"type": "{kind}"' for kind in kinds)  # as json.dumps writes a record (event_saver.py)
        found: list[dict[str, Any]] = []
        after = 0
        while after < up_to:
            page = await self._saver.store.get_events(run_id, after, min(_PAGE, up_to - after))
            if not page:
                break
            for _, text in page:
                if any(mark in text for mark in marks):
                    record = json.loads(text)
                    if record.get("type") in kinds:
                        found.append(record)
            after = page[-1][0]
        return found

    def log_for(self, run_id: str, *, saved: int = 0) -> EventLog:
        """A run's event log: saved to the store as it grows (after the `saved` events it has there already)."""
        if self._saver is None:
            return EventLog(self.limit)
        return self._saver.log_for(run_id, self.limit, saved + 1)
