"""The errors of checkpoint stores: the kinds of CheckpointError a store raises, and the messages graphrt's share.

`CheckpointError` itself is in the one error tree (graphrt/base/errors.py); these are its kinds: a value
JSON cannot hold (`Unsavable`), a store that failed (`StoreFailed`, and `LeaseLost` when it refused a write
because another process took its lease), a run another process or task holds (`RunTaken`).
"""

from __future__ import annotations

from graphrt.base.errors import CheckpointError

__all__ = ["CheckpointError", "LeaseLost", "RunTaken", "StoreFailed", "Unsavable", "damaged", "run_taken"]


class Unsavable(CheckpointError):
    """Raised by encode_value for a value JSON cannot hold (bytes, an object, a non-string key)."""


class StoreFailed(CheckpointError):
    """Raised when the store itself fails, not the request made of it: it cannot be reached or opened, or its
    driver failed (a connection ended, a disk full). A server answers it with 503: try again later."""


class LeaseLost(StoreFailed):
    """Raised by a write that a store fenced with a lease (`LeaseStore.fence_writes`) refused: another
    owner took the lease over, so this process writes nothing more into the store."""


class RunTaken(CheckpointError):
    """Raised when a run cannot be claimed: another process or task is running it now."""


def run_taken(run_id: str, location: str) -> RunTaken:
    """The error for a run that another process or task is running."""
    return RunTaken(f"run {run_id!r} in {location} is running elsewhere (another process or task resumed it); "
                    "wait for it to finish or stop it, then resume")


def damaged(what: str, error: BaseException | str) -> CheckpointError:
    """The error for a checkpoint that a crash of the disk, or a hand, left unreadable."""
    reason = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
    return CheckpointError(f"checkpoint is damaged: {what} cannot be read ({reason[:200]})")
