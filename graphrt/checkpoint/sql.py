"""What the SQLite and PostgreSQL stores share: the same two tables and the same queries.

Queries are written with `?` placeholders; a store whose driver wants `%s`
sets `placeholder`. Each store says how to read (`_read`), how to write a
few statements in one transaction (`_write`), and which error means "this
run id is taken". Both talk to their database through a `GroupCommit`
(group_commit.py), which keeps it off the event loop and commits concurrent
runs' writes together.
"""

from __future__ import annotations

import json
import time
from typing import Any, Awaitable, Sequence

from graphrt.base.states import CallState, RunStatus
from graphrt.checkpoint.errors import CheckpointError, LeaseLost, damaged
from graphrt.checkpoint.records import Delivery, JournalEntry, Lease, Row, RunRecord, RunSummary
from graphrt.checkpoint.values import decode_value, encode_value
from graphrt.checkpoint.group_commit import Fence, GroupCommit, Statement

__all__ = ["ADDED_COLUMNS", "DELIVERY_COLUMNS", "SqlStore", "Statement", "insert_run", "schema"]

_RUN_COLUMNS = ("run_id, graph_file, graph_text, graph_hash, injected, config, all_results, status, detail, results, "
               "created_at, updated_at, parent")

DELIVERY_COLUMNS = "delivery_id, run_id, url, event, body, state, attempts, next_at, error, created_at"

_JOURNAL_COLUMNS = "run_id, path, idx, kind, agent, request, state, result, started_at, ended_at"

# One statement for a new entry and for one that replaces it (a call that returned after it started, or made anew).
_SAVE_CALL = (f"INSERT INTO graphrt_journal ({_JOURNAL_COLUMNS}) VALUES ({', '.join('?' * 10)}) "
              "ON CONFLICT (run_id, path, idx) DO UPDATE SET kind = excluded.kind, agent = excluded.agent, "
              "request = excluded.request, state = excluded.state, result = excluded.result, "
              "started_at = excluded.started_at, ended_at = excluded.ended_at")

ADDED_COLUMNS = {"parent": "TEXT"}
"""Columns of `graphrt_runs` added after its first release: a store adds those a table made earlier lacks."""


def schema(*, sequence: str, boolean: str, real: str, add_columns: bool = False) -> str:
    """The tables every SQL store creates on first use, in its database's column types.

    Args:
        sequence: the type of `graphrt_rows.seq`, an auto-incrementing primary key.
        boolean: the type of `all_results`.
        real: the type of the timestamps.
        add_columns: also add ADDED_COLUMNS to a table made before them (`ADD COLUMN IF NOT EXISTS`,
            which PostgreSQL has; SQLite's store adds them itself).
    """
    added = "".join(f"ALTER TABLE graphrt_runs ADD COLUMN IF NOT EXISTS {name} {kind};\n"
                    for name, kind in ADDED_COLUMNS.items()) if add_columns else ""
    return f"""
CREATE TABLE IF NOT EXISTS graphrt_runs (
    run_id TEXT PRIMARY KEY,
    graph_file TEXT,
    graph_text TEXT,
    graph_hash TEXT NOT NULL,
    injected TEXT NOT NULL,
    config TEXT NOT NULL,
    all_results {boolean} NOT NULL,
    status TEXT NOT NULL,
    detail TEXT NOT NULL,
    results TEXT,
    created_at {real} NOT NULL,
    updated_at {real} NOT NULL,
    parent TEXT
);
CREATE TABLE IF NOT EXISTS graphrt_rows (
    seq {sequence},
    run_id TEXT NOT NULL,
    iteration INTEGER NOT NULL,
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT
);
CREATE INDEX IF NOT EXISTS graphrt_rows_run ON graphrt_rows (run_id, iteration);
CREATE TABLE IF NOT EXISTS graphrt_events (
    run_id TEXT NOT NULL,
    id INTEGER NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (run_id, id)
);
CREATE TABLE IF NOT EXISTS graphrt_leases (
    name TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    holder TEXT NOT NULL,
    expires_at {real} NOT NULL
);
CREATE TABLE IF NOT EXISTS graphrt_fence (
    held INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS graphrt_runs_updated ON graphrt_runs (status, updated_at);
CREATE TABLE IF NOT EXISTS graphrt_webhooks (
    delivery_id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    url TEXT NOT NULL,
    event TEXT NOT NULL,
    body TEXT,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    next_at {real} NOT NULL,
    error TEXT,
    created_at {real} NOT NULL
);
CREATE INDEX IF NOT EXISTS graphrt_webhooks_due ON graphrt_webhooks (state, next_at);
CREATE INDEX IF NOT EXISTS graphrt_webhooks_run ON graphrt_webhooks (run_id);
CREATE INDEX IF NOT EXISTS graphrt_runs_recent ON graphrt_runs (updated_at);
CREATE TABLE IF NOT EXISTS graphrt_journal (
    run_id TEXT NOT NULL,
    path TEXT NOT NULL,
    idx INTEGER NOT NULL,
    kind TEXT NOT NULL,
    agent TEXT NOT NULL,
    request TEXT,
    state TEXT NOT NULL,
    result TEXT,
    started_at {real} NOT NULL,
    ended_at {real},
    PRIMARY KEY (run_id, path, idx)
);
{added}"""


