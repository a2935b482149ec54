"""`Graph`: a loaded, validated and compiled graph, ready for any number of runs.

This is the object behind `graphrt.run()`. A Graph does not change once it is
made; each run is a `Run` (`graph.start(...)`) with its own injected values,
subscribers, results, errors and abort.
"""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, TypeVar

from graphrt.authoring.plugins import AgentsArg, make_registry
from graphrt.authoring.agent_info import AgentContext, AgentInfo
from graphrt.authoring.registry import Registry
from graphrt.base.collector import collector_paused, is_large
from graphrt.base.errors import GraphError, ValidationIssue
from graphrt.base.secrets import Redactor, known_credentials
from graphrt.base.sync import blocking
from graphrt.check.validate import collect_issues, rule_issues, validate_graph
from graphrt.engine.options import GraphOptions, RunOptions
from graphrt.engine.run import Run
from graphrt.graphdata.loader import GraphFile, load_graph
from graphrt.graphdata.spec import NestedSpecs, compile_graph
from graphrt.observe.meter import UsageSettings
from graphrt.observe.observer import RunObserver

if TYPE_CHECKING:
    from graphrt.authoring.filters import AgentFilter
    from graphrt.checkpoint.snapshot import RunSnapshot

__all__ = ["Graph", "AgentsArg", "make_registry", "with_bypassed_agents"]

_T = TypeVar("_T")


async def _bypassed(ctx: AgentContext) -> None:
    """The agent of a bypassed agent id: null, as GraphAI's; a filter usually answers first."""
    return None


def with_bypassed_agents(registry: Registry, agent_ids: Iterable[str]) -> Registry:
    """The registry plus a null agent for each bypassed id it lacks (a real agent of that id wins, as in GraphAI)."""
    missing = [agent_id for agent_id in dict.fromkeys(agent_ids) if agent_id not in registry]
    if not missing:
        return registry
    registry = registry.copy()
    for agent_id in missing:
        registry.register(AgentInfo(name=agent_id, func=_bypassed, description="bypassed: its filters answer, else null"))
    return registry


def _filters_of(options: GraphOptions) -> tuple[AgentFilter, ...]:
    """The options' filters as AgentFilters; only a graph given filters imports their module."""
    if not options.filters:
        return ()
    from graphrt.authoring.filters import as_filters

    return as_filters(options.filters)


