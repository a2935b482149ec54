"""What a run reports while it goes: one typed event per thing that happened.

Events are frozen dataclasses, equal only to themselves (each has its own time), with one
`__repr__` for all: a dataclass's generated methods are compiled at every start-up, and these
twenty classes were a tenth of `graphrt run`'s. Each carries the run id, the path of nested
graphs it happened in (node ids, with map row indexes) and the node id, so a
subscriber can follow a whole run, nested graphs included; an event of a node's
state (a `NodeTransition`) carries the `state` the run set, which is what traces,
the transaction log and `graphrt serve` show. Subscribers are
plain callables, handed the events by the run's `Emitter` (graphrt.observe.observer);
`EventObserver` builds them from the run's transitions, and the engine builds none,
nor imports this module, when nobody listens. `EventStream` turns them into an async
iterator through a bounded buffer.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field, fields
from typing import Any, Callable, Mapping

import anyio

from graphrt.base.errors import GraphInterrupted
from graphrt.base.states import NodeState
from graphrt.observe.observer import Emitter, Path, Pending, RunObserver

__all__ = [
    "Event",
    "RunStarted",
    "RunFinished",
    "NodeEvent",
    "NodeTransition",
    "NodeQueued",
    "NodeStarted",
    "NodeCompleted",
    "NodeFailed",
    "NodeRetried",
    "NodeTimedOut",
    "NodeSkipped",
    "NodeAborted",
    "NodeInterrupted",
    "LoopIteration",
    "TokenDelta",
    "AgentProgress",
    "ToolCalled",
    "ToolReturned",
    "LlmCallStarted",
    "LlmCallWaiting",
    "LlmCallFinished",
    "EventsDropped",
    "EventObserver",
    "EventStream",
    "failure_event",
]


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Event:
    """Something that happened in a run."""

    run_id: str
    path: tuple[str | int, ...] = ()
    time: float = field(default_factory=time.time)

    def __repr__(self) -> str:  # a dataclass's repr, written once for every event class
        shown = ", ".join(f"{item.name}={getattr(self, item.name)!r}" for item in fields(self) if item.repr)
        return f"{type(self).__name__}({shown})"


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class RunStarted(Event):
    """A graph (or a nested graph) started."""


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class RunFinished(Event):
    """A graph finished; `error` is set when it failed. The run's (not a nested graph's) carries its `usage`, as
    `Usage.to_dict()` spells it (graphrt.base.usage): what it spent, across its resumptions."""

    error: BaseException | None = None
    usage: dict[str, Any] | None = None


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class NodeEvent(Event):
    """Something that happened at one node: its transitions, what it streamed or reported, its LLM and tool calls."""

    node_id: str


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class NodeTransition(NodeEvent):
    """Something happened to a node that sets its state: `state` is the node's state as the run set it.

    A retry's events (NodeStarted, NodeRetried) repeat EXECUTING: the node runs again.
    """

    state: NodeState


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class NodeQueued(NodeTransition):
    """A node's inputs are ready and it waits for a slot."""


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class NodeStarted(NodeTransition):
    """A node's agent was called (again, on a retry)."""

    agent_id: str | None
    attempt: int
    inputs: dict[str, Any]


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class NodeCompleted(NodeTransition):
    """A node has its result; `kept`: it did not run, its result is the one a fork kept (a node inside a nested
    graph that does not depend on the change, reported as the nested graph starts again)."""

    result: Any
    duration: float
    kept: bool = False


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class NodeFailed(NodeTransition):
    """A node's agent failed or timed out; `will_retry` tells whether it runs again."""

    error: BaseException
    timed_out: bool
    will_retry: bool


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class NodeRetried(NodeFailed):
    """An attempt failed (or timed out) and the node runs again; `will_retry` is always true.

    A NodeFailed subclass so that code written against `NodeFailed.will_retry`
    keeps working; match NodeRetried before NodeFailed to tell them apart.
    """


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class NodeTimedOut(NodeFailed):
    """A node ran past its `timeout` and will not run again; `error` is the NodeTimeoutError."""


