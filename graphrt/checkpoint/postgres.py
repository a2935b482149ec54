"""PostgresStore: checkpoints in a PostgreSQL database, for runs on several machines.

Needs the `postgres` extra (`pip install 'graphrt[postgres]'`, psycopg 3). The
tables are the SQLite store's, created on first use. Each write is committed
when it returns. The connection URL's password is never shown: `location` and
every error message leave it out.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from .base import CheckpointError, RunRecord, Row, encode_value
from .sqlite import _RUN_COLUMNS, record_from_row, record_values

__all__ = ["PostgresStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS graphrt_runs (
    run_id TEXT PRIMARY KEY,
    graph_file TEXT,
    graph_text TEXT,
    graph_hash TEXT NOT NULL,
    injected TEXT NOT NULL,
    config TEXT NOT NULL,
    all_results BOOLEAN NOT NULL,
    status TEXT NOT NULL,
    detail TEXT NOT NULL,
    results TEXT,
    created_at DOUBLE PRECISION NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL
);
CREATE TABLE IF NOT EXISTS graphrt_rows (
    seq BIGSERIAL PRIMARY KEY,
    run_id TEXT NOT NULL,
    iteration INTEGER NOT NULL,
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT
);
CREATE INDEX IF NOT EXISTS graphrt_rows_run ON graphrt_rows (run_id, iteration);
"""

_PASSWORD = re.compile(r"(://[^:/@]*:)[^@]*@")


def without_password(url: str) -> str:
    """`postgresql://user:secret@host/db` -> `postgresql://user:***@host/db`."""
    return _PASSWORD.sub(r"\1***@", url)


class PostgresStore:
    """A checkpoint store in PostgreSQL.

    Args:
        url: a libpq connection string, e.g. `postgresql://user@127.0.0.1:5432/graphrt`.
    """

    def __init__(self, url: str) -> None:
        try:
            import psycopg
        except ImportError:
            raise CheckpointError(
                "a postgresql:// checkpoint needs psycopg: pip install 'graphrt[postgres]'"
            ) from None
        self.location = without_password(url)
        self._unique = psycopg.errors.UniqueViolation
        try:
            self._db = psycopg.connect(url, autocommit=True)
            with self._db.transaction():
                self._db.execute("SELECT pg_advisory_xact_lock(7074011)")  # one schema creator at a time
                self._db.execute(_SCHEMA)
        except psycopg.Error as error:
            raise CheckpointError(f"cannot use checkpoint database {self.location}: {_first_line(error)}") from None

    def create_run(self, record: RunRecord) -> None:
        try:
            self._db.execute(f"INSERT INTO graphrt_runs ({_RUN_COLUMNS}) VALUES ({', '.join(['%s'] * 12)})",
                             record_values(record))
        except self._unique:
            raise CheckpointError(f"run {record.run_id!r} is already saved in {self.location}") from None

    def update_run(self, run_id: str, *, status: str, detail: dict[str, Any] | None = None, results: Any = None) -> None:
        self._db.execute(
            "UPDATE graphrt_runs SET status = %s, detail = %s, results = %s, updated_at = %s WHERE run_id = %s",
            (status, json.dumps(detail or {}), encode_value(results) if results is not None else None, time.time(),
             run_id),
        )

    def add_row(self, row: Row) -> None:
        values = (row.run_id, row.iteration, row.kind, row.key, row.value)
        insert = "INSERT INTO graphrt_rows (run_id, iteration, kind, key, value) VALUES (%s, %s, %s, %s, %s)"
        if row.kind != "iteration":
            self._db.execute(insert, values)
            return
        with self._db.transaction():
            self._db.execute("DELETE FROM graphrt_rows WHERE run_id = %s AND iteration < %s", (row.run_id, row.iteration))
            self._db.execute(insert, values)

    def get_run(self, run_id: str) -> RunRecord | None:
        found = self._db.execute(f"SELECT {_RUN_COLUMNS} FROM graphrt_runs WHERE run_id = %s", (run_id,)).fetchone()
        return record_from_row(found) if found else None

    def get_rows(self, run_id: str) -> list[Row]:
        found = self._db.execute(
            "SELECT run_id, iteration, kind, key, value FROM graphrt_rows WHERE run_id = %s AND iteration = "
            "(SELECT MAX(iteration) FROM graphrt_rows WHERE run_id = %s) ORDER BY seq",
            (run_id, run_id),
        ).fetchall()
        return [Row(*row) for row in found]

    def runs(self) -> list[RunRecord]:
        found = self._db.execute(f"SELECT {_RUN_COLUMNS} FROM graphrt_runs ORDER BY updated_at DESC, run_id")
        return [record_from_row(row) for row in found.fetchall()]

    def close(self) -> None:
        self._db.close()

    def __repr__(self) -> str:
        return f"PostgresStore({self.location!r})"


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return without_password(text.splitlines()[0]) if text else type(error).__name__
