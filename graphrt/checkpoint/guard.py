"""`GuardedStore`: a store as graphrt uses it, with the whole contract written out and every failure a CheckpointError.

graphrt takes a store to use (a run, a resume, a fork, a batch, a server) through a GuardedStore. It finds the
store's abilities once (`Abilities.of`, base.py), so nothing after asks the store what it has, and it has every
method of the contract, each written out below:

- the ones every store has (CheckpointStore), passed on;
- the faster ways to save a run, with what a store without them gets instead: `add_rows` is `add_row` of each
  row, `queue_rows` and `start_new_run` say None (save the rows, claim and create the run, in turn), `finish_run`
  is `update_run` (rows never queued were saved already), `runs_page` a slice of `runs()`, `check` a read of a
  run no one saves, `add_event_batches` one `add_events` per run;
- the abilities a caller asks of `abilities` first (an event log, webhooks, a lease, several servers and what they
  announce, a journal of outside calls):
  a store without them has nothing to do in their place, and such a call is refused.

A driver raises its own errors (sqlite3.OperationalError, psycopg's, OSError); here each becomes a StoreFailed
naming the store and the call, which the run reports as the GraphError it is for its caller. The writes of runs
(`_run_write`) also go through `before_write` (graphrt serve's check that it still owns the store) and say when
the store stops taking them (`failed_write`, which /health shows).
"""

from __future__ import annotations

import functools
import time
from typing import (TYPE_CHECKING, Any, Awaitable, Callable, Concatenate, Coroutine, ParamSpec, Sequence, TypeVar,
                    cast)

from graphrt.checkpoint.base import (
    Abilities,
    Announcements,
    CheckpointStore,
    EventBatches,
    EventStore,
    JournalStore,
    LeaseStore,
    QueuedCalls,
    QueuedRows,
    QueuedStart,
    RateWindows,
    RowBatches,
    RunPages,
    SelfCheck,
    SharedServers,
    WebhookStore,
)
from graphrt.checkpoint.errors import CheckpointError, StoreFailed
from graphrt.checkpoint.records import Announcement, Delivery, JournalEntry, Lease, Row, RunRecord, RunSummary, ServerRow

if TYPE_CHECKING:  # a run without rate limits never imports their pacing
    from graphrt.observe.rate_limits import RateWindow

__all__ = ["GuardedStore"]

_P = ParamSpec("_P")
_T = TypeVar("_T")

_Call = Callable[Concatenate["GuardedStore", _P], Awaitable[_T]]
_Guarded = Callable[Concatenate["GuardedStore", _P], Coroutine[Any, Any, _T]]


def _guarded(write: bool) -> Callable[[_Call[_P, _T]], _Guarded[_P, _T]]:
    """A method whose store call (what the written-out method returns, made after `before_write` for a write of
    a run) fails as a StoreFailed naming the store and the method."""

    def guard(call: _Call[_P, _T]) -> _Guarded[_P, _T]:
        name = call.__name__.lstrip("_")  # the contract's name of the call: `_add_rows` is the store's `add_rows`

        @functools.wraps(call)
        async def guarded(self: GuardedStore, *args: _P.args, **kwargs: _P.kwargs) -> _T:
            if write and self.before_write is not None:
                await self.before_write()
            try:
                result = await call(self, *args, **kwargs)
            except CheckpointError:
                raise
            except Exception as error:  # noqa: BLE001 - any driver's failure
                raise self._failed(name, write, error) from error
            if write and self.failed_write is not None:
                self.failed_write = None
            return result

        return guarded

    return guard


_run_write = _guarded(True)
"""A write of a run: one that fails says the store takes no writes (a full disk), until one succeeds again. A small
write may still succeed then (SQLite's WAL reuses its file's room), so /health remembers a run's failure."""

_call = _guarded(False)
"""A read, or a write that is not a run's (a claim, a lease, a webhook, a deletion)."""


