"""Where a run's events go: the subscribers of one run, each handed every event it takes.

It lives apart from the event classes (graphrt.observe.events) so that a run
nobody watches imports none of them: the engine holds an Emitter in every run,
and builds (and imports) events only when it is not empty. The event classes
import it (EventStream subscribes to one), so it names an event by the port
below, `Reported`, and never imports them.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol

__all__ = ["Emitter", "Reported", "Subscriber"]


class Reported(Protocol):
    """An event as the emitter sees it: something that happened in a run, handed on unread
    (graphrt.observe.events.Event is one)."""

    run_id: str


Subscriber = Callable[[Reported], Any]


class Emitter:
    """Hands events to subscribers; a failing subscriber does not break the run."""

    def __init__(self, subscribers: list[Subscriber] | None = None) -> None:
        self.subscribers: list[Subscriber] = list(subscribers or [])

    def __bool__(self) -> bool:
        return bool(self.subscribers)

    def wants(self, event_type: type[Reported]) -> bool:
        """True if some subscriber takes events of this type, so the engine need not build the others.

        A subscriber that handles only some types (the live display) lists them in
        an `event_types` attribute; one without it takes every event.
        """
        return any(not hasattr(subscriber, "event_types") or issubclass(event_type, tuple(subscriber.event_types))
                   for subscriber in self.subscribers)

    def emit(self, event: Reported) -> None:
        for subscriber in self.subscribers:
            try:
                subscriber(event)
            except Exception:  # noqa: BLE001 - observers must not change the run
                import logging

                logging.getLogger("graphrt").exception("event subscriber %r failed", subscriber)
