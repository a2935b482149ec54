"""`Run`: one run of a prepared Graph, as its caller holds it: wait for it, watch it, abort it, read it.

    run = graph.start(inject={"name": "Ada"}, subscribe=[print])
    results = await run            # or run.wait_sync() from synchronous code
    run.errors(), run.states()     # also after a failure

A Run is made by `Graph.start`; it starts when first awaited, in the awaiting
task, and any number of tasks may await it. It builds the execution's
`RunContext`, its `Carryover` and the top `GraphRun`, opens the run's services,
borrows its graph's executor (its maker opens and closes it), and enforces the
run's time limit. It reads the run through the GraphRun's API (`states`,
`errors`, `collect_results`).
"""

from __future__ import annotations

import math
import os
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Generator, Iterable, Mapping, Protocol, TypeVar

import anyio

from graphrt.authoring.services import RunServices
from graphrt.base.errors import BudgetExceeded, GraphAbortedError, GraphError, Location, RunTimeoutError, caused_by
from graphrt.base.states import NodeState
from graphrt.base.jsvalue import without_undefined
from graphrt.base.sync import blocking
from graphrt.engine.context import AgentCalls, Carryover, RunContext
from graphrt.engine.execution import GraphRun
from graphrt.engine.options import RunOptions
from graphrt.engine.scheduler import Scheduler
from graphrt.graphdata.spec import check_injectable
from graphrt.observe.meter import RunMeter, UsageSettings
from graphrt.observe.observer import Emitter, Observers, RunObserver

if TYPE_CHECKING:
    from graphrt.authoring.filters import AgentFilter
    from graphrt.authoring.registry import Registry
    from graphrt.base.budget import Budget
    from graphrt.base.errors import GraphError as _GraphError
    from graphrt.base.usage import Usage
    from graphrt.checkpoint.snapshot import RunSnapshot
    from graphrt.engine.journal import RunJournal
    from graphrt.graphdata.loader import GraphLoader
    from graphrt.graphdata.spec import GraphSpec, NestedSpecs
    from graphrt.observe.events import EventStream

__all__ = ["Prepared", "Run", "run_timeout", "within_timeout", "RUN_TIMEOUT_VARIABLE"]

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


_CUT_OFF = (NodeState.EXECUTING, NodeState.QUEUED, NodeState.ABORT)  # a node the time limit stopped


async def within_timeout(run: Callable[[], Awaitable[_T]], timeout: float | None, *, file: str | None = None,
                         doing: Callable[[], str] | None = None) -> _T:
    """Awaits `run()` within the run's time limit (see `run_timeout`); cancels it past the limit.

    Args:
        file: the graph's file, which the error names.
        doing: what the run was doing when its time ran out (the nodes still running), for the message.

    Raises:
        RunTimeoutError: `run()` took longer than the limit.
    """
    limit = run_timeout(timeout)
    with anyio.move_on_after(limit if limit is not None else math.inf):
        return await run()
    what = doing() if doing is not None else ""
    message = f"the run did not finish within {limit:g} s (timeout)" + (f"; {what}" if what else "")
    raise RunTimeoutError(message, location=Location(file=file) if file else None)


class Prepared(Protocol):
    """What a run reads of the graph it runs: graphrt.engine.graph's `Graph` is one, and makes its runs (it
    imports this module, so a run names it by this port)."""

    @property
    def spec(self) -> GraphSpec: ...

    @property
    def file(self) -> str | None: ...

    @property
    def data(self) -> Mapping[str, Any]: ...

    @property
    def credentials(self) -> frozenset[str]: ...

    registry: Registry
    config: Mapping[str, Any]
    filters: tuple[AgentFilter, ...]
    executor: AgentCalls | None
    services: RunServices | None
    graph_loader: GraphLoader | None
    nested_specs: NestedSpecs
    usage_settings: UsageSettings


