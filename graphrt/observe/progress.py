"""Counters a run keeps as it goes, for a display to sample at its own pace.

A live display that took every node's events would cost a run of 100,000
quick nodes about a fifth of its time: two events built and handed over per
node. Instead the engine counts into a `RunProgress` (a few integer
increments and one dictionary entry per node) and the display reads it when
it redraws, a few times a second. The events stay what they are for the
subscribers that want each one (traces, `graphrt serve`, OpenTelemetry).

The engine's event-loop thread writes; a display's thread only reads, so
numbers may be a node behind, never wrong for long.
"""

from __future__ import annotations

import itertools
import time
from collections import deque
from typing import Any, Callable, Iterator

from graphrt.base.errors import GraphInterrupted
from graphrt.base.states import NodeState
from graphrt.observe.observer import Path, RunObserver

__all__ = ["RunProgress", "NodeKey"]

NodeKey = tuple[tuple[str | int, ...], str]
"""(path of nested graphs, node id): a node of the run or of a graph nested in it."""


class RunProgress(RunObserver):
    """How many nodes of a run (nested graphs included) are queued, running, done, failed and skipped.

    It observes every run it is given to (`progress=` of a run), so the counts
    add up over a run that stops for a question and resumes.
    `slow_after` (seconds): a completed node that took this long or more is put in
    `slow` for a reader to take (`take_slow`); `slowest` is the slowest completed one.
    `clock` is for tests.
    """

    __slots__ = ("queued", "done", "failed", "asked", "skipped", "running", "slow_after", "slow", "slowest", "clock")

    def __init__(self, slow_after: float = 1.0, clock: Callable[[], float] = time.perf_counter) -> None:
        self.queued = 0  # ready, waiting for a slot
        self.done = 0
        self.failed = 0  # failed or timed out, after their retries
        self.asked = 0  # stopped on a question for a person (not a failure)
        self.skipped = 0  # `if`/`unless` said no, and no defaultValue
        self.running: dict[NodeKey, float] = {}  # -> clock() at its start, in the order they started
        self.slow_after = slow_after
        self.slow: deque[tuple[NodeKey, float]] = deque()  # (node, seconds), appended by the run, taken by a reader
        self.slowest: tuple[float, NodeKey] | None = None
        self.clock = clock

    # ----- what a run tells it (RunObserver hooks), a few times per node -----
    # Each names every keyword the run passes: a call then binds them without building a dict for **future,
    # which took half of what the display added to a run of quick nodes (`python -m bench large_tools`).

    def node_queued(self, *, run_id: str, path: Path, node_id: str, state: NodeState, **future: Any) -> None:
        self.queued += 1

    def nodes_dropped(self, *, run_id: str, path: Path, count: int, node_ids: tuple[str, ...], state: NodeState,
                      **future: Any) -> None:
        self.queued -= count

    def node_running(self, *, run_id: str, path: Path, node_id: str, state: NodeState, **future: Any) -> None:
        self.start(path, node_id)

    def node_completed(self, *, run_id: str, path: Path, iteration: int, node_id: str, value: Any,
                       duration: float, state: NodeState, **future: Any) -> None:
        self.end((path, node_id), completed=True, duration=duration)

    def node_failed(self, *, run_id: str, path: Path, node_id: str, error: BaseException, timed_out: bool,
                    state: NodeState, **future: Any) -> None:
        self.end((path, node_id), completed=False)
        if isinstance(error, GraphInterrupted):
            self.asked += 1
        else:
            self.failed += 1

    def node_skipped(self, *, run_id: str, path: Path, node_id: str, state: NodeState, **future: Any) -> None:
        self.skipped += 1

    def node_aborted(self, *, run_id: str, path: Path, node_id: str, state: NodeState, **future: Any) -> None:
        self.end((path, node_id), completed=False)

    def start(self, path: tuple[str | int, ...], node_id: str) -> NodeKey:
        """A queued node got its slot and runs now."""
        key = (path, node_id)
        self.queued -= 1
        self.running[key] = self.clock()
        return key

    def end(self, key: NodeKey, completed: bool, duration: float | None = None) -> None:
        """A running node ended: completed, or not (failed, asked, cancelled: counted where that happens).

        `duration` is how long it ran, as the run measured it; None: since `start`, by `clock`.
        """
        started = self.running.pop(key, None)
        if not completed or started is None:
            return
        self.done += 1
        if duration is None:
            duration = self.clock() - started
        if self.slowest is None or duration > self.slowest[0]:
            self.slowest = (duration, key)
        if duration >= self.slow_after:
            self.slow.append((key, duration))

    # ----- what a reader calls -----

    def first_running(self, count: int) -> list[NodeKey]:
        """The `count` nodes that have been running longest (running ones may end meanwhile)."""
        for _ in range(3):
            try:
                return list(itertools.islice(self.running, count))
            except RuntimeError:  # the run changed the set while it was read from another thread
                continue
        return []

    def running_nodes(self) -> list[NodeKey]:
        """Every node running now."""
        for _ in range(3):
            try:
                return list(self.running)
            except RuntimeError:
                continue
        return []

    def take_slow(self) -> Iterator[tuple[NodeKey, float]]:
        """The slow nodes completed since the last call, oldest first."""
        slow = self.slow
        while slow:
            yield slow.popleft()
