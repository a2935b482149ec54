"""How far a batch has gone: rows done, failed, done before, running; its rate and the time left.

The batch's tasks count into a `BatchProgress`; a display (the CLI's progress
line) reads it at its own pace, from another thread if it likes: the numbers may
be a row behind, never wrong for long. Rate and ETA count the rows run now
(rows done in an earlier run of the batch are skipped in no time).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from graphrt.base.usage import Usage

__all__ = ["BatchProgress"]


@dataclass
class BatchProgress:
    """The counters of one batch. `total` is None when the rows' number is not known up front."""

    total: int | None = None
    completed: int = 0  # completed now
    failed: int = 0
    before: int = 0  # completed in an earlier run of the batch: not run again
    running: int = 0
    clock: Callable[[], float] = time.monotonic
    started: float = field(default=0.0)
    usage: Usage = field(default_factory=Usage)  # what the rows run now spent, summed

    def __post_init__(self) -> None:
        self.started = self.clock()

    @property
    def finished(self) -> int:
        """Rows that have their outcome: completed (now or before) or failed."""
        return self.completed + self.failed + self.before

    def rate(self) -> float | None:
        """Rows run now per second, since the batch started; None before the first ends."""
        ran = self.completed + self.failed
        elapsed = self.clock() - self.started
        return ran / elapsed if ran and elapsed > 0 else None

    def eta(self) -> float | None:
        """Seconds left at the rate so far; None while it is not known."""
        rate = self.rate()
        if rate is None or self.total is None:
            return None
        return max(self.total - self.finished, 0) / rate

    def line(self) -> str:
        """`batch: 120/1,000 rows (300 done before), 2 failed, 45.2 rows/s, ETA 0:19`."""
        of = f"/{self.total:,}" if self.total is not None else ""
        parts = [f"batch: {self.finished:,}{of} rows"]
        if self.before:
            parts[0] += f" ({self.before:,} done before)"
        parts.append(f"{self.failed:,} failed")
        rate = self.rate()
        parts.append(f"{rate:.1f} rows/s" if rate is not None else f"{self.running} running")
        eta = self.eta()
        if eta is not None and self.finished < (self.total or 0):
            parts.append(f"ETA {_clock(eta)}")
        return ", ".join(parts)

    def summary(self) -> str:
        """The last line: what the batch came to, and how long it took."""
        elapsed = self.clock() - self.started
        done = self.completed + self.before
        text = f"batch: {self.finished:,} rows in {_clock(elapsed)}: {done:,} completed"
        if self.before:
            text += f" ({self.before:,} before this run)"
        return text + f", {self.failed:,} failed"


def _clock(seconds: float) -> str:
    """`0:19`, `12:05`, `3:02:11`."""
    whole = int(seconds + 0.5)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"
