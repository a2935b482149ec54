"""SQLiteStore: checkpoints in one SQLite file, the default store.

The file is in WAL mode with `synchronous=NORMAL`: each write is committed
when `add_row` returns, so a process killed at any moment (SIGKILL included)
loses nothing it had written; only a power cut can lose the last commits.
Several processes can use one file; each write waits up to `timeout` seconds
for another writer. A run being run is claimed with an flock on a small file in
`PATH-locks/`, which the kernel releases when the process ends. A new file is readable by its owner only (0600): it holds
the runs' real data. A write to a local WAL file is quick, so calls run on the
event loop's thread: a worker-thread hop per node cost more than it saved, and
awaiting a thread after Ctrl-C's cancellation could hang the run's cleanup.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import sqlite3
from pathlib import Path
from typing import Any

from graphrt.checkpoint.base import CheckpointError, run_taken
from graphrt.checkpoint.sql import SqlStore, Statement, ThreadedConnection, schema

__all__ = ["SQLiteStore"]

_SCHEMA = schema(sequence="INTEGER PRIMARY KEY AUTOINCREMENT", boolean="INTEGER", real="REAL")


def _create_private(path: Path) -> None:
    """Creates the file readable by its owner only (0600): it holds the runs' data as it is.

    SQLite gives its -wal and -shm files the database file's permissions. An
    existing file keeps the permissions it has.
    """
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        pass
    except OSError as error:
        raise CheckpointError(f"cannot create checkpoint file {path}: {error.strerror or error}") from None


class SQLiteStore(SqlStore):
    """A checkpoint store in a SQLite file (created on first use); `":memory:"` keeps it in memory.

    Args:
        path: the database file.
        timeout: seconds a write waits for another process holding the file.
    """

    schemes = ("file",)  # a plain path; open_store gives it every target without `scheme://`
    extra = None
    _duplicate = sqlite3.IntegrityError
    _runs_order = "updated_at DESC, rowid DESC"

    def __init__(self, path: str | Path, *, timeout: float = 30.0) -> None:
        self.path = str(path)
        self.location = self.shown(path)
        self._timeout = timeout
        self._claims: dict[str, int] = {}  # run id -> the locked file's descriptor
        self._db = ThreadedConnection(self._connect, begin="BEGIN IMMEDIATE", inline=True)

    @classmethod
    def shown(cls, target: str | Path) -> str:
        """The file's path as it was given."""
        return str(target)

    def _connect(self) -> sqlite3.Connection:
        if self.path != ":memory:":
            _create_private(Path(self.path))
        try:
            db = sqlite3.connect(self.path, timeout=self._timeout, isolation_level=None, check_same_thread=False)
            if self.path != ":memory:":
                db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.executescript(_SCHEMA)
        except sqlite3.Error as error:
            raise CheckpointError(f"cannot open checkpoint file {self.location}: {error}") from error
        return db

    async def _read(self, query: str, values: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return await self._db.read(query, values)

    async def _write(self, *statements: Statement) -> None:
        await self._db.write(*statements)

    async def close(self) -> None:
        for run_id in list(self._claims):
            await self.release_run(run_id)
        self._db.close()

    # ----- claims: one flock'ed file per running run, beside the database (never waits: LOCK_NB) -----

    def _lock_file(self, run_id: str) -> Path:
        return Path(self.path + "-locks") / hashlib.sha256(run_id.encode("utf-8")).hexdigest()[:32]

    async def claim_run(self, run_id: str) -> None:
        if run_id in self._claims:
            raise run_taken(run_id, self.location)
        if self.path == ":memory:":  # no other process can see it; another task of this store is refused above
            self._claims[run_id] = -1
            return
        path = self._lock_file(run_id)
        try:
            path.parent.mkdir(mode=0o700, exist_ok=True)
            while True:
                descriptor = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
                try:
                    fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    os.close(descriptor)
                    raise run_taken(run_id, self.location) from None
                try:
                    same = os.fstat(descriptor).st_ino == os.stat(path).st_ino
                except FileNotFoundError:
                    same = False
                if same:  # not a file its last holder removed while we waited for it
                    break
                os.close(descriptor)
        except OSError as error:
            raise CheckpointError(f"cannot claim run {run_id!r} in {self.location}: {error.strerror or error}") from None
        self._claims[run_id] = descriptor

    async def release_run(self, run_id: str) -> None:
        descriptor = self._claims.pop(run_id, None)
        if descriptor is None or descriptor < 0:
            return
        try:
            os.unlink(self._lock_file(run_id))  # while still holding it
        except OSError:
            pass
        os.close(descriptor)
