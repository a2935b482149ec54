"""`Graph`: a loaded and validated graph that you can run, watch and abort.

This is the object behind `graphrt.run()`. Use it directly to inject values,
subscribe to events, read every node's error, or abort a run from another task.
"""

from __future__ import annotations

import math
import os
import uuid
from contextlib import AsyncExitStack
from functools import partial
from pathlib import Path
from types import MappingProxyType
from typing import Any, Awaitable, Callable, Iterable, Mapping, TypeVar

import anyio

from graphrt.authoring.filters import AgentFilter, FilterFunction, as_filters
from graphrt.authoring.plugins import AgentsArg, make_registry
from graphrt.authoring.agent_info import AgentContext, AgentInfo
from graphrt.authoring.registry import Registry
from graphrt.authoring.services import RunServices
from graphrt.base.collector import collector_paused
from graphrt.base.errors import (
    GraphAbortedError,
    GraphError,
    RunTimeoutError,
    ValidationIssue,
)
from graphrt.base.jsvalue import without_undefined
from graphrt.check.validate import collect_issues, validate_graph
from graphrt.checkpoint.snapshot import RunSnapshot
from graphrt.engine.context import RunContext
from graphrt.engine.execution import Checkpointer, GraphRun
from graphrt.engine.executor import Executor
from graphrt.engine.scheduler import Scheduler
from graphrt.graphdata.loader import GraphLoader, load_graph
from graphrt.graphdata.spec import check_injectable, compile_graph
from graphrt.observe.events import Emitter, Event, EventStream, RunFinished, RunStarted
from graphrt.observe.progress import RunProgress

__all__ = ["Graph", "AgentsArg", "make_registry", "with_bypassed_agents", "run_timeout", "within_timeout",
           "RUN_TIMEOUT_VARIABLE"]

RUN_TIMEOUT_VARIABLE = "GRAPHRT_RUN_TIMEOUT"  # seconds every run may take unless it is given a timeout

def run_timeout(timeout: float | None) -> float | None:
    """The run's time limit in seconds: `timeout`, else GRAPHRT_RUN_TIMEOUT, else None (no limit).

    Raises:
        GraphError: the limit is not a positive number.
    """
    where = "timeout"
    if timeout is None:
        text = os.environ.get(RUN_TIMEOUT_VARIABLE, "").strip()
        if not text:
            return None
        where = RUN_TIMEOUT_VARIABLE
        try:
            timeout = float(text)
        except ValueError:
            raise GraphError(f"{where} must be a number of seconds, got {text!r}") from None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0 or math.isinf(timeout):
        raise GraphError(f"{where} must be a positive number of seconds, got {timeout!r}")
    return float(timeout)


_T = TypeVar("_T")


async def within_timeout(run: Callable[[], Awaitable[_T]], timeout: float | None) -> _T:
    """Awaits `run()` within the run's time limit (see `run_timeout`); cancels it past the limit.

    Raises:
        RunTimeoutError: `run()` took longer than the limit.
    """
    limit = run_timeout(timeout)
    with anyio.move_on_after(limit if limit is not None else math.inf):
        return await run()
    raise RunTimeoutError(f"the run did not finish within {limit:g} s (timeout)")


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


