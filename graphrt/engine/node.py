"""Runs one computed node: inputs in, agent called, result out.

This is the per-node hot path. It resolves the node's inputs, picks its agent
(by name, or from another node's result), calls it under the node's timeout
with its retries, applies `repeatUntil`, `passThrough` and `output`, and
returns the node's `Outcome`: its value, or its error (a GraphInterrupted when
it asks a person). It changes no state: the graph run applies the outcome
(graphrt.engine.execution), and keeps what a node is during an iteration in its
`NodeRun`, which is here as the invoker reads it. Errors leave here as
GraphErrors that carry the node id and the file position.

The agent is called here (`call_in_process`), or on the run's executor when it
has one and the agent need not stay in this process (`must_stay_local`): the
last stop of `graphrt.run()` before the agent (ARCHITECTURE.md, How a run flows).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Awaitable

import anyio

from graphrt.authoring.agent_info import AgentContext, AgentInfo, node_context
from graphrt.base.errors import (
    AgentError,
    GraphError,
    GraphLoadError,
    GraphInterrupted,
    Interrupt,
    JournalError,
    NodeTimeoutError,
    ResolveError,
)
from graphrt.base.jsvalue import is_named_inputs, is_null, is_truthy, json_stringify
from graphrt.base.states import NodeState  # re-exported: its home is graphrt.base.states
from graphrt.engine.nesting import NestingPort, RunHandle
from graphrt.graphdata.loader import GraphSource, load_graph_beside, load_with
from graphrt.graphdata.refs import Literal, NodeRef
from graphrt.graphdata.spec import ComputedNodeSpec, StaticNodeSpec

if TYPE_CHECKING:
    from graphrt.engine.scheduler import Ticket

__all__ = ["NodeState", "NodeRun", "NodeInvoker", "Outcome", "failed", "answer_key", "call_in_process", "clean_result",
           "must_stay_local", "print_after"]

_WAITING = NodeState.WAITING  # read once: a member read through its enum class costs three times a plain attribute


class NodeRun:
    """A computed node during one iteration: what it still waits for, and how it ended (state, error, the
    attempts its agent took); the graph run sets each of them (graphrt.engine.execution), the invoker reads them."""

    __slots__ = ("spec", "state", "pendings", "skip", "error", "attempts", "ticket")

    def __init__(self, spec: ComputedNodeSpec, pendings: set[str]) -> None:
        self.spec = spec
        self.ticket: Ticket | None = None  # its slot's ticket, made when it is first queued and kept for the run
        self.reset(pendings)

    def reset(self, pendings: set[str]) -> None:
        """WAITING for `pendings` (node ids): a loop's next iteration runs the node afresh."""
        self.state = _WAITING
        self.pendings = pendings
        self.skip = False
        self.error: GraphError | None = None
        self.attempts = 0


Outcome = tuple[Any, "GraphError | None", bool, float, int]
"""How a node's execution ended: (value, error, timed_out, started, attempts).

`error` is None when the node has `value`; a GraphInterrupted when it asks a
person. `started` is perf_counter() when the attempt that gave the value began;
`attempts` how many times its agent was called (0: it never was). The run
applies it. A plain tuple, as it is made once per node on the hot path."""


def failed(error: GraphError, timed_out: bool = False, attempts: int = 0) -> Outcome:
    """The outcome of a node that failed with `error` after `attempts` calls of its agent."""
    return (None, error, timed_out, 0.0, attempts)


def answer_key(path: tuple[str | int, ...], node_id: str) -> str:
    """The key of a node's answer in a run's `answers`: its id, prefixed by the path of a nested run."""
    return "/".join(map(str, (*path, node_id))) if path else node_id


def clean_result(value: Any) -> Any:
    """GraphAI's cleanResult for anyInput: nulls dropped from lists and objects, deeply."""
    if isinstance(value, list):
        return [item for item in (clean_result(v) for v in value) if not is_null(item)]
    if isinstance(value, dict):
        return {key: item for key, item in ((k, clean_result(v)) for k, v in value.items()) if not is_null(item)}
    return value


async def call_in_process(call: Any, ctx: AgentContext) -> Any:
    """Calls an agent here: an AgentInfo, or an anonymous callable taking the context.

    A run without an executor calls it directly, and pays nothing for the seam (graphrt.engine.executor);
    an executor's `call` behaves as it does.
    """
    if isinstance(call, AgentInfo):
        if call.is_async:
            return await call.func(ctx)
        # A thread cannot be killed: on timeout or abort the run stops waiting for it.
        return await anyio.to_thread.run_sync(call.func, ctx, abandon_on_cancel=True)
    return await call(ctx)


