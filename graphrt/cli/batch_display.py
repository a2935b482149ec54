"""The progress line of `graphrt batch`: rows done, failed, rate and time left, on stderr.

On a terminal the line is redrawn in place by a thread of its own, at most
`rate` times a second, from the batch's counters (graphrt.batches.progress); piped,
a line is printed each time another tenth of the rows is done (or every 1,000 rows
when their number is not known), so a log shows the batch moving without a line per
row. Either way it ends with one summary line.
"""

from __future__ import annotations

import threading
from typing import TextIO

from graphrt.batches.progress import BatchProgress

__all__ = ["BatchDisplay"]

_CLEAR_LINE = "\r\x1b[K"


class BatchDisplay:
    """Shows a batch's counters on `stream`; `row_finished()` after each row, `close()` at the end."""

    def __init__(self, progress: BatchProgress, stream: TextIO, *, rate: float = 4.0) -> None:
        self.progress = progress
        self.stream = stream
        self.live = stream.isatty()
        self._step = max(progress.total // 10, 1) if progress.total else 1000
        self._next = self._step
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if self.live:
            self._thread = threading.Thread(target=self._redraw, args=(1 / rate,), name="graphrt-batch-progress",
                                            daemon=True)
            self._thread.start()

    def row_finished(self) -> None:
        """Piped: a line at each tenth of the rows (rows done before count as they are skipped)."""
        if self.live or self.progress.finished < self._next:
            return
        while self._next <= self.progress.finished:
            self._next += self._step
        self._write(self.progress.line() + "\n")

    def close(self) -> None:
        """Stops redrawing and prints the summary line."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self._write((_CLEAR_LINE if self.live else "") + self.progress.summary() + "\n")

    def _redraw(self, interval: float) -> None:
        while not self._stop.wait(interval):
            self._write(_CLEAR_LINE + self.progress.line())

    def _write(self, text: str) -> None:
        with self._lock:
            try:
                self.stream.write(text)
                self.stream.flush()
            except (OSError, ValueError):  # the terminal went away: the batch goes on
                pass