class Graph:
    """A graph ready to run.

    Args:
        graph: GraphData as a dict, YAML/JSON text, or a path to a file.
        agents: a Registry to use as is, or agents to add to the built-in ones (AgentInfos,
            functions, toolset classes or instances).
        config: per-agent configuration, `{"global": {...}, "<agentId>": {...}}`, and run-wide
            settings such as `"mcp"` (MCP servers, see graphrt.mcp); agents read all of it as
            `ctx.services.config`.
        filters: agent filters wrapped around every agent call, in order (see graphrt.filters).
        bypass_agent_ids: agent ids that need no agent (GraphAI's `bypassAgentIds`): valid in the
            graph, their nodes go through the filters, and without a filter that answers they give null.
        graph_loader: `loader(fileName, option)` -> GraphData, for nodes with `graphLoader` (GraphAI's
            option), in nested graphs too; without one, `fileName` is read beside the graph file.
        executor: where agent calls run (graphrt.executors, e.g. a RayExecutor); None: in this process.
        services: run services to share with other runs (open, owned by the caller, e.g. a
            server's); by default each run opens its own, from `config`, and closes them at its end.

    Raises:
        GraphLoadError: the file cannot be read or parsed.
        GraphValidationError: the graph is invalid; `.issues` lists every problem.
    """

    def __init__(
        self,
        graph: Mapping[str, Any] | str | Path,
        *,
        agents: AgentsArg = None,
        config: Mapping[str, Any] | None = None,
        filters: Iterable[AgentFilter | FilterFunction] | None = None,
        bypass_agent_ids: Iterable[str] = (),
        graph_loader: GraphLoader | None = None,
        executor: Executor | None = None,
        services: RunServices | None = None,
    ) -> None:
        data, source = load_graph(graph)
        self.registry = with_bypassed_agents(make_registry(agents), bypass_agent_ids)
        self.graph_loader = graph_loader
        validate_graph(data, self.registry, source)
        self._loaded = (data, source)
        self._warnings: list[ValidationIssue] | None = None
        with collector_paused():
            self.spec = compile_graph(data, source)
        self.config = dict(config or {})
        self.filters = as_filters(filters)
        self.executor = executor
        self.services = services
        self._injected: dict[str, Any] = {}
        self._emitter = Emitter()
        self._progress: RunProgress | None = None
        self._run: GraphRun | None = None
        self._cancel_scope: anyio.CancelScope | None = None

    @property
    def warnings(self) -> list[ValidationIssue]:
        """What `graphrt validate` warns about; worked out on first use, as it costs more than a small run."""
        if self._warnings is None:
            data, source = self._loaded
            self._warnings = [issue for issue in collect_issues(data, self.registry, source) if issue.severity != "error"]
        return self._warnings

    @property
    def file(self) -> str | None:
        return self.spec.source.file

    @property
    def data(self) -> Mapping[str, Any]:
        """The GraphData as loaded (before compiling); do not change it."""
        return self._loaded[0]

    @property
    def injected(self) -> Mapping[str, Any]:
        """The values set with `inject()`, by node id (read-only)."""
        return MappingProxyType(self._injected)

    def inject(self, node_id: str, value: Any) -> None:
        """Sets a static node's value before the run; it stays through loop iterations."""
        check_injectable(self.spec, node_id)
        self._injected[node_id] = value

    def subscribe(self, callback: Callable[[Event], Any]) -> Callable[[Event], Any]:
        """Calls `callback(event)` for every event of every later run; returns the callback."""
        self._emitter.subscribers.append(callback)
        return callback

    def track_progress(self, progress: RunProgress | None = None) -> RunProgress:
        """Has every later run count its nodes in `progress` (a new one if None), and returns it.

        A display samples these counters at its own pace instead of taking two events per node.
        """
        self._progress = progress if progress is not None else RunProgress()
        return self._progress

    def stream(self, max_buffer: int = 1024) -> EventStream:
        """The events of the next run as an async iterator: `async with graph.stream() as events:`."""
        return EventStream(self._emitter, max_buffer)

    async def arun(self, all_results: bool = False, *, run_id: str | None = None, timeout: float | None = None) -> dict[str, Any]:
        """Runs the graph; returns `{nodeId: result}` of the `isResult` nodes (or of all).

        To save the run as it goes and resume it, run it with graphrt.durable's `arun_checkpointed`.

        Args:
            all_results: every node's result instead of the `isResult` nodes'.
            run_id: the run's id (in events).
            timeout: seconds the whole run may take (default: the GRAPHRT_RUN_TIMEOUT environment
                variable, else no limit); then running agents are cancelled and RunTimeoutError raised.

        Raises:
            GraphError: the first node error in file order, once every node that could run has run.
            GraphAbortedError: `abort()` was called.
            RunTimeoutError: the run took longer than `timeout` (`results()` has what it got so far).
            GraphInterrupted: an agent asked a question (graphrt.durable saves the run to resume it with an answer).
        """
        return await within_timeout(partial(self.execute, all_results, run_id=run_id), timeout)

    async def execute(self, all_results: bool = False, *, run_id: str | None = None,
                      restore: RunSnapshot | None = None, checkpointer: Checkpointer | None = None) -> dict[str, Any]:
        """Runs the graph once, as `arun()` without its time limit; the seam durable runs are built on.

        Args:
            restore: continue from this saved state instead of starting afresh.
            checkpointer: told of every iteration start and node completion, and awaited
                before the run goes on (see graphrt.durable.CheckpointWriter).
        """
        async with AsyncExitStack() as stack:
            services = self.services
            if services is None:  # the run's own: MCP servers and the like close when it ends, however it ends
                services = RunServices(self.config)
                if self.config:  # services come from the config: without one there is none to open (saves ~40 us a run)
                    await stack.enter_async_context(services)
            return await self._execute_with(services, all_results, run_id, restore, checkpointer)

    async def _execute_with(self, services: RunServices, all_results: bool, run_id: str | None,
                            restore: RunSnapshot | None, checkpointer: Checkpointer | None) -> dict[str, Any]:
        context = RunContext(
            registry=self.registry,
            scheduler=Scheduler(self.spec.concurrency, self.spec.label_limits),
            run_id=run_id or uuid.uuid4().hex[:12],
            config=dict(self.config),
            emitter=self._emitter,
            filters=tuple(self.filters),
            executor=self.executor,
            services=services,
            graph_loader=self.graph_loader,
            answers=dict(restore.answers) if restore else {},
            progress=self._progress,
        )
        run = GraphRun(self.spec, context, injected=self._injected, restore=restore, checkpointer=checkpointer)
        self._run = run
        emitter = self._emitter
        if emitter:
            emitter.emit(RunStarted(run_id=run.run_id))
        error: BaseException | None = None
        try:
            with anyio.CancelScope() as scope:
                self._cancel_scope = scope
                if self.executor is None:
                    results = await run.run(all_results)
                else:
                    async with self.executor:
                        results = await run.run(all_results)
            if scope.cancelled_caught:
                raise GraphAbortedError("the run was aborted")
            return without_undefined(results)
        except BaseException as caught:
            error = caught
            raise
        finally:
            self._cancel_scope = None
            if emitter:
                emitter.emit(RunFinished(run_id=run.run_id, error=error))

    def run(self, all_results: bool = False, *, backend: str = "asyncio", **options: Any) -> dict[str, Any]:
        """`arun()` for synchronous callers; `backend` is "asyncio" or "trio"."""
        return anyio.run(partial(self.arun, all_results, **options), backend=backend)

    def abort(self) -> None:
        """Cancels a run in progress: running agents are cancelled, `arun()` raises GraphAbortedError."""
        if self._cancel_scope is not None:
            self._cancel_scope.cancel()

    def results(self, all_results: bool = False) -> dict[str, Any]:
        """The results of the last run so far (also after a failure)."""
        return without_undefined(self._run.collect_results(all_results)) if self._run else {}

    def errors(self) -> dict[str, GraphError]:
        """Every node that failed in the last run, by node id."""
        return self._run.errors() if self._run else {}

    def states(self) -> dict[str, str]:
        """Each computed node's state in the last run (`waiting`, `completed`, `failed`, ...)."""
        return {node_id: node.state.value for node_id, node in self._run.nodes.items()} if self._run else {}