class Run:
    """One run of a prepared Graph (see `Graph.start`).

    Args:
        graph: the prepared graph.
        options: the run's options (graphrt.engine.options.RunOptions).
        restore: continue from this saved state instead of starting afresh (graphrt.durable).
        observers: told of every transition, in addition to the events and `options.progress`
            (graphrt.durable's CheckpointWriter saves the run as it goes).

    Raises:
        GraphError: an injected value names no static node.
    """

    def __init__(self, graph: Prepared, options: RunOptions, *, restore: RunSnapshot | None = None,
                 observers: Iterable[RunObserver] = ()) -> None:
        for node_id in options.inject:
            check_injectable(graph.spec, node_id)
        self.graph = graph
        self.options = options
        self.run_id = options.run_id or os.urandom(6).hex()  # 12 random hex digits (uuid4's first 12 are random too)
        self._budget: Budget | None = None
        if options.budget is not None:  # a mistake is said now, not when the run starts
            from graphrt.base.budget import Budget  # imported for a run that has a budget only

            self._budget = Budget.of(options.budget, "budget")
        self._restore = restore
        self._observers = tuple(observers)
        self._emitter = Emitter(list(options.subscribe))
        self._root: GraphRun | None = None
        self._meter: RunMeter | None = None
        self._scope: anyio.CancelScope | None = None
        self._abort_requested = False
        self._finished: anyio.Event | None = None
        self._outcome: tuple[dict[str, Any] | None, BaseException | None] | None = None

    # ----- running -----

    def __await__(self) -> Generator[Any, None, dict[str, Any]]:
        return self.wait().__await__()

    async def wait(self) -> dict[str, Any]:
        """Runs the graph (or waits for the task that runs it); returns `{nodeId: result}`.

        Raises:
            GraphError: the first node error in file order, once every node that could run has run.
            GraphAbortedError: `abort()` was called.
            RunTimeoutError: the run took longer than its `timeout` (`results()` has what it got so far).
            GraphInterrupted: an agent asked a question (graphrt.durable saves the run to resume it with an answer).
        """
        if self._finished is not None:
            await self._finished.wait()
            results, error = self._outcome  # type: ignore[misc]
            if error is not None:
                raise error
            return dict(results or {})
        self._finished = anyio.Event()
        try:
            results = await within_timeout(self._execute, self.options.timeout, file=self.graph.file, doing=self._doing)
        except BaseException as error:
            self._outcome = (None, error)
            raise
        else:
            self._outcome = (results, None)
            return results
        finally:
            self._finished.set()

    wait_sync = blocking(wait)

    def _doing(self) -> str:
        """What the run was doing, for a timeout's message: the nodes it cut off and the loop's iteration."""
        root = self._root
        if root is None:
            return ""
        doing = []
        stopped = [node_id for node_id, state in root.states().items() if state in _CUT_OFF]
        if stopped:
            shown = ", ".join(f"'{node_id}'" for node_id in stopped[:5])
            more = f" and {len(stopped) - 5} more" if len(stopped) > 5 else ""
            doing.append(f"{shown}{more} cut off")
        if root.iteration:
            doing.append(f"in loop iteration {root.iteration + 1:,}")
        return " ".join(doing)

    async def _execute(self) -> dict[str, Any]:
        graph = self.graph
        async with AsyncExitStack() as stack:
            services = graph.services
            if services is None:  # the run's own: opened on first use, closed when the run ends, however it ends
                services = await stack.enter_async_context(RunServices(graph.config))
            observers = list(self._observers)
            if self._emitter:  # the event classes are imported only for a run somebody watches
                from graphrt.observe.events import EventObserver

                observers.insert(0, EventObserver(self._emitter))
            if self.options.progress is not None:
                observers.append(self.options.progress)
            restore = self._restore
            before = None
            if restore is not None and restore.usage:
                from graphrt.base.usage import Usage  # what a run spends is imported once it spends (meter.py)

                before = Usage.from_dict(restore.usage)
            self._meter = meter = RunMeter(graph.usage_settings, budget=self._budget, before=before,
                                           rate_window=self.options.rate_window)
            carryover = Carryover(restore.answers, restore.inner) if restore is not None else Carryover()
            journal = await self._journal(carryover) if self.options.journal is not None else None
            context = RunContext(
                registry=graph.registry,
                scheduler=Scheduler(graph.spec.concurrency, graph.spec.label_limits),
                run_id=self.run_id,
                config=dict(graph.config),
                emitter=self._emitter,
                observers=Observers(observers),
                filters=graph.filters,
                executor=graph.executor,
                services=services,
                graph_loader=graph.graph_loader,
                nested_specs=graph.nested_specs,
                meter=meter,
                journal=journal,
            )
            root = GraphRun(graph.spec, context, injected=self.options.inject, restore=restore, carryover=carryover)
            self._root = root
            if journal is None:
                return await self._run_root(root)
            try:
                results = await self._run_root(root)
            except BaseException:
                with anyio.CancelScope(shield=True):  # its entries queued and not committed yet
                    await journal.settle(quiet=True)  # the run's own error matters more than the journal's
                raise
            if journal.pending:  # nothing queued (a run that made no journaled call): no shielded scope (~4 µs)
                with anyio.CancelScope(shield=True):
                    await journal.settle()
            return results

    async def _journal(self, carryover: Carryover) -> "RunJournal":
        """The execution's journal of outside calls, its logs read; what it keeps hides the credentials of the
        graph, its config and the environment, unless its Journal says which to hide."""
        from graphrt.base.secrets import Redactor
        from graphrt.engine.journal import Journal

        journal = Journal.of(self.options.journal)  # type: ignore[arg-type]
        graph = self.graph
        redactor = journal.redactor or Redactor(known=graph.credentials)
        return await journal.open(self.run_id, graph.spec, carryover, redactor)

    async def _run_root(self, root: GraphRun) -> dict[str, Any]:
        emitter = self._emitter
        if emitter:
            from graphrt.observe.events import RunStarted

            emitter.emit(RunStarted(run_id=self.run_id))
        error: BaseException | None = None
        try:
            if self._abort_requested:
                raise GraphAbortedError("the run was aborted before it started")
            with anyio.CancelScope() as scope:
                self._scope = scope
                try:
                    results = await root.run(self.options.all_results)
                except GraphError as failed:
                    raise self._budget_spent(root, failed) or failed
            if scope.cancelled_caught:
                raise GraphAbortedError("the run was aborted")
            stopped = self._budget_spent(root)  # a refused call an agent made into a value still stops the run
            if stopped is not None:
                raise stopped
            return without_undefined(results)
        except BaseException as caught:
            error = caught
            raise
        finally:
            self._scope = None
            if self._meter is not None:
                self._meter.ended()
                if self.options.on_usage is not None:
                    try:
                        self.options.on_usage(self._meter.usage())
                    except Exception:  # noqa: BLE001 - as a subscriber's failure: it does not change how the run ended
                        import logging

                        logging.getLogger("graphrt").exception("on_usage %r failed", self.options.on_usage)
            if self.graph.executor is not None:  # borrowed, not opened: the run only says it has ended
                self.graph.executor.run_ended(self.run_id)
            if emitter:  # a subscriber may have come during the run
                from graphrt.observe.events import RunFinished

                emitter.emit(RunFinished(run_id=self.run_id, error=error, usage=self.usage.to_dict()))

    def _budget_spent(self, root: GraphRun, failed: GraphError | None = None) -> BudgetExceeded | None:
        """The run's error when a budget stopped it: its own budget (whatever the nodes it stopped failed with), or
        a node's that failed the run (`failed`, the run's first error); a BudgetExceeded said of the top-level node
        that met it, located in the file. None when no budget stopped it."""
        stopped = self._meter.stopped if self._meter is not None else None
        if stopped is not None:
            top = (stopped.at or "").split("/", 1)[0] or None
            failed = root.errors().get(top) if top is not None else None
        else:
            stopped = caused_by(failed, BudgetExceeded)
            if stopped is None:
                return None
            top = failed.node_id if failed is not None else None
        error = BudgetExceeded(limit=stopped.limit, allowed=stopped.allowed, spent=stopped.spent,
                               budget_node=stopped.budget_node, at=stopped.at, need=stopped.need,
                               unpriced=stopped.unpriced, node_id=top,
                               location=failed.location if failed is not None else None)
        if failed is not None:
            error.nested = failed.nested
        error.__cause__ = failed
        return error

    def abort(self) -> None:
        """Cancels the run: running agents are cancelled and `wait()` raises GraphAbortedError."""
        self._abort_requested = True
        if self._scope is not None:
            self._scope.cancel()

    def events(self, max_buffer: int = 1024) -> EventStream:
        """The run's events as an async iterator; enter it before the run starts:

            async with run.events() as events, anyio.create_task_group() as tg:
                tg.start_soon(run.wait)
                async for event in events: ...
        """
        from graphrt.observe.events import EventStream

        return EventStream(self._emitter, max_buffer)

    # ----- what it did -----

    @property
    def done(self) -> bool:
        """Whether the run has ended (completed, failed, aborted or asking a question)."""
        return self._outcome is not None

    def results(self, all_results: bool | None = None) -> dict[str, Any]:
        """The results so far (also after a failure): the `isResult` nodes', or every node's."""
        wanted = self.options.all_results if all_results is None else all_results
        return without_undefined(self._root.collect_results(wanted)) if self._root else {}

    def errors(self) -> dict[str, "_GraphError"]:
        """Every node that failed, by node id."""
        return self._root.errors() if self._root else {}

    @property
    def usage(self) -> "Usage":
        """What the run spent so far (also after a failure): its LLM calls' tokens and cost, kept and retried,
        tool calls, time; `usage.to_dict()` is its JSON. `usage_by_node()` says where."""
        if self._meter is not None:
            return self._meter.usage()
        from graphrt.base.usage import Usage

        return Usage()

    def spent(self) -> "Usage | None":
        """`usage` when the run spent anything a summary shows (`bool(usage)`), else None; told without making a
        Usage when its meter counted nothing: a checkpointed run asks at every row it saves (issue 44)."""
        if self._meter is None or not self._meter.counted:
            return None
        usage = self._meter.usage()
        return usage if usage else None

    def usage_by_node(self) -> dict[str, dict[str, Any]]:
        """What each node spent that spent anything, with what was nested in it, by node key (`react/llm`, `map/3/ask`
        for a node of map row 3), as `Usage.to_dict()` spells it."""
        return self._meter.ledger.by_node() if self._meter is not None else {}

    def usage_by_graph(self) -> dict[str, dict[str, Any]]:
        """What each nested graph and map row spent (`react`, `map/3`), as `Usage.to_dict()` spells it."""
        return self._meter.ledger.by_graph() if self._meter is not None else {}

    def states(self) -> dict[str, str]:
        """Each computed node's state (`waiting`, `completed`, `failed`, ...)."""
        return {node_id: state.value for node_id, state in self._root.states().items()} if self._root else {}
