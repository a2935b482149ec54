"""The options every entry point takes, in two objects: how a graph is prepared, and how one run goes.

`graphrt.run`, `Graph`, `graphrt.resume`, `graphrt.durable.arun_checkpointed`
and the rest take these as keyword arguments and pass them on as these
objects, so each option is written, checked and documented once, here.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

from graphrt.base.frozen import Frozen

if TYPE_CHECKING:
    from graphrt.authoring.filters import AgentFilter, FilterFunction
    from graphrt.authoring.plugins import AgentsArg
    from graphrt.authoring.services import RunServices
    from graphrt.base.budget import Budget
    from graphrt.base.usage import Usage
    from graphrt.engine.context import AgentCalls
    from graphrt.engine.journal import CallLog, Journal
    from graphrt.graphdata.loader import GraphLoader
    from graphrt.observe.events import Event
    from graphrt.observe.progress import RunProgress
    from graphrt.observe.rate_limits import RateWindow

__all__ = ["GraphOptions", "RunOptions", "split_options"]


@dataclass(slots=True, init=False, repr=False, eq=False)
class GraphOptions(Frozen):
    """How a graph is prepared to run (`Graph(graph, **options)`); the same for each of its runs.

    Attributes:
        agents: a Registry to use as is, or agents to add to the built-in ones (AgentInfos,
            functions, toolset classes or instances).
        config: per-agent configuration, `{"global": {...}, "<agentId>": {...}}`, and run-wide
            settings such as `"mcp"` (MCP servers, see graphrt.mcp); agents read all of it as
            `ctx.services.config`.
        filters: agent filters wrapped around every agent call, in order (graphrt.authoring.filters).
        bypass_agent_ids: agent ids that need no agent (GraphAI's `bypassAgentIds`): valid in the
            graph, their nodes go through the filters, and without a filter that answers they give null.
        graph_loader: `loader(fileName, option)` -> GraphData, for nodes with `graphLoader` (GraphAI's
            option), in nested graphs too; without one, `fileName` is read beside the graph file.
        executor: where agent calls run: an Executor (graphrt.executors), or its name ("ray",
            "ray://HOST:PORT", "inprocess") for the entry points that start one for the run;
            None: in this process.
        services: run services to share between runs (open, owned by the caller, e.g. a
            server's); by default each run has its own, opened on first use and closed at its end.
    """

    agents: AgentsArg = None
    config: Mapping[str, Any] | None = None
    filters: Iterable[AgentFilter | FilterFunction] | None = None
    bypass_agent_ids: Iterable[str] = ()
    graph_loader: GraphLoader | None = None
    executor: AgentCalls | str | None = None
    services: RunServices | None = None

    # A dataclass (fields, replace) whose methods are Frozen's and written here, not generated (base/frozen.py).
    def __init__(self, agents: AgentsArg = None, config: Mapping[str, Any] | None = None,
                 filters: Iterable[AgentFilter | FilterFunction] | None = None, bypass_agent_ids: Iterable[str] = (),
                 graph_loader: GraphLoader | None = None, executor: AgentCalls | str | None = None,
                 services: RunServices | None = None) -> None:
        self._set(agents=agents, config=config, filters=filters, bypass_agent_ids=bypass_agent_ids,
                  graph_loader=graph_loader, executor=executor, services=services)


@dataclass(slots=True, init=False, repr=False, eq=False)
class RunOptions(Frozen):
    """How one run of a prepared graph goes (`graph.start(**options)`, `graphrt.run(graph, **options)`).

    Attributes:
        inject: values for static nodes, set before the run; they stay through loop iterations.
        all_results: return every node's result instead of the `isResult` nodes'.
        run_id: the run's id (in events and checkpoints); a new one if None.
        timeout: seconds the whole run may take (default: the GRAPHRT_RUN_TIMEOUT environment
            variable, else no limit); then running agents are cancelled and RunTimeoutError raised.
        subscribe: callables given every event of the run (graphrt.observe.events).
        progress: counters the run keeps for a live display to sample (graphrt.observe.progress).
        budget: what the run may spend: a graphrt.base.budget.Budget, a mapping (`{tokens: 20000, cost: 0.5,
            nodes: {react: {tokens: 2000}}}`) or `--budget` text (`tokens=20000,react.tokens=2000`), over the
            config's `budget`; the run stops with BudgetExceeded before a call that would pass it. Never a key of
            the graph (GraphAI refuses keys it does not know).
        on_usage: called with what the run spent (a graphrt.base.usage.Usage, its resumptions included) when
            it ends, however it ends: for a caller that does not hold the Run (a command, a batch's rows, a
            run graphrt.durable saves), which reads `Run.usage` otherwise.
        journal: where the run journals its outside calls (LLM requests, tool calls, services': graphrt.engine.journal),
            to take their results from instead of making them again: a Journal, or a log such as a cassette
            (graphrt.testing.Cassette) that records the run or replays it. A checkpointed run journals them in
            its store too.
        rate_window: where the config's rate limits count the run's calls (graphrt.observe.rate_limits'
            RateWindow); None: this process's memory. A run saved in a store that several processes share
            (PostgreSQL) is handed the store's, so that the limits hold for every process on it.
    """

    inject: Mapping[str, Any] = field(default_factory=dict)
    all_results: bool = False
    run_id: str | None = None
    timeout: float | None = None
    subscribe: tuple[Callable[[Event], Any], ...] = ()
    progress: RunProgress | None = None
    on_usage: Callable[[Usage], Any] | None = None
    budget: Budget | Mapping[str, Any] | str | None = None
    journal: Journal | CallLog | None = None
    rate_window: RateWindow | None = None

    # A dataclass (fields, replace) whose methods are Frozen's and written here, not generated (base/frozen.py).
    def __init__(self, inject: Mapping[str, Any] | None = None, all_results: bool = False, run_id: str | None = None,
                 timeout: float | None = None, subscribe: tuple[Callable[[Event], Any], ...] = (),
                 progress: RunProgress | None = None, on_usage: Callable[[Usage], Any] | None = None,
                 budget: Budget | Mapping[str, Any] | str | None = None, journal: Journal | CallLog | None = None,
                 rate_window: RateWindow | None = None) -> None:
        self._set(inject=dict(inject or {}), all_results=all_results, run_id=run_id, timeout=timeout,
                  subscribe=tuple(subscribe or ()), progress=progress, on_usage=on_usage, budget=budget,
                  journal=journal, rate_window=rate_window)

    def replace(self, **changes: Any) -> "RunOptions":
        """A copy with `changes`, as `dataclasses.replace` makes it, at a tenth of its cost (~10 µs: a checkpointed
        run makes two or three, issue 44)."""
        unknown = changes.keys() - _RUN_FIELDS
        if unknown:
            raise TypeError(f"RunOptions.replace: unknown option {', '.join(map(repr, sorted(unknown)))}")
        copied = object.__new__(type(self))
        for name in self._names:
            object.__setattr__(copied, name, changes[name] if name in changes else getattr(self, name))
        if "inject" in changes:
            object.__setattr__(copied, "inject", dict(copied.inject or {}))
        if "subscribe" in changes:
            object.__setattr__(copied, "subscribe", tuple(copied.subscribe or ()))
        return copied


_GRAPH_FIELDS = frozenset(f.name for f in dataclasses.fields(GraphOptions))
_RUN_FIELDS = frozenset(f.name for f in dataclasses.fields(RunOptions))


def split_options(options: Mapping[str, Any], *, graph: bool = True, run: bool = True,
                  where: str = "options") -> tuple[GraphOptions, RunOptions]:
    """The GraphOptions and RunOptions that keyword arguments name.

    Raises:
        TypeError: an argument is neither (the message lists those that are).
    """
    known = (_GRAPH_FIELDS if graph else frozenset()) | (_RUN_FIELDS if run else frozenset())
    unknown = sorted(set(options) - known)
    if unknown:
        raise TypeError(f"{where}: unknown option {', '.join(map(repr, unknown))} (options: {', '.join(sorted(known))})")
    return (GraphOptions(**{k: v for k, v in options.items() if k in _GRAPH_FIELDS}) if graph else _NO_GRAPH_OPTIONS,
            RunOptions(**{k: v for k, v in options.items() if k in _RUN_FIELDS}) if run else _NO_RUN_OPTIONS)


_NO_GRAPH_OPTIONS = GraphOptions()  # what split_options gives for the options it was not asked for (graph=False)
_NO_RUN_OPTIONS = RunOptions()
