"""PostgresStore: checkpoints in a PostgreSQL database, for runs on several machines.

Needs the `postgres` extra (`pip install 'graphrt[postgres]'`, psycopg 3). The
tables are the SQLite store's, created on first use. Each write is committed
when it returns. A run being run is claimed with a session-level advisory
lock, which the server releases when the connection ends (the process died).
The connection is used by a thread of its own (`GroupCommit`), so a write
never blocks the event loop, on asyncio and trio alike, and the writes of runs
that finish nodes at the same time share one transaction: one commit (one WAL
flush on the server) for all of them.
A run with rate limits counts its calls in the database too (`rate_window`, postgres_rates.py), with every
process on it. Several `graphrt serve` share one database: each joins it as a server, claims the runs it runs,
and writes nothing more for a run another took over (postgres_claims.py); each due webhook delivery is taken by
one of them (`take_deliveries`). What the servers write for each other is announced as it is committed (NOTIFY),
and heard by each on a connection of its own (`heard`: postgres_notices.py).
The connection URL's password is never shown: `location` and every error
message leave it out. A connection that broke (the server restarted, an admin
ended it) is made again on the next call, and takes again the claims the
broken one held (the server ended them with it); one that another process took
meanwhile is this store's no more.
"""

from __future__ import annotations

import hashlib
from typing import Any, Awaitable, Sequence

from graphrt.base.extras import EXTRAS, install_line, needs_extra
from graphrt.base.secrets import hide_credentials
from graphrt.checkpoint.errors import CheckpointError, LeaseLost, StoreFailed, run_taken
from graphrt.checkpoint.group_commit import GroupCommit, Refusal, Statement, query_runs
from graphrt.checkpoint.postgres_claims import (ANNOUNCE_CLAIMS, CLAIM_FOR, ENDED_SPELLINGS, FENCE_TABLE,
                                                 IN_STORE_QUEUE, LEAVE_QUEUED, NOW, SERVER_SETTING, STORE_QUEUED,
                                                 TABLES, TABLES_DIGEST, TABLES_MADE, claim_left)
from graphrt.checkpoint.postgres_notices import PostgresListener
from graphrt.checkpoint.postgres_rates import PostgresRateWindow
from graphrt.checkpoint.records import Announcement, Delivery, RunRecord, ServerRow
from graphrt.checkpoint.sql import DELIVERY_COLUMNS, SqlStore, insert_run, schema

__all__ = ["PostgresStore"]

_SCHEMA = schema(sequence="BIGSERIAL PRIMARY KEY", boolean="BOOLEAN", real="DOUBLE PRECISION", add_columns=True)
_CLAIM_WAIT_MS = 1000
_DDL_ATTEMPTS = 5  # the servers' tables made again in turn with the writes of running servers, deadlocked at worst
_SCHEMA_LOCK = "SELECT pg_advisory_xact_lock(7074011)"  # one schema creator at a time

