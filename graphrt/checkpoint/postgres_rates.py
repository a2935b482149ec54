"""`PostgresRateWindow`: the grants of rate limits kept in a PostgreSQL database, shared by every process on it.

A provider limits a key's requests and tokens per minute whatever process sends them: two servers on
one store, each keeping its own runs under a limit (graphrt.observe.rate_limits' `MemoryWindow`), may
send twice the limit together. Here each grant is a row (`rate_grants`: its label, when it counts from,
its tokens), and a turn is taken in one transaction that holds an advisory lock per label (taken in
one order, so two turns never wait for each other around a circle): it reads the label's last minute
of grants, and adds the call's only if it fits (`fit_wait`, the rule the memory window keeps). A
provider's Retry-After is a row of `rate_holds`, which every process reads before its turn.

Time is the server's (`clock_timestamp()`), one clock for every process whatever machine it is on; a test
gives a clock of its own. The window has a connection of its own, opened on the first limited call (one
more connection per store, none for a process without rate limits), used by a thread of its own: the
event loop never waits for the server, and settles and holds are made in the order they were asked,
without the caller waiting (a settle that fails leaves the call's reservation counted until it leaves
the window: the window holds more than was used, never less). Its writes are not fenced by a server's
lease (graphrt/serve/lease.py): a grant records a call about to be sent to a provider, which counts
against the provider's limit whichever process owns the store.
"""

from __future__ import annotations

import hashlib
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable, Mapping

import anyio

from graphrt.base.secrets import hide_credentials
from graphrt.checkpoint.errors import StoreFailed
from graphrt.observe.rate_limits import HELD_SECONDS, Rate, fit_wait

__all__ = ["PostgresRateWindow"]

_TABLES = """
CREATE TABLE IF NOT EXISTS rate_grants (
    id BIGSERIAL PRIMARY KEY,
    label TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL,
    tokens BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS rate_grants_label_at ON rate_grants (label, at);
CREATE TABLE IF NOT EXISTS rate_holds (
    label TEXT PRIMARY KEY,
    until DOUBLE PRECISION NOT NULL
)"""

_NOW = "SELECT extract(epoch FROM clock_timestamp())::float8"


