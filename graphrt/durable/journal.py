"""`StoreLog`: a checkpointed run's journal of outside calls, kept in its checkpoint store.

A run saved as it goes (runs.py) journals its outside calls in its store when the store keeps journals
(checkpoint/base.py's JournalStore): a resumed run then takes the result of every call the run made
before it stopped instead of making the call again (graphrt/engine/journal.py says which calls, and how
an uncertain one is decided). Entries are written through the run's GuardedStore, as its rows are: a
store that fails fails the call's node with the store's CheckpointError. The entry of a call harmless to make
again is queued where the store can (QueuedCalls) and committed with the run's next write, which the store
makes after it: an entry lost to a crash is lost with everything that depended on it.
"""

from __future__ import annotations

from typing import Awaitable, Sequence

from graphrt.checkpoint.guard import GuardedStore
from graphrt.checkpoint.records import JournalEntry
from graphrt.engine.journal import CallLog
from graphrt.graphdata.spec import GraphSpec

__all__ = ["StoreLog"]


class StoreLog(CallLog):
    """The journal of the run `run_id` in `store`, which keeps journals (`store.abilities.journal`).

    Args:
        fresh: the run is new: nothing to read back.
    """

    def __init__(self, store: GuardedStore, run_id: str, *, fresh: bool = False) -> None:
        self.store = store
        self.run_id = run_id
        self.location = store.location
        self._fresh = fresh

    async def load(self, run_id: str, graph: GraphSpec) -> Sequence[JournalEntry]:
        if self._fresh:
            return ()
        return await self.store.get_calls(self.run_id)

    async def save(self, entry: JournalEntry) -> None:
        await self.store.add_call(entry)

    def queue(self, entry: JournalEntry, *, hold: bool = False) -> Awaitable[None] | None:
        return self.store.queue_call(entry, hold=hold)

    async def drop(self, entry: JournalEntry) -> None:
        await self.store.drop_call(entry.run_id, entry.path, entry.index)
