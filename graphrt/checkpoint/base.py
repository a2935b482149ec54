"""The contract of a checkpoint store: what every store does, the abilities a store may add, and its class.

Every store is a `CheckpointStore`: runs' records and rows, and the claim by which one
process (and task) runs a run at a time, a claim that ends with the process, so a run
killed with SIGKILL can be resumed at once. The records and rows are in records.py,
how values are encoded in values.py.

A store may add abilities, each a protocol of its own below: a store has one when it has
every method of it. They are found once, when graphrt takes the store to use
(`Abilities.of`, by the `GuardedStore` that wraps it: guard.py), and read from there; a
store without one gets what `GuardedStore` does in its place, said with each protocol.

- faster ways to save a run: `RowBatches` (rows in one write), `QueuedRows` (rows queued
  now and committed with the run's end), `QueuedStart` (a new run's claim and record
  queued while its first node runs); graphrt's SQL stores have the first two, PostgreSQL
  the third;
- `RunPages` (a page of the runs through an index) and `SelfCheck` (whether the store
  answers now): graphrt serve's listing and /health;
- `EventStore` (each run's event log, for a server's replay after a restart, and the
  deletion of ended runs, a server's retention), with `EventBatches` (several runs' events
  in one write); `WebhookStore` (the webhooks a server calls when a run ends, so that a
  delivery still pending when the server died is made by the next one); `LeaseStore`
  (named leases, so that one server at a time owns the store: serve/lease.py); `SharedServers`
  (several servers on one store, each run claimed by one of them and fenced: PostgreSQL's,
  postgres_claims.py), which a server uses instead of the lease, with `Announcements` (what the
  servers write, announced as it is committed: PostgreSQL's LISTEN/NOTIFY, postgres_notices.py);
- `JournalStore` (each run's journal of outside calls: a resumed run takes a call's result
  from it instead of making the call again: graphrt/engine/journal.py), with `QueuedCalls`
  (an entry queued and committed with the run's next write). graphrt's SQLite and PostgreSQL
  stores have them all;
- `RateWindows` (the grants of the config's rate limits kept in the store, so that every
  process on it counts its calls in one window: graphrt/observe/rate_limits.py); PostgreSQL
  has it. A run on a store without it counts in its process's memory.

A store class (`StoreClass`) says which targets it opens, how a person may see one, and
what it needs installed; `open_store` (the package's __init__) finds it by the target's
URL scheme in the entry point group `graphrt.checkpoint_stores`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Protocol, Sequence, runtime_checkable

from graphrt.checkpoint.records import (Announcement, Delivery, JournalEntry, Lease, Row, RunRecord, RunSummary,
                                        ServerRow)

if TYPE_CHECKING:  # a run without rate limits never imports their pacing
    from graphrt.observe.rate_limits import RateWindow

__all__ = [
    "Abilities",
    "Announcements",
    "CheckpointStore",
    "EventBatches",
    "EventStore",
    "JournalStore",
    "LeaseStore",
    "SharedServers",
    "QueuedCalls",
    "QueuedRows",
    "QueuedStart",
    "RateWindows",
    "RowBatches",
    "RunPages",
    "SelfCheck",
    "StoreClass",
    "WebhookStore",
    "conforms",
    "lacking",
]


@runtime_checkable
class CheckpointStore(Protocol):
    """Where runs are saved. Methods are coroutines, so a networked store never blocks the
    event loop; each write is durable when it returns. A store connects on first use.

    graphrt's stores: `SQLiteStore` (a file, the default) and `PostgresStore` (a server);
    `open_store` finds a target's class through the entry point group (see StoreClass).
    """

    location: str  # what to show a person: its class's `shown(target)`

    async def create_run(self, record: RunRecord) -> None:
        """Adds a run. Raises CheckpointError if the id is taken."""

    async def update_run(self, run_id: str, *, status: str, detail: dict[str, Any] | None = None,
                         results: Any = None) -> None:
        """Sets a run's status (with its detail, and its results once completed)."""

    async def add_row(self, row: Row) -> None:
        """Appends a row; an `iteration` row also drops the run's rows of earlier iterations."""

    async def get_run(self, run_id: str) -> RunRecord | None:
        """The run's record, or None."""

    async def get_rows(self, run_id: str) -> list[Row]:
        """The run's rows of its latest iteration, in the order they were written."""

    async def runs(self) -> list[RunRecord]:
        """Every saved run, most recently updated first."""

    async def claim_run(self, run_id: str) -> None:
        """Takes the run for this store until `release_run`, or until the process ends however it ends.

        Raises:
            CheckpointError: another store (another process, or another task) holds the run.
        """

    async def release_run(self, run_id: str) -> None:
        """Gives up a run this store claimed; nothing if it holds none."""

    async def close(self) -> None:
        """Closes the connection; the store cannot be used after."""


