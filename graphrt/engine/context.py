"""What one execution of a graph shares between its run and every nested run.

`Run` builds one `RunContext` and hands it to the top `GraphRun`; a graph
agent's nested runs (nesting.py) get the same object. It is read-only: nothing
in it is set or taken during the execution, so nothing has to be copied into a
child run: the registry, the one scheduler, config, events, filters, loader,
executor, services and the nested graphs compiled so far are the parent's by
construction. `observers` hear every transition of every run of the execution
(events, a live display's counters, checkpointing: graphrt.observe.observer).

What a run takes as it goes is its own: a resumed run's answers, keyed by node
path and taken by whichever run, parent or nested, asked the question, and a
fork's kept results of nested graphs are a `Carryover`, made by the `Run` for
its execution and shared by its graph runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Protocol

from graphrt.authoring.registry import Registry
from graphrt.engine.scheduler import Scheduler
from graphrt.graphdata.spec import NestedSpecs
from graphrt.observe.meter import RunMeter
from graphrt.observe.observer import Emitter, Observers

if TYPE_CHECKING:
    from graphrt.authoring.agent_info import AgentContext
    from graphrt.authoring.filters import AgentFilter
    from graphrt.authoring.services import RunServices
    from graphrt.engine.journal import RunJournal
    from graphrt.graphdata.loader import GraphLoader

__all__ = ["AgentCalls", "RunContext", "Carryover"]


class AgentCalls(Protocol):
    """What a run does with the executor it borrows (graphrt.engine.executor's `Executor` is one): hands it agent
    calls, and says when the run has ended. The Executor class runs whole Graphs too, so it is above the run; the
    run names it by this port."""

    async def call(self, call: Any, ctx: AgentContext) -> Any:
        """Runs one agent call (after the node's filters); its result, or the agent's exception."""
        ...

    def run_ended(self, run_id: str) -> None:
        """A run that borrowed the executor has ended, however it ended."""
        ...


class RunContext:
    """The run-wide settings of one graph execution, shared by its run and its nested runs; read-only.

    Attributes:
        registry: the agents every node, nested or not, can use.
        scheduler: the one scheduler whose limits bound every node of the execution.
        run_id: the execution's id, in events and checkpoints.
        config: per-agent config (`{"global": ..., agentId: ...}`) and run-wide settings.
        emitter: where agents' events go (tokens, tool calls, progress).
        observers: what hears each node's and iteration's transitions.
        filters: agent filters around every agent call.
        executor: where agent calls run; None: in this process.
        services: what the whole run shares, e.g. MCP connections (agents see `ctx.services`).
        graph_loader: loads `graphLoader` graphs; None reads files beside the graph file.
        nested_specs: the graphs graph agents compiled, kept for every run of the prepared Graph.
        meter: what the run spends, counted as its agents call LLMs and tools (agents see `ctx.meter`).
        journal: the journal of the execution's outside calls (graphrt.engine.journal); None: none is kept.
    """

    __slots__ = ("registry", "scheduler", "run_id", "config", "emitter", "observers", "filters", "executor",
                 "services", "graph_loader", "nested_specs", "meter", "journal")

    # A plain class, not a dataclass: it is built once per execution, never compared or copied, and a
    # frozen dataclass's generated methods cost every command's start ~0.8 ms (`python -m bench startup`).
    def __init__(self, registry: Registry, scheduler: Scheduler, run_id: str, *,
                 config: Mapping[str, Any] | None = None, emitter: Emitter | None = None,
                 observers: Observers | None = None, filters: tuple[AgentFilter, ...] = (),
                 executor: AgentCalls | None = None, services: RunServices | None = None,
                 graph_loader: GraphLoader | None = None, nested_specs: NestedSpecs | None = None,
                 meter: RunMeter | None = None, journal: RunJournal | None = None) -> None:
        set_ = object.__setattr__
        set_(self, "registry", registry)
        set_(self, "scheduler", scheduler)
        set_(self, "run_id", run_id)
        set_(self, "config", {} if config is None else config)
        set_(self, "emitter", Emitter() if emitter is None else emitter)
        set_(self, "observers", Observers() if observers is None else observers)
        set_(self, "filters", filters)
        set_(self, "executor", executor)
        set_(self, "services", services)
        set_(self, "graph_loader", graph_loader)
        set_(self, "nested_specs", NestedSpecs() if nested_specs is None else nested_specs)
        set_(self, "meter", RunMeter() if meter is None else meter)
        set_(self, "journal", journal)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a RunContext does not change once made (setting {name!r})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a RunContext does not change once made (deleting {name!r})")


class Carryover:
    """What a resumed run brings along and its graph runs take as they go, each item once.

    Attributes:
        answers: a person's answers to questions, by node path (see engine.node.answer_key); a node's
            is taken when the node completes, so a later iteration that asks again is asked again.
        inner_results: of a fork from inside a nested graph, the results each nested graph keeps, by
            nested path ("outer", "outer/2"); taken by the first run of that graph (see GraphRun.child).
    """

    __slots__ = ("answers", "inner_results")

    def __init__(self, answers: Mapping[str, Any] | None = None,
                 inner_results: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        self.answers: dict[str, Any] = dict(answers) if answers else {}
        self.inner_results: dict[str, dict[str, Any]] = (
            {key: dict(kept) for key, kept in inner_results.items()} if inner_results else {})

    def answer(self, key: str) -> Any:
        """The answer to the question of the node at `key`, or None."""
        return self.answers.get(key)

    def take_answer(self, key: str) -> None:
        """The node at `key` completed with its answer: the answer is used up."""
        self.answers.pop(key, None)

    def take_inner_results(self, path: str) -> dict[str, Any] | None:
        """The results a fork kept for the nested graph at `path`, for its first run only."""
        return self.inner_results.pop(path, None)