class GuardedStore:
    """A store whose abilities are known and whose every failure is a CheckpointError that names it and the call.

    Args:
        store: the store, as `open_store` gave it.
    """

    def __init__(self, store: CheckpointStore) -> None:
        self.store = store
        self.location = store.location
        self.abilities = Abilities.of(store)
        self.failed_write: tuple[str, float] | None = None  # the last write's failure and its time.monotonic()
        # awaited before each write of a run (graphrt serve's lease check: a server that lost its store writes
        # nothing); it raises to refuse the write
        self.before_write: Callable[[], Awaitable[None]] | None = None
        self.fenced = False  # the store itself refuses the writes of a process that lost its lease (fence_writes)

    def __repr__(self) -> str:
        return f"GuardedStore({self.store!r})"

    def _failed(self, name: str, write: bool, error: Exception) -> StoreFailed:
        """The StoreFailed for a driver's `error` in the call `name`; a write of a run's is remembered."""
        failed = StoreFailed(f"checkpoint store {self.location}: {name} failed: {type(error).__name__}: {error}")
        if write:
            self.failed_write = (str(failed), time.monotonic())
        return failed

    async def _queued(self, name: str, pending: Awaitable[_T]) -> _T:
        """The outcome of a write of a run queued already (`queue_rows`, `start_new_run`), guarded as `name`."""
        if self.before_write is not None:
            await self.before_write()
        try:
            result = await pending
        except CheckpointError:
            raise
        except Exception as error:  # noqa: BLE001 - any driver's failure
            raise self._failed(name, True, error) from error
        if self.failed_write is not None:
            self.failed_write = None
        return result

    def _lacks(self, what: str) -> CheckpointError:
        return CheckpointError(f"checkpoint store {self.location} keeps no {what}")

    # ----- CheckpointStore: what every store does -----

    @_run_write
    def create_run(self, record: RunRecord) -> Awaitable[None]:
        return self.store.create_run(record)

    @_run_write
    def update_run(self, run_id: str, *, status: str, detail: dict[str, Any] | None = None,
                   results: Any = None) -> Awaitable[None]:
        return self.store.update_run(run_id, status=status, detail=detail, results=results)

    @_run_write
    def add_row(self, row: Row) -> Awaitable[None]:
        return self.store.add_row(row)

    @_call
    def get_run(self, run_id: str) -> Awaitable[RunRecord | None]:
        return self.store.get_run(run_id)

    @_call
    def get_rows(self, run_id: str) -> Awaitable[list[Row]]:
        return self.store.get_rows(run_id)

    @_call
    def runs(self) -> Awaitable[list[RunRecord]]:
        return self.store.runs()

    @_call
    def claim_run(self, run_id: str) -> Awaitable[None]:
        return self.store.claim_run(run_id)

    @_call
    def release_run(self, run_id: str) -> Awaitable[None]:
        return self.store.release_run(run_id)

    @_call
    def close(self) -> Awaitable[None]:
        return self.store.close()

    # ----- faster ways to save a run, each with what a store without it gets -----

    async def add_rows(self, rows: Sequence[Row]) -> None:
        """The rows in one write (RowBatches); without it, `add_row` of each in turn."""
        if self.abilities.row_batches:
            await self._add_rows(rows)
            return
        for row in rows:
            await self.add_row(row)

    @_run_write
    def _add_rows(self, rows: Sequence[Row]) -> Awaitable[None]:
        return cast(RowBatches, self.store).add_rows(rows)  # asked of `abilities` first

    def _may_queue(self) -> bool:
        """Whether a write may be queued (made later, without `before_write`): where nothing is checked before a
        write, or where the store checks it itself in the write's transaction (fenced)."""
        return self.before_write is None or self.fenced

    def queue_rows(self, rows: Sequence[Row]) -> Awaitable[None] | None:
        """The rows queued now, their commit awaited later and guarded as `add_rows` (QueuedRows); None where the
        store cannot queue them, or where writes are checked first (`before_write`, graphrt serve's lease: a
        queued write is made before any check) and the store does not check them itself (`fenced`): save the
        rows with `add_rows`."""
        if not self.abilities.queued_rows or not self._may_queue():
            return None
        pending = cast(QueuedRows, self.store).queue_rows(rows)
        return self._queued("add_rows", pending)

    @_run_write
    def finish_run(self, run_id: str, rows: Sequence[Row], *, status: str, detail: dict[str, Any] | None = None,
                   results: Any = None) -> Awaitable[None]:
        """The run's end, made only if `rows` (queued before it) are saved (QueuedRows); without it, `update_run`:
        a store that queues no rows saved them before the run went on."""
        if self.abilities.queued_rows:
            return cast(QueuedRows, self.store).finish_run(run_id, rows, status=status, detail=detail,
                                                           results=results)
        return self.store.update_run(run_id, status=status, detail=detail, results=results)

    def start_new_run(self, record: RunRecord) -> Awaitable[None] | None:
        """A new run's claim and record queued at once (QueuedStart), their outcome guarded as `create_run`'s;
        None where the store has none (or not now): claim and create the run one after the other. None too where
        writes are checked first (`before_write`) and the store does not check them itself: a queued write is
        made before any check."""
        if not self.abilities.queued_start or not self._may_queue():
            return None
        pending = cast(QueuedStart, self.store).start_new_run(record)
        if pending is None:
            return None
        return self._queued("create_run", pending)

    async def runs_page(self, limit: int, offset: int = 0) -> list[RunSummary]:
        """A page of the store's runs, most recently updated first (RunPages: an indexed query); without it, a
        slice of `runs()`."""
        if self.abilities.run_pages:
            return await self._runs_page(limit, offset)
        return [RunSummary(record.run_id, record.graph_file, record.status, record.created_at, record.updated_at,
                           record.parent)
                for record in (await self.runs())[offset:offset + limit]]

    @_call
    def _runs_page(self, limit: int, offset: int) -> Awaitable[list[RunSummary]]:
        return cast(RunPages, self.store).runs_page(limit, offset)

    async def check(self) -> None:
        """Raises CheckpointError, naming the store, when it cannot be used now (start-up and /health ask): the
        store says so itself (SelfCheck), or else reading a run no one saves is the test."""
        if self.abilities.self_check:
            await self._check()
        else:
            await self.get_run("")

    @_call
    def _check(self) -> Awaitable[None]:
        return cast(SelfCheck, self.store).check()

    # ----- EventStore: asked of `abilities.events` first -----

    @_run_write
    def add_events(self, run_id: str, events: Sequence[tuple[int, str]]) -> Awaitable[None]:
        return self._event_store().add_events(run_id, events)

    async def add_event_batches(self, batches: Sequence[tuple[str, Sequence[tuple[int, str]]]]) -> None:
        """The events of several runs in one write (EventBatches); without it, `add_events` of each run in turn."""
        if self.abilities.event_batches:
            await self._add_event_batches(batches)
            return
        for run_id, events in batches:
            await self.add_events(run_id, events)

    @_run_write
    def _add_event_batches(self, batches: Sequence[tuple[str, Sequence[tuple[int, str]]]]) -> Awaitable[None]:
        return cast(EventBatches, self.store).add_event_batches(batches)

    @_call
    def get_events(self, run_id: str, after: int = 0, limit: int = 1000) -> Awaitable[list[tuple[int, str]]]:
        return self._event_store().get_events(run_id, after, limit)

    @_call
    def last_event_id(self, run_id: str) -> Awaitable[int]:
        return self._event_store().last_event_id(run_id)

    @_call
    def prune_runs(self, *, keep: int | None = None, before: float | None = None) -> Awaitable[list[str]]:
        return self._event_store().prune_runs(keep=keep, before=before)

    def _event_store(self) -> EventStore:
        if not self.abilities.events:
            raise self._lacks("event logs")
        return cast(EventStore, self.store)

    # ----- WebhookStore: asked of `abilities.webhooks` first -----

    @_call
    def add_deliveries(self, deliveries: Sequence[Delivery]) -> Awaitable[None]:
        return self._webhook_store().add_deliveries(deliveries)

    @_call
    def update_delivery(self, delivery_id: str, *, state: str, attempts: int, next_at: float,
                        error: str | None) -> Awaitable[None]:
        return self._webhook_store().update_delivery(delivery_id, state=state, attempts=attempts, next_at=next_at,
                                                     error=error)

    @_call
    def due_deliveries(self, before: float, limit: int = 100) -> Awaitable[list[Delivery]]:
        return self._webhook_store().due_deliveries(before, limit)

    @_call
    def take_deliveries(self, before: float, until: float, limit: int = 100) -> Awaitable[list[Delivery]]:
        return self._webhook_store().take_deliveries(before, until, limit)

    @_call
    def run_deliveries(self, run_id: str) -> Awaitable[list[Delivery]]:
        return self._webhook_store().run_deliveries(run_id)

    @_call
    def subscribed_runs(self) -> Awaitable[list[str]]:
        return self._webhook_store().subscribed_runs()

    def _webhook_store(self) -> WebhookStore:
        if not self.abilities.webhooks:
            raise self._lacks("webhooks")
        return cast(WebhookStore, self.store)

    # ----- LeaseStore: asked of `abilities.leases` first -----

    @_call
    def take_lease(self, name: str, owner: str, holder: str, *, until: float, now: float,
                   replacing: str | None = None) -> Awaitable[Lease]:
        return self._lease_store().take_lease(name, owner, holder, until=until, now=now, replacing=replacing)

    @_call
    def drop_lease(self, name: str, owner: str) -> Awaitable[None]:
        return self._lease_store().drop_lease(name, owner)

    @_call
    def get_lease(self, name: str) -> Awaitable[Lease | None]:
        return self._lease_store().get_lease(name)

    def fence_writes(self, name: str, owner: str) -> None:
        """The store's `fence_writes`: once the store checks each write itself, writes may be queued again where
        `before_write` is set (see queue_rows)."""
        self._lease_store().fence_writes(name, owner)
        self.fenced = True

    def _lease_store(self) -> LeaseStore:
        if not self.abilities.leases:
            raise self._lacks("leases")
        return cast(LeaseStore, self.store)

    # ----- SharedServers: asked of `abilities.shared` first -----

    async def join_servers(self, server: str, holder: str, *, seconds: float) -> None:
        """The store's `join_servers`: the store itself refuses from now on the writes of a run another server
        holds, so writes may be queued again where `before_write` is set (see queue_rows)."""
        try:
            await self._shared().join_servers(server, holder, seconds=seconds)
        except CheckpointError:
            raise
        except Exception as error:  # noqa: BLE001 - any driver's failure
            raise self._failed("join_servers", False, error) from error
        self.fenced = True

    @_call
    def renew_server(self, server: str, *, seconds: float) -> Awaitable[list[str]]:
        return self._shared().renew_server(server, seconds=seconds)

    @_call
    def drain_server(self, server: str) -> Awaitable[bool]:
        return self._shared().drain_server(server)

    @_call
    def draining(self, server: str) -> Awaitable[bool]:
        return self._shared().draining(server)

    @_call
    def leave_servers(self, server: str) -> Awaitable[None]:
        return self._shared().leave_servers(server)

    @_call
    def expire_server(self, server: str) -> Awaitable[None]:
        return self._shared().expire_server(server)

    @_call
    def claim_for(self, server: str, run_id: str) -> Awaitable[int | None]:
        return self._shared().claim_for(server, run_id)

    @_call
    def claim_left(self, server: str, limit: int, prefer: Sequence[str] = (), *,
                   aged_only: bool = False) -> Awaitable[list[tuple[str, int]]]:
        return self._shared().claim_left(server, limit, prefer, aged_only=aged_only)

    @_call
    def release_claim(self, server: str, run_id: str) -> Awaitable[None]:
        return self._shared().release_claim(server, run_id)

    @_call
    def store_queued(self) -> Awaitable[int]:
        return self._shared().store_queued()

    @_call
    def leave_queued(self, server: str, run_id: str, bound: int) -> Awaitable[int | None]:
        return self._shared().leave_queued(server, run_id, bound)

    @_call
    def in_store_queue(self, run_ids: Sequence[str]) -> Awaitable[set[str]]:
        return self._shared().in_store_queue(run_ids)

    @_call
    def ask_cancel(self, run_id: str) -> Awaitable[bool]:
        return self._shared().ask_cancel(run_id)

    @_call
    def cancels(self, server: str) -> Awaitable[list[str]]:
        return self._shared().cancels(server)

    @_call
    def servers(self) -> Awaitable[list[ServerRow]]:
        return self._shared().servers()

    def _shared(self) -> SharedServers:
        if not self.abilities.shared:
            raise self._lacks("several servers")
        return cast(SharedServers, self.store)

    # ----- Announcements: asked of `abilities.announcements` first -----

    @_call
    def heard(self, timeout: float) -> Awaitable[list[Announcement]]:
        if not self.abilities.announcements:
            raise self._lacks("announcements")
        return cast(Announcements, self.store).heard(timeout)

    # ----- JournalStore: asked of `abilities.journal` first -----

    @_run_write
    def add_call(self, entry: JournalEntry) -> Awaitable[None]:
        return self._journal_store().add_call(entry)

    @_run_write
    def drop_call(self, run_id: str, path: str, index: int) -> Awaitable[None]:
        return self._journal_store().drop_call(run_id, path, index)

    def queue_call(self, entry: JournalEntry, *, hold: bool = False) -> Awaitable[None] | None:
        """The entry queued now, its commit awaited later and guarded as `add_call` (QueuedCalls); None where the
        store cannot queue it, or where writes are checked first and the store does not check them itself (as
        `queue_rows`): save it with `add_call`."""
        if not self.abilities.queued_calls or not self._may_queue():
            return None
        self._journal_store()
        return self._queued("add_call", cast(QueuedCalls, self.store).queue_call(entry, hold=hold))

    @_call
    def get_calls(self, run_id: str) -> Awaitable[list[JournalEntry]]:
        return self._journal_store().get_calls(run_id)

    def _journal_store(self) -> JournalStore:
        if not self.abilities.journal:
            raise self._lacks("journal of outside calls")
        return cast(JournalStore, self.store)

    # ----- RateWindows: asked of `abilities.rate_windows` first -----

    def rate_window(self) -> RateWindow:
        """The store's window of rate limits' grants; not a write of a run (a grant is a call about to be made, to
        be counted whoever owns the store): neither `before_write` nor a lease's fence applies."""
        if not self.abilities.rate_windows:
            raise self._lacks("rate limits shared by its processes")
        return cast(RateWindows, self.store).rate_window()
