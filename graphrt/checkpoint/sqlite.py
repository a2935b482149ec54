"""SQLiteStore: checkpoints in one SQLite file, the default store.

The file is in WAL mode with `synchronous=NORMAL`: each write is committed
when `add_row` returns, so a process killed at any moment (SIGKILL included)
loses nothing it had written; only a power cut can lose the last commits.
Several processes can use one file; each write waits up to `timeout` seconds
for another writer.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

from .base import CheckpointError, RunRecord, Row, decode_value, encode_value

__all__ = ["SQLiteStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS graphrt_runs (
    run_id TEXT PRIMARY KEY,
    graph_file TEXT,
    graph_text TEXT,
    graph_hash TEXT NOT NULL,
    injected TEXT NOT NULL,
    config TEXT NOT NULL,
    all_results INTEGER NOT NULL,
    status TEXT NOT NULL,
    detail TEXT NOT NULL,
    results TEXT,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS graphrt_rows (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL,
    iteration INTEGER NOT NULL,
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT
);
CREATE INDEX IF NOT EXISTS graphrt_rows_run ON graphrt_rows (run_id, iteration);
"""

_RUN_COLUMNS = ("run_id, graph_file, graph_text, graph_hash, injected, config, all_results, status, detail, results, "
                "created_at, updated_at")


def record_from_row(row: tuple[Any, ...]) -> RunRecord:
    """A RunRecord from a `graphrt_runs` row (both stores use the same columns)."""
    (run_id, graph_file, graph_text, graph_hash, injected, config, all_results, status, detail, results,
     created_at, updated_at) = row
    return RunRecord(
        run_id=run_id, graph_file=graph_file, graph_text=graph_text, graph_hash=graph_hash,
        injected=decode_value(injected), config=json.loads(config), all_results=bool(all_results), status=status,
        detail=json.loads(detail), results=decode_value(results) if results is not None else None,
        created_at=created_at, updated_at=updated_at,
    )


def record_values(record: RunRecord) -> tuple[Any, ...]:
    """The `graphrt_runs` columns of a record, in _RUN_COLUMNS order."""
    now = time.time()
    return (record.run_id, record.graph_file, record.graph_text, record.graph_hash, encode_value(record.injected),
            json.dumps(record.config), bool(record.all_results), record.status, json.dumps(record.detail),
            encode_value(record.results) if record.results is not None else None,
            record.created_at or now, record.updated_at or now)


class SQLiteStore:
    """A checkpoint store in a SQLite file (created if missing); `":memory:"` keeps it in memory.

    Args:
        path: the database file.
        timeout: seconds a write waits for another process holding the file.
    """

    def __init__(self, path: str | Path, *, timeout: float = 30.0) -> None:
        self.location = str(path)
        try:
            # Writes come from the event loop thread; a sync agent's worker thread never writes.
            self._db = sqlite3.connect(self.location, timeout=timeout, isolation_level=None, check_same_thread=False)
            if self.location != ":memory:":
                self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
        except sqlite3.Error as error:
            raise CheckpointError(f"cannot open checkpoint file {self.location}: {error}") from error

    def create_run(self, record: RunRecord) -> None:
        try:
            self._db.execute(f"INSERT INTO graphrt_runs ({_RUN_COLUMNS}) VALUES ({', '.join('?' * 12)})",
                             record_values(record))
        except sqlite3.IntegrityError:
            raise CheckpointError(f"run {record.run_id!r} is already saved in {self.location}") from None

    def update_run(self, run_id: str, *, status: str, detail: dict[str, Any] | None = None, results: Any = None) -> None:
        self._db.execute(
            "UPDATE graphrt_runs SET status = ?, detail = ?, results = ?, updated_at = ? WHERE run_id = ?",
            (status, json.dumps(detail or {}), encode_value(results) if results is not None else None, time.time(),
             run_id),
        )

    def add_row(self, row: Row) -> None:
        db = self._db
        if row.kind == "iteration":
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute("DELETE FROM graphrt_rows WHERE run_id = ? AND iteration < ?", (row.run_id, row.iteration))
                self._insert(row)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        else:
            self._insert(row)

    def _insert(self, row: Row) -> None:
        self._db.execute("INSERT INTO graphrt_rows (run_id, iteration, kind, key, value) VALUES (?, ?, ?, ?, ?)",
                         (row.run_id, row.iteration, row.kind, row.key, row.value))

    def get_run(self, run_id: str) -> RunRecord | None:
        found = self._db.execute(f"SELECT {_RUN_COLUMNS} FROM graphrt_runs WHERE run_id = ?", (run_id,)).fetchone()
        return record_from_row(found) if found else None

    def get_rows(self, run_id: str) -> list[Row]:
        found = self._db.execute(
            "SELECT run_id, iteration, kind, key, value FROM graphrt_rows WHERE run_id = ? AND iteration = "
            "(SELECT MAX(iteration) FROM graphrt_rows WHERE run_id = ?) ORDER BY seq",
            (run_id, run_id),
        ).fetchall()
        return [Row(*row) for row in found]

    def runs(self) -> list[RunRecord]:
        found = self._db.execute(f"SELECT {_RUN_COLUMNS} FROM graphrt_runs ORDER BY updated_at DESC, rowid DESC")
        return [record_from_row(row) for row in found.fetchall()]

    def close(self) -> None:
        self._db.close()

    def __repr__(self) -> str:
        return f"SQLiteStore({self.location!r})"