def must_stay_local(call: Any) -> bool:
    """Whether an agent call has to run in the driver's process whatever the executor.

    Graph agents orchestrate nested runs on this process's scheduler (their rows'
    agent calls go to the executor), and an agent's function info can ask for it
    (`runs_local`: it asks a person, holds a live connection, or is cheaper here than the trip to a
    worker, as copyAgent, stringTemplateAgent and the vanilla pack's other pure data-shaping agents are).
    """
    return isinstance(call, AgentInfo) and (call.has_graph_data or call.runs_local)


async def _ready(outcome: Outcome) -> Outcome:
    """An outcome known before any agent is called, as `execute` returns it: to await."""
    return outcome


class _Anonymous:
    """A Python callable used directly as a node's agent: called as `f(inputs, params)`."""

    def __init__(self, func: Any) -> None:
        self.func = func
        self.name = getattr(func, "__name__", "<function>")

    async def __call__(self, ctx: AgentContext) -> Any:
        result = self.func(ctx.inputs, ctx.params)
        return await result if hasattr(result, "__await__") else result


class NodeInvoker:
    """Computes the outcomes of the computed nodes of one graph run.

    What the whole execution shares (agents, config, filters, executor, services,
    observers) it reads from the run's `RunContext`; from the run only what a node
    is computed from: its graph, the results so far, a person's answer. It hands
    the run a nesting handle for graph agents, and changes nothing of the run or
    its nodes: how many attempts a node took travels in its Outcome.
    """

    def __init__(self, run: RunHandle) -> None:
        self.run = run  # for the nesting handles of its nodes
        self.graph = run.spec
        self.context = run.context
        self.carryover = run.carryover
        self.observers = run.context.observers
        self.path = run.path
        # Nothing between a node and its agent: no executor, no filters (the context is read-only: fixed for the run).
        self._direct = run.context.executor is None and not run.context.filters
        self._agents: dict[str, tuple[str | None, Any]] = {}  # the agents named in the file, by name, looked up

    def execute(self, node: NodeRun, ticket: Ticket, results: dict[str, Any]) -> Awaitable[Outcome]:
        """The node's outcome, after its retries, to await; raises nothing but cancellation.

        A plain function that returns the attempt's coroutine: a node costs one coroutine less."""
        spec = node.spec
        try:
            if node.skip:
                started = time.perf_counter()
                return _ready((self._output(spec, self._with_pass_through(spec, spec.default_value, results), results),
                               None, False, started, 0))
            inputs = spec.inputs.resolve(results)
            if spec.any_input:
                inputs = clean_result(inputs)
            agent_id, call = self._agent(spec, results)
        except Exception as error:  # noqa: BLE001 - a node that cannot even start fails alone
            field = "inputs" if isinstance(error, ResolveError) or not isinstance(error, GraphError) else None
            return _ready(failed(ResolveError.from_exception(error, node_id=spec.node_id, field=field,
                                                             source=self.graph.source, doing="cannot compute the inputs")))
        # A fresh dict per call, as GraphAI spreads it: an agent that changes its params changes no other call.
        extra = inputs.get("params")
        params = dict(spec.params) if extra is None or not is_named_inputs(extra) else {**spec.params, **extra}
        limit = spec.retry if spec.retry is not None else (self.graph.retry or 0)
        if not limit:  # the usual node: one attempt, nothing to count apart
            return self._attempt(node, ticket, agent_id, call, inputs, params, results, 1)
        return self._retrying(node, ticket, agent_id, call, inputs, params, results, limit)

    async def _retrying(self, node: "NodeRun", ticket: "Ticket", agent_id: str | None, call: Any, inputs: dict,
                        params: dict, results: dict[str, Any], limit: int) -> Outcome:
        """The outcome of a node with `retry`: its agent called again after a failure, `limit` times at most.

        What a failed attempt spent counts as retried, not used (the run's meter); a node a budget stopped is
        not called again (it would be refused again). A retry takes the journal entries of the calls the failed
        attempt made, as a resumed run does."""
        spec = node.spec
        meter = self.context.meter
        journal = self.context.journal
        mark = journal.mark(self._call_path(spec)) if journal is not None else None
        attempt = 0
        while True:
            attempt += 1
            meter.attempt_started(self.path, spec.node_id)
            if journal is not None and mark is not None and attempt > 1:
                journal.rewind(self._call_path(spec), mark)
            outcome = await self._attempt(node, ticket, agent_id, call, inputs, params, results, attempt)
            error = outcome[1]
            if error is None or attempt > limit or isinstance(error, GraphInterrupted):
                return outcome
            if meter.refuses(self.path, spec.node_id):
                return outcome
            meter.void(self.path, spec.node_id)
            for hook in self.observers.attempt_failed:
                pending = hook(run_id=self.context.run_id, path=self.path, node_id=spec.node_id, error=error,
                               timed_out=outcome[2], state=node.state)  # the run's: still EXECUTING
                if pending is not None:
                    await pending
            # An agent that fails without awaiting anything never lets the event loop run:
            # without this, a retry storm ignores Ctrl-C, abort() and cancel scopes.
            await anyio.lowlevel.checkpoint()

    async def _attempt(self, node: NodeRun, ticket: Ticket, agent_id: str | None, call: Any, inputs: dict,
                       params: dict, results: dict[str, Any], attempt: int) -> Outcome:
        """Call `attempt` (1 the first) of the agent, and the value it gives once `passThrough`, `repeatUntil` and
        `output` apply."""
        spec = node.spec
        context = self.context
        path = self.path
        info = call if isinstance(call, AgentInfo) else None
        graph_data, source = None, None
        if info is not None and (spec.graph is not None or spec.graph_loader is not None):
            try:
                graph_data, source = await self._graph_data(spec, results)
            except GraphError as error:
                return failed(error, attempts=attempt)
        ctx = node_context(  # inputs, params, node_id, agent_id, filter_params, config, retry_count, graph_data,
            inputs, params, spec.node_id, agent_id, spec.filter_params,  # nesting, emitter, run_id, path, answer,
            self._config(agent_id, info) if context.config else {}, attempt - 1, graph_data,  # services, meter
            NestingPort(self.run, ticket, spec.node_id, source), context.emitter, context.run_id, path,
            self.carryover.answer(answer_key(path, spec.node_id)) if self.carryover.answers else None,
            context.services, context.meter,
        )
        for hook in self.observers.attempt_started:
            pending = hook(run_id=context.run_id, path=path, node_id=spec.node_id, agent_id=agent_id,
                           attempt=attempt, inputs=inputs, state=node.state)
            if pending is not None:
                await pending
        if spec.console:
            _print_before(spec.console, inputs)
        journal = context.journal
        kind = self._journal_kind(info) if journal is not None else None
        started = time.perf_counter()
        try:
            if spec.timeout is None:
                result = await (self._start(call, info, ctx) if kind is None else self._journaled(spec, call, ctx, kind))
            else:
                with anyio.move_on_after(spec.timeout) as scope:
                    result = await (self._start(call, info, ctx) if kind is None else self._journaled(spec, call, ctx, kind))
                if scope.cancelled_caught:
                    message = f"timed out after {spec.timeout * 1000:g} ms"
                    return failed(self._located(NodeTimeoutError(message, node_id=spec.node_id, field="timeout")),
                                  True, attempt)
        except Interrupt as signal:  # a question for a person: the node waits for the answer, it did not fail
            key = signal.key or answer_key(path, spec.node_id)
            return failed(self._located(GraphInterrupted(signal.question, key=key, node_id=spec.node_id)),
                          attempts=attempt)
        except Exception as error:  # noqa: BLE001 - any agent failure becomes the node's error
            return failed(self._agent_error(spec, agent_id, error), attempts=attempt)
        outcome = self._settled(spec, agent_id, result, results, started, attempt)
        if kind is not None and outcome[1] is not None:  # failed after its call returned: a retry asks again
            await journal.void(self._call_path(spec))  # type: ignore[union-attr]
        return outcome

    def _settled(self, spec: ComputedNodeSpec, agent_id: str | None, result: Any, results: dict[str, Any],
                 started: float, attempt: int) -> Outcome:
        """The outcome of an agent call that returned `result`, once `console.after`, `passThrough`, `repeatUntil`
        and `output` apply."""
        if spec.console:
            try:
                print_after(spec, result)
            except Exception as error:  # noqa: BLE001 - e.g. jsonParse() of bad JSON in console.after
                return failed(ResolveError.from_exception(error, node_id=spec.node_id, field="console",
                                                          source=self.graph.source), attempts=attempt)
        try:
            if spec.pass_through is not None:
                result = self._with_pass_through(spec, result, results)
            if spec.repeat_until is not None and is_null(spec.repeat_until.resolve({"self": result})):
                until = spec.repeat_until
                path_text = until.text if isinstance(until, NodeRef) else until.value if isinstance(until, Literal) \
                    else None
                message = f"repeatUntil: {path_text!r} does not exist in the result"
                return failed(self._located(
                    AgentError(message, agent_id=agent_id, node_id=spec.node_id, field="repeatUntil")),
                    attempts=attempt)
            value = result if spec.output is None else self._output(spec, result, results)
            return (value, None, False, started, attempt)
        except Exception as error:  # noqa: BLE001 - e.g. a passThrough reference that cannot be resolved
            return failed(ResolveError.from_exception(error, node_id=spec.node_id, source=self.graph.source),
                          attempts=attempt)

    def _call_path(self, spec: ComputedNodeSpec) -> str:
        """The node's path in the run's journal: the nodes and iterations above it, its id, its iteration."""
        from graphrt.engine.journal import call_path_part  # a run with a journal imports it

        return self.run.call_prefix + call_path_part(spec.node_id, self.run.iteration)

    def _journal_kind(self, info: AgentInfo | None) -> str | None:
        """The kind of entry the run journals this call as (graphrt.engine.journal); None: it is not journaled."""
        if info is None:
            return None
        kind = self.run.journal_kind
        if kind is not None:
            return kind
        if not info.journaled:
            return None
        return "llm" if "llm" in info.category else "call"

    async def _journaled(self, spec: ComputedNodeSpec, call: AgentInfo, ctx: AgentContext, kind: str) -> Any:
        """The agent call through the run's journal: its result taken from it when it holds one, else made and
        kept."""
        journal = self.context.journal
        assert journal is not None
        return await journal.call(ctx, call, self._call_path(spec), kind, lambda: self._call(call, ctx))

    def _start(self, call: Any, info: AgentInfo | None, ctx: AgentContext) -> Awaitable[Any]:
        """The agent call to await: an async agent's own coroutine when nothing stands between it and the node
        (what `_call` would await, without its two frames), else `_call`."""
        if self._direct and info is not None and info.is_async:
            return info.func(ctx)
        return self._call(call, ctx)

    async def _call(self, call: Any, ctx: AgentContext) -> Any:
        """Calls the agent inside the node's filters, here or on the run's executor (the seam)."""
        executor = self.context.executor
        target = call_in_process if executor is None or must_stay_local(call) else executor.call
        filters = self.context.filters
        if filters:
            from graphrt.authoring.filters import apply_filters  # imported by the runs that have filters

            return await apply_filters(filters, call, ctx, target)
        return await target(call, ctx)

    def _agent(self, spec: ComputedNodeSpec, results: dict[str, Any]) -> tuple[str | None, Any]:
        """The agent id and what to call: an AgentInfo, or an anonymous callable."""
        agent = spec.agent
        if spec.agent_ref is None and type(agent) is str:  # named in the file: looked up once per run
            found = self._agents.get(agent)
            if found is None:
                found = self._agents[agent] = self._lookup(spec, agent)
            return found
        return self._lookup(spec, spec.agent if spec.agent_ref is None else spec.agent_ref.resolve(results))

    def _lookup(self, spec: ComputedNodeSpec, agent: Any) -> tuple[str | None, Any]:
        """The agent id and what to call for `agent`, a name or a callable."""
        if callable(agent):
            anonymous = _Anonymous(agent)
            return anonymous.name, anonymous
        registry = self.context.registry
        info = registry.get(agent) if isinstance(agent, str) else None
        if info is None:
            known = ", ".join(registry.names()[:12])
            raise self._located(
                ResolveError(f"unknown agent {agent!r} (known: {known}, ...)", node_id=spec.node_id, field="agent")
            )
        return agent, info

    def _config(self, agent_id: str | None, info: AgentInfo | None) -> dict[str, Any]:
        config = self.context.config
        if not config or agent_id is None:
            return {}
        if info is not None and info.has_graph_data:
            return config  # as GraphAI: an agent that runs graphs gets the whole config, to pass on
        return {**config.get("global", {}), **config.get(agent_id, {})}

    async def _graph_data(self, spec: ComputedNodeSpec,
                          results: dict[str, Any]) -> tuple[dict[str, Any] | None, GraphSource | None]:
        """The node's graph, and the file it was loaded from (None when it is written in the node, or given)."""
        if spec.graph_loader is not None:
            request = spec.graph_loader
            try:
                loader = self.context.graph_loader
                if loader is not None:  # the run's `graph_loader`, as GraphAI's option
                    return await load_with(loader, request), None
                if request.get("option") is not None:
                    raise GraphLoadError(f"graphLoader {request.get('fileName')!r}: 'option' needs a graph_loader that "
                                         "reads it (graphrt.run(..., graph_loader=...)); the built-in file loader takes none")
                return load_graph_beside(self.graph.source, str(request.get("fileName", "")))
            except GraphError as error:
                raise GraphError.from_exception(error, node_id=spec.node_id, field="graphLoader",
                                                source=self.graph.source) from None
        graph = spec.graph
        if graph is None or isinstance(graph, dict):
            return graph, None
        value = graph.resolve(results)
        if not isinstance(value, dict):
            raise self._located(
                ResolveError(f"'{graph.text}' is not a graph (got {type(value).__name__})", node_id=spec.node_id, field="graph")
            )
        return value, None

    # ----- results -----

    @staticmethod
    def _with_pass_through(spec: ComputedNodeSpec, result: Any, results: dict[str, Any]) -> Any:
        if spec.pass_through is None or not is_truthy(result):
            return result
        extra = spec.pass_through.resolve(results)
        if isinstance(result, dict):
            return {**result, **extra}
        if isinstance(result, list):
            return [{**item, **extra} if isinstance(item, dict) else item for item in result]
        return result

    @staticmethod
    def _output(spec: ComputedNodeSpec, result: Any, results: dict[str, Any]) -> Any:
        """Applies `output` to a result already given its `passThrough`."""
        if spec.output is None:
            return result
        result = spec.output.resolve({"self": result})
        if spec.pass_through is not None and isinstance(result, dict):
            result = {**result, **spec.pass_through.resolve(results)}
        return result

    def _located(self, error: GraphError) -> GraphError:
        if error.location is None and error.node_id is not None:
            error.location = self.graph.source.locate_field(error.node_id, error.field)
        return error

    def _agent_error(self, spec: ComputedNodeSpec, agent_id: str | None, error: Exception) -> GraphError:
        if isinstance(error, GraphInterrupted):  # a node of a nested graph asks: still a question, not a failure
            return error.within(spec.node_id)
        if isinstance(error, JournalError):  # the journal's error is the run's: it keeps its kind on its way up
            return self._located(error if error.node_id == spec.node_id and not error.nested
                                 else error.within(spec.node_id))
        if isinstance(error, GraphError) and error.node_id is not None:
            # A node of a nested graph failed: keep its message, field and position, and its path.
            inner_agent = error.agent_id if isinstance(error, AgentError) else None
            wrapped = AgentError(
                error.message, agent_id=inner_agent, node_id=spec.node_id, field=error.field, location=error.location
            )
            wrapped.nested = (error.node_id, *error.nested)
        elif isinstance(error, GraphError):
            wrapped = error.with_context(node_id=spec.node_id)
            if isinstance(wrapped, AgentError):
                wrapped.agent_id = wrapped.agent_id or agent_id
        else:
            wrapped = AgentError(f"{type(error).__name__}: {error}", agent_id=agent_id, node_id=spec.node_id)
        if wrapped is not error:
            wrapped.__cause__ = error
        return self._located(wrapped)


# ----- console -----


def _print_before(console: Any, inputs: dict) -> None:
    before = True if console is True else console.get("before") if isinstance(console, dict) else None
    if before is True:
        print(json_stringify(inputs, indent=2))
    elif before:
        print(before)


def print_after(spec: ComputedNodeSpec | StaticNodeSpec, result: Any) -> None:
    """Prints what the node's `console.after` asks for (a static node's after a loop update)."""
    console = spec.console
    if not console:
        return
    after = True if console is True else console.get("after") if isinstance(console, dict) else None
    if after is True:
        print(result if isinstance(result, str) else json_stringify(result, indent=2))
    elif isinstance(after, dict):
        from graphrt.graphdata.refs import compile_output

        print(json_stringify(compile_output(after).resolve({"self": result}), indent=2))
    elif after:
        print(after)
