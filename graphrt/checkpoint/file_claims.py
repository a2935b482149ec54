"""`FileClaims`: which runs of a SQLite file a process is running, as locks the kernel drops when it dies.

On Linux a claim is a one-byte open-file-description lock (`F_OFD_SETLK`) in one
file beside the database, `PATH-claims`, at an offset taken from a hash of the
run id: one `fcntl` call to claim, one to release. (The per-run lock files used
before cost a file created and removed per run, the largest single cost of a
checkpointed run's bookkeeping.) An OFD lock belongs to the open file, so two
stores in one process refuse each other as two processes do, and closing some
other descriptor of the file does not drop it, as it would a classic POSIX lock.
Where the kernel has no OFD locks, each claim is an flock on a file of its own in
`PATH-locks/`, removed on release.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import struct
from pathlib import Path

__all__ = ["FileClaims"]

_OFD_SETLK = getattr(fcntl, "F_OFD_SETLK", None)
_FLOCK = "hhqqi4x"  # struct flock on Linux: l_type, l_whence, l_start, l_len, l_pid (0 for OFD locks), padding


def _offset(run_id: str) -> int:
    """Where a run's byte is: 62 bits of its id's hash (two runs at once sharing one is a 2^-62 chance)."""
    return int.from_bytes(hashlib.sha256(run_id.encode("utf-8")).digest()[:8], "big") >> 2


class FileClaims:
    """Claims of runs in the database at `path`; `claim` is False when another holder has the run."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._file: int | None = None  # the claims file, opened on first claim (OFD locks)
        self._held: dict[str, int] = {}  # run id -> its lock file's descriptor (flock files)

    def claim(self, run_id: str) -> bool:
        if _OFD_SETLK is None:
            return self._flock(run_id)
        if self._file is None:
            self._file = os.open(self._path + "-claims", os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
        try:
            fcntl.fcntl(self._file, _OFD_SETLK, struct.pack(_FLOCK, fcntl.F_WRLCK, os.SEEK_SET, _offset(run_id), 1, 0))
        except (BlockingIOError, PermissionError):  # EAGAIN or EACCES: held by another
            return False
        return True

    def release(self, run_id: str) -> None:
        if _OFD_SETLK is None:
            self._unflock(run_id)
        elif self._file is not None:
            fcntl.fcntl(self._file, _OFD_SETLK, struct.pack(_FLOCK, fcntl.F_UNLCK, os.SEEK_SET, _offset(run_id), 1, 0))

    def close(self) -> None:
        """Releases every claim."""
        for run_id in list(self._held):
            self._unflock(run_id)
        if self._file is not None:
            os.close(self._file)
            self._file = None

    # ----- without OFD locks: a file per claim -----

    def _lock_file(self, run_id: str) -> Path:
        return Path(self._path + "-locks") / hashlib.sha256(run_id.encode("utf-8")).hexdigest()[:32]

    def _flock(self, run_id: str) -> bool:
        path = self._lock_file(run_id)
        path.parent.mkdir(mode=0o700, exist_ok=True)
        while True:
            descriptor = os.open(path, os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(descriptor)
                return False
            try:
                same = os.fstat(descriptor).st_ino == os.stat(path).st_ino
            except FileNotFoundError:
                same = False
            if same:  # not a file its last holder removed while we waited for it
                self._held[run_id] = descriptor
                return True
            os.close(descriptor)

    def _unflock(self, run_id: str) -> None:
        descriptor = self._held.pop(run_id, None)
        if descriptor is None:
            return
        try:
            os.unlink(self._lock_file(run_id))  # while still holding it
        except OSError:
            pass
        os.close(descriptor)
