"""PostgresStore: checkpoints in a PostgreSQL database, for runs on several machines.

Needs the `postgres` extra (`pip install 'graphrt[postgres]'`, psycopg 3). The
tables are the SQLite store's, created on first use. Each write is committed
when it returns. A run being run is claimed with a session-level advisory
lock, which the server releases when the connection ends (the process died).
On asyncio the store talks to the server through psycopg's
async connection, so a write never blocks the event loop; psycopg's async
side needs asyncio, so on trio a blocking connection runs in a worker thread.
The connection URL's password is never shown: `location` and every error
message leave it out.
"""

from __future__ import annotations

import hashlib
from typing import Any

import anyio
import sniffio

from graphrt.base.entry_points import needs_extra
from graphrt.base.secrets import hide_credentials
from graphrt.checkpoint.base import CheckpointError, run_taken
from graphrt.checkpoint.sql import SqlStore, Statement, ThreadedConnection, schema

__all__ = ["PostgresStore"]

_SCHEMA = schema(sequence="BIGSERIAL PRIMARY KEY", boolean="BOOLEAN", real="DOUBLE PRECISION")
_CLAIM_WAIT_MS = 1000
_SCHEMA_LOCK = "SELECT pg_advisory_xact_lock(7074011)"  # one schema creator at a time

class PostgresStore(SqlStore):
    """A checkpoint store in PostgreSQL; it connects on first use.

    Args:
        url: a libpq connection string, e.g. `postgresql://user@127.0.0.1:5432/graphrt`.
    """

    schemes = ("postgresql", "postgres")
    extra = "graphrt[postgres]"
    placeholder = "%s"

    def __init__(self, url: str) -> None:
        try:
            import psycopg
        except ImportError as missing:
            raise CheckpointError(needs_extra("a PostgreSQL checkpoint store", self.extra, missing)) from None
        self._psycopg = psycopg
        self._url = url
        self.location = self.shown(url)
        self._duplicate = psycopg.errors.UniqueViolation
        self._lock_timeout = psycopg.errors.LockNotAvailable
        self._claims: set[str] = set()
        self._async: Any = None  # psycopg.AsyncConnection, on asyncio
        self._async_lock: anyio.Lock | None = None
        self._async_loop: Any = None  # the loop it was made on: a connection serves one loop
        self._threaded = ThreadedConnection(self._connect_blocking)

    @classmethod
    def shown(cls, target: str) -> str:
        """The URL without its credentials: `postgresql://user:secret@host/db` -> `postgresql://user:REDACTED@host/db`."""
        return hide_credentials(str(target))

    # ----- connections -----

    def _failed(self, error: Exception) -> CheckpointError:
        return CheckpointError(f"cannot use checkpoint database {self.location}: {_first_line(error)}")

    def _connect_blocking(self) -> Any:
        psycopg = self._psycopg
        try:
            db = psycopg.connect(self._url, autocommit=True)
            with db.transaction():
                db.execute(_SCHEMA_LOCK)
                db.execute(_SCHEMA)
        except psycopg.Error as error:
            raise self._failed(error) from None
        return db

    def _loop_lock(self) -> anyio.Lock:
        """The lock of this event loop's connection: one statement (or transaction) at a time."""
        import asyncio

        loop = asyncio.get_running_loop()
        if self._async_loop is not loop or self._async_lock is None:
            self._drop_async()
            self._async_loop, self._async_lock = loop, anyio.Lock()
        return self._async_lock

    async def _connected(self) -> Any:
        """The async connection (call with the loop's lock held); opened and set up on first use."""
        if self._async is None:
            psycopg = self._psycopg
            try:
                db = await psycopg.AsyncConnection.connect(self._url, autocommit=True)
                async with db.transaction():
                    await db.execute(_SCHEMA_LOCK)
                    await db.execute(_SCHEMA)
            except psycopg.Error as error:
                raise self._failed(error) from None
            self._async = db
        return self._async

    def _drop_async(self) -> None:
        if self._async is not None:
            self._async.pgconn.finish()  # its loop is gone: close the socket without awaiting
            self._async = None

    @staticmethod
    def _on_asyncio() -> bool:
        return sniffio.current_async_library() == "asyncio"

    # ----- SqlStore -----

    async def _read(self, query: str, values: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        query = self._sql(query)
        if not self._on_asyncio():
            return await self._threaded.read(query, values)
        async with self._loop_lock():
            cursor = await (await self._connected()).execute(query, values)
            return list(await cursor.fetchall())

    async def _write(self, *statements: Statement) -> None:
        statements = tuple((self._sql(query), values) for query, values in statements)
        if not self._on_asyncio():
            await self._threaded.write(*statements)
            return
        async with self._loop_lock():
            db = await self._connected()
            if len(statements) == 1:
                await db.execute(*statements[0])
                return
            async with db.transaction():
                for query, values in statements:
                    await db.execute(query, values)

    # ----- claims -----

    async def _lock_key(self, run_id: str) -> int:
        """A 64-bit advisory lock key for the run in this store's schema (locks are per database)."""
        schema = (await self._read("SELECT current_schema()"))[0][0] or ""
        digest = hashlib.sha256(f"graphrt-run\0{schema}\0{run_id}".encode("utf-8")).digest()
        return int.from_bytes(digest[:8], "big", signed=True)

    async def claim_run(self, run_id: str) -> None:
        # A session's advisory locks are re-entrant: this store's own second claim is refused here.
        if run_id in self._claims:
            raise run_taken(run_id, self.location)
        key = await self._lock_key(run_id)
        try:
            # Waits a moment: the server frees a dead connection's locks just after the connection ends.
            # A session lock: it outlives the transaction, and ends with the connection.
            await self._write((f"SET LOCAL lock_timeout = '{_CLAIM_WAIT_MS}ms'", ()),
                              ("SELECT pg_advisory_lock(?)", (key,)))
        except self._lock_timeout:
            raise run_taken(run_id, self.location) from None
        self._claims.add(run_id)

    async def release_run(self, run_id: str) -> None:
        if run_id in self._claims:
            self._claims.discard(run_id)
            await self._write(("SELECT pg_advisory_unlock(?)", (await self._lock_key(run_id),)))

    async def close(self) -> None:
        self._claims.clear()  # the server ends them with the connection
        self._threaded.close()
        if self._async is not None:
            db, self._async = self._async, None
            if self._on_asyncio() and self._async_loop is _running_loop():
                await db.close()
            else:
                db.pgconn.finish()


def _running_loop() -> Any:
    import asyncio

    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return PostgresStore.shown(text.splitlines()[0]) if text else type(error).__name__
