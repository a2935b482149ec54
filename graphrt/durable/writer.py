"""`CheckpointWriter`: the run observer that saves a run as it goes, one row per completed node.

A row holds the node's result as it is, but for the credentials the run knows (its redactor's: see
durable/credentials.py), which are hidden.

Saving is a hook, as in Burr: the run awaits the writer's `node_completed`
before the node's waiters start, and the writer turns each call into one row
(that node's result, or an iteration's static values). Store calls are
coroutines, so saving never blocks the event loop. A node that no other node
waits for starts nothing once saved: where the store can queue rows
(`queue_rows`), its row is queued and committed with what the run writes next
(the next iteration's row, or the run's end, which is awaited), one commit
instead of two in turn; a run returns only once all its rows are committed. Only the top graph is saved:
a nested graph's nodes run again with their node when a run is resumed.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Mapping, Sequence

import anyio

from graphrt.base.secrets import Redactor
from graphrt.base.states import NodeState
from graphrt.base.usage import Usage
from graphrt.checkpoint.errors import Unsavable
from graphrt.checkpoint.guard import GuardedStore
from graphrt.checkpoint.records import Row
from graphrt.checkpoint.values import encode_value
from graphrt.durable.credentials import saved_data
from graphrt.observe.observer import RunObserver

__all__ = ["CheckpointWriter"]


class CheckpointWriter(RunObserver):
    """One row per completed node of the top graph, one per iteration start.

    It never raises into the run: if the store fails, it remembers the error and
    calls `on_failure` (which stops the run), and the caller raises CheckpointError.
    """

    def __init__(self, store: GuardedStore, run_id: str, saved_iteration: int | None = None,
                 started: Awaitable[None] | None = None,
                 waitlists: Mapping[str, Sequence[str]] | None = None, redactor: Redactor | None = None) -> None:
        self.store = store
        self.redactor = redactor or Redactor()  # the credentials the run knows, hidden in what is saved
        self._started = started  # the run's claim and record, queued before it started: awaited before any row
        # The top graph's waiters of each node: a node without any has its row queued, not awaited (None: all awaited).
        self._waitlists = waitlists
        self._unsaved: list[tuple[Awaitable[None], list[Row]]] = []  # rows queued and not awaited yet
        self.run_id = run_id
        self.failure: BaseException | None = None
        self.on_failure: Callable[[], None] = _nothing
        self.started = False  # the run has started its first iteration
        self._statics: tuple[int, Mapping[str, Any]] | None = None  # the current iteration's static values
        self._iteration = saved_iteration  # the iteration whose static values are saved
        self._unsavable: int | None = None  # an iteration whose static values JSON cannot hold
        self._lock = anyio.Lock()  # nodes completing together are saved one after the other
        # What the run spent (the Run's usage; durable sets it): saved as a `usage` row with the rows it writes when
        # it changed, so that a resumed run goes on counting (RunSnapshot.usage).
        self.spent: Callable[[], Usage | None] | None = None  # None: nothing spent yet (Run.spent)
        self._spent_saved: tuple[Any, ...] | None = None

    def hook(self, name: str) -> Callable[..., Any] | None:
        """The two hooks it has, without looking up the ten a run asks every observer for (a run makes one writer)."""
        if name == "node_completed":
            return self.node_completed
        if name == "iteration_started":
            return self.iteration_started
        return None

    def iteration_started(self, *, run_id: str, path: tuple[str | int, ...], iteration: int,
                          statics: Mapping[str, Any], **future: Any) -> Any:
        if path:
            return None
        self._statics = (iteration, statics)
        if not self.started:  # the first iteration is saved with its first node (or when the run stops)
            self.started = True
            return None
        return self._save(iteration, None, None)

    def node_completed(self, *, run_id: str, path: tuple[str | int, ...], iteration: int, node_id: str, value: Any,
                       duration: float, state: NodeState, **future: Any) -> Any:
        if path:
            return None
        # A node no other node waits for starts nothing once saved: its row is queued, and committed with what
        # the run writes next (the next row, or the run's end), which is awaited; its outcome is checked then.
        wait = self._waitlists is None or bool(self._waitlists.get(node_id))
        return self._save(iteration, node_id, value, wait)

    async def _save(self, iteration: int, node_id: str | None, value: Any, wait: bool = True) -> None:
        if self.failure is not None or iteration == self._unsavable:
            return
        try:  # a node completing alone takes the lock at once, without a turn of the event loop
            self._lock.acquire_nowait()
        except anyio.WouldBlock:
            await self._lock.acquire()
        try:
            if self._started is not None:
                await self._record_saved()
            if self.failure is None:
                await self._write(iteration, node_id, value, wait)
            if wait and self._unsaved:
                await self._rows_saved()  # queued before this write: committed by now
        finally:
            self._lock.release()
        if self.failure is not None:
            # Stop here, before the waiters of a node whose result is not saved start: agents that
            # await nothing would otherwise run the whole graph before the cancellation is seen.
            await anyio.lowlevel.checkpoint()

    async def _write(self, iteration: int, node_id: str | None, value: Any, wait: bool = True) -> None:
        try:
            rows = []
            started = self._iteration_row() if node_id is None or iteration != self._iteration else None
            if started is not None:
                rows.append(started)
            if node_id is not None and iteration == (started.iteration if started else self._iteration):
                try:
                    rows.append(Row(self.run_id, iteration, "node", node_id, saved_data(value, self.redactor)))
                except Unsavable:
                    pass  # not saved: the node runs again on resume
            if rows:
                spent = self._usage_row(rows[-1].iteration, again=started is not None)
                if spent is not None:
                    rows.append(spent)
            queued = self._queue(rows) if not wait else None
            if queued is not None:
                self._unsaved.append((queued, rows))
            else:
                await self._add(rows)
            if started is not None:
                self._iteration = started.iteration
        except Exception as error:  # noqa: BLE001 - a store failure stops the run, it is reported by the caller
            self.failure = error
            self.on_failure()

    async def settled(self, rows: bool = True) -> None:
        """Awaits what was queued and not awaited yet: the run's claim and record (the store's `start_new_run`:
        committed before any row of the run) and, with `rows`, the rows of nodes nobody waits for. A failure
        stops the run as a row's would (`failure`, `on_failure`)."""
        await self._record_saved()
        if rows:
            await self._rows_saved()

    async def _record_saved(self) -> None:
        started, self._started = self._started, None
        if started is not None:
            # Awaited once, maybe before it is made (an instant first node): not to be lost to a cancellation.
            with anyio.CancelScope(shield=True):
                await self._outcome(started)

    async def _rows_saved(self) -> None:
        # Not shielded: awaited after a later write of the run (the queue settles in order: done by then) or
        # in the run's shielded end.
        unsaved, self._unsaved = self._unsaved, []
        for queued, _ in unsaved:
            await self._outcome(queued)

    def detach(self) -> None:
        """The run's end is saved: lets go of the run (what it spent, its cancel scope), which holds this writer
        among its observers, so that a finished run is freed at once, not by the next garbage collection
        (issue 44: with 50 runs at once, such cycles kept whole runs alive into the older generations)."""
        self.spent = None
        self.on_failure = _nothing

    def rows_in_doubt(self) -> list[Row]:
        """The rows queued and not awaited yet that the run's end depends on: those of the latest iteration
        among them (a later iteration's row drops the earlier ones' rows). The store saves the end only if
        they are saved (`finish_run`): it never says a run ended whose rows it did not take."""
        rows = [row for _, queued in self._unsaved for row in queued]
        latest = max((row.iteration for row in rows), default=None)
        return [row for row in rows if row.iteration == latest]

    async def _outcome(self, queued: Awaitable[None]) -> None:
        try:
            await queued
        except Exception as error:  # noqa: BLE001 - as a row's failure
            if self.failure is None:
                self.failure = error
                self.on_failure()

    def _queue(self, rows: list[Row]) -> Awaitable[None] | None:
        """The rows queued at once where the store can (QueuedRows: its end then depends on them); None: save
        them with `_add`."""
        return self.store.queue_rows(rows) if rows else None

    async def _add(self, rows: list[Row]) -> None:
        """The rows in one write where the store can (an iteration's row with its first node's: one commit)."""
        if len(rows) > 1:
            await self.store.add_rows(rows)
        elif rows:
            await self.store.add_row(rows[0])

    def _usage_row(self, iteration: int, again: bool = False) -> Row | None:
        """The row of what the run spent, if it changed since the last one saved (`again`: it spent anything, for an
        iteration row drops the earlier iterations' rows, its usage row with them); None: nothing to save."""
        if self.spent is None:
            return None
        usage = self.spent()
        if not usage:
            return None
        mark = (usage.used.calls, usage.retried.calls, usage.tool_calls, usage.waited)
        if mark == self._spent_saved and not again:
            return None
        self._spent_saved = mark
        return Row(self.run_id, iteration, "usage", "", encode_value(usage.to_dict()))

    async def save_usage(self) -> None:
        """Saves what the run spent, if it changed since its last usage row (the run ends: the calls of nodes that
        did not complete were spent too)."""
        if self._iteration is None:
            return
        row = self._usage_row(self._iteration)
        if row is not None:
            await self.store.add_row(row)

    async def save_iteration(self) -> None:
        """Saves the static values the current iteration started with (unless already saved)."""
        row = self._iteration_row()
        if row is not None:
            await self.store.add_row(row)
            self._iteration = row.iteration

    def _iteration_row(self) -> Row | None:
        """The row of the current iteration's static values; None if saved already or JSON cannot hold them."""
        if self._statics is None:
            return None
        iteration, statics = self._statics
        if iteration == self._iteration:
            return None
        try:
            text = saved_data(dict(statics), self.redactor)
        except Unsavable:
            self._unsavable = iteration  # resuming goes back to the last iteration that was saved
            return None
        return Row(self.run_id, iteration, "iteration", "", text)


def _nothing() -> None:
    """What a detached writer calls on a failure: nothing, the run has ended."""
