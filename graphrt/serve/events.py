"""A run's events as the server keeps them: numbered, redacted JSON records that SSE readers replay.

Each record gets an id (1, 2, 3, ...) so that a reader that reconnects with
`Last-Event-ID: N` gets exactly the records after N. A log keeps its last
`limit` records; a reader that asks for older ones is told how many it missed.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any

import anyio

__all__ = ["EventLog"]


class EventLog:
    """The records of one run, in order; appended from the event loop, read by any number of SSE readers."""

    def __init__(self, limit: int = 10_000) -> None:
        self._records: deque[tuple[int, dict[str, Any]]] = deque(maxlen=limit)
        self._next_id = 1
        self._lock = threading.Lock()
        self._changed = anyio.Event()
        self.closed = False  # the run has ended: no record will follow

    @property
    def last_id(self) -> int:
        return self._next_id - 1

    def append(self, record: dict[str, Any], *, notify: bool = True) -> None:
        """Adds a record; `notify=False` from a thread outside the event loop (readers poll then)."""
        with self._lock:
            self._records.append((self._next_id, record))
            self._next_id += 1
        if notify:
            self._wake()

    def close(self) -> None:
        self.closed = True
        self._wake()

    def _wake(self) -> None:
        changed, self._changed = self._changed, anyio.Event()
        changed.set()

    def after(self, last_id: int) -> tuple[list[tuple[int, dict[str, Any]]], int]:
        """The records after `last_id`, and how many records after it were dropped already (0 normally)."""
        with self._lock:
            records = [item for item in self._records if item[0] > last_id]
            first = self._records[0][0] if self._records else self._next_id
        return records, max(0, first - last_id - 1)

    async def wait(self, last_id: int, timeout: float) -> None:
        """Returns when records after `last_id` exist, the log closes, or `timeout` seconds pass."""
        if self.last_id > last_id or self.closed:
            return
        changed = self._changed
        with anyio.move_on_after(timeout):
            await changed.wait()
