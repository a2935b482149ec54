"""What a run reports while it goes: one typed event per thing that happened.

Events are frozen dataclasses. Each carries the run id, the path of nested
graphs it happened in (node ids, with map row indexes) and the node id, so a
subscriber can follow a whole run, nested graphs included. Subscribers are
plain callables; the engine builds no event when nobody listens.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = [
    "Event",
    "RunStarted",
    "RunFinished",
    "NodeQueued",
    "NodeStarted",
    "NodeCompleted",
    "NodeFailed",
    "NodeRetried",
    "NodeTimedOut",
    "NodeSkipped",
    "LoopIteration",
    "TokenDelta",
    "AgentProgress",
    "ToolCalled",
    "ToolReturned",
    "Emitter",
    "Subscriber",
    "failure_event",
]


@dataclass(frozen=True, kw_only=True)
class Event:
    """Something that happened in a run."""

    run_id: str
    path: tuple[str | int, ...] = ()
    time: float = field(default_factory=time.time)


@dataclass(frozen=True, kw_only=True)
class RunStarted(Event):
    """A graph (or a nested graph) started."""


@dataclass(frozen=True, kw_only=True)
class RunFinished(Event):
    """A graph finished; `error` is set when it failed."""

    error: BaseException | None = None


@dataclass(frozen=True, kw_only=True)
class NodeQueued(Event):
    """A node's inputs are ready and it waits for a slot."""

    node_id: str


@dataclass(frozen=True, kw_only=True)
class NodeStarted(Event):
    """A node's agent was called (again, on a retry)."""

    node_id: str
    agent_id: str | None
    attempt: int
    inputs: dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class NodeCompleted(Event):
    """A node has its result."""

    node_id: str
    result: Any
    duration: float


@dataclass(frozen=True, kw_only=True)
class NodeFailed(Event):
    """A node's agent failed or timed out; `will_retry` tells whether it runs again."""

    node_id: str
    error: BaseException
    timed_out: bool
    will_retry: bool


@dataclass(frozen=True, kw_only=True)
class NodeRetried(NodeFailed):
    """An attempt failed (or timed out) and the node runs again; `will_retry` is always true.

    A NodeFailed subclass so that code written against `NodeFailed.will_retry`
    keeps working; match NodeRetried before NodeFailed to tell them apart.
    """


@dataclass(frozen=True, kw_only=True)
class NodeTimedOut(NodeFailed):
    """A node ran past its `timeout` and will not run again; `error` is the NodeTimeoutError."""


def failure_event(*, timed_out: bool, will_retry: bool, **fields: Any) -> NodeFailed:
    """The event for a failed attempt: NodeRetried, NodeTimedOut or NodeFailed."""
    kind = NodeRetried if will_retry else NodeTimedOut if timed_out else NodeFailed
    return kind(timed_out=timed_out, will_retry=will_retry, **fields)


@dataclass(frozen=True, kw_only=True)
class NodeSkipped(Event):
    """A node's `if`/`unless` condition kept it from running."""

    node_id: str


@dataclass(frozen=True, kw_only=True)
class LoopIteration(Event):
    """A looping graph starts iteration `index` (0 is the first)."""

    index: int


@dataclass(frozen=True, kw_only=True)
class TokenDelta(Event):
    """A piece of text an agent streamed (an LLM token, usually)."""

    node_id: str
    token: str


@dataclass(frozen=True, kw_only=True)
class AgentProgress(Event):
    """A progress update an agent reported while it runs."""

    node_id: str
    message: str
    data: Any = None


@dataclass(frozen=True, kw_only=True)
class ToolCalled(Event):
    """An LLM asked for a tool call; `arguments` are as the LLM sent them."""

    node_id: str
    tool_call_id: str
    name: str
    arguments: Any


@dataclass(frozen=True, kw_only=True)
class ToolReturned(Event):
    """A tool call finished; `error` is set when it failed (its text went back to the LLM)."""

    node_id: str
    tool_call_id: str
    name: str
    content: str
    error: str | None = None


Subscriber = Callable[[Event], Any]


class Emitter:
    """Hands events to subscribers; a failing subscriber does not break the run."""

    def __init__(self, subscribers: list[Subscriber] | None = None) -> None:
        self.subscribers: list[Subscriber] = list(subscribers or [])

    def __bool__(self) -> bool:
        return bool(self.subscribers)

    def emit(self, event: Event) -> None:
        for subscriber in self.subscribers:
            try:
                subscriber(event)
            except Exception:  # noqa: BLE001 - observers must not change the run
                import logging

                logging.getLogger("graphrt").exception("event subscriber %r failed", subscriber)
