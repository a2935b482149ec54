"""The event log of a run another server runs (several servers on one store), read from the store as it grows.

A server writes the events of the runs it runs into the store before any reader sees them (event_saver.py),
with ids that every server shares. A reader that asks another server for the run's events gets them from the
store: the records after its Last-Event-ID, then each new one as the running server saves it, looked for at
each `wait` (a second at most, as a reader's stream looks at its log), until the run ended and its whole log
is read. The ids are the store's, so a reader may go from one server to another with its Last-Event-ID.
"""

from __future__ import annotations

import json
from typing import Any

import anyio

from graphrt.base.states import RunStatus
from graphrt.checkpoint.guard import GuardedStore

__all__ = ["FollowedLog"]

Record = tuple[int, dict[str, Any]]

_QUIET_READS = 10
"""Reads finding nothing new (a second apart at most) after which a run its store says ended is taken as ended even
though its log does not end with its status: its server was killed between saving the run's end and its last events,
which then never come (a reader is not held for ever)."""


class FollowedLog:
    """What a reader's stream asks of a run's EventLog (`read`, `wait`, `closed`, `last_id`), read from `store`."""

    def __init__(self, store: GuardedStore, run_id: str) -> None:
        self.store = store
        self.run_id = run_id
        self._last = 0  # the last id read from the store
        self._ended = False  # the run ended, and its log's last record, its status, is read
        self._final = False  # the last record read is the run's status as it ended
        self._quiet = 0  # reads in a row that found nothing new

    @property
    def last_id(self) -> int:
        return self._last

    @property
    def closed(self) -> bool:
        """The run ended and every event read before that was known is read: nothing more comes."""
        return self._ended

    async def read(self, last_id: int, limit: int = 1000) -> tuple[list[Record], int]:
        """The saved records after `last_id` (none missed: the store keeps the whole log). The run's end is known
        from its log: its last record, saved after every other, is its status as it ended."""
        found = [(event_id, json.loads(text)) for event_id, text in
                 await self.store.get_events(self.run_id, last_id, limit)]
        if found:
            self._last = max(self._last, found[-1][0])
            last = found[-1][1]
            self._final = last.get("type") == "RunStatus" and last.get("status") in RunStatus.ENDED
        self._quiet = 0 if found else self._quiet + 1
        if (self._final and len(found) < limit) or self._quiet >= _QUIET_READS:
            record = await self.store.get_run(self.run_id)  # the status saved too: not a run resumed since
            self._ended = record is None or RunStatus.read(record.status) in RunStatus.ENDED
        return found, 0

    async def wait(self, last_id: int, timeout: float) -> None:
        """Waits `timeout` seconds (a second at most) for the running server to save more."""
        if self._ended:
            return
        await anyio.sleep(min(timeout, 1.0))
