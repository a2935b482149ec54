"""What a run tells those who watch it: one interface for every transition of a node or an iteration.

The run (graphrt.engine.execution) owns every state change and reports each one
here, once, to whoever subscribed: the event stream (graphrt.observe.events' `EventObserver`: typed
events for traces, `graphrt serve`, OpenTelemetry), the live display's
counters (`RunProgress`), and saving a run as it goes (graphrt.durable's
`CheckpointWriter`). None of them sees an engine object. Every node hook carries
`state`, the node's `NodeState` as the run has just set it: whoever shows a
node's state reads it there, and none works it out from which hook was called.

Hooks are keyword-only and take `**future`, as Burr's lifecycle hooks do, so a
field added later breaks no observer. An observer names every keyword the run
passes, as RunObserver does: a call then binds them without building a dict for
`**future`, which is most of what a hook costs on a run of quick nodes. `iteration_started`, `attempt_started`,
`attempt_failed` and `node_completed` may return an awaitable: the run awaits
it before it goes on (a node's waiters start only after its result is saved);
the other hooks are called where the run cannot wait, and return None. An observer overrides only the hooks it needs; `Observers` keeps, per
hook, the bound methods that do something, so a run nobody watches pays for
none of it.

A run's events go to its subscribers through its `Emitter`, here too: the run holds one always and builds
an event (graphrt.observe.events, which imports this module and is imported only for a run somebody
watches) only when a subscriber wants it. The emitter names an event by a port, `Reported`.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Iterable, Mapping, Protocol, runtime_checkable

from graphrt.base.states import NodeState

__all__ = ["Emitter", "HOOKS", "Observers", "Reported", "RunObserver", "SelectiveSubscriber", "Subscriber"]

Path = tuple[str | int, ...]
Pending = Awaitable[None] | None

HOOKS = ("iteration_started", "node_queued", "node_running", "attempt_started", "attempt_failed", "node_completed",
         "node_failed", "node_skipped", "node_aborted", "nodes_dropped")


class RunObserver:
    """The hooks of a run, each a no-op here; subclass and override those you need.

    `path` is where the node is: () at the top, node ids (and map row indexes)
    of the graph nodes it is nested in below.
    """

    # The hooks a class does something on (its method is not RunObserver's), worked out once, when it is made:
    # each run asks its observers for every hook.
    _overridden: frozenset[str] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._overridden = frozenset(name for name in HOOKS if getattr(cls, name) is not getattr(RunObserver, name))

    def iteration_started(self, *, run_id: str, path: Path, iteration: int, statics: Mapping[str, Any],
                          **future: Any) -> Pending:
        """An iteration starts (the first, a restored one, or the next of a loop) with these static values."""

    def node_queued(self, *, run_id: str, path: Path, node_id: str, state: NodeState, **future: Any) -> Pending:
        """A node's inputs are ready; it waits for a slot (`state`: QUEUED)."""

    def node_running(self, *, run_id: str, path: Path, node_id: str, state: NodeState, **future: Any) -> Pending:
        """A queued node got its slot (`state`: EXECUTING; QUEUED for a skipped node that gives its `defaultValue`)."""

    def attempt_started(self, *, run_id: str, path: Path, node_id: str, agent_id: str | None, attempt: int,
                        inputs: dict[str, Any], state: NodeState, **future: Any) -> Pending:
        """A node's agent is called (again, on a retry) with these inputs (`state`: EXECUTING)."""

    def attempt_failed(self, *, run_id: str, path: Path, node_id: str, error: BaseException, timed_out: bool,
                       state: NodeState, **future: Any) -> Pending:
        """An attempt failed or timed out, and the node runs again (`state`: still EXECUTING)."""

    def node_completed(self, *, run_id: str, path: Path, iteration: int, node_id: str, value: Any,
                       duration: float, state: NodeState, **future: Any) -> Pending:
        """A node has its result (`UNDEFINED` for none; `state`: COMPLETED); its waiters start once every hook is done.

        A nested graph a fork reaches into reports the results it keeps this way too, as it starts, with
        `kept=True` (passed only then) and a duration of 0: those nodes do not run again.
        """

    def node_failed(self, *, run_id: str, path: Path, node_id: str, error: BaseException, timed_out: bool,
                    state: NodeState, **future: Any) -> Pending:
        """A node failed for good (`state`: FAILED or TIMED_OUT), or asks a person and waits for the answer
        (a GraphInterrupted `error`, `state`: INTERRUPTED)."""

    def node_skipped(self, *, run_id: str, path: Path, node_id: str, state: NodeState, **future: Any) -> Pending:
        """A node's `if`/`unless` kept it from running (`state`: SKIPPED)."""

    def node_aborted(self, *, run_id: str, path: Path, node_id: str, state: NodeState, **future: Any) -> Pending:
        """A running node was cancelled (the run was aborted, timed out or its task group cancelled; `state`: ABORT)."""

    def nodes_dropped(self, *, run_id: str, path: Path, count: int, node_ids: tuple[str, ...], state: NodeState,
                      **future: Any) -> Pending:
        """`count` queued nodes (`node_ids`) will not run: their run stopped (`state`: ABORT)."""

    def hook(self, name: str) -> Callable[..., Pending] | None:
        """The bound hook `name` if this observer does something on it, else None."""
        return getattr(self, name) if name in self._overridden else None


class Observers:
    """The observers of one execution, as a tuple of bound methods per hook (empty when nobody listens)."""

    __slots__ = HOOKS

    def __init__(self, observers: Iterable[RunObserver] = ()) -> None:
        observers = tuple(observers)
        for name in HOOKS:
            setattr(self, name, tuple(hook for observer in observers if (hook := observer.hook(name)) is not None))


# ----- events, to a run's subscribers -----


class Reported(Protocol):
    """An event as the emitter sees it: something that happened in a run, handed on unread
    (graphrt.observe.events.Event is one)."""

    run_id: str


Subscriber = Callable[[Reported], Any]


@runtime_checkable
class SelectiveSubscriber(Protocol):
    """A subscriber that takes only the events of `event_types` (the live display does): the engine builds no
    other events for it. Any other subscriber takes every event."""

    event_types: tuple[type, ...]

    def __call__(self, event: Reported) -> Any: ...


class Emitter:
    """Hands events to subscribers; a failing subscriber does not break the run."""

    def __init__(self, subscribers: list[Subscriber] | None = None) -> None:
        self.subscribers: list[Subscriber] = list(subscribers or [])

    def __bool__(self) -> bool:
        return bool(self.subscribers)

    def wants(self, event_type: type[Reported]) -> bool:
        """True if some subscriber takes events of this type (a SelectiveSubscriber, only those it lists), so the
        engine need not build the others."""
        return any(not isinstance(subscriber, SelectiveSubscriber) or issubclass(event_type, tuple(subscriber.event_types))
                   for subscriber in self.subscribers)

    def emit(self, event: Reported) -> None:
        for subscriber in self.subscribers:
            try:
                subscriber(event)
            except Exception:  # noqa: BLE001 - observers must not change the run
                import logging

                logging.getLogger("graphrt").exception("event subscriber %r failed", subscriber)
