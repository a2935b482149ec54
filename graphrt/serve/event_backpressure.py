"""Holding a served run while its store has not saved its events: the bound of the unsaved-event queue.

A served run's events are saved by one writer (event_saver.py) and shown only
once saved. When a store is slower than a run makes events, the records waiting
for it would grow without bound; instead, once `max_unsaved` of them wait, the
run is held at its next step (a node starts an attempt or completes, an
iteration starts) until the store has caught up. What a node does between two
steps (an LLM's streamed tokens) cannot be held; a run that makes twice the
bound unsaved is failed by its log's `on_overflow` (workers.py says which store
could not keep up), and so is a run held longer than `hold_limit` seconds.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio

from graphrt.base.defaults import EVENT_HOLD_SECONDS
from graphrt.base.states import NodeState
from graphrt.observe.observer import Path, RunObserver
from graphrt.serve.events import EventLog

__all__ = ["EventBackpressure"]


class EventBackpressure(RunObserver):
    """The observer that holds one run while its event log is full; `on_stuck(seconds)` when held too long."""

    def __init__(self, events: EventLog, on_stuck: Callable[[float], None],
                 hold_limit: float = EVENT_HOLD_SECONDS) -> None:
        self.events = events
        self.on_stuck = on_stuck
        self.hold_limit = hold_limit

    def _pending(self) -> Awaitable[None] | None:
        return self._hold() if self.events.full else None  # the usual case costs one attribute read

    async def _hold(self) -> None:
        with anyio.move_on_after(self.hold_limit) as waited:
            await self.events.room()
        if waited.cancelled_caught:
            self.on_stuck(self.hold_limit)
            await anyio.sleep_forever()  # on_stuck cancels the run

    def iteration_started(self, *, run_id: str, path: Path, iteration: int, statics: Mapping[str, Any],
                          **future: Any) -> Awaitable[None] | None:
        return self._pending()

    def attempt_started(self, *, run_id: str, path: Path, node_id: str, agent_id: str | None, attempt: int,
                        inputs: dict[str, Any], state: NodeState, **future: Any) -> Awaitable[None] | None:
        return self._pending()

    def node_completed(self, *, run_id: str, path: Path, iteration: int, node_id: str, value: Any,
                       duration: float, state: NodeState, **future: Any) -> Awaitable[None] | None:
        return self._pending()