def _record_from_row(row: tuple[Any, ...]) -> RunRecord:
    """A RunRecord from a `graphrt_runs` row."""
    (run_id, graph_file, graph_text, graph_hash, injected, config, all_results, status, detail, results,
     created_at, updated_at, parent) = row
    what = f"run {run_id!r}"
    record = RunRecord(
        run_id=run_id, graph_file=graph_file, graph_text=graph_text, graph_hash=graph_hash,
        injected=decode_value(injected, f"{what}, column 'injected'"), config=_json(config, f"{what}, column 'config'"),
        all_results=bool(all_results), status=status, detail=_json(detail, f"{what}, column 'detail'"),
        results=decode_value(results, f"{what}, column 'results'") if results is not None else None,
        created_at=created_at, updated_at=updated_at,
        parent=_json(parent, f"{what}, column 'parent'") if parent is not None else None,
    )
    for column in ("injected", "config", "detail"):
        if not isinstance(getattr(record, column), dict):
            raise damaged(f"{what}, column {column!r}", "not an object")
    if record.parent is not None and not isinstance(record.parent, dict):
        raise damaged(f"{what}, column 'parent'", "not an object")
    if not isinstance(run_id, str) or not isinstance(graph_hash, str) or record.status not in RunStatus.ALL:
        raise damaged(what, "not a run graphrt writes")
    return record


def _json(text: Any, what: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, TypeError, RecursionError) as error:
        raise damaged(what, error) from None


def _row_statements(row: Row) -> tuple[Statement, ...]:
    """What saving a row takes: its insert, after dropping the earlier iterations' rows for an iteration row."""
    insert = ("INSERT INTO graphrt_rows (run_id, iteration, kind, key, value) VALUES (?, ?, ?, ?, ?)",
              (row.run_id, row.iteration, row.kind, row.key, row.value))
    if row.kind != "iteration" or row.iteration == 0:  # the first iteration has no earlier one to drop
        return (insert,)
    return ("DELETE FROM graphrt_rows WHERE run_id = ? AND iteration < ?", (row.run_id, row.iteration)), insert


def _object_text(value: dict[str, Any] | None) -> str:
    """A config or detail column's JSON; most are empty, written without the json module (issue 44)."""
    return json.dumps(value) if value else "{}"


def _record_values(record: RunRecord) -> tuple[Any, ...]:
    """The `graphrt_runs` columns of a record, in _RUN_COLUMNS order."""
    now = time.time()
    return (record.run_id, record.graph_file, record.graph_text, record.graph_hash, encode_value(record.injected),
            _object_text(record.config), bool(record.all_results), record.status, _object_text(record.detail),
            encode_value(record.results) if record.results is not None else None,
            record.created_at or now, record.updated_at or now,
            json.dumps(record.parent) if record.parent is not None else None)


