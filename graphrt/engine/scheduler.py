"""Starts node tasks under the concurrency limits, highest priority first.

One scheduler serves a run and every graph nested in it, as GraphAI's
TaskManager does, so `concurrency` bounds the whole run. A node that waits for
a nested graph lends its slot to the nested nodes while it waits; without that,
a run at concurrency 1 would deadlock on its first nestedAgent.
"""

from __future__ import annotations

import heapq
import itertools
from typing import Any, Callable, Mapping

__all__ = ["Ticket", "Scheduler"]


class Ticket:
    """A node waiting for, or holding, a slot; `start` is called when it gets one."""

    __slots__ = ("priority", "label", "start", "owner", "node", "discarded")

    def __init__(
        self, priority: float, label: str | None, start: Callable[["Ticket"], None], owner: Any, node: Any = None
    ) -> None:
        self.priority = priority
        self.label = label
        self.start = start
        self.owner = owner
        self.node = node
        self.discarded = False


class Scheduler:
    """A priority queue of ready nodes in front of a global limit and per-label limits."""

    def __init__(self, limit: int, label_limits: Mapping[str, int] | None = None) -> None:
        self.limit = limit
        self.label_limits = dict(label_limits or {})
        self.running = 0
        self._running_by_label: dict[str, int] = {}
        self._queue: list[tuple[float, int, Ticket]] = []
        self._order = itertools.count()

    def submit(self, ticket: Ticket) -> None:
        """Queues a ready node; it starts as soon as the limits allow (maybe right now)."""
        heapq.heappush(self._queue, (-ticket.priority, next(self._order), ticket))
        self._dispatch()

    def release(self, ticket: Ticket) -> None:
        """Gives back a slot: the node finished, or it is lending its slot to a nested graph."""
        self.running -= 1
        if ticket.label in self.label_limits:
            self._running_by_label[ticket.label] -= 1
        self._dispatch()

    def reclaim(self, ticket: Ticket) -> None:
        """Takes a lent slot back without waiting; the limit may be passed until it is released."""
        self._take(ticket)

    def discard(self, owner: Any) -> int:
        """Drops the queued nodes of a graph run that was cancelled; returns how many."""
        dropped = 0
        for _, _, ticket in self._queue:
            if ticket.owner is owner and not ticket.discarded:
                ticket.discarded = True
                dropped += 1
        return dropped

    def _take(self, ticket: Ticket) -> None:
        self.running += 1
        if ticket.label in self.label_limits:
            self._running_by_label[ticket.label] = self._running_by_label.get(ticket.label, 0) + 1

    def _label_is_full(self, ticket: Ticket) -> bool:
        limit = self.label_limits.get(ticket.label) if ticket.label is not None else None
        return limit is not None and self._running_by_label.get(ticket.label, 0) >= limit

    def _dispatch(self) -> None:
        queue = self._queue
        waiting_for_label: list[tuple[float, int, Ticket]] = []
        while queue and self.running < self.limit:
            entry = heapq.heappop(queue)
            ticket = entry[2]
            if ticket.discarded:
                continue
            if self.label_limits and self._label_is_full(ticket):
                waiting_for_label.append(entry)  # a lower-priority node of another label may go first
                continue
            self._take(ticket)
            ticket.start(ticket)
        for entry in waiting_for_label:
            heapq.heappush(queue, entry)