class Graph:
    """A graph ready to run; it does not change once made.

    What its graph agents compile as its runs go (a nestedAgent's graph) is kept for every run of it, in
    `nested_specs`, not in its compiled `spec`.

    Args:
        graph: GraphData as a dict, YAML/JSON text, or a path to a file.
        options: how the graph is prepared, as a GraphOptions; or give its fields as keywords:
            `agents`, `config`, `filters`, `bypass_agent_ids`, `graph_loader`, `executor`, `services`
            (graphrt.engine.options.GraphOptions says what each does).

    Raises:
        GraphLoadError: the file cannot be read or parsed.
        GraphValidationError: the graph is invalid; `.issues` lists every problem.
        UsageConfigError: the config's `prices` cannot be used.
    """

    def __init__(self, graph: Mapping[str, Any] | str | Path | GraphFile, options: GraphOptions | None = None,
                 **fields: Any) -> None:
        options = dataclasses.replace(options or GraphOptions(), **fields)
        if isinstance(options.executor, str):
            raise GraphError(f"executor {options.executor!r}: a Graph takes an Executor object; "
                             "graphrt.run(..., executor=NAME) starts one by its name")
        usage = UsageSettings(options.config)  # the config's mistakes are said before the graph's
        data, source = load_graph(graph)
        registry = with_bypassed_agents(make_registry(options.agents), options.bypass_agent_ids)
        with collector_paused(is_large(data)):
            rule_found = rule_issues(data, registry, source)  # once: the warnings, if asked for, reuse them
            validate_graph(data, registry, source, rule_found=rule_found)
            spec = compile_graph(data, source)
        self._set(options=options, registry=registry, spec=spec, config=dict(options.config or {}),
                  filters=_filters_of(options), graph_loader=options.graph_loader,
                  executor=options.executor, services=options.services, _loaded=(data, source), _rule_found=rule_found,
                  _warnings=None, nested_specs=NestedSpecs(), usage_settings=usage, _derived={})

    def _set(self, **attributes: Any) -> None:
        for name, value in attributes.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a Graph does not change once made: use graph.replace({name}=...) for a changed copy")

    def replace(self, **changes: Any) -> "Graph":
        """A copy with other run-time options (`config`, `filters`, `graph_loader`, `executor`, `services`),
        sharing this graph's compiled form (and the nested graphs compiled for it, `nested_specs`); `agents`
        and `bypass_agent_ids` need a new Graph."""
        if "agents" in changes or "bypass_agent_ids" in changes:
            raise GraphError("a Graph with other agents is validated again: build a new Graph")
        options = dataclasses.replace(self.options, **changes)
        changed = copy.copy(self)
        changed._set(options=options, config=dict(options.config or {}), filters=_filters_of(options),
                     usage_settings=UsageSettings(options.config) if "config" in changes else self.usage_settings,
                     graph_loader=options.graph_loader, executor=options.executor, services=options.services,
                     _derived={})
        return changed

    def derived(self, make: Callable[["Graph"], _T]) -> _T:
        """What `make(graph)` works out from this graph, worked out once and kept with it, as a Graph does not change:
        a layer above keeps here what it derives from a Graph (graphrt.durable: what the record of each of its saved
        runs holds of it). A copy by `replace()`, whose config may differ, starts with nothing kept."""
        kept = self._derived
        if make not in kept:
            kept[make] = make(self)
        return kept[make]

    @property
    def credentials(self) -> frozenset[str]:
        """The credentials the graph's file and its config hold (graphrt.base.secrets.known_credentials), found once:
        what every record of its runs hides, with the environment's (`redactor()`)."""
        return self.derived(_credentials_of)

    def redactor(self) -> Redactor:
        """What hides, in what is written or shown of a run of this graph, the credentials it knows: the graph's, its
        config's and the environment's."""
        return Redactor(known=self.credentials)

    @property
    def warnings(self) -> list[ValidationIssue]:
        """What `graphrt validate` warns about; worked out on first use, as it costs more than a small run."""
        if self._warnings is None:
            data, source = self._loaded
            found = collect_issues(data, self.registry, source, rule_found=self._rule_found)
            self._set(_warnings=[issue for issue in found if issue.severity != "error"])
        return self._warnings

    @property
    def file(self) -> str | None:
        return self.spec.source.file

    @property
    def data(self) -> Mapping[str, Any]:
        """The GraphData as loaded (before compiling); do not change it."""
        return self._loaded[0]

    def start(self, options: RunOptions | None = None, *, restore: RunSnapshot | None = None,
              observers: Iterable[RunObserver] = (), **fields: Any) -> Run:
        """A run of this graph, to await (it starts when first awaited) and to watch, abort and read.

        Args:
            options: the run's options as a RunOptions; or give its fields as keywords:
                `inject`, `all_results`, `run_id`, `timeout`, `subscribe`, `progress`
                (graphrt.engine.options.RunOptions says what each does).
            restore: what graphrt.durable continues a saved run from.
            observers: what graphrt.durable saves the run with.

        Raises:
            GraphError: an injected value names no static node.
        """
        options = options or RunOptions()
        if fields:  # a RunOptions does not change: the one given is the run's when nothing is added to it
            options = options.replace(**fields)
        return Run(self, options, restore=restore, observers=observers)

    async def arun(self, options: RunOptions | None = None, **fields: Any) -> dict[str, Any]:
        """Runs the graph once; returns `{nodeId: result}` of the `isResult` nodes (or of all).

        Takes the options of `start()`. To save the run as it goes and resume it, run it with
        graphrt.durable's `arun_checkpointed`.

        Raises:
            GraphError: the first node error in file order, once every node that could run has run.
            GraphAbortedError: the run was aborted.
            RunTimeoutError: the run took longer than `timeout`.
            GraphInterrupted: an agent asked a question (graphrt.durable saves the run to resume it with an answer).
        """
        return await self.start(options, **fields).wait()

    run = blocking(arun)


def _credentials_of(graph: Graph) -> frozenset[str]:
    return known_credentials(graph.config, graph.data)
