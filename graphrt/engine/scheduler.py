"""Grants node slots under the concurrency limits, highest priority first.

One scheduler serves a run and every graph nested in it, as GraphAI's
TaskManager does, so `concurrency` bounds the whole run. A node that waits for
a nested graph lends its slot to the nested nodes while it waits; without that,
a run at concurrency 1 would deadlock on its first nestedAgent.

The scheduler only decides: `submit` and `release` return the tickets that got
a slot, and the caller starts them (graphrt.engine.execution). It never calls
back into a run, so a run's state changes only where the run makes them.
"""

from __future__ import annotations

import heapq
import itertools
from typing import Any, Mapping

__all__ = ["Ticket", "Scheduler", "NO_GRANTS"]


class Ticket:
    """A node waiting for, or holding, a slot; `owner` is the graph run that starts it when granted."""

    __slots__ = ("priority", "label", "owner", "node", "discarded")

    def __init__(self, priority: float, label: str | None, owner: Any, node: Any = None) -> None:
        self.priority = priority
        self.label = label
        self.owner = owner
        self.node = node
        self.discarded = False


NO_GRANTS: list[Ticket] = []  # what most calls grant: one shared empty list, never changed (callers must not append)


class Scheduler:
    """A priority queue of ready nodes in front of a global limit and per-label limits."""

    def __init__(self, limit: int, label_limits: Mapping[str, int] | None = None) -> None:
        self.limit = limit
        self.label_limits = dict(label_limits or {})
        self.running = 0
        self._running_by_label: dict[str, int] = {}
        self._queue: list[tuple[float, int, Ticket]] = []
        self._order = itertools.count()

    def submit(self, ticket: Ticket) -> list[Ticket]:
        """Queues a ready node; returns the tickets granted a slot now (maybe this one, maybe none)."""
        if self.running < self.limit:
            if not self._queue and not self.label_limits:
                self.running += 1  # the common case: a free slot and nobody ahead in the queue
                return [ticket]
            heapq.heappush(self._queue, (-ticket.priority, next(self._order), ticket))
            return self._grant()
        heapq.heappush(self._queue, (-ticket.priority, next(self._order), ticket))
        return NO_GRANTS  # every slot is taken: nothing can start

    def release(self, ticket: Ticket) -> list[Ticket]:
        """Gives back a slot (the node finished, or lends it to a nested graph); returns the tickets granted."""
        self.running -= 1
        if ticket.label in self.label_limits:
            self._running_by_label[ticket.label] -= 1
        return self._grant() if self._queue else NO_GRANTS

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

    def _grant(self) -> list[Ticket]:
        queue = self._queue
        granted = NO_GRANTS
        if not self.label_limits:  # the usual scheduler: the first in line take the free slots
            while queue and self.running < self.limit:
                ticket = heapq.heappop(queue)[2]
                if ticket.discarded:
                    continue
                self.running += 1
                if granted is NO_GRANTS:
                    granted = [ticket]
                else:
                    granted.append(ticket)
            return granted
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
            if granted is NO_GRANTS:
                granted = [ticket]
            else:
                granted.append(ticket)
        for entry in waiting_for_label:
            heapq.heappush(queue, entry)
        return granted
