"""What the SQLite and PostgreSQL stores share: the same two tables and the same queries.

Queries are written with `?` placeholders; a store whose driver wants `%s`
sets `placeholder`. Each store opens its connection and says how to run a
transaction and which error means "this run id is taken".
"""

from __future__ import annotations

import json
import time
from contextlib import AbstractContextManager
from typing import Any

from graphrt.checkpoint.base import (
    CheckpointError,
    Row,
    RunRecord,
    decode_value,
    encode_value,
)

__all__ = ["SqlStore", "RUN_COLUMNS", "schema", "record_from_row", "record_values"]

RUN_COLUMNS = ("run_id, graph_file, graph_text, graph_hash, injected, config, all_results, status, detail, results, "
               "created_at, updated_at")


def schema(*, sequence: str, boolean: str, real: str) -> str:
    """The tables every SQL store creates on first use, in its database's column types.

    Args:
        sequence: the type of `graphrt_rows.seq`, an auto-incrementing primary key.
        boolean: the type of `all_results`.
        real: the type of the timestamps.
    """
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
    updated_at {real} NOT NULL
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
"""


def record_from_row(row: tuple[Any, ...]) -> RunRecord:
    """A RunRecord from a `graphrt_runs` row."""
    (run_id, graph_file, graph_text, graph_hash, injected, config, all_results, status, detail, results,
     created_at, updated_at) = row
    return RunRecord(
        run_id=run_id, graph_file=graph_file, graph_text=graph_text, graph_hash=graph_hash,
        injected=decode_value(injected), config=json.loads(config), all_results=bool(all_results), status=status,
        detail=json.loads(detail), results=decode_value(results) if results is not None else None,
        created_at=created_at, updated_at=updated_at,
    )


def record_values(record: RunRecord) -> tuple[Any, ...]:
    """The `graphrt_runs` columns of a record, in RUN_COLUMNS order."""
    now = time.time()
    return (record.run_id, record.graph_file, record.graph_text, record.graph_hash, encode_value(record.injected),
            json.dumps(record.config), bool(record.all_results), record.status, json.dumps(record.detail),
            encode_value(record.results) if record.results is not None else None,
            record.created_at or now, record.updated_at or now)


class SqlStore:
    """A checkpoint store on a DB-API connection `_db`; subclasses open it."""

    location: str
    placeholder = "?"
    _db: Any
    _duplicate: type[BaseException]  # the driver's error for a run id that is already saved
    _runs_order = "updated_at DESC, run_id"

    def _transaction(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def _execute(self, query: str, values: tuple[Any, ...] = ()) -> Any:
        if self.placeholder != "?":
            query = query.replace("?", self.placeholder)
        return self._db.execute(query, values)

    def create_run(self, record: RunRecord) -> None:
        try:
            self._execute(f"INSERT INTO graphrt_runs ({RUN_COLUMNS}) VALUES ({', '.join('?' * 12)})",
                          record_values(record))
        except self._duplicate:
            raise CheckpointError(f"run {record.run_id!r} is already saved in {self.location}") from None

    def update_run(self, run_id: str, *, status: str, detail: dict[str, Any] | None = None, results: Any = None) -> None:
        self._execute(
            "UPDATE graphrt_runs SET status = ?, detail = ?, results = ?, updated_at = ? WHERE run_id = ?",
            (status, json.dumps(detail or {}), encode_value(results) if results is not None else None, time.time(),
             run_id),
        )

    def add_row(self, row: Row) -> None:
        """Saves a row; an iteration row also drops the earlier iterations' rows, in one transaction."""
        if row.kind != "iteration":
            self._insert(row)
            return
        with self._transaction():
            self._execute("DELETE FROM graphrt_rows WHERE run_id = ? AND iteration < ?", (row.run_id, row.iteration))
            self._insert(row)

    def _insert(self, row: Row) -> None:
        self._execute("INSERT INTO graphrt_rows (run_id, iteration, kind, key, value) VALUES (?, ?, ?, ?, ?)",
                      (row.run_id, row.iteration, row.kind, row.key, row.value))

    def get_run(self, run_id: str) -> RunRecord | None:
        found = self._execute(f"SELECT {RUN_COLUMNS} FROM graphrt_runs WHERE run_id = ?", (run_id,)).fetchone()
        return record_from_row(found) if found else None

    def get_rows(self, run_id: str) -> list[Row]:
        found = self._execute(
            "SELECT run_id, iteration, kind, key, value FROM graphrt_rows WHERE run_id = ? AND iteration = "
            "(SELECT MAX(iteration) FROM graphrt_rows WHERE run_id = ?) ORDER BY seq",
            (run_id, run_id),
        ).fetchall()
        return [Row(*row) for row in found]

    def runs(self) -> list[RunRecord]:
        found = self._execute(f"SELECT {RUN_COLUMNS} FROM graphrt_runs ORDER BY {self._runs_order}")
        return [record_from_row(row) for row in found.fetchall()]

    def close(self) -> None:
        self._db.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.location!r})"