# ----- abilities a store may add -----


@runtime_checkable
class RowBatches(Protocol):
    """Rows saved in one write. Without it: one `add_row` per row."""

    async def add_rows(self, rows: Sequence[Row]) -> None:
        """Saves rows in one write, as `add_row` of each in turn would: an iteration's first row and its first
        node's are one commit instead of two."""


@runtime_checkable
class QueuedRows(Protocol):
    """Rows queued now and committed with what the run writes next. Without it: every row is awaited before the
    run goes on."""

    def queue_rows(self, rows: Sequence[Row]) -> Awaitable[None]:
        """Queues rows as `add_rows` saves them, at once (a plain function), and returns what to await for their
        commit: the row of a node that no other node waits for is committed with the run's next write (its end:
        one commit, not two in turn)."""

    async def finish_run(self, run_id: str, rows: Sequence[Row], *, status: str, detail: dict[str, Any] | None = None,
                         results: Any = None) -> None:
        """`update_run`, made only if `rows` (queued before it) are saved: the store never says a run ended whose
        rows it did not take."""


@runtime_checkable
class QueuedStart(Protocol):
    """A new run's claim and record queued at once. Without it: `claim_run` and `create_run`, each awaited."""

    def start_new_run(self, record: RunRecord) -> Awaitable[None] | None:
        """Queues a new run's claim and its record, in that order (a plain function), and returns what to await
        for their outcome: the run's first node runs while they are made, and the run awaits it before it writes
        a row or its end (two trips to a server off each run's way). None: not now; claim and create it in turn."""


@runtime_checkable
class RunPages(Protocol):
    """A page of the runs through an index. Without it: a slice of `runs()`."""

    async def runs_page(self, limit: int, offset: int = 0) -> list[RunSummary]:
        """At most `limit` runs, most recently updated first, after the first `offset`."""


@runtime_checkable
class SelfCheck(Protocol):
    """Whether the store can be used now (start-up and /health ask). Without it: reading a run no one saves."""

    async def check(self) -> None:
        """Raises CheckpointError when the store cannot be used now."""


@runtime_checkable
class EventStore(Protocol):
    """A store that also keeps each run's event log and removes old runs: what `graphrt serve` needs to replay
    a run's events after a restart and to keep its store from growing without bound. A store without it still
    serves (its event logs then live in memory, and nothing is deleted).

    An event is `(id, text)`: ids grow from 1 within a run, the text is the event's JSON.
    """

    async def add_events(self, run_id: str, events: Sequence[tuple[int, str]]) -> None:
        """Appends events to a run's log, in one write (durable when it returns)."""

    async def get_events(self, run_id: str, after: int = 0, limit: int = 1000) -> list[tuple[int, str]]:
        """The run's events with ids above `after`, oldest first, at most `limit` of them."""

    async def last_event_id(self, run_id: str) -> int:
        """The id of the run's last saved event; 0 if none is."""

    async def prune_runs(self, *, keep: int | None = None, before: float | None = None) -> list[str]:
        """Deletes ended runs (RunStatus.ENDED: finished, failed, cancelled), with their rows, events and journal: those
        past the `keep` most recently updated ended runs, and those last updated before `before` (a time.time()).
        Runs still running or waiting for an answer stay. Returns the ids deleted."""


