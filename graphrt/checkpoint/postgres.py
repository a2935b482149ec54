"""PostgresStore: checkpoints in a PostgreSQL database, for runs on several machines.

Needs the `postgres` extra (`pip install 'graphrt[postgres]'`, psycopg 3). The
tables are the SQLite store's, created on first use. Each write is committed
when it returns. The connection URL's password is never shown: `location` and
every error message leave it out.
"""

from __future__ import annotations

import re
from contextlib import AbstractContextManager
from typing import Any

from graphrt.checkpoint.base import CheckpointError
from graphrt.checkpoint.sql import SqlStore, schema

__all__ = ["PostgresStore"]

_SCHEMA = schema(sequence="BIGSERIAL PRIMARY KEY", boolean="BOOLEAN", real="DOUBLE PRECISION")

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
        self._duplicate = psycopg.errors.UniqueViolation
        try:
            self._db = psycopg.connect(url, autocommit=True)
            with self._db.transaction():
                self._db.execute("SELECT pg_advisory_xact_lock(7074011)")  # one schema creator at a time
                self._db.execute(_SCHEMA)
        except psycopg.Error as error:
            raise CheckpointError(f"cannot use checkpoint database {self.location}: {_first_line(error)}") from None

    def _transaction(self) -> AbstractContextManager[Any]:
        return self._db.transaction()


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return without_password(text.splitlines()[0]) if text else type(error).__name__