class PostgresStore(SqlStore):
    """A checkpoint store in PostgreSQL; it connects on first use.

    Args:
        url: a libpq connection string, e.g. `postgresql://user@127.0.0.1:5432/graphrt`.
    """

    schemes = ("postgresql", "postgres")
    extra = install_line("postgres")
    requires = EXTRAS["postgres"]
    placeholder = "%s"
    _fence_lock = " FOR SHARE"

    def __init__(self, url: str) -> None:
        absent = needs_extra("a PostgreSQL checkpoint store", "postgres")
        if absent:
            raise CheckpointError(absent)
        import psycopg

        self._psycopg = psycopg
        self._url = url
        self.location = self.shown(url)
        self._duplicate = psycopg.errors.UniqueViolation
        self._lock_timeout = psycopg.errors.LockNotAvailable
        self._claims: set[str] = set()
        self._db = GroupCommit(self._connect, script=_script)
        # A write of a run that a server holds, by a process that does not (postgres_claims.py's fence).
        self._db.refusal = Refusal(FENCE_TABLE, lambda said: LeaseLost(
            f"checkpoint store {self.location}: {_first_line(said).partition(FENCE_TABLE + ': ')[2]}; the write was "
            "refused (this process does not hold the run: another server took it over, or holds it)"))
        self._schema: str | None = None
        self._rates: PostgresRateWindow | None = None
        self._listener: PostgresListener | None = None  # opened by the first `heard`
        self._server: str | None = None  # the server this store writes for, once it joined the store's servers

    @classmethod
    def shown(cls, target: str) -> str:
        """The URL without its credentials: `postgresql://user:secret@host/db` -> `postgresql://user:REDACTED@host/db`."""
        return hide_credentials(str(target))

    # ----- connections -----

    def _failed(self, error: Exception) -> StoreFailed:
        return StoreFailed(f"cannot use checkpoint database {self.location}: {_first_line(error)}")

    def _connect(self) -> Any:
        psycopg = self._psycopg
        try:
            db = psycopg.connect(self._url, autocommit=True)
            with db.transaction():
                db.execute(_SCHEMA_LOCK)
                db.execute(_SCHEMA)
            # The connection's schema names its runs' locks: known from the first use on (start_new_run needs it).
            schema = self._schema = db.execute("SELECT current_schema()").fetchone()[0] or ""
            if self._server is not None:  # made again after one broke: it writes for its server still
                db.execute("SELECT set_config(%s, %s, false)", (SERVER_SETTING, self._server))
            if self._claims:  # made again after one broke
                for run_id in list(self._claims):
                    if not db.execute("SELECT pg_try_advisory_lock(%s)", (_lock_key(schema, run_id),)).fetchone()[0]:
                        self._claims.discard(run_id)
        except psycopg.Error as error:
            raise self._failed(error) from None
        return db

    async def check(self) -> None:
        """Raises CheckpointError when the database does not answer (what /health and start-up ask)."""
        try:
            await self._read("SELECT 1")
        except self._psycopg.Error as error:
            raise self._failed(error) from None

    # ----- SqlStore -----

    async def _read(self, query: str, values: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return await self._db.read(self._sql(query), values)

    async def _write(self, *statements: Statement, alone: bool = False) -> None:
        await self._db.write(*((self._sql(query), values) for query, values in statements), alone=alone)

    def _queue(self, *statements: Statement, hold: bool = False) -> Awaitable[None]:
        return self._db.queue(*((self._sql(query), values) for query, values in statements), hold=hold)

    # ----- claims -----

    async def _lock_key(self, run_id: str) -> int:
        """A 64-bit advisory lock key for the run in this store's schema (locks are per database)."""
        if self._schema is None:  # the connection's schema: one query for the store's life, not two per run
            self._schema = (await self._read("SELECT current_schema()"))[0][0] or ""
        return _lock_key(self._schema, run_id)

    async def claim_run(self, run_id: str) -> None:
        # A session's advisory locks are re-entrant: this store's own second claim is refused here.
        if run_id in self._claims:
            raise run_taken(run_id, self.location)
        key = await self._lock_key(run_id)
        # At once if it is free: one statement outside any transaction, read along with other runs' claims.
        if (await self._read("SELECT pg_try_advisory_lock(?)", (key,)))[0][0]:
            self._claims.add(run_id)
            return
        try:
            # Waits a moment: the server frees a dead connection's locks just after the connection ends.
            # A session lock: it outlives the transaction, and ends with the connection.
            # Alone: a session lock taken in a batch that is rolled back stays taken.
            await self._write((f"SET LOCAL lock_timeout = '{_CLAIM_WAIT_MS}ms'", ()),
                              ("SELECT pg_advisory_lock(?)", (key,)), alone=True)
        except self._lock_timeout:
            raise run_taken(run_id, self.location) from None
        self._claims.add(run_id)

    def start_new_run(self, record: RunRecord) -> Awaitable[None] | None:
        """Claims a run whose id was just made up and saves its record, both queued now, in this order: the run's
        first node runs while they are made (one step instead of two on a run's way, each a trip to the server and
        the record's commit), and the run awaits what this returns before it saves a row or its end.

        The claim comes first on this connection, so another process that reads the record finds it claimed. What
        this returns must be awaited (the run does, before its first row and on its way out) before `release_run`.
        None: not now (before the store's first use, its schema is unknown); claim and create the run in turn.
        """
        if self._schema is None or record.run_id in self._claims:
            return None
        key = _lock_key(self._schema, record.run_id)
        claimed = self._db.queue((self._sql("SELECT pg_try_advisory_lock(?)"), (key,)), read=True)
        query, values = insert_run(record)
        created = self._db.queue((self._sql(query), values))
        return self._started(record.run_id, key, claimed, created)

    async def _started(self, run_id: str, key: int, claimed: Awaitable[Any], created: Awaitable[None]) -> None:
        """Both outcomes, awaited whatever the first was; an error once the claim is given back if it was taken."""
        taken, error = False, None
        try:
            taken = bool((await claimed)[0][0])
        except Exception as failed:  # noqa: BLE001 - the record's outcome is awaited too, then this is raised
            error = failed
        try:
            await created
        except self._duplicate:
            error = error or self._taken_id(run_id)
        except Exception as failed:  # noqa: BLE001
            error = error or failed
        if error is None and not taken:  # a made-up id another process runs: as likely as two equal 48-bit ids
            error = run_taken(run_id, self.location)
        if error is not None:
            if taken:
                self._db.post((self._sql("SELECT pg_advisory_unlock(?)"), (key,)), last=True)
            raise error
        self._claims.add(run_id)  # once taken (a connection made again meanwhile takes only those): release_run gives it back

    async def release_run(self, run_id: str) -> None:
        if run_id in self._claims:
            self._claims.discard(run_id)
            # Not waited for: the run's end is committed already. Made at the end of its batch, with the other
            # runs' in one call; a claim of the same run by this store queued after it may come first: a session's
            # locks are counted, so that claim holds the lock once this one is given back.
            self._db.post((self._sql("SELECT pg_advisory_unlock(?)"), (await self._lock_key(run_id),)), last=True)

    # ----- SharedServers: several servers on the store (postgres_claims.py) -----

    async def join_servers(self, server: str, holder: str, *, seconds: float) -> None:
        """Adds `server` to the store's servers (or renews it) for `seconds`; from now on this store's writes are
        `server`'s: a write of a run another server holds is refused (LeaseLost)."""
        for attempt in range(_DDL_ATTEMPTS):
            if await self._shared_tables_made():
                break
            try:  # a graphrt that changed them, started while older servers write: they may wait on each other
                await self._write((_SCHEMA_LOCK, ()), (TABLES, ()), (TABLES_MADE, (TABLES_DIGEST,)), alone=True)
                break
            except self._psycopg.errors.DeadlockDetected:
                if attempt == _DDL_ATTEMPTS - 1:
                    raise
        await self._write((f"INSERT INTO graphrt_servers (server, holder, started_at, expires_at) "
                           f"VALUES (?, ?, {NOW}, {NOW} + ?) ON CONFLICT (server) DO UPDATE "
                           f"SET holder = excluded.holder, expires_at = excluded.expires_at", (server, holder, seconds)),
                          alone=True)
        self._server = server
        await self._write(("SELECT set_config(?, ?, false)", (SERVER_SETTING, server)), alone=True)

    async def _shared_tables_made(self) -> bool:
        """Whether the servers' tables, triggers and functions are made as this graphrt makes them: made again only
        when they are not (a first server, or a graphrt that changed them). Made again at each server's start, the
        triggers were replaced under the running servers' writes, which then waited on each other (a deadlock,
        which stopped the server starting)."""
        if not (await self._read("SELECT to_regclass('graphrt_shared_tables') IS NOT NULL"))[0][0]:
            return False
        return bool(await self._read("SELECT 1 FROM graphrt_shared_tables WHERE digest = ?", (TABLES_DIGEST,)))

    async def renew_server(self, server: str, *, seconds: float) -> list[str]:
        """The heartbeat: `server` lives `seconds` more (its row made again if another removed it); returns the runs
        it holds, so that it stops those another took over."""
        await self._write((f"INSERT INTO graphrt_servers (server, holder, started_at, expires_at) "
                           f"VALUES (?, '{{}}', {NOW}, {NOW} + ?) ON CONFLICT (server) DO UPDATE "
                           f"SET expires_at = excluded.expires_at", (server, seconds)), alone=True)
        return [row[0] for row in await self._read("SELECT run_id FROM graphrt_run_claims WHERE server = ?",
                                                   (server,))]

    async def leave_servers(self, server: str) -> None:
        """`server` stops: the runs it holds are given up (another server continues them at once), its row gone. Those
        that ended stay claimed by it: it stopped before saving their webhook deliveries, which another saves."""
        await self._write((f"UPDATE graphrt_run_claims c SET server = '' WHERE server = ? AND NOT EXISTS (SELECT 1 FROM "
                           f"graphrt_runs r WHERE r.run_id = c.run_id AND r.status IN ({ENDED_SPELLINGS}))", (server,)),
                          ("DELETE FROM graphrt_servers WHERE server = ?", (server,)), (ANNOUNCE_CLAIMS, ("",)),
                          alone=True)

    async def expire_server(self, server: str) -> None:
        """`server` is known gone (its process no longer exists): its runs may be claimed now."""
        await self._write(("UPDATE graphrt_servers SET expires_at = 0 WHERE server = ?", (server,)), alone=True)

    async def claim_for(self, server: str, run_id: str) -> int | None:
        """Claims one run for `server` unless another live server holds it; the claim's token (counted up at each
        claim of the run) if it is `server`'s now, else None."""
        taken = await self._read(CLAIM_FOR, (run_id, server))
        if taken:
            return int(taken[0][1])
        held = await self._read("SELECT server, token FROM graphrt_run_claims WHERE run_id = ?", (run_id,))
        return int(held[0][1]) if held and held[0][0] == server else None

    async def claim_left(self, server: str, limit: int, prefer: Sequence[str] = (), *,
                         aged_only: bool = False) -> list[tuple[str, int]]:
        """Claims for `server` up to `limit` runs that servers left (saved running, their server gone, or waiting in
        the store's queue), those of `prefer` first, then oldest first (`aged_only`: only those that waited over a
        second): each one's id and its claim's token."""
        if limit <= 0:
            return []
        found = await self._read(claim_left(limit, aged_only=aged_only), (server, server, list(prefer)))
        return [(str(run_id), int(token)) for run_id, token in found]

    async def store_queued(self) -> int:
        """How many runs wait in the store's queue (saved running, claimed by no server)."""
        return int((await self._read(STORE_QUEUED))[0][0])

    async def leave_queued(self, server: str, run_id: str, bound: int) -> int | None:
        """Gives `server`'s claim of a saved run up for the first server with a free slot (announced to all), unless
        `bound` runs wait in the store's queue already; how many wait there now (this one too), None if not left."""
        waiting = int((await self._read(LEAVE_QUEUED, (run_id, server, int(bound))))[0][0])
        return waiting if waiting >= 0 else None

    async def in_store_queue(self, run_ids: Sequence[str]) -> set[str]:
        """Which of the runs wait in the store's queue for a server."""
        return {str(row[0]) for row in await self._read(IN_STORE_QUEUE, (list(run_ids),))} if run_ids else set()

    async def release_claim(self, server: str, run_id: str) -> None:
        """`server` gives its claim of the run up (it ended, asks a person, or is left for another server)."""
        await self._write(("UPDATE graphrt_run_claims SET server = '', cancel = FALSE WHERE run_id = ? AND server = ?",
                           (run_id, server)), alone=True)

    async def drain_server(self, server: str) -> bool:
        """Asks `server` to drain: claim no more runs, take no new ones, finish those it holds, then stop; whether
        such a live server is on the store."""
        return bool(await self._read(f"WITH asked AS (UPDATE graphrt_servers SET draining = TRUE WHERE server = ? "
                                     f"AND expires_at >= {NOW} RETURNING server) "
                                     f"SELECT server, pg_notify('graphrt_claims', server) FROM asked", (server,)))

    async def draining(self, server: str) -> bool:
        """Whether `server` was asked to drain."""
        found = await self._read("SELECT draining FROM graphrt_servers WHERE server = ?", (server,))
        return bool(found and found[0][0])

    async def ask_cancel(self, run_id: str) -> bool:
        """Marks the run to be cancelled by the server that holds it; whether one does (live or not)."""
        return bool(await self._read("WITH asked AS (UPDATE graphrt_run_claims SET cancel = TRUE WHERE run_id = ? "
                                     "AND server <> '' RETURNING run_id, server) "
                                     "SELECT run_id, pg_notify('graphrt_claims', server) FROM asked", (run_id,)))

    async def cancels(self, server: str) -> list[str]:
        """The runs `server` holds that another server was asked to cancel."""
        return [row[0] for row in await self._read("SELECT run_id FROM graphrt_run_claims WHERE server = ? AND cancel",
                                                   (server,))]

    async def take_deliveries(self, before: float, until: float, limit: int = 100) -> list[Delivery]:
        """Takes due deliveries for this server alone (WebhookStore): rows another server is taking now are skipped
        (SKIP LOCKED), and those taken wait until `until` in the one statement, so that no two servers call one."""
        found = await self._read(
            f"UPDATE graphrt_webhooks SET next_at = ? WHERE delivery_id IN (SELECT delivery_id FROM graphrt_webhooks "
            f"WHERE state = 'pending' AND next_at < ? ORDER BY next_at, delivery_id LIMIT ? FOR UPDATE SKIP LOCKED) "
            f"RETURNING {DELIVERY_COLUMNS}", (until, before, int(limit)))
        return sorted((Delivery(*row) for row in found), key=lambda item: (item.created_at, item.delivery_id))

    async def servers(self) -> list[ServerRow]:
        """Every server on the store, live or not, with the runs each holds; the database's clock beside them."""
        if not (await self._read("SELECT to_regclass('graphrt_servers') IS NOT NULL"))[0][0]:
            return []  # no server ever joined
        found = await self._read(f"SELECT s.server, s.holder, s.expires_at, s.draining, {NOW}, "
                                 f"coalesce(string_agg(c.run_id, ' ' ORDER BY c.run_id), '') FROM graphrt_servers s "
                                 f"LEFT JOIN graphrt_run_claims c ON c.server = s.server "
                                 f"GROUP BY s.server ORDER BY s.started_at")
        return [ServerRow(str(server), str(holder), float(expires), bool(draining), tuple(runs.split()), float(now))
                for server, holder, expires, draining, now, runs in found]

    # ----- Announcements -----

    async def heard(self, timeout: float) -> list[Announcement]:
        """What the servers on the store announced (postgres_notices.py), on a connection of its own opened now."""
        if self._listener is None:
            self._listener = PostgresListener(self._url)
        return await self._listener.heard(timeout)

    # ----- RateWindows -----

    def rate_window(self) -> PostgresRateWindow:
        """The grants of rate limits, in this database for every process on it (a connection of its own, opened on
        the first limited call: postgres_rates.py)."""
        if self._rates is None:
            self._rates = PostgresRateWindow(self._url, schema_lock=_SCHEMA_LOCK)
        return self._rates

    async def close(self) -> None:
        self._claims.clear()  # the server ends them with the connection
        self._db.close()
        if self._rates is not None:
            self._rates.close()
        if self._listener is not None:
            self._listener.close()


def _script(db: Any, statements: Sequence[Statement]) -> str:
    """The statements as one SQL text, values bound by psycopg's client-side binding (its quoting, not ours).

    Consecutive inserts of one text (50 runs' node rows) are one insert of many rows: one statement for
    the server to parse and run instead of 50, the rows in their order."""
    import psycopg

    cursor = psycopg.ClientCursor(db)
    parts = []
    for query, rows in query_runs(statements):
        head, values_of, tail = query.partition(" VALUES ")
        if len(rows) > 1 and head.startswith("INSERT INTO ") and values_of and tail.startswith("(") \
                and tail.endswith(")") and ")" not in tail[:-1]:
            parts.append(f"{head} VALUES " + ", ".join(cursor.mogrify(tail, values) for values in rows))
        else:
            parts.extend(cursor.mogrify(query, values) if values else query for values in rows)
    return ";\n".join(parts)


def _lock_key(schema: str | None, run_id: str) -> int:
    digest = hashlib.sha256(f"graphrt-run\0{schema or ''}\0{run_id}".encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return PostgresStore.shown(text.splitlines()[0]) if text else type(error).__name__
