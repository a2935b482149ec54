"""GraphAI's transaction log, as a subscriber that keeps a bounded amount of it.

One entry per run of a node, updated as the node goes from queued to executing
to completed (or failed, timed-out, skipped: the state each event says the run
set), with what GraphAI logs: times,
agent, retries, inputs, result, error. GraphAI keeps every entry of every loop
iteration for the life of the graph; this log drops the entries of an
iteration when the next one starts, unless `keep_iterations=True`, and never
holds more than `max_entries` (the oldest go first; `dropped` counts them).

    log = TransactionLog()
    graph.run(subscribe=[log])
    log.to_json()   # [{"nodeId": "shift", "state": "completed", "startTime": ..., ...}, ...]
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass
from typing import Any

from graphrt.base.errors import error_message
from graphrt.base.states import NodeState
from graphrt.observe.events import (
    Event,
    LoopIteration,
    NodeAborted,
    NodeCompleted,
    NodeFailed,
    NodeInterrupted,
    NodeQueued,
    NodeRetried,
    NodeSkipped,
    NodeStarted,
    NodeTransition,
)

__all__ = ["LogEntry", "TransactionLog"]


@dataclass
class LogEntry:
    """One run of one node; `state` is GraphAI's (queued, executing, completed, ...), as the run set it."""

    node_id: str
    path: tuple[str | int, ...]
    state: NodeState
    iteration: int
    agent_id: str | None = None
    start_time: float | None = None
    end_time: float | None = None
    retry_count: int = 0
    inputs: Any = None
    result: Any = None
    error_message: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The entry with GraphAI's TransactionLog keys; times in milliseconds since the epoch."""
        entry: dict[str, Any] = {"nodeId": self.node_id, "state": self.state, "repeatCount": self.iteration}
        if self.path:
            entry["path"] = list(self.path)
            if isinstance(self.path[-1], int):
                entry["mapIndex"] = self.path[-1]
        for key, value in (
            ("agentId", self.agent_id),
            ("startTime", None if self.start_time is None else round(self.start_time * 1000)),
            ("endTime", None if self.end_time is None else round(self.end_time * 1000)),
            ("retryCount", self.retry_count or None),
            ("inputsData", self.inputs),
            ("result", self.result),
            ("errorMessage", self.error_message),
        ):
            if value is not None:
                entry[key] = value
        return entry


def _is_within(path: tuple[str | int, ...], prefix: tuple[str | int, ...]) -> bool:
    return path[: len(prefix)] == prefix


class TransactionLog:
    """A subscriber that keeps GraphAI's transaction log of a run, bounded (see the module docstring)."""

    def __init__(self, *, keep_iterations: bool = False, max_entries: int = 10_000) -> None:
        if max_entries < 1:
            raise ValueError(f"max_entries must be at least 1, got {max_entries}")
        self.keep_iterations = keep_iterations
        self.entries: deque[LogEntry] = deque(maxlen=max_entries)
        self.dropped = 0
        self._open: dict[tuple[Any, ...], LogEntry] = {}
        self._iterations: dict[tuple[str | int, ...], int] = {}
        self._lock = threading.Lock()

    def __call__(self, event: Event) -> None:
        with self._lock:
            self._handle(event)

    def to_json(self) -> list[dict[str, Any]]:
        """Every entry kept, oldest first, as GraphAI's TransactionLog objects."""
        with self._lock:
            return [entry.to_json() for entry in self.entries]

    def _handle(self, event: Event) -> None:
        if isinstance(event, LoopIteration):
            self._iterations[event.path] = event.index
            if event.index and not self.keep_iterations:
                self._forget(event.path)
            return
        if not isinstance(event, NodeTransition) or isinstance(event, NodeAborted):  # GraphAI logs no abort
            return
        node_id = event.node_id
        key = (event.run_id, event.path, node_id)
        if isinstance(event, (NodeQueued, NodeSkipped)):
            entry = self._new(event.path, node_id, event.state)
            if isinstance(event, NodeQueued):
                self._open[key] = entry
            return
        entry = self._open.get(key)
        if entry is None:  # the log was subscribed in the middle of the node's run
            entry = self._open[key] = self._new(event.path, node_id, event.state)
        if isinstance(event, NodeStarted):
            entry.state = event.state
            entry.agent_id = event.agent_id
            entry.retry_count = event.attempt - 1
            entry.inputs = event.inputs
            if entry.start_time is None:
                entry.start_time = event.time
        elif isinstance(event, NodeCompleted):
            entry.state, entry.result, entry.end_time = event.state, event.result, event.time
            self._open.pop(key, None)
        elif isinstance(event, NodeInterrupted):
            entry.state, entry.error_message, entry.end_time = event.state, event.question, event.time
            self._open.pop(key, None)
        elif isinstance(event, NodeRetried):
            entry.state = event.state  # still executing: it runs again
            entry.error_message = error_message(event.error)
        elif isinstance(event, NodeFailed):
            entry.state = event.state  # failed or timed-out
            entry.error_message = error_message(event.error)
            entry.end_time = event.time
            self._open.pop(key, None)

    def _new(self, path: tuple[str | int, ...], node_id: str, state: str) -> LogEntry:
        entry = LogEntry(node_id, path, state, self._iterations.get(path, 0))
        if len(self.entries) == self.entries.maxlen:
            self.dropped += 1
        self.entries.append(entry)
        return entry

    def _forget(self, path: tuple[str | int, ...]) -> None:
        """Drops the entries of the graph at `path` (and of the graphs inside it): a new iteration began."""
        kept = [entry for entry in self.entries if not _is_within(entry.path, path)]
        self.entries.clear()
        self.entries.extend(kept)
        self._open = {key: entry for key, entry in self._open.items() if not _is_within(key[1], path)}