@runtime_checkable
class EventBatches(Protocol):
    """The events of several runs in one write (a server saves all its runs' events at once). Without it: one
    `add_events` per run."""

    async def add_event_batches(self, batches: Sequence[tuple[str, Sequence[tuple[int, str]]]]) -> None:
        """Appends events to several runs' logs in one write: `[(run_id, events), ...]`, as `add_events` of each."""


@runtime_checkable
class WebhookStore(Protocol):
    """A store that also keeps webhooks and their deliveries (graphrt serve's, see graphrt/serve/webhooks.py).
    prune_runs deletes a run's webhooks with it. A server on a store without it calls no webhooks."""

    async def add_deliveries(self, deliveries: Sequence[Delivery]) -> None:
        """Saves new deliveries (or subscriptions), in one write."""

    async def update_delivery(self, delivery_id: str, *, state: str, attempts: int, next_at: float,
                              error: str | None) -> None:
        """Saves how a delivery stands after an attempt."""

    async def due_deliveries(self, before: float, limit: int = 100) -> list[Delivery]:
        """Pending deliveries whose next attempt is due before `before`, soonest first."""

    async def take_deliveries(self, before: float, until: float, limit: int = 100) -> list[Delivery]:
        """Takes pending deliveries due before `before` for this caller alone: their `next_at` is moved to `until`
        (past the caller's call), so that no other server sharing the store takes them before then; a caller killed
        mid-call leaves them to whoever takes them after `until`. A store one server owns may answer as
        `due_deliveries` does (there is nobody to take them from)."""

    async def run_deliveries(self, run_id: str) -> list[Delivery]:
        """A run's subscriptions and deliveries, oldest first."""

    async def subscribed_runs(self) -> list[str]:
        """The ids of the runs that have a webhook of their own (a server reads them once, at start)."""


@runtime_checkable
class LeaseStore(Protocol):
    """A store that keeps named leases: which one process owns it, for as long as it renews its lease in time.
    A server on a store without it serves without one."""

    async def take_lease(self, name: str, owner: str, holder: str, *, until: float, now: float,
                         replacing: str | None = None) -> Lease:
        """Takes the lease `name` for `owner` until `until`, or renews it, unless another owner's lasts past
        `now` (and is not the `replacing` owner's, one known to be gone), in one atomic write. Returns the
        lease as it is after: `owner`'s if it was taken, else the other holder's."""

    async def drop_lease(self, name: str, owner: str) -> None:
        """Gives up the lease `name` if `owner` holds it."""

    async def get_lease(self, name: str) -> Lease | None:
        """The lease `name` as it was last written, expired or not (None: never taken, or dropped): for a process
        that must not write what the holder owns to say who holds it."""

    def fence_writes(self, name: str, owner: str) -> None:
        """From now on, makes each write (but a lease's own) only while `owner` holds the lease `name`, checked
        in the write's own transaction: a write refused raises LeaseLost. A process frozen after any check it
        made itself, for longer than its lease, so writes nothing once another took the store over."""


