"""How long a client turned away by a full queue should wait: the Retry-After of a 429.

The estimate comes from the runs in the slots now: a slot frees when its run ends,
which is expected after the time runs of its graph took lately (runs of any graph if
its own took none yet); a run already past that, or of which nothing is known, is
expected to take as long again as it has run so far. Each round of queued runs ahead
adds a typical run's time.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable

__all__ = ["RunTimes", "retry_after"]

_KEPT = 50  # recent run times per graph


class RunTimes:
    """The recent run times of each graph, and of all of them."""

    def __init__(self) -> None:
        self._by_graph: dict[str, deque[float]] = {}
        self._all: deque[float] = deque(maxlen=_KEPT)

    def add(self, graph: str, seconds: float) -> None:
        self._by_graph.setdefault(graph, deque(maxlen=_KEPT)).append(seconds)
        self._all.append(seconds)

    def typical(self, graph: str | None = None) -> float | None:
        """The mean recent run time of `graph` (of any graph if it has none, or graph is None); None if none."""
        times = self._by_graph.get(graph) if graph is not None else None
        times = times or self._all
        return sum(times) / len(times) if times else None


def retry_after(running: Iterable[tuple[str, float]], times: RunTimes, queued: int, max_runs: int) -> int:
    """Seconds until a queued run would likely start, from (graph, seconds it has run) of each run in a slot."""
    remaining = []
    for graph, elapsed in running:
        expected = times.typical(graph)
        remaining.append(expected - elapsed if expected is not None and expected > elapsed else max(elapsed, 1.0))
    first = min(remaining, default=0.0)
    per_run = times.typical() or max((elapsed for _, elapsed in running), default=1.0)
    return max(1, math.ceil(first + (queued // max(1, max_runs)) * per_run))