def failure_event(*, timed_out: bool, will_retry: bool, **fields: Any) -> NodeFailed:
    """The event for a failed attempt: NodeRetried, NodeTimedOut or NodeFailed."""
    kind = NodeRetried if will_retry else NodeTimedOut if timed_out else NodeFailed
    return kind(timed_out=timed_out, will_retry=will_retry, **fields)


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class NodeSkipped(NodeTransition):
    """A node's `if`/`unless` condition kept it from running."""


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class NodeAborted(NodeTransition):
    """A node was cancelled, running or queued: its run was aborted, timed out, or stopped by a failure elsewhere."""


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class NodeInterrupted(NodeTransition):
    """A node's agent asked a person `question`: the node did not fail, its run waits for the answer.

    `key` is where the answer goes when the run is resumed (graphrt.durable).
    """

    question: str
    key: str | None = None


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class LoopIteration(Event):
    """A looping graph starts iteration `index` (0 is the first)."""

    index: int


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class TokenDelta(NodeEvent):
    """A piece of text an agent streamed (an LLM token, usually)."""

    token: str


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class AgentProgress(NodeEvent):
    """A progress update an agent reported while it runs."""

    message: str
    data: Any = None


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class ToolCalled(NodeEvent):
    """An LLM asked for a tool call; `arguments` are as the LLM sent them."""

    tool_call_id: str
    name: str
    arguments: Any


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class ToolReturned(NodeEvent):
    """A tool call finished; `error` is set when it failed (its text went back to the LLM)."""

    tool_call_id: str
    name: str
    content: str
    error: str | None = None


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class LlmCallStarted(NodeEvent):
    """An agent sent a request to an LLM; `call_id` pairs it with its LlmCallFinished.

    LLM agents report it with `ctx.emit(LlmCallStarted, call_id=..., model=...)`;
    `system` names the provider as OpenTelemetry's `gen_ai.system` does ("openai").
    """

    call_id: str
    model: str | None = None
    system: str | None = None
    waited: float | None = None  # seconds it waited for its turn under a rate limit (LlmCallWaiting)


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class LlmCallWaiting(NodeEvent):
    """An agent's LLM call waits for its turn under the rate limits of `label` (`openai:gpt-4o-mini`), about
    `seconds` from now: its node waits, it is not running; its LlmCallStarted follows with the time it waited."""

    label: str
    seconds: float


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class LlmCallFinished(NodeEvent):
    """An LLM request ended: the reply's model, token usage, cost and finish reason, or `error` as text.

    `provider` names who answered as prices and rate limits do (`openai`, `azure`, `local`, ...). Token
    counts are the reply's (graphrt.base.usage's CallUsage: `input_tokens` the whole prompt, cached ones
    included; `output_tokens` the whole reply, reasoning included); None is unknown, never 0. `cost_usd`
    is from the config's prices (None: no price, or no counts). A failed attempt (`error`) was spent and
    not used.
    """

    call_id: str
    model: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    finish_reason: str | None = None
    error: str | None = None
    provider: str | None = None
    cached_tokens: int | None = None
    reasoning_tokens: int | None = None
    cost_usd: float | None = None


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class EventsDropped(Event):
    """An EventStream's reader fell behind and `count` events were not delivered."""

    count: int


class EventStream:
    """The events of one run as an async iterator, through a bounded buffer.

        run = graph.start()
        async with run.events() as events, anyio.create_task_group() as tg:
            tg.start_soon(run.wait)
            async for event in events:
                ...

    Iteration ends after the run's RunFinished. A reader that falls more than
    `max_buffer` events behind does not slow the run down: the events that do
    not fit are dropped, and the reader gets an EventsDropped with their count
    (`dropped` holds the total). RunFinished is never dropped. Events that sync
    agents report from worker threads are handed over to the event loop.
    """

    def __init__(self, emitter: Emitter, max_buffer: int = 1024) -> None:
        if max_buffer < 1:
            raise ValueError(f"max_buffer must be at least 1, got {max_buffer}")
        self._emitter = emitter
        self._max = max_buffer
        # Spare slots: an EventsDropped notice may go with the last event that fits, and
        # another notice with the final RunFinished.
        self._send, self._receive = anyio.create_memory_object_stream[Event](max_buffer + 3)
        self._loop_thread: int | None = None
        self._unreported = 0
        self._finished = False
        self.dropped = 0

    async def __aenter__(self) -> "EventStream":
        self._loop_thread = threading.get_ident()
        self._emitter.subscribers.append(self)
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        self._close()
        self._receive.close()

    def __aiter__(self) -> "EventStream":
        return self

    async def __anext__(self) -> Event:
        try:
            return await self._receive.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    def __call__(self, event: Event) -> None:
        if self._finished:
            return
        if threading.get_ident() == self._loop_thread:
            self._put(event)
            return
        try:
            anyio.from_thread.run_sync(self._put, event)
        except RuntimeError:  # a thread anyio did not start: no way into the loop
            self._unreported += 1
            self.dropped += 1

    def _put(self, event: Event) -> None:
        final = isinstance(event, RunFinished) and not event.path
        try:
            if final or self._send.statistics().current_buffer_used < self._max:
                if self._unreported:
                    self._send.send_nowait(EventsDropped(run_id=event.run_id, count=self._unreported))
                    self._unreported = 0
                self._send.send_nowait(event)
            else:
                self._unreported += 1
                self.dropped += 1
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            self._close()  # the reader has gone
        if final:
            self._close()

    def _close(self) -> None:
        self._finished = True
        if self in self._emitter.subscribers:
            self._emitter.subscribers.remove(self)
        self._send.close()


