"""An agent's events on a worker (progress, streamed tokens), relayed to the driver's subscribers as they happen.

When a run has subscribers, the worker pushes each event of a call to one small
async actor of the executor (`EventRelay`, no CPU) as the agent reports it
(`Relayed`, the agent's emitter there), and the driver takes the call's events
from it as they come, while the call runs (`with_events`).
"""

from __future__ import annotations

import asyncio
from typing import Any

import anyio

from graphrt.executors.ray.awaiting import resolved
from graphrt.executors.ray.installed import ray

__all__ = ["EventRelay", "Relayed", "with_events"]

_END = "graphrt:end-of-events"  # the last item a call pushes to the relay: the driver stops taking


class Relayed:
    """The emitter of an agent on a worker: each event goes to the driver's relay at once (none without one).

    Events are numbered: an async actor may run one caller's calls out of order, the relay puts them back.
    """

    def __init__(self, relay: Any, key: str) -> None:
        self.relay = relay
        self.key = key
        self.sent = 0

    def __bool__(self) -> bool:
        return self.relay is not None

    def emit(self, event: Any) -> None:
        if self.relay is not None:
            self.relay.push.remote(self.key, self.sent, event)
            self.sent += 1

    def close(self) -> None:
        """Marks the end of the call's events, once every event before it has reached the relay."""
        if self.relay is None:
            return
        try:
            ray.get(self.relay.push.remote(self.key, self.sent, _END))
        except Exception:  # noqa: BLE001 - the relay is gone (the executor closed): nobody waits for the end
            pass


class EventRelay:
    """An async actor: workers push their calls' numbered events; the driver takes each call's, in order, as they
    come."""

    def __init__(self) -> None:
        self._pending: dict[str, dict[int, Any]] = {}  # call -> events by number, not taken yet
        self._next: dict[str, int] = {}  # call -> the number of the next event to hand on
        self._ready: dict[str, asyncio.Event] = {}

    async def push(self, key: str, number: int, event: Any) -> None:
        self._pending.setdefault(key, {})[number] = event
        ready = self._ready.get(key)
        if ready is not None:
            ready.set()

    async def take(self, key: str) -> list[Any]:
        """The call's events that follow the last taken, in order; waits until the next one has come."""
        while self._next.get(key, 0) not in self._pending.get(key, {}):
            ready = self._ready.setdefault(key, asyncio.Event())
            await ready.wait()
            ready.clear()
        pending, number, events = self._pending[key], self._next.get(key, 0), []
        while number in pending:
            events.append(pending.pop(number))
            number += 1
        self._next[key] = number
        if events[-1] == _END:
            self._drop(key)
        return events

    async def forget(self, key: str) -> None:
        """Drops what a call left (the driver stopped waiting for it: it failed, or was cancelled)."""
        self._drop(key)

    def _drop(self, key: str) -> None:
        self._pending.pop(key, None)
        self._next.pop(key, None)
        self._ready.pop(key, None)


async def with_events(ref: Any, relay: Any, key: str, emitter: Any) -> Any:
    """The call's outcome, while its events are handed to `emitter` as they reach the relay."""
    failure: BaseException | None = None
    outcome = None
    async with anyio.create_task_group() as group:
        group.start_soon(_forward_events, relay, key, emitter)
        try:
            outcome = await resolved(ref)
        except anyio.get_cancelled_exc_class():
            group.cancel_scope.cancel()
            relay.forget.remote(key)
            raise
        except BaseException as error:  # noqa: BLE001 - raised after the forwarding stopped
            failure = error
            group.cancel_scope.cancel()
    if failure is not None:
        relay.forget.remote(key)
        raise failure
    return outcome


async def _forward_events(relay: Any, key: str, emitter: Any) -> None:
    """Takes a call's events from the relay as they come, until the call's last."""
    while True:
        for event in await resolved(relay.take.remote(key)):
            if isinstance(event, str) and event == _END:
                return
            emitter.emit(event)
