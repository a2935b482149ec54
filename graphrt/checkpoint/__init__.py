"""Checkpoint stores: where a run's state is saved so that it can be resumed.

    store = open_store("runs.db")                          # SQLite file, the default
    store = open_store("postgresql://me@127.0.0.1/graphrt")  # PostgreSQL (extra: graphrt[postgres])

Every store follows the `CheckpointStore` protocol in base.py; graphrt.durable
writes to it from the run's checkpoint hook.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

from graphrt.checkpoint.base import (
    CheckpointError,
    CheckpointStore,
    Row,
    RunRecord,
    RunStatus,
    decode_value,
    encode_value,
)

if TYPE_CHECKING:
    from graphrt.checkpoint.sqlite import SQLiteStore

__all__ = [
    "CheckpointError",
    "CheckpointStore",
    "CheckpointTarget",
    "RunRecord",
    "RunStatus",
    "Row",
    "SQLiteStore",
    "decode_value",
    "encode_value",
    "open_store",
]

CheckpointTarget = Union[CheckpointStore, str, Path]
"""A store, a SQLite file path, or a `postgresql://` URL."""

_POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def open_store(target: CheckpointTarget) -> CheckpointStore:
    """The store a `--checkpoint` argument names: a store as is, a postgresql:// URL, or a SQLite file."""
    if isinstance(target, str) and target.startswith(_POSTGRES_SCHEMES):
        from graphrt.checkpoint.postgres import PostgresStore

        return PostgresStore(target)
    if isinstance(target, (str, Path)):
        from graphrt.checkpoint.sqlite import SQLiteStore

        return SQLiteStore(target)
    if isinstance(target, CheckpointStore):
        return target
    raise CheckpointError(f"a checkpoint must be a file path, a postgresql:// URL or a store, got {type(target).__name__}")


def __getattr__(name: str) -> Any:
    if name == "SQLiteStore":  # imported on first use: a run without a checkpoint needs no sqlite3
        from graphrt.checkpoint.sqlite import SQLiteStore

        return SQLiteStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