class PostgresRateWindow:
    """A `RateWindow` (graphrt.observe.rate_limits) in the database at `url`: its tables beside the store's.

    Args:
        url: the store's libpq connection string (its search_path, if any, names the schema).
        schema_lock: the statement that makes one process at a time create tables in the database.
        clock: seconds, the same for every window that shares the tables; None: the server's clock.
    """

    def __init__(self, url: str, *, schema_lock: str, clock: Callable[[], float] | None = None) -> None:
        import psycopg

        self._psycopg = psycopg
        self._url = url
        self._schema_lock = schema_lock
        self._clock = clock
        self.location = hide_credentials(url)
        self._db: Any = None
        self._schema = ""
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None

    # ----- RateWindow -----

    async def take(self, labels: Mapping[str, Rate], tokens: int) -> tuple[Any, float]:
        return await self._call(self._take, dict(labels), int(tokens))

    def settle(self, ids: Any, tokens: int) -> None:
        self._post(self._settle, list(ids), int(tokens))

    def hold(self, label: str, seconds: float) -> None:
        self._post(self._hold, label, float(seconds))

    async def held(self, *labels: str) -> float:
        return await self._call(self._held, list(labels))

    def close(self) -> None:
        """Closes the connection once the settles and holds asked before are made (a later call opens it again)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.submit(self._disconnect)
            pool.shutdown(wait=False)

    # ----- the window's thread -----

    def _executor(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:  # one thread: the calls are made in the order they were asked
                self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphrt-rate-window")
            return self._pool

    async def _call(self, work: Callable[..., Any], *args: Any) -> Any:
        future = self._executor().submit(self._attempt, work, *args)
        return await anyio.to_thread.run_sync(future.result)

    def _post(self, work: Callable[..., Any], *args: Any) -> None:
        future: Future[Any] = self._executor().submit(self._attempt, work, *args)
        future.add_done_callback(_ignore)  # not awaited: a failure leaves the window holding more, never less

    def _attempt(self, work: Callable[..., Any], *args: Any) -> Any:
        """`work(db, ...)` on the connection (made on first use, and again after one broke)."""
        psycopg = self._psycopg
        try:
            if self._db is None or self._db.closed:
                self._connect()
            return work(self._db, *args)
        except psycopg.Error as error:
            if self._db is not None and (self._db.closed or self._db.broken):
                self._db = None
            text = str(error).strip().splitlines()
            raise StoreFailed(f"cannot keep rate limits in checkpoint database {self.location}: "
                              f"{hide_credentials(text[0]) if text else type(error).__name__}") from None

    def _connect(self) -> None:
        db = self._psycopg.connect(self._url, autocommit=True)
        try:
            with db.transaction():
                db.execute(self._schema_lock)
                db.execute(_TABLES)
            self._schema = db.execute("SELECT current_schema()").fetchone()[0] or ""
        except BaseException:
            db.close()
            raise
        self._db = db

    def _disconnect(self) -> None:
        db, self._db = self._db, None
        if db is not None:
            db.close()

    def _now(self, db: Any) -> float:
        return self._clock() if self._clock is not None else db.execute(_NOW).fetchone()[0]

    def _take(self, db: Any, labels: dict[str, Rate], tokens: int) -> tuple[Any, float]:
        names = list(labels)
        with db.transaction():
            for key in sorted(_lock_key(self._schema, label) for label in names):
                db.execute("SELECT pg_advisory_xact_lock(%s)", (key,))
            now = self._now(db)
            db.execute("DELETE FROM rate_grants WHERE label = ANY(%s) AND at <= %s", (names, now - HELD_SECONDS))
            held = db.execute("SELECT max(until) FROM rate_holds WHERE label = ANY(%s)", (names,)).fetchone()[0]
            grants: dict[str, list[tuple[float, int]]] = {label: [] for label in names}
            for label, at, used in db.execute("SELECT label, at, tokens FROM rate_grants WHERE label = ANY(%s) "
                                              "ORDER BY at, id", (names,)):
                grants[label].append((at, used))
            wait = max(0.0, (held or now) - now)
            for label, rate in labels.items():
                wait = max(wait, fit_wait(grants[label], now, rate, tokens))
            if wait > 0:
                return None, wait
            ids = [db.execute("INSERT INTO rate_grants (label, at, tokens) VALUES (%s, %s, %s) RETURNING id",
                              (label, now, tokens)).fetchone()[0] for label in names]
            return ids, 0.0

    def _settle(self, db: Any, ids: list[int], tokens: int) -> None:
        # Counted from now, the latest the provider may have counted it from (the memory window's rule).
        now = self._now(db)
        db.execute("UPDATE rate_grants SET at = %s, tokens = %s WHERE id = ANY(%s)", (now, tokens, ids))

    def _hold(self, db: Any, label: str, seconds: float) -> None:
        until = self._now(db) + seconds
        db.execute("INSERT INTO rate_holds (label, until) VALUES (%s, %s) ON CONFLICT (label) "
                   "DO UPDATE SET until = greatest(rate_holds.until, excluded.until)", (label, until))

    def _held(self, db: Any, labels: list[str]) -> float:
        until = db.execute("SELECT max(until) FROM rate_holds WHERE label = ANY(%s)", (labels,)).fetchone()[0]
        return 0.0 if until is None else max(until - self._now(db), 0.0)


def _lock_key(schema: str, label: str) -> int:
    """A 64-bit advisory lock key for a label's turns in this schema (advisory locks are per database)."""
    digest = hashlib.sha256(f"graphrt-rate\0{schema}\0{label}".encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def _ignore(future: Future[Any]) -> None:
    future.exception()  # read, so that it is not reported as never retrieved