class EventObserver(RunObserver):
    """Turns a run's transitions into typed events for an `Emitter`, building only those a subscriber wants."""

    # The event each hook builds; failures (None) are built for every subscriber, as they are rare.
    _EVENT_OF: dict[str, type[Event] | None] = {
        "iteration_started": LoopIteration,
        "node_queued": NodeQueued,
        "attempt_started": NodeStarted,
        "attempt_failed": None,
        "node_completed": NodeCompleted,
        "node_failed": None,
        "node_skipped": NodeSkipped,
        "node_aborted": NodeAborted,
        "nodes_dropped": NodeAborted,  # one per queued node that will not run
    }

    def __init__(self, emitter: Emitter) -> None:
        self.emitter = emitter

    def hook(self, name: str) -> Callable[..., Pending] | None:
        if name not in self._EVENT_OF or not self.emitter:
            return None
        event_type = self._EVENT_OF[name]
        return getattr(self, name) if event_type is None or self.emitter.wants(event_type) else None

    def iteration_started(self, *, run_id: str, path: Path, iteration: int, statics: Mapping[str, Any],
                          **future: Any) -> None:
        self.emitter.emit(LoopIteration(run_id=run_id, path=path, index=iteration))

    def node_queued(self, *, run_id: str, path: Path, node_id: str, state: NodeState, **future: Any) -> None:
        self.emitter.emit(NodeQueued(run_id=run_id, path=path, node_id=node_id, state=state))

    def attempt_started(self, *, run_id: str, path: Path, node_id: str, agent_id: str | None, attempt: int,
                        inputs: dict[str, Any], state: NodeState, **future: Any) -> None:
        self.emitter.emit(NodeStarted(run_id=run_id, path=path, node_id=node_id, state=state, agent_id=agent_id,
                                      attempt=attempt, inputs=inputs))

    def attempt_failed(self, *, run_id: str, path: Path, node_id: str, error: BaseException, timed_out: bool,
                       state: NodeState, **future: Any) -> None:
        self.emitter.emit(failure_event(run_id=run_id, path=path, node_id=node_id, state=state, error=error,
                                        timed_out=timed_out, will_retry=True))

    def node_completed(self, *, run_id: str, path: Path, iteration: int, node_id: str, value: Any, duration: float,
                       state: NodeState, **future: Any) -> None:
        # `kept` comes only with a result a fork kept (RunObserver.node_completed): not named, as the others are.
        self.emitter.emit(NodeCompleted(run_id=run_id, path=path, node_id=node_id, state=state, result=value,
                                        duration=duration, kept=bool(future.get("kept"))))

    def node_failed(self, *, run_id: str, path: Path, node_id: str, error: BaseException, timed_out: bool,
                    state: NodeState, **future: Any) -> None:
        if isinstance(error, GraphInterrupted):  # a question for a person, not a failure: an event of its own
            self.emitter.emit(NodeInterrupted(run_id=run_id, path=path, node_id=node_id, state=state,
                                              question=error.question, key=error.key))
            return
        self.emitter.emit(failure_event(run_id=run_id, path=path, node_id=node_id, state=state, error=error,
                                        timed_out=timed_out, will_retry=False))

    def node_skipped(self, *, run_id: str, path: Path, node_id: str, state: NodeState, **future: Any) -> None:
        self.emitter.emit(NodeSkipped(run_id=run_id, path=path, node_id=node_id, state=state))

    def node_aborted(self, *, run_id: str, path: Path, node_id: str, state: NodeState, **future: Any) -> None:
        self.emitter.emit(NodeAborted(run_id=run_id, path=path, node_id=node_id, state=state))

    def nodes_dropped(self, *, run_id: str, path: Path, count: int, node_ids: tuple[str, ...], state: NodeState,
                      **future: Any) -> None:
        for node_id in node_ids:
            self.emitter.emit(NodeAborted(run_id=run_id, path=path, node_id=node_id, state=state))