@runtime_checkable
class SharedServers(Protocol):
    """A store that several servers share: each joins it, renews itself (its heartbeat), claims the runs it runs,
    and writes nothing for a run another server holds (refused in the write's own transaction: LeaseLost). A
    server on it takes no lease."""

    async def join_servers(self, server: str, holder: str, *, seconds: float) -> None:
        """Adds `server` (what it says of itself: `holder`) to the store's servers for `seconds`; this store's
        writes are `server`'s from now on."""

    async def renew_server(self, server: str, *, seconds: float) -> list[str]:
        """`server` lives `seconds` more; returns the runs it holds."""

    async def leave_servers(self, server: str) -> None:
        """`server` stops: its claims are given up, its row removed."""

    async def expire_server(self, server: str) -> None:
        """`server` is known gone: its runs may be claimed at once."""

    async def claim_for(self, server: str, run_id: str) -> int | None:
        """Claims one run unless another live server holds it; the claim's token if `server` holds it now (one
        more than the last claim's: a fencing token), else None."""

    async def claim_left(self, server: str, limit: int, prefer: Sequence[str] = (), *,
                         aged_only: bool = False) -> list[tuple[str, int]]:
        """Claims up to `limit` runs that servers left (saved running, their server gone) or that wait in the store's
        queue, each for one server: those that waited over a second first, then those of `prefer` (the runs `server`
        left there), then oldest first (`aged_only`: the first alone); each one's id and its claim's token."""

    async def release_claim(self, server: str, run_id: str) -> None:
        """Gives `server`'s claim of the run up."""

    async def store_queued(self) -> int:
        """How many runs wait in the store's queue: saved, claimed by no server, for the first with a free slot."""

    async def leave_queued(self, server: str, run_id: str, bound: int) -> int | None:
        """Leaves a run `server` claimed and saved in the store's queue (its claim given up, the servers told),
        unless `bound` runs wait there already; how many wait there now (this one too), None if it was not left."""

    async def in_store_queue(self, run_ids: Sequence[str]) -> set[str]:
        """Which of the runs wait in the store's queue."""

    async def drain_server(self, server: str) -> bool:
        """Asks a live server to drain (claim and take no more runs, finish its own, stop); whether one was asked."""

    async def draining(self, server: str) -> bool:
        """Whether `server` was asked to drain."""

    async def ask_cancel(self, run_id: str) -> bool:
        """Asks the server that holds the run to cancel it (at its next look); whether a server holds it."""

    async def cancels(self, server: str) -> list[str]:
        """The runs `server` holds that it was asked to cancel."""

    async def servers(self) -> list[ServerRow]:
        """Every server on the store, live or not, with the runs it holds."""


@runtime_checkable
class Announcements(Protocol):
    """A store that several servers share and that announces what they write there as it is committed (a run's
    events saved, a server asked to cancel or drain, runs left): a server waits for those instead of asking the
    store over and over. An announcement only wakes: what changed is read from the store. One may be missed
    while the store's connection is made again: then `ANYTHING` is heard."""

    async def heard(self, timeout: float) -> list[Announcement]:
        """What was announced since the last call, waiting up to `timeout` seconds for the first."""


@runtime_checkable
class JournalStore(Protocol):
    """A store that also keeps each run's journal of outside calls, one entry per call (graphrt/engine/journal.py):
    a resumed run takes a call's result from it instead of making the call again, and a call that started and
    left no result is known to be uncertain. prune_runs deletes a run's journal with it. Without it a checkpointed
    run journals nothing: a node that was running when its process died makes all its calls again."""

    async def add_call(self, entry: JournalEntry) -> None:
        """Saves an entry (durable when it returns), in place of the one with its key (run, path, index) if any."""

    async def drop_call(self, run_id: str, path: str, index: int) -> None:
        """Deletes the entry with this key, if there is one."""

    async def get_calls(self, run_id: str) -> list[JournalEntry]:
        """The run's entries, by path and index."""


@runtime_checkable
class QueuedCalls(Protocol):
    """Journal entries queued now and committed with what the run writes next. Without it: each is awaited."""

    def queue_call(self, entry: JournalEntry, *, hold: bool = False) -> Awaitable[None]:
        """Queues `entry` as `add_call` saves it, at once (a plain function), and returns what to await for its
        commit: an entry no later write may be committed without (the store's writes are made in order), for a
        call that is harmless to make again if the process dies before it is committed. `hold`: the entry may
        wait (a moment at most) to be committed with the store's next write instead of by itself; awaiting
        what this returns commits it now."""


@runtime_checkable
class RateWindows(Protocol):
    """A store that keeps the grants of rate limits for every process on it (graphrt.observe.rate_limits): a run
    saved in it is handed its window (`RunOptions.rate_window`), and no 60-second window of the processes' calls
    together holds more than a limit. Without it a run's limits count the calls of its own process."""

    def rate_window(self) -> RateWindow:
        """The store's window of grants: the same object for each call, opened on its first use, closed with the
        store."""


