"""What a checkpoint store keeps, the small protocol every store follows, and how values are encoded.

A store keeps two things per run:

- a `RunRecord`: the graph's source (file, text, hash), injected values and
  config (credentials left out), the run's status and, once it completed, its results;
- `Row`s, written one at a time while the run goes: the static values at the start
  of an iteration (`kind="iteration"`), one row per completed node (`"node"`),
  and answers to questions (`"answer"`); a fork from inside a nested graph adds the
  results that graph keeps (`"inner"`, one row per nested path). Writing an iteration row drops the rows
  of earlier iterations, so a store holds one iteration per run, never the
  whole history, and a write costs the same at node 10 as at node 10,000.

A store may also be an `EventStore`: it keeps each run's event log (numbered JSON
records, for a server's replay after a restart) and deletes ended runs on request
(a server's retention); and a `WebhookStore`: it keeps the webhooks a server calls
when a run ends, so that a delivery still pending when the server died is made by
the next one. graphrt's SQLite and PostgreSQL stores are both.

A store may also be a `LeaseStore`: it keeps named leases, so that one server at a
time owns the store (serve/lease.py); graphrt's SQL stores are.

A run is claimed by the one process (and task) that runs it: a second resume of
the same run is refused while the first goes on. The claim ends with the
process, so a run killed with SIGKILL can be resumed at once.

Values are JSON text. JavaScript's `undefined` survives the round trip: it is
written as `{"$graphrt": "undefined"}` (an object that really has a `$graphrt`
key is wrapped, so it cannot be mistaken for one).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Protocol, Sequence, runtime_checkable

from graphrt.base.errors import CheckpointError
from graphrt.base.jsvalue import UNDEFINED, escape_lone_surrogates
from graphrt.base.states import RunStatus
from graphrt.checkpoint.snapshot import RunSnapshot

__all__ = [
    "CheckpointError",
    "CheckpointStore",
    "EventStore",
    "WebhookStore",
    "Delivery",
    "Lease",
    "LeaseStore",
    "StoreClass",
    "RunRecord",
    "RunSummary",
    "runs_page",
    "Row",
    "RunStatus",
    "Unsavable",
    "StoreFailed",
    "LeaseLost",
    "RunTaken",
    "run_taken",
    "check_store",
    "encode_value",
    "decode_value",
    "damaged",
    "GuardedStore",
    "snapshot_from_rows",
]


@dataclass
class RunRecord:
    """One saved run: what is needed to rebuild its Graph, and how it ended so far."""

    run_id: str
    graph_file: str | None
    graph_text: str | None
    graph_hash: str
    injected: dict[str, Any] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)
    all_results: bool = False
    status: str = RunStatus.RUNNING
    detail: dict[str, Any] = field(default_factory=dict)
    results: Any = None
    created_at: float = 0.0
    updated_at: float = 0.0
    parent: dict[str, Any] | None = None  # a fork's origin: {"run_id", "node_id", "set": [node ids given values]}

    def __post_init__(self) -> None:
        # A record an older graphrt saved spells two statuses its own way ("stopped", "completed"): read as today's.
        if self.status in RunStatus.LEGACY:
            self.status = RunStatus.read(self.status)

    @property
    def question(self) -> str | None:
        """The pending question of an interrupted run."""
        return self.detail.get("question") if self.status == RunStatus.INTERRUPTED else None


@dataclass(frozen=True)
class RunSummary:
    """What a listing of runs shows of one: `runs_page` reads only this."""

    run_id: str
    graph_file: str | None
    status: str
    created_at: float
    updated_at: float
    parent: dict[str, Any] | None = None  # a fork's origin, as RunRecord.parent


async def runs_page(store: "CheckpointStore", limit: int, offset: int = 0) -> list[RunSummary]:
    """A page of the store's runs, most recently updated first: the store's own `runs_page` (an indexed query)
    when it has one, else a slice of `runs()` (a store of a third party that has none)."""
    page = getattr(store, "runs_page", None)
    if page is not None:
        return await page(limit, offset)
    return [RunSummary(record.run_id, record.graph_file, record.status, record.created_at, record.updated_at,
                       getattr(record, "parent", None))
            for record in (await store.runs())[offset:offset + limit]]


@dataclass(frozen=True)
class Row:
    """One write of a running run: an iteration's static values, a node's result, or an answer."""

    run_id: str
    iteration: int
    kind: str  # "iteration" | "node" | "answer"
    key: str  # node id, answer key, or "" for an iteration
    value: str | None  # JSON text (encode_value); None for an iteration whose statics could not be saved


@runtime_checkable
class CheckpointStore(Protocol):
    """Where runs are saved. Methods are coroutines, so a networked store never blocks the
    event loop; each write is durable when it returns. A store connects on first use.

    graphrt's stores: `SQLiteStore` (a file, the default) and `PostgresStore` (a server);
    `open_store` finds a target's class through the entry point group (see StoreClass).

    A store may also have `async add_rows(rows)`, rows saved in one write as `add_row` of each
    in turn would save them; where it does, an iteration's first row and its first node's are one
    commit instead of two (graphrt's SQL stores have it). It is not part of the protocol: a store
    without it gets one `add_row` call per row.

    A store may also have `start_new_run(record) -> Awaitable | None`, a plain function that queues a
    new run's claim and its record at once, in that order, and returns what to await for their
    outcome: the run's first node runs while they are made, and the run awaits it before it writes
    a row or its end (PostgresStore has it: two trips to the server off each run's way). A store
    without it gets `claim_run` and `create_run`, each awaited.

    And `queue_rows(rows) -> Awaitable`, a plain function that queues rows as `add_rows` saves them
    and returns what to await for their commit, with `finish_run(run_id, rows, *, status, detail,
    results)`, `update_run` made only if those rows are saved: the row of a node that no other node
    waits for is committed with what the run writes next (its end: one commit, not two in turn), and
    the store never says a run ended whose rows it did not take. Without them, every row is awaited
    before the run goes on.
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


@runtime_checkable
class EventStore(Protocol):
    """A store that also keeps each run's event log and removes old runs: what `graphrt serve` needs to replay
    a run's events after a restart and to keep its store from growing without bound. graphrt's SQL stores are
    both; a store that is only a CheckpointStore still serves (its event logs then live in memory).

    An event is `(id, text)`: ids grow from 1 within a run, the text is the event's JSON. A store may also
    have `add_event_batches([(run_id, events), ...])`, the events of several runs in one write (the SQL stores
    do): a server saves the events of all its runs at once with it.
    """

    async def add_events(self, run_id: str, events: Sequence[tuple[int, str]]) -> None:
        """Appends events to a run's log, in one write (durable when it returns)."""

    async def get_events(self, run_id: str, after: int = 0, limit: int = 1000) -> list[tuple[int, str]]:
        """The run's events with ids above `after`, oldest first, at most `limit` of them."""

    async def last_event_id(self, run_id: str) -> int:
        """The id of the run's last saved event; 0 if none is."""

    async def prune_runs(self, *, keep: int | None = None, before: float | None = None) -> list[str]:
        """Deletes ended runs (RunStatus.ENDED: finished, failed, cancelled), with their rows and events: those
        past the `keep` most recently updated ended runs, and those last updated before `before` (a time.time()).
        Runs still running or waiting for an answer stay. Returns the ids deleted."""


@dataclass
class Delivery:
    """A webhook of a run: a URL to call when the run ends (`state="subscribed"`, no body), or one call of it
    (`"pending"` until the receiver took it: `"delivered"`, or `"failed"` once the retries are spent)."""

    delivery_id: str
    run_id: str
    url: str
    event: str  # "subscribed", or what happened: "run.finished", "run.failed", "run.cancelled", "run.interrupted"
    body: str | None = None  # the JSON the receiver gets (redacted as HTTP answers are)
    state: str = "pending"  # a subscription's: "subscribed", then "ended" once its run ended and was delivered
    attempts: int = 0
    next_at: float = 0.0  # time.time() of the next attempt
    error: str | None = None  # why the last attempt failed
    created_at: float = 0.0


@runtime_checkable
class WebhookStore(Protocol):
    """A store that also keeps webhooks and their deliveries (graphrt serve's, see graphrt/serve/webhooks.py).
    prune_runs deletes a run's webhooks with it."""

    async def add_deliveries(self, deliveries: Sequence[Delivery]) -> None:
        """Saves new deliveries (or subscriptions), in one write."""

    async def update_delivery(self, delivery_id: str, *, state: str, attempts: int, next_at: float,
                              error: str | None) -> None:
        """Saves how a delivery stands after an attempt."""

    async def due_deliveries(self, before: float, limit: int = 100) -> list[Delivery]:
        """Pending deliveries whose next attempt is due before `before`, soonest first."""

    async def run_deliveries(self, run_id: str) -> list[Delivery]:
        """A run's subscriptions and deliveries, oldest first."""

    async def subscribed_runs(self) -> list[str]:
        """The ids of the runs that have a webhook of their own (a server reads them once, at start)."""


@dataclass(frozen=True)
class Lease:
    """Who holds a named lease of a store, and until when (a time.time()) unless renewed."""

    owner: str  # the holder's own token: only it renews or drops the lease
    holder: str  # what the holder says of itself (JSON: its process, machine, address)
    expires_at: float


@runtime_checkable
class LeaseStore(Protocol):
    """A store that keeps named leases: which one process owns it, for as long as it renews its lease in time.
    graphrt's SQL stores are; a store that is not serves without one."""

    async def take_lease(self, name: str, owner: str, holder: str, *, until: float, now: float,
                         replacing: str | None = None) -> Lease:
        """Takes the lease `name` for `owner` until `until`, or renews it, unless another owner's lasts past
        `now` (and is not the `replacing` owner's, one known to be gone), in one atomic write. Returns the
        lease as it is after: `owner`'s if it was taken, else the other holder's."""

    async def drop_lease(self, name: str, owner: str) -> None:
        """Gives up the lease `name` if `owner` holds it."""

    def fence_writes(self, name: str, owner: str) -> None:
        """From now on, makes each write (but a lease's own) only while `owner` holds the lease `name`, checked
        in the write's own transaction: a write refused raises LeaseLost. A process frozen after any check it
        made itself, for longer than its lease, so writes nothing once another took the store over."""


class StoreClass(Protocol):
    """A store class as the entry point group `graphrt.checkpoint_stores` names it, by the URL scheme it opens.

        [project.entry-points."graphrt.checkpoint_stores"]
        redis = "my_pack.stores:RedisStore"     # opens redis://... targets

    The class says which targets it opens (`schemes`; `file` is a plain path,
    a target without `scheme://`), how a person may see one (`shown`: a URL
    without its password) and what to install for it (`extra`). `open_store`
    makes a store with `cls(target)`; a class whose packages are missing raises
    CheckpointError there, naming `extra` (base/extras.needs_extra).
    """

    schemes: tuple[str, ...]
    extra: str | None  # as pip writes it: "graphrt[postgres]"; None: nothing more to install

    def __call__(self, target: str | Path) -> CheckpointStore: ...

    def shown(self, target: str | Path) -> str:
        """The target as a person may see it: in a message, a log, a terminal."""
        ...


# ----- values -----

_TAG = "$graphrt"


class GuardedStore:
    """A store whose every failure is a CheckpointError that names the store and the call.

    A driver raises its own errors (sqlite3.OperationalError, psycopg's, OSError);
    the run reports them as the GraphError they are for its caller.
    """

    def __init__(self, store: CheckpointStore) -> None:
        self.store = store
        self.location = store.location
        self.failed_write: tuple[str, float] | None = None  # the last write's failure and its time.monotonic()
        # awaited before each write of a run (graphrt serve's lease check: a server that lost its store writes
        # nothing); it raises to refuse the write
        self.before_write: Callable[[], Awaitable[None]] | None = None
        self.fenced = False  # the store itself refuses the writes of a process that lost its lease (fence_writes)

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.store, name)
        if not callable(method):
            return method
        guarded = self._guard(name, method)
        self.__dict__[name] = guarded  # made once: a run calls the store a few times a node
        return guarded

    def fence_writes(self, name: str, owner: str) -> None:
        """The store's `fence_writes` (LeaseStore): once the store checks each write itself, writes may be queued
        again where `before_write` is set (see queue_rows)."""
        self.store.fence_writes(name, owner)  # type: ignore[attr-defined] - a LeaseStore's
        self.fenced = True

    def _may_queue(self) -> bool:
        """Whether a write may be queued (made later, without `before_write`): where nothing is checked before a
        write, or where the store checks it itself in the write's transaction (fenced)."""
        return self.before_write is None or self.fenced

    def start_new_run(self, record: RunRecord) -> Awaitable[None] | None:
        """The store's `start_new_run` (claim and record queued at once, awaited later), its outcome guarded as
        `create_run`'s; None where the store has none (or not now): claim and create the run one after the other.
        None too where writes are checked first (`before_write`) and the store does not check them itself: a
        queued write is made before any check."""
        start = getattr(self.store, "start_new_run", None) if self._may_queue() else None
        pending = start(record) if start is not None else None
        if pending is None:
            return None
        return self._guard("create_run", lambda: pending)()

    def queue_rows(self, rows: Sequence[Row]) -> Awaitable[None] | None:
        """The store's `queue_rows` (rows queued now, their commit awaited later), guarded as `add_rows`; None
        where the store has none, or where writes are checked first (`before_write`, graphrt serve's lease: a
        queued write is made before any check) and the store does not check them itself (`fenced`): save the
        rows with `add_rows`."""
        queue = getattr(self.store, "queue_rows", None) if self._may_queue() else None
        if queue is None:
            return None
        pending = queue(rows)
        return self._guard("add_rows", lambda: pending)()

    def _guard(self, name: str, method: Any) -> Any:
        writes = name in _RUN_WRITES

        async def guarded(*args: Any, **kwargs: Any) -> Any:
            if writes and self.before_write is not None:
                await self.before_write()
            try:
                result = await method(*args, **kwargs)
            except CheckpointError:
                raise
            except Exception as error:  # noqa: BLE001 - any driver's failure
                failed = StoreFailed(f"checkpoint store {self.location}: {name} failed: "
                                     f"{type(error).__name__}: {error}")
                if writes:
                    self.failed_write = (str(failed), time.monotonic())
                raise failed from error
            if writes and self.failed_write is not None:
                self.failed_write = None
            return result

        return guarded


_RUN_WRITES = frozenset({"create_run", "update_run", "finish_run", "add_row", "add_rows", "add_events",
                         "add_event_batches"})
"""The writes of runs: one that fails says the store takes no writes (a full disk), until one succeeds again.
A small write may still succeed then (SQLite's WAL reuses its file's room), so /health remembers a run's failure."""


async def check_store(store: CheckpointStore) -> None:
    """Raises CheckpointError, naming the store, when it cannot be used now (start-up and /health ask).

    A store may say so itself with an async `check()` (the SQL stores do); for one that does not,
    reading a run no one saves is the test.
    """
    check = getattr(store, "check", None)
    try:
        if check is not None:
            await check()
        else:
            await store.get_run("")
    except CheckpointError:
        raise
    except Exception as error:  # noqa: BLE001 - any driver's failure
        raise StoreFailed(f"checkpoint store {store.location}: {type(error).__name__}: {error}") from error


class RunTaken(CheckpointError):
    """Raised when a run cannot be claimed: another process or task is running it now."""


def run_taken(run_id: str, location: str) -> RunTaken:
    """The error for a run that another process or task is running."""
    return RunTaken(f"run {run_id!r} in {location} is running elsewhere (another process or task resumed it); "
                    "wait for it to finish or stop it, then resume")


class Unsavable(CheckpointError):
    """Raised by encode_value for a value JSON cannot hold (bytes, an object, a non-string key)."""


class StoreFailed(CheckpointError):
    """Raised when the store itself fails, not the request made of it: it cannot be reached or opened, or its
    driver failed (a connection ended, a disk full). A server answers it with 503: try again later."""


class LeaseLost(StoreFailed):
    """Raised by a write that a store fenced with a lease (`LeaseStore.fence_writes`) refused: another
    owner took the lease over, so this process writes nothing more into the store."""


def _tagged(value: Any, depth: int = 0) -> Any:
    if value is None or value is True or value is False or isinstance(value, str):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else {_TAG: "number", "value": repr(value)}
    if value is UNDEFINED:
        return {_TAG: "undefined"}
    if depth > 200:
        raise Unsavable("nested more than 200 levels deep")
    if isinstance(value, (list, tuple)):
        return [_tagged(item, depth + 1) for item in value]
    if isinstance(value, dict):
        tagged = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise Unsavable(f"an object key is a {type(key).__name__}, not a string")
            tagged[key] = _tagged(item, depth + 1)
        return {_TAG: "object", "value": tagged} if _TAG in tagged else tagged
    raise Unsavable(f"a {type(value).__name__} is not a JSON value")


def _untagged(value: Any) -> Any:
    if isinstance(value, list):
        return [_untagged(item) for item in value]
    if isinstance(value, dict):
        tag = value.get(_TAG)
        if tag == "undefined":
            return UNDEFINED
        if tag == "number":
            return float(value["value"])
        if tag == "object":
            return {key: _untagged(item) for key, item in value["value"].items()}
        return {key: _untagged(item) for key, item in value.items()}
    return value


def encode_value(value: Any) -> str:
    """A value as JSON text that decode_value turns back into an equal value (UNDEFINED included).

    Raises:
        Unsavable: the value holds something JSON cannot (bytes, objects, non-string keys).
    """
    try:
        text = json.dumps(_tagged(value), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError as error:  # an integer longer than Python writes (sys.get_int_max_str_digits)
        raise Unsavable(str(error).split(";")[0]) from None
    return escape_lone_surrogates(text)  # UTF-8 (a database's text) cannot hold them unescaped


def decode_value(text: str, what: str = "a saved value") -> Any:
    """The value encode_value wrote.

    Raises:
        CheckpointError: "checkpoint is damaged": the text is not what encode_value writes.
    """
    try:
        return _untagged(json.loads(text))
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as error:
        raise damaged(what, error) from None


def damaged(what: str, error: BaseException | str) -> CheckpointError:
    """The error for a checkpoint that a crash of the disk, or a hand, left unreadable."""
    reason = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
    return CheckpointError(f"checkpoint is damaged: {what} cannot be read ({reason[:200]})")


# ----- state -----


def answer_node(key: str) -> str:
    """The top-level node an answer key belongs to (`outer/0/inner` -> `outer`)."""
    return key.split("/", 1)[0]


_ROW_KINDS = ("iteration", "node", "answer", "inner")


def snapshot_from_rows(record: RunRecord, rows: Iterable[Row]) -> RunSnapshot | None:
    """The RunSnapshot the rows of a run's latest iteration describe; None if nothing was saved.

    Answers whose node has completed since are left out: they were used.
    """
    iteration: int | None = None
    statics: dict[str, Any] | None = None
    results: dict[str, Any] = {}
    answers: dict[str, Any] = {}
    inner: dict[str, dict[str, Any]] = {}
    for row in rows:
        what = f"run {record.run_id!r}, iteration {row.iteration!r}, {row.kind!r} row {row.key!r}"
        if not isinstance(row.iteration, int) or not isinstance(row.key, str) or row.kind not in _ROW_KINDS:
            raise damaged(what, "not a row graphrt writes")
        if iteration is None or row.iteration > iteration:
            iteration, statics, results, answers, inner = row.iteration, None, {}, {}, {}
        if row.iteration < iteration:
            continue
        if row.kind == "iteration":
            statics = decode_value(row.value, what) if row.value is not None else None
            if statics is not None and not isinstance(statics, dict):
                raise damaged(what, f"the static values are a {type(statics).__name__}, not an object")
        elif row.kind == "node":
            results.pop(row.key, None)
            results[row.key] = decode_value(row.value, what) if row.value is not None else UNDEFINED
        elif row.kind == "answer":
            answers[row.key] = decode_value(row.value, what) if row.value is not None else None
        elif row.kind == "inner":
            kept = decode_value(row.value, what) if row.value is not None else {}
            if not isinstance(kept, dict):
                raise damaged(what, f"the kept results are a {type(kept).__name__}, not an object")
            inner[row.key] = kept
    if iteration is None or statics is None:
        return None
    completed = list(results)
    values = dict(statics)
    values.update((node_id, value) for node_id, value in results.items() if value is not UNDEFINED)
    pending = {key: answer for key, answer in answers.items() if answer_node(key) not in results}
    return RunSnapshot(record.run_id, iteration, values, completed, dict(record.injected), pending, inner)