_INSERT_RUN = f"INSERT INTO graphrt_runs ({_RUN_COLUMNS}) VALUES ({', '.join('?' * 13)})"


def _update_run(run_id: str, status: str, detail: dict[str, Any] | None, results: Any) -> Statement:
    return ("UPDATE graphrt_runs SET status = ?, detail = ?, results = ?, updated_at = ? WHERE run_id = ?",
            (status, _object_text(detail), encode_value(results) if results is not None else None, time.time(),
             run_id))


_FINISH_QUERIES: dict[tuple[str, int], str] = {}  # (the update, how many rows it depends on) -> finish_run's query


def _finish_query(update: str, count: int) -> str:
    """`update` made only if the `count` rows given after it are saved (finish_run); written once for each count."""
    query = _FINISH_QUERIES.get((update, count))
    if query is None:
        if len(_FINISH_QUERIES) > 100:
            _FINISH_QUERIES.clear()
        marks = ", ".join("?" for _ in range(count))
        query = _FINISH_QUERIES[update, count] = (
            f"{update} AND (SELECT COUNT(DISTINCT kind || ':' || key) FROM graphrt_rows WHERE run_id = ? AND "
            f"iteration = ? AND (kind || ':' || key) IN ({marks})) = ?")
    return query


def _call_statement(entry: JournalEntry) -> Statement:
    """What saving a journal entry takes: one insert, or the replacement of the entry with its key."""
    return (_SAVE_CALL, (entry.run_id, entry.path, entry.index, entry.kind, entry.agent, entry.request,
                         str(entry.state), entry.result, entry.started_at or time.time(), entry.ended_at))


def insert_run(record: RunRecord) -> Statement:
    """The statement that saves a new run's record (its `graphrt_runs` row)."""
    return _INSERT_RUN, _record_values(record)


_SPELLED: dict[tuple[str, str], str] = {}  # (placeholder, a query with `?`) -> the query in the driver's spelling


