"""A run's events as the server keeps them: numbered, redacted JSON records that SSE readers replay.

Each record gets an id (1, 2, 3, ...) so that a reader that reconnects with
`Last-Event-ID: N` gets exactly the records after N. A log keeps its last
`limit` records in memory; older ones come from `history` (the store's copy of
the log, see event_saver.py), else a reader that asks for them is told how many
it missed.

A durable log (`durable=True`) shows a record to readers only once it is saved:
no reader ever saw an event that a restarted server does not have, so ids stay
the same across restarts. Its unsaved records are bounded: at `max_unsaved` the
run is held at its next step until the store catches up (`room`, which
serve/event_backpressure.py awaits), and a run that makes twice as many within
one step is failed by `on_overflow` (workers.py sets it): a store that cannot keep
up fails the run that outpaces it, and never costs an event that looks saved.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from graphrt.base.defaults import EVENTS_IN_MEMORY, MAX_UNSAVED_EVENTS

__all__ = ["EventLog", "History"]

Record = tuple[int, dict[str, Any]]
History = Callable[[int, int], Awaitable[list[Record]]]
"""(after, limit) -> the saved records with ids above `after`, oldest first."""


class EventLog:
    """The records of one run, in order; appended from the event loop, read by any number of SSE readers."""

    def __init__(self, limit: int = EVENTS_IN_MEMORY, *, first_id: int = 1, durable: bool = False,
                 on_append: Callable[["EventLog"], None] | None = None, history: History | None = None,
                 max_unsaved: int = MAX_UNSAVED_EVENTS) -> None:
        if max_unsaved < 1:
            raise ValueError("max_unsaved must be at least 1")
        self._records: deque[Record] = deque(maxlen=limit)
        self._unsaved: list[Record] = []  # of a durable log: kept until saved, even once out of `_records`
        self._next_id = first_id
        self._shown_id = first_id - 1  # the last record readers may see: all of them, or the saved ones if durable
        self._saved_id = first_id - 1
        self._durable = durable
        self._on_append = on_append
        self._history = history
        self._lock = threading.Lock()
        self._changed: anyio.Event | None = None  # made when someone waits: most changes have no one waiting
        self._closed = False
        self.max_unsaved = max_unsaved
        self.on_overflow: Callable[[int], None] | None = None  # called once with the count, at 2 * max_unsaved
        self._overflowed = False
        self._full = False  # max_unsaved records wait for the store; saved() clears it
        self._dropped = False  # the run was taken over by another server (`drop_unsaved`): nothing more is kept

    @property
    def last_id(self) -> int:
        """The id of the last record readers can have."""
        return self._shown_id

    @property
    def closed(self) -> bool:
        """The run has ended and readers have every record: none will follow."""
        return self._closed and self._shown_id == self._next_id - 1

    def append(self, record: dict[str, Any], *, notify: bool = True) -> None:
        """Adds a record; `notify=False` from a thread outside the event loop (readers poll then)."""
        with self._lock:
            if self._dropped:  # the run is another server's: what it did here after that is no event of its log
                return
            self._records.append((self._next_id, record))
            if self._durable:
                self._unsaved.append((self._next_id, record))
                waiting = len(self._unsaved)
            else:
                self._shown_id = self._next_id
                waiting = 0
            self._next_id += 1
        if waiting >= self.max_unsaved:
            self._held(waiting)
        if self._on_append is not None:
            self._on_append(self)
        if notify and not self._durable:
            self._wake()

    def _held(self, waiting: int) -> None:
        self._full = True
        if waiting >= 2 * self.max_unsaved and not self._overflowed and self.on_overflow is not None:
            self._overflowed = True
            self.on_overflow(waiting)

    @property
    def unsaved_count(self) -> int:
        """Records appended and not saved yet (always 0 for a log that is not durable)."""
        return len(self._unsaved)

    @property
    def full(self) -> bool:
        """As many records wait for the store as the log may hold unsaved: the run should wait (`room`)."""
        return self._full

    async def room(self) -> None:
        """Returns once fewer than `max_unsaved` records wait for the store."""
        while self._full:
            await self._waiter().wait()  # saved() wakes it

    async def all_saved(self) -> None:
        """Returns once every record appended so far is saved (a shared store's run is given up only then: another
        server's writes to its log come after them)."""
        while self._unsaved:
            await self._waiter().wait()  # saved() wakes it

    def close(self) -> None:
        self._closed = True
        self._wake()

    def drop_unsaved(self) -> None:
        """Another server took the run over and continues its log after what the store holds: the records not saved
        are dropped, never shown (their ids are the other server's to give), and the log ends here; a run held for
        room, or a claim waiting for every record to be saved, goes on."""
        with self._lock:
            self._dropped = True
            self._unsaved.clear()
            self._next_id = self._shown_id + 1
        self._full = False
        self.close()

    def _wake(self) -> None:
        changed, self._changed = self._changed, None
        if changed is not None:
            changed.set()

    def _waiter(self) -> anyio.Event:
        """The event the next change sets (on the event loop)."""
        if self._changed is None:
            self._changed = anyio.Event()
        return self._changed

    # ----- saving (event_saver.py) -----

    def unsaved(self) -> list[Record]:
        """The records not saved yet, oldest first."""
        with self._lock:
            return list(self._unsaved)

    def saved(self, up_to: int) -> None:
        """Records up to `up_to` are saved: readers may have them now."""
        with self._lock:
            self._saved_id = max(self._saved_id, up_to)
            self._shown_id = max(self._shown_id, min(up_to, self._next_id - 1))
            done = next((index for index, item in enumerate(self._unsaved) if item[0] > up_to), len(self._unsaved))
            del self._unsaved[:done]
            waiting = len(self._unsaved)
        if waiting < self.max_unsaved:
            self._full = False
        self._wake()

    # ----- reading -----

    def after(self, last_id: int) -> tuple[list[Record], int]:
        """The records in memory after `last_id`, and how many records after it are not in memory (0 normally)."""
        with self._lock:
            records = [item for item in self._records if last_id < item[0] <= self._shown_id]
            first = self._records[0][0] if self._records else self._next_id
        return records, max(0, min(first, self._shown_id + 1) - last_id - 1)

    async def read(self, last_id: int, limit: int = 1000) -> tuple[list[Record], int]:
        """The records after `last_id`: from the store's copy for those no longer in memory; and how many
        records after it could be read from neither (0 normally)."""
        records, missed = self.after(last_id)
        if not missed or self._history is None:
            return records, missed
        older = [item for item in await self._history(last_id, limit) if item[0] <= self._shown_id]
        if not older:
            return records, missed
        return older, older[0][0] - last_id - 1  # the reader asks again after them, and reaches memory

    async def wait(self, last_id: int, timeout: float) -> None:
        """Returns when records after `last_id` exist, the log closes, or `timeout` seconds pass."""
        if self.last_id > last_id or self.closed:
            return
        changed = self._waiter()
        with anyio.move_on_after(timeout):
            await changed.wait()
