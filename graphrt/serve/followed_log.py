"""The event log of a run another server runs (several servers on one store), read from the store as it grows.

A server writes the events of the runs it runs into the store before any reader sees them (event_saver.py),
with ids that every server shares. A reader that asks another server for the run's events gets them from the
store: the records after its Last-Event-ID, then each new one as the running server saves it, until the run ended
and its whole log is read. The ids are the store's, so a reader may go from one server to another with its
Last-Event-ID. On a store that announces the events saved (announcements.py), the log is read again when they are
announced, and every few seconds besides; on one that does not, at each `wait` (a second at most, as a reader's
stream looks at its log).
"""

from __future__ import annotations

import json
import time
from typing import Any

import anyio

from graphrt.base.states import RunStatus
from graphrt.checkpoint.guard import GuardedStore
from graphrt.serve.announcements import Announced

__all__ = ["FollowedLog"]

Record = tuple[int, dict[str, Any]]

_QUIET_SECONDS = 10.0
"""Seconds without a new record after which a run its store says ended is taken as ended even though its log does
not end with its status: its server was killed between saving the run's end and its status, and no server added it
since (the one that claims the run next does, within the lease: recovery.py); a reader is not held for ever."""

_UNANNOUNCED_READ = 5.0
"""Seconds after which the store is read though nothing was announced: what an announcement can miss is read then."""


class FollowedLog:
    """What a reader's stream asks of a run's EventLog (`read`, `wait`, `closed`, `last_id`), read from `store`."""

    def __init__(self, store: GuardedStore, run_id: str, announced: Announced | None = None) -> None:
        self.store = store
        self.run_id = run_id
        self.announced = announced
        self._last = 0  # the last id read from the store
        self._ended = False  # the run ended, and its log's last record, its status, is read
        self._final = False  # the last record read is the run's status as it ended
        self._found_at = time.monotonic()  # when a read last found records
        self._read_at = 0.0  # when the store was last read
        self._news: anyio.Event | None = None  # set when the run's events are announced saved after the last read
        self._whole = False  # the last read found every record saved then (fewer than its limit)

    @property
    def last_id(self) -> int:
        return self._last

    @property
    def closed(self) -> bool:
        """The run ended and every event read before that was known is read: nothing more comes."""
        return self._ended

    async def read(self, last_id: int, limit: int = 1000) -> tuple[list[Record], int]:
        """The saved records after `last_id` (none missed: the store keeps the whole log). The run's end is known
        from its log: its last record, saved after every other, is its status as it ended. Not read again while
        the store is heard and announced nothing new for the run (a few seconds at most)."""
        now = time.monotonic()
        if self._skips(last_id, now):
            return [], 0
        if self.announced is not None:
            self._news = self.announced.changed(self.run_id)  # before reading: what is saved meanwhile wakes `wait`
        self._read_at = now
        found = [(event_id, json.loads(text)) for event_id, text in
                 await self.store.get_events(self.run_id, last_id, limit)]
        self._whole = len(found) < limit
        if found:
            self._last = max(self._last, found[-1][0])
            last = found[-1][1]
            self._final = last.get("type") == "RunStatus" and last.get("status") in RunStatus.ENDED
            self._found_at = now
        if (self._final and len(found) < limit) or now - self._found_at >= _QUIET_SECONDS:
            record = await self.store.get_run(self.run_id)  # the status saved too: not a run resumed since
            self._ended = record is None or RunStatus.read(record.status) in RunStatus.ENDED
            if self._ended and self.announced is not None:
                self.announced.forget(self.run_id)
        return found, 0

    def _skips(self, last_id: int, now: float) -> bool:
        """Whether a read would find nothing new: the store is heard, nothing was announced since the last read
        of what follows `last_id`, and that read was recent."""
        return (self.announced is not None and self.announced.live and self._news is not None and self._whole
                and not self._news.is_set() and last_id >= self._last and now - self._read_at < _UNANNOUNCED_READ)

    async def wait(self, last_id: int, timeout: float) -> None:
        """Waits up to `timeout` seconds (a second at most unless the store is heard) for the running server to save
        more."""
        if self._ended or (self._read_at and not self._whole):  # more is saved already: read on now
            return
        if self._news is None or self.announced is None or not self.announced.live:
            await anyio.sleep(min(timeout, 1.0))
            return
        with anyio.move_on_after(timeout):
            await self._news.wait()