def _members(protocol: type) -> tuple[tuple[str, bool], ...]:
    """What a protocol declares, its attributes then its methods: (name, whether it is a method)."""
    attributes = tuple((name, False) for name in vars(protocol).get("__annotations__", {}))
    return attributes + tuple((name, True) for name, value in vars(protocol).items()
                              if callable(value) and not name.startswith("_"))


def lacking(found: object, protocol: type) -> list[str]:
    """The members `protocol` declares that `found` lacks: an attribute it does not have, a method it has not as
    something callable (None is not a method: a subclass blocks one so).

    Read on the object as it is, whatever Python's version (a wrapper that forwards to another store has what
    that store has), unlike `isinstance` of a runtime protocol, which Python 3.12 reads on the class alone.
    """
    members = _MEMBERS.get(protocol)
    if members is None:
        members = _MEMBERS[protocol] = _members(protocol)
    missing = []
    for name, method in members:
        if not (callable(getattr(found, name, None)) if method else hasattr(found, name)):
            missing.append(name)
    return missing


_MEMBERS: dict[type, tuple[tuple[str, bool], ...]] = {}


def conforms(store: object, protocol: type) -> bool:
    """Whether `store` has every member `protocol` declares (see `lacking`)."""
    return not lacking(store, protocol)


@dataclass(frozen=True)
class Abilities:
    """Which abilities one store adds to CheckpointStore: found once, when graphrt takes the store to use."""

    row_batches: bool = False  # RowBatches
    queued_rows: bool = False  # QueuedRows
    queued_start: bool = False  # QueuedStart
    run_pages: bool = False  # RunPages
    self_check: bool = False  # SelfCheck
    events: bool = False  # EventStore
    event_batches: bool = False  # EventBatches
    webhooks: bool = False  # WebhookStore
    leases: bool = False  # LeaseStore
    shared: bool = False  # SharedServers
    announcements: bool = False  # Announcements
    journal: bool = False  # JournalStore
    queued_calls: bool = False  # QueuedCalls
    rate_windows: bool = False  # RateWindows

    @classmethod
    def of(cls, store: object) -> "Abilities":
        """The abilities `store` has."""
        return cls(row_batches=conforms(store, RowBatches), queued_rows=conforms(store, QueuedRows),
                   queued_start=conforms(store, QueuedStart), run_pages=conforms(store, RunPages),
                   self_check=conforms(store, SelfCheck), events=conforms(store, EventStore),
                   event_batches=conforms(store, EventBatches), webhooks=conforms(store, WebhookStore),
                   leases=conforms(store, LeaseStore), shared=conforms(store, SharedServers),
                   announcements=conforms(store, Announcements),
                   journal=conforms(store, JournalStore),
                   queued_calls=conforms(store, QueuedCalls), rate_windows=conforms(store, RateWindows))


class StoreClass(Protocol):
    """A store class as the entry point group `graphrt.checkpoint_stores` names it, by the URL scheme it opens.

        [project.entry-points."graphrt.checkpoint_stores"]
        redis = "my_pack.stores:RedisStore"     # opens redis://... targets

    The class says which targets it opens (`schemes`; `file` is a plain path,
    a target without `scheme://`), how a person may see one (`shown`: a URL
    without its password), what to install for it (`extra`) and the modules that
    installs (`requires`). `store_class` looks for those modules (never imports them)
    when it chooses the class, so that a missing one is one line (base/extras.py)
    before any store is opened or any run announced; `open_store` then makes a
    store with `cls(target)`.
    """

    schemes: tuple[str, ...]
    extra: str | None  # as pip writes it: "graphrt[postgres]"; None: nothing more to install
    requires: tuple[str, ...]  # the modules `extra` installs, dotted or not: ("psycopg",); () for none

    def __call__(self, target: str | Path) -> CheckpointStore: ...

    def shown(self, target: str | Path) -> str:
        """The target as a person may see it: in a message, a log, a terminal."""
        ...
