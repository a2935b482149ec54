"""SQLiteStore: checkpoints in one SQLite file, the default store.

The file is in WAL mode with `synchronous=NORMAL`: each write is committed
when `add_row` returns, so a process killed at any moment (SIGKILL included)
loses nothing it had written; only a power cut can lose the last commits.
Several processes can use one file; each write waits up to `timeout` seconds
for another writer. A run being run is claimed with a lock the kernel releases when
the process ends (a byte of `PATH-claims`: file_claims.py). A new file is readable by its owner only (0600): it holds
the runs' real data. Writes go through a `GroupCommit` (group_commit.py) on the event loop's
thread: the writes of runs that finish nodes in the same turn of the loop share one commit.
"""

from __future__ import annotations

import functools
import os
import sqlite3
import stat
from pathlib import Path
from typing import Any, Awaitable

from graphrt.checkpoint.errors import CheckpointError, StoreFailed, run_taken
from graphrt.checkpoint.group_commit import GroupCommit, Statement
from graphrt.checkpoint.file_claims import FileClaims
from graphrt.checkpoint.records import RunRecord
from graphrt.checkpoint.sql import ADDED_COLUMNS, SqlStore, insert_run, schema

__all__ = ["SQLiteStore"]

_SCHEMA = schema(sequence="INTEGER PRIMARY KEY AUTOINCREMENT", boolean="INTEGER", real="REAL")


def _create_private(path: Path) -> None:
    """Creates the file readable by its owner only (0600): it holds the runs' data as it is.

    SQLite gives its -wal and -shm files the database file's permissions. An
    existing file keeps the permissions it has, if it is this user's own: a
    symlink (which could lead the runs' data anywhere, a dangling one included),
    another user's file, or one that others may write, is refused.
    """
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0), 0o600))
    except FileExistsError:
        _check_existing(path)
    except OSError as error:
        raise StoreFailed(f"cannot create checkpoint file {path}: {error.strerror or error}") from None


def _check_existing(path: Path) -> None:
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        raise CheckpointError(f"checkpoint file {path} is a symbolic link; give the path of a file of your own")
    if not stat.S_ISREG(info.st_mode):
        return  # a folder or a device: SQLite says what is wrong with it
    if info.st_uid != os.geteuid():
        raise CheckpointError(f"checkpoint file {path} belongs to another user (uid {info.st_uid}); "
                              "graphrt keeps runs only in a file of its own user")
    if info.st_mode & stat.S_IWOTH:
        raise CheckpointError(f"checkpoint file {path} can be written by any user (mode {stat.filemode(info.st_mode)}); "
                              f"chmod 600 {path}")


class SQLiteStore(SqlStore):
    """A checkpoint store in a SQLite file (created on first use); `":memory:"` keeps it in memory.

    Args:
        path: the database file.
        timeout: seconds a write waits for another process holding the file.
    """

    schemes = ("file",)  # a plain path; open_store gives it every target without `scheme://`
    extra = None
    requires = ()  # sqlite3 comes with Python
    _duplicate = sqlite3.IntegrityError
    _runs_order = "updated_at DESC, rowid DESC"

    def __init__(self, path: str | Path, *, timeout: float = 30.0) -> None:
        self.path = str(path)
        self.location = self.shown(path)
        self._claimed: set[str] = set()
        self._file_claims = FileClaims(self.path)
        # Inline: a write to a local WAL file takes microseconds, less than a hop to a thread and back. Given what
        # opens the file, not a bound method: a store <-> connection cycle outlived each store opened for a run.
        self._db = GroupCommit(functools.partial(_connect, self.path, timeout, self.location), begin="BEGIN IMMEDIATE",
                               inline=True)

    @classmethod
    def shown(cls, target: str | Path) -> str:
        """The file's path as it was given."""
        return str(target)

    async def _read(self, query: str, values: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return await self._db.read(query, values)

    def _write(self, *statements: Statement, alone: bool = False) -> Awaitable[None]:
        return self._db.write(*statements, alone=alone)  # queued now; what it returns is awaited at once

    def _queue(self, *statements: Statement, hold: bool = False) -> Awaitable[None]:
        return self._db.queue(*statements, hold=hold)  # inline: committed with its turn's writes, held or not

    async def close(self) -> None:
        self._claimed.clear()
        self._file_claims.close()
        self._db.close()

    def start_new_run(self, record: RunRecord) -> Awaitable[None] | None:
        """Claims a run whose id was just made up, at once (a claim never waits: below), and queues its record for
        the commit of this turn of the event loop: the run's first node starts without waiting for that commit
        (one wait on each run's way, which a busy event loop makes long: issue 44), and the run awaits what this
        returns before it saves a row or its end, which the connection commits after the record anyway.

        Raises:
            CheckpointError: another process or task runs it.
        """
        insert = insert_run(record)
        self._claim(record.run_id)
        return self._created(record.run_id, self._queue(insert))

    async def _created(self, run_id: str, created: Awaitable[None]) -> None:
        try:
            await created
        except self._duplicate:  # an id another run took: as likely as two equal 48-bit ids
            raise self._taken_id(run_id) from None

    # ----- claims: locks the kernel drops when the process ends (file_claims.py; never waits) -----

    async def claim_run(self, run_id: str) -> None:
        self._claim(run_id)

    def _claim(self, run_id: str) -> None:
        if run_id in self._claimed:
            raise run_taken(run_id, self.location)
        if self.path != ":memory:":  # no other process can see it; another task of this store is refused above
            try:
                claimed = self._file_claims.claim(run_id)
            except OSError as error:
                raise CheckpointError(
                    f"cannot claim run {run_id!r} in {self.location}: {error.strerror or error}") from None
            if not claimed:
                raise run_taken(run_id, self.location)
        self._claimed.add(run_id)

    async def release_run(self, run_id: str) -> None:
        if run_id not in self._claimed:
            return
        self._claimed.discard(run_id)
        if self.path != ":memory:":
            try:
                self._file_claims.release(run_id)
            except OSError:  # the claim ends with the process anyway
                pass


def _connect(path: str, timeout: float, location: str) -> sqlite3.Connection:
    """The store's connection: the file created private if new, in WAL mode with synchronous=NORMAL, its tables made."""
    if path != ":memory:":
        _create_private(Path(path))
    try:
        db = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False)
        if path != ":memory:":
            db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.executescript(_SCHEMA)
        _add_columns(db)
    except sqlite3.Error as error:
        raise StoreFailed(f"cannot open checkpoint file {location}: {error}") from error
    return db


def _add_columns(db: sqlite3.Connection) -> None:
    """Adds the columns a file made by an earlier graphrt lacks (SQLite has no ADD COLUMN IF NOT EXISTS)."""
    present = {row[1] for row in db.execute("PRAGMA table_info(graphrt_runs)")}
    for name, kind in ADDED_COLUMNS.items():
        if name not in present:
            try:
                db.execute(f"ALTER TABLE graphrt_runs ADD COLUMN {name} {kind}")
            except sqlite3.OperationalError as error:  # another process added it first
                if "duplicate column" not in str(error):
                    raise