class SqlStore:
    """A checkpoint store in SQL; subclasses say how to read and write."""

    location: str
    _db: GroupCommit  # the connection (each store makes its own)
    placeholder = "?"
    _duplicate: type[BaseException]  # the driver's error for a run id that is already saved
    _runs_order = "updated_at DESC, run_id"
    _fence_lock = ""  # what the fence's read of the lease adds so that no one takes it over until the commit

    async def _read(self, query: str, values: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """The rows a query finds."""
        raise NotImplementedError

    async def _write(self, *statements: Statement, alone: bool = False) -> None:
        """Runs the statements, several in one transaction; `alone`: in a transaction of their own,
        never with other callers' writes."""
        raise NotImplementedError

    def _sql(self, query: str) -> str:
        if self.placeholder == "?":
            return query
        key = (self.placeholder, query)
        spelled = _SPELLED.get(key)
        if spelled is None:  # the same few queries, written once in the driver's spelling
            if len(_SPELLED) > 1000:
                _SPELLED.clear()
            spelled = _SPELLED[key] = query.replace("?", self.placeholder)
        return spelled

    async def create_run(self, record: RunRecord) -> None:
        try:
            await self._write(insert_run(record))
        except self._duplicate:
            raise self._taken_id(record.run_id) from None

    def _taken_id(self, run_id: str) -> CheckpointError:
        return CheckpointError(f"run {run_id!r} is already saved in {self.location}")

    async def update_run(self, run_id: str, *, status: str, detail: dict[str, Any] | None = None,
                         results: Any = None) -> None:
        await self._write(_update_run(run_id, status, detail, results))

    async def finish_run(self, run_id: str, rows: Sequence[Row], *, status: str, detail: dict[str, Any] | None = None,
                         results: Any = None) -> None:
        """`update_run`, made only if `rows` (queued before it, committed with it or before it) are saved: when
        their write failed, the run stays as it was instead of ending without them (a full disk fails the larger
        write, and the end after it may still fit). Their failure is their own caller's to report."""
        query, values = _update_run(run_id, status, detail, results)
        iteration = rows[0].iteration
        keys = sorted({f"{row.kind}:{row.key}" for row in rows})
        await self._write((_finish_query(query, len(keys)), (*values, run_id, iteration, *keys, len(keys))))

    async def add_row(self, row: Row) -> None:
        """Saves a row; an iteration row also drops the earlier iterations' rows, in one transaction."""
        await self._write(*_row_statements(row))

    async def add_rows(self, rows: Sequence[Row]) -> None:
        """Saves rows in one transaction, as `add_row` of each in turn would."""
        await self._write(*(statement for row in rows for statement in _row_statements(row)))

    def queue_rows(self, rows: Sequence[Row]) -> Awaitable[None]:
        """Queues rows as `add_rows` saves them, at once, and returns what to await for their commit: the rows
        of a node nobody waits for, committed with what the run writes next (its end) instead of before it."""
        return self._queue(*(statement for row in rows for statement in _row_statements(row)))

    def _queue(self, *statements: Statement, hold: bool = False) -> Awaitable[None]:
        """Queues a write now (GroupCommit.queue; `hold`: it may wait to share the next write's commit); awaiting
        what it returns gives its outcome."""
        raise NotImplementedError

    async def get_run(self, run_id: str) -> RunRecord | None:
        found = await self._read(f"SELECT {_RUN_COLUMNS} FROM graphrt_runs WHERE run_id = ?", (run_id,))
        return _record_from_row(found[0]) if found else None

    async def get_rows(self, run_id: str) -> list[Row]:
        found = await self._read(
            "SELECT run_id, iteration, kind, key, value FROM graphrt_rows WHERE run_id = ? AND iteration = "
            "(SELECT MAX(iteration) FROM graphrt_rows WHERE run_id = ?) ORDER BY seq",
            (run_id, run_id),
        )
        return [Row(*row) for row in found]

    async def check(self) -> None:
        """Raises CheckpointError when the store cannot be used (what start-up and /health ask)."""
        await self._read("SELECT 1")

    async def runs_page(self, limit: int, offset: int = 0) -> list[RunSummary]:
        """At most `limit` runs, most recently updated first, after the first `offset`: through the index on
        `updated_at`, reading only the columns a listing shows (not each run's graph, values and results)."""
        found = await self._read(
            f"SELECT run_id, graph_file, status, created_at, updated_at, parent FROM graphrt_runs "
            f"ORDER BY {self._runs_order} LIMIT ? OFFSET ?", (int(limit), int(offset)))
        return [RunSummary(*row[:5], _json(row[5], f"run {row[0]!r}, column 'parent'") if row[5] is not None else None)
                for row in found]

    async def runs(self) -> list[RunRecord]:
        found = await self._read(f"SELECT {_RUN_COLUMNS} FROM graphrt_runs ORDER BY {self._runs_order}")
        return [_record_from_row(row) for row in found]

    # ----- EventStore: event logs and retention -----

    async def add_events(self, run_id: str, events: Sequence[tuple[int, str]]) -> None:
        if not events:
            return
        insert = "INSERT INTO graphrt_events (run_id, id, record) VALUES (?, ?, ?)"
        await self._write(*((insert, (run_id, event_id, text)) for event_id, text in events))

    async def add_event_batches(self, batches: Sequence[tuple[str, Sequence[tuple[int, str]]]]) -> None:
        """Appends events to several runs' logs in one write: `[(run_id, events), ...]`, as `add_events` of each."""
        insert = "INSERT INTO graphrt_events (run_id, id, record) VALUES (?, ?, ?)"
        statements = [(insert, (run_id, event_id, text)) for run_id, events in batches for event_id, text in events]
        if statements:
            await self._write(*statements)

    async def get_events(self, run_id: str, after: int = 0, limit: int = 1000) -> list[tuple[int, str]]:
        found = await self._read("SELECT id, record FROM graphrt_events WHERE run_id = ? AND id > ? ORDER BY id "
                                 "LIMIT ?", (run_id, after, limit))
        return [(int(event_id), text) for event_id, text in found]

    async def last_event_id(self, run_id: str) -> int:
        found = await self._read("SELECT MAX(id) FROM graphrt_events WHERE run_id = ?", (run_id,))
        return int(found[0][0] or 0) if found else 0

    async def prune_runs(self, *, keep: int | None = None, before: float | None = None) -> list[str]:
        ended = RunStatus.spellings(RunStatus.ENDED)  # an older graphrt's spellings too
        marks = ", ".join("?" * len(ended))
        doomed: list[str] = []
        if keep is not None:
            found = await self._read(f"SELECT run_id FROM graphrt_runs WHERE status IN ({marks}) "  # LIMIT: both need one
                                     f"ORDER BY {self._runs_order} LIMIT {2**63 - 1} OFFSET ?", (*ended, max(0, keep)))
            doomed += [row[0] for row in found]
        if before is not None:
            found = await self._read(f"SELECT run_id FROM graphrt_runs WHERE status IN ({marks}) AND updated_at < ?",
                                     (*ended, before))
            doomed += [row[0] for row in found if row[0] not in doomed]
        for start in range(0, len(doomed), 500):  # a transaction per 500 runs: other writers wait only that long
            batch = doomed[start:start + 500]
            where = f"run_id IN ({', '.join('?' * len(batch))}) AND status IN ({marks})"  # still ended
            await self._write(
                (f"DELETE FROM graphrt_rows WHERE run_id IN (SELECT run_id FROM graphrt_runs WHERE {where})",
                 (*batch, *ended)),
                (f"DELETE FROM graphrt_events WHERE run_id IN (SELECT run_id FROM graphrt_runs WHERE {where})",
                 (*batch, *ended)),
                (f"DELETE FROM graphrt_webhooks WHERE run_id IN (SELECT run_id FROM graphrt_runs WHERE {where})",
                 (*batch, *ended)),
                (f"DELETE FROM graphrt_journal WHERE run_id IN (SELECT run_id FROM graphrt_runs WHERE {where})",
                 (*batch, *ended)),
                (f"DELETE FROM graphrt_runs WHERE {where}", (*batch, *ended)),
            )
        return doomed

    # ----- WebhookStore: a server's webhooks and their deliveries -----

    async def add_deliveries(self, deliveries: Sequence[Delivery]) -> None:
        if not deliveries:
            return
        insert = (f"INSERT INTO graphrt_webhooks ({DELIVERY_COLUMNS}) VALUES ({', '.join('?' * 10)})")
        now = time.time()
        await self._write(*((insert, (item.delivery_id, item.run_id, item.url, item.event, item.body, item.state,
                                      item.attempts, item.next_at, item.error, item.created_at or now))
                            for item in deliveries))

    async def update_delivery(self, delivery_id: str, *, state: str, attempts: int, next_at: float,
                              error: str | None) -> None:
        await self._write(("UPDATE graphrt_webhooks SET state = ?, attempts = ?, next_at = ?, error = ? "
                           "WHERE delivery_id = ?", (state, attempts, next_at, error, delivery_id)))

    async def due_deliveries(self, before: float, limit: int = 100) -> list[Delivery]:
        found = await self._read(f"SELECT {DELIVERY_COLUMNS} FROM graphrt_webhooks WHERE state = 'pending' "
                                 "AND next_at < ? ORDER BY next_at, delivery_id LIMIT ?", (before, limit))
        return [Delivery(*row) for row in found]

    async def take_deliveries(self, before: float, until: float, limit: int = 100) -> list[Delivery]:
        """As `due_deliveries`: one server owns the store (a store several share overrides it)."""
        return await self.due_deliveries(before, limit)

    async def run_deliveries(self, run_id: str) -> list[Delivery]:
        found = await self._read(f"SELECT {DELIVERY_COLUMNS} FROM graphrt_webhooks WHERE run_id = ? "
                                 "ORDER BY created_at, delivery_id", (run_id,))
        return [Delivery(*row) for row in found]

    async def subscribed_runs(self) -> list[str]:
        found = await self._read("SELECT DISTINCT run_id FROM graphrt_webhooks WHERE state = 'subscribed'")
        return [row[0] for row in found]

    # ----- JournalStore: each run's outside calls -----

    async def add_call(self, entry: JournalEntry) -> None:
        await self._write(_call_statement(entry))

    def queue_call(self, entry: JournalEntry, *, hold: bool = False) -> Awaitable[None]:
        """Queues the entry as `add_call` saves it, at once; returns what to await for its commit."""
        return self._queue(_call_statement(entry), hold=hold)

    async def drop_call(self, run_id: str, path: str, index: int) -> None:
        await self._write(("DELETE FROM graphrt_journal WHERE run_id = ? AND path = ? AND idx = ?",
                           (run_id, path, index)))

    async def get_calls(self, run_id: str) -> list[JournalEntry]:
        found = await self._read(f"SELECT {_JOURNAL_COLUMNS} FROM graphrt_journal WHERE run_id = ? "
                                 "ORDER BY path, idx", (run_id,))
        entries = []
        for run, path, index, kind, agent, request, state, result, started_at, ended_at in found:
            try:
                state = CallState(state)
            except ValueError:
                raise damaged(f"run {run!r}, journal entry {path}#{index}", f"no call state graphrt writes: {state!r}")
            entries.append(JournalEntry(run, path, int(index), kind, agent, request, state, result,
                                        float(started_at), None if ended_at is None else float(ended_at)))
        return entries

    # ----- LeaseStore: which server owns the store -----

    async def take_lease(self, name: str, owner: str, holder: str, *, until: float, now: float,
                         replacing: str | None = None) -> Lease:
        # One statement, so that two servers starting at once cannot both take it.
        await self._write((
            "INSERT INTO graphrt_leases (name, owner, holder, expires_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, holder = excluded.holder, "
            "expires_at = excluded.expires_at WHERE graphrt_leases.owner = excluded.owner "
            "OR graphrt_leases.expires_at < ? OR graphrt_leases.owner = ?",
            (name, owner, holder, float(until), float(now), replacing or "")), alone=True)
        found = await self._read("SELECT owner, holder, expires_at FROM graphrt_leases WHERE name = ?", (name,))
        if not found:
            raise CheckpointError(f"the lease {name!r} of {self.location} was not written")
        return Lease(str(found[0][0]), str(found[0][1]), float(found[0][2]))

    async def get_lease(self, name: str) -> Lease | None:
        found = await self._read("SELECT owner, holder, expires_at FROM graphrt_leases WHERE name = ?", (name,))
        return Lease(str(found[0][0]), str(found[0][1]), float(found[0][2])) if found else None

    async def drop_lease(self, name: str, owner: str) -> None:
        await self._write(("DELETE FROM graphrt_leases WHERE name = ? AND owner = ?", (name, owner)), alone=True)

    def fence_writes(self, name: str, owner: str) -> None:
        """Each later transaction of writes starts with a row for `graphrt_fence` (always empty) that its NOT
        NULL refuses unless `owner` holds the lease `name`: the check commits with the writes, or none of
        them. Lease writes (`alone`) are not fenced. SQLite's write lock (BEGIN IMMEDIATE), PostgreSQL's
        lock of the lease's row (FOR SHARE), keep the lease from changing hands before the commit."""
        check = (f"INSERT INTO graphrt_fence (held) SELECT NULL WHERE NOT EXISTS (SELECT 1 FROM graphrt_leases "
                 f"WHERE name = ? AND owner = ?{self._fence_lock})")
        self._db.fence = Fence((self._sql(check), (name, owner)), "graphrt_fence", lambda: LeaseLost(
            f"checkpoint store {self.location}: this process no longer holds its lease {name!r} (another took "
            "the store over); the write was refused"))

    async def close(self) -> None:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.location!r})"
