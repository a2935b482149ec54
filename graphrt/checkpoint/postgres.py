"""PostgresStore: checkpoints in a PostgreSQL database, for runs on several machines.

Needs the `postgres` extra (`pip install 'graphrt[postgres]'`, psycopg 3). The
tables are the SQLite store's, created on first use. Each write is committed
when it returns. A run being run is claimed with a session-level advisory
lock, which the server releases when the connection ends (the process died).
The connection URL's password is never shown: `location` and
every error message leave it out.
"""

from __future__ import annotations

import hashlib
import re
from contextlib import AbstractContextManager
from typing import Any

from graphrt.checkpoint.base import CheckpointError, run_taken
from graphrt.checkpoint.sql import SqlStore, schema

__all__ = ["PostgresStore"]

_SCHEMA = schema(sequence="BIGSERIAL PRIMARY KEY", boolean="BOOLEAN", real="DOUBLE PRECISION")

_CLAIM_WAIT_MS = 1000

_PASSWORD = re.compile(r"(://[^:/@]*:)[^@]*@")


def without_password(url: str) -> str:
    """`postgresql://user:secret@host/db` -> `postgresql://user:***@host/db`."""
    return _PASSWORD.sub(r"\1***@", url)


class PostgresStore(SqlStore):
    """A checkpoint store in PostgreSQL.

    Args:
        url: a libpq connection string, e.g. `postgresql://user@127.0.0.1:5432/graphrt`.
    """

    placeholder = "%s"

    def __init__(self, url: str) -> None:
        try:
            import psycopg
        except ImportError:
            raise CheckpointError(
                "a postgresql:// checkpoint needs psycopg: pip install 'graphrt[postgres]'"
            ) from None
        self.location = without_password(url)
        self._claims: set[str] = set()
        self._duplicate = psycopg.errors.UniqueViolation
        self._lock_timeout = psycopg.errors.LockNotAvailable
        try:
            self._db = psycopg.connect(url, autocommit=True)
            with self._db.transaction():
                self._db.execute("SELECT pg_advisory_xact_lock(7074011)")  # one schema creator at a time
                self._db.execute(_SCHEMA)
        except psycopg.Error as error:
            raise CheckpointError(f"cannot use checkpoint database {self.location}: {_first_line(error)}") from None

    def _transaction(self) -> AbstractContextManager[Any]:
        return self._db.transaction()

    def _lock_key(self, run_id: str) -> int:
        """A 64-bit advisory lock key for the run in this store's schema (locks are per database)."""
        schema = self._db.execute("SELECT current_schema()").fetchone()[0] or ""
        digest = hashlib.sha256(f"graphrt-run\0{schema}\0{run_id}".encode("utf-8")).digest()
        return int.from_bytes(digest[:8], "big", signed=True)

    def claim_run(self, run_id: str) -> None:
        # A session's advisory locks are re-entrant: this store's own second claim is refused here.
        if run_id in self._claims:
            raise run_taken(run_id, self.location)
        key = self._lock_key(run_id)
        try:
            # Waits a moment: the server frees a dead connection's locks just after the connection ends.
            with self._db.transaction():
                self._db.execute(f"SET LOCAL lock_timeout = '{_CLAIM_WAIT_MS}ms'")
                self._db.execute("SELECT pg_advisory_lock(%s)", (key,))  # a session lock: it outlives the transaction
        except self._lock_timeout:
            raise run_taken(run_id, self.location) from None
        self._claims.add(run_id)

    def release_run(self, run_id: str) -> None:
        if run_id in self._claims:
            self._claims.discard(run_id)
            self._db.execute("SELECT pg_advisory_unlock(%s)", (self._lock_key(run_id),))


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return without_password(text.splitlines()[0]) if text else type(error).__name__
