"""One run of a compiled graph: iterations, node readiness, results and errors.

Readiness is pushed, not polled: when a node gets its result it tells the
nodes waiting for it, and those that have all they need are queued on the
scheduler. A run is one anyio task group. An iteration ends when no node of
this graph is queued or running; then the loop, if any, starts the next
iteration with fresh computed nodes and updated static nodes, as GraphAI does.

Workers, not a task per node: a task that finishes a node goes on with the
next node the scheduler grants to this run (usually the node that was waiting
for it), and the run's own task is the first worker. A chain or a loop of
quick agents thus runs without creating a task per node; a new task starts
only when more nodes can run at once.
"""

from __future__ import annotations

from typing import Any, Mapping, Protocol

import anyio

from graphrt.base.errors import GraphError, GraphValidationError, ResolveError, ValidationIssue
from graphrt.base.jsvalue import UNDEFINED, is_logically_true
from graphrt.checkpoint.snapshot import RunSnapshot
from graphrt.engine.context import RunContext
from graphrt.engine.node import NodeInvoker, NodeState
from graphrt.engine.scheduler import Ticket
from graphrt.graphdata.refs import LOOP_COUNTER, DictOf, ListOf
from graphrt.graphdata.spec import ComputedNodeSpec, GraphSpec, LoopSpec, StaticNodeSpec, check_injectable
from graphrt.observe.events import LoopIteration, NodeCompleted, NodeQueued, NodeSkipped, NodeStarted

__all__ = ["NodeState", "NodeRun", "GraphRun", "RunContext", "RunSnapshot", "Checkpointer"]

_YIELD_EVERY = 64  # nodes (or iterations) a worker runs before it lets other tasks in


class Checkpointer(Protocol):
    """What a saved run tells its checkpoint store (graphrt.durable's CheckpointWriter is one).

    The run awaits each call: a node's waiters start only after its result is saved.
    """

    async def iteration_started(self, run: "GraphRun") -> None:
        """An iteration starts (the first one, a restored one, or the next of a loop)."""

    async def node_completed(self, run: "GraphRun", node_id: str) -> None:
        """A node completed; its result is in `run.results` (absent if undefined)."""


class NodeRun:
    """A computed node during one iteration: what it still waits for, and how it ended."""

    __slots__ = ("spec", "state", "pendings", "skip", "error", "attempts")

    def __init__(self, spec: ComputedNodeSpec) -> None:
        self.spec = spec
        self.state = NodeState.WAITING
        self.pendings = set(spec.dependencies)
        self.skip = False
        self.error: GraphError | None = None
        self.attempts = 0


def _has_any_input(spec: ComputedNodeSpec, results: Mapping[str, Any]) -> bool:
    """GraphAI's anyInput test: some input (not `params`) has a value; lists count per item."""
    inputs = spec.inputs
    if not isinstance(inputs, DictOf):
        return False
    for key, source in inputs.items.items():
        if key == "params":
            continue
        if isinstance(source, ListOf):
            if source.any_defined(results):
                return True
        else:
            try:
                if source.resolve(results) is not UNDEFINED:
                    return True
            except Exception:  # noqa: BLE001 - the node runs, and fails where its inputs are resolved, with its location
                return True
    return False


def located(error: Exception, spec: Any, field: str | None, source: Any) -> GraphError:
    """`error` as a GraphError that names the node (or graph) field it came from and its place in the file."""
    if not isinstance(error, GraphError):
        error = ResolveError(f"{type(error).__name__}: {error}").with_cause(error)
    node_id = getattr(spec, "node_id", None)
    if error.field is None and field is not None:
        error.field = field
    error.with_context(node_id=node_id)
    if error.location is None:
        error.location = source.locate_field(error.node_id, error.field)
    return error


class GraphRun:
    """Runs a GraphSpec to the end and keeps every node's result and error.

    `context` is what the whole execution shares (registry, scheduler, config,
    events, ...); a nested graph's run gets the same one (see `child`). What is
    this run's own: its graph, injected values, loop, path, and for the top run
    a saved state to continue from and a checkpointer.
    """

    def __init__(
        self,
        spec: GraphSpec,
        context: RunContext,
        *,
        injected: Mapping[str, Any] | None = None,
        loop_count: int | None = None,
        path: tuple[str | int, ...] = (),
        restore: RunSnapshot | None = None,
        checkpointer: Checkpointer | None = None,
    ) -> None:
        self.spec = spec
        self.context = context
        self.injected = dict(injected or {})
        for node_id in self.injected:
            check_injectable(spec, node_id)
        self.loop = spec.loop if loop_count is None else LoopSpec(count=loop_count)
        self.path = path
        self.run_id = context.run_id
        self.emitter = context.emitter
        self.scheduler = context.scheduler
        self.results: dict[str, Any] = {}
        self.nodes: dict[str, NodeRun] = {}
        self.iteration = 0
        self.loop_error: GraphError | None = None  # an `update`, `loop.while` or static `console` that failed
        self._invoker: NodeInvoker | None = NodeInvoker(self)
        self.progress = context.progress  # counted per node for a display to sample (graphrt.observe.progress)
        # Per-node events are built only for a subscriber that takes them (the live display reads `progress`).
        self.emitting = bool(self.emitter)
        self.emitting_queued = self.emitting and self.emitter.wants(NodeQueued)
        self.emitting_started = self.emitting and self.emitter.wants(NodeStarted)
        self.emitting_completed = self.emitting and self.emitter.wants(NodeCompleted)
        self.emitting_skipped = self.emitting and self.emitter.wants(NodeSkipped)
        self._active = 0  # nodes of this run queued or running
        self._drained: anyio.Event | None = None
        self._task_group: anyio.abc.TaskGroup | None = None
        self._accepting = False  # a worker of this run is free to take the next granted node
        self._handoff: Ticket | None = None
        self._restore = restore
        self.checkpointer = checkpointer

    def child(self, spec: GraphSpec, *, injected: Mapping[str, Any] | None, loop_count: int | None,
              path: tuple[str | int, ...]) -> "GraphRun":
        """A run of a nested graph, with this run's context (a nested node's answer is keyed by its path)."""
        return GraphRun(spec, self.context, injected=injected, loop_count=loop_count, path=path)

    # ----- the run -----

    async def run(self, all_results: bool = False) -> dict[str, Any]:
        """Runs every iteration; returns the results or raises the first node error."""
        if self._restore is not None:
            self._restore_iteration(self._restore)
        else:
            self._start_first_iteration()
        if self.checkpointer is not None:
            await self.checkpointer.iteration_started(self)
        try:
            async with anyio.create_task_group() as task_group:
                self._task_group = task_group
                try:
                    while True:
                        queued_any = await self._run_iteration()
                        if self.iteration == 0 and not queued_any and self._restore is None and self._first_error() is None:
                            return {}  # GraphAI: "nothing to execute"
                        if self._first_error() is not None or not self._advance_loop():
                            break
                        if self.checkpointer is not None:
                            await self.checkpointer.iteration_started(self)
                        if self.iteration % _YIELD_EVERY == 0:
                            await anyio.lowlevel.checkpoint()
                finally:
                    # Before the task group closes: a slot freed elsewhere must not start a node here.
                    dropped = self.scheduler.discard(self)
                    if self.progress is not None:
                        self.progress.queued -= dropped
        finally:
            self._task_group = None
            self._invoker = None  # breaks the run <-> invoker cycle, so a finished run is freed at once
        error = self._first_error()
        if error is not None:
            raise error
        return self.collect_results(all_results)

    def collect_results(self, all_results: bool = False) -> dict[str, Any]:
        """Results of `isResult` nodes (or of every node), in file order; absent if none."""
        results = {}
        for node_id, node in self.spec.nodes.items():
            if node_id in self.results and ((all_results and node_id != LOOP_COUNTER) or node.is_result):
                results[node_id] = self.results[node_id]
        return results

    def errors(self) -> dict[str, GraphError]:
        return {node_id: node.error for node_id, node in self.nodes.items() if node.error is not None}

    def _first_error(self) -> GraphError | None:
        for node in self.nodes.values():
            if node.error is not None:
                return node.error
        return self.loop_error

    async def _run_iteration(self) -> bool:
        """Runs one iteration until nothing is queued or running; True if any node was queued."""
        if self.emitting:
            self.emitter.emit(LoopIteration(run_id=self.run_id, path=self.path, index=self.iteration))
        self._accepting = True
        queued_any = self._queue_ready_nodes()
        self._accepting = False
        first, self._handoff = self._handoff, None
        if first is not None:
            await self._work(first)
        if self._active:
            self._drained = anyio.Event()
            await self._drained.wait()
            self._drained = None
        return queued_any

    # ----- static nodes and loops -----

    def _static_value(self, spec: StaticNodeSpec) -> Any:
        return self.injected.get(spec.node_id, spec.value)

    def _start_first_iteration(self) -> None:
        missing = []
        for node_id, spec in self.spec.nodes.items():
            if isinstance(spec, StaticNodeSpec):
                value = self._static_value(spec)
                if value is not UNDEFINED:
                    self.results[node_id] = value
                elif spec.update is None and node_id not in self.injected:
                    missing.append(node_id)  # injecting undefined (a graph agent's undefined input) is a choice
        if missing:
            raise GraphValidationError(
                [ValidationIssue("a static node needs a value: set 'value', inject one, or set 'update'", node_id, "value",
                                 self.spec.source.locate("nodes", node_id)) for node_id in missing]
            )
        self._create_nodes()

    def _restore_iteration(self, snapshot: RunSnapshot) -> None:
        """Continues a saved run: completed nodes keep their results and are not run again."""
        self.iteration = snapshot.iteration
        self.results = dict(snapshot.results)
        self._create_nodes()
        for node_id in snapshot.completed:
            node = self.nodes.get(node_id)
            if node is None:
                continue
            node.state = NodeState.COMPLETED
            for waiter_id in self.spec.waitlists.get(node_id, ()):  # _create_nodes missed those with no result
                self.nodes[waiter_id].pendings.discard(node_id)

    def answer_key(self, node_id: str) -> str:
        """The key of a node's answer in `answers`: its id, prefixed by the path of a nested run."""
        return "/".join(map(str, (*self.path, node_id))) if self.path else node_id

    def _create_nodes(self) -> None:
        self.nodes = {spec.node_id: NodeRun(spec) for spec in self.spec.computed}
        results = self.results
        for node in self.nodes.values():
            if node.spec.any_input:
                if _has_any_input(node.spec, results):
                    node.pendings.clear()
            else:
                node.pendings.difference_update([d for d in node.spec.dependencies if d in results])

    def _advance_loop(self) -> bool:
        """Moves static nodes on by their `update`; True if another iteration starts."""
        loop = self.loop
        if loop is None:
            return False
        settled = self.results  # becomes what the run returns if this was the last iteration
        updates = []
        for spec in self.spec.updated_statics:
            try:
                updates.append((spec.node_id, spec.update.resolve(settled)))
            except Exception as error:  # noqa: BLE001 - e.g. jsonParse() of bad JSON: the run stops with a located error
                self.loop_error = located(error, spec, "update", self.spec.source)
                return False
        for node_id, value in updates:
            if value is not UNDEFINED:
                settled[node_id] = value
        self.iteration += 1
        if loop.count is not None and self.iteration >= loop.count:
            return False
        if loop.while_ is not None:
            try:
                go_on = is_logically_true(loop.while_.resolve(settled))
            except Exception as error:  # noqa: BLE001
                self.loop_error = located(error, None, "loop.while", self.spec.source)
                return False
            if not go_on:
                return False
        fresh: dict[str, Any] = {node_id: value for node_id, value in updates if value is not UNDEFINED}
        for spec in self.spec.statics:
            if spec.update is None:
                value = self._static_value(spec)
                if value is not UNDEFINED:
                    fresh[spec.node_id] = value
            if spec.console:
                try:
                    NodeInvoker.print_after(spec, fresh.get(spec.node_id, UNDEFINED))
                except Exception as error:  # noqa: BLE001
                    self.loop_error = located(error, spec, "console", self.spec.source)
                    return False
        self.results = fresh
        self._create_nodes()
        return True

    # ----- readiness -----

    def _queue_ready_nodes(self) -> bool:
        queued = False
        for node in self.nodes.values():
            if self._is_ready(node):
                self._queue(node)
                queued = True
        return queued

    def _is_ready(self, node: NodeRun) -> bool:
        """GraphAI's isReadyNode: nothing pending; an `if`/`unless` that fails skips the node."""
        if node.state is not NodeState.WAITING or node.pendings:
            return False
        spec = node.spec
        if spec.if_ref is not None or spec.unless_ref is not None:
            field = "if"
            try:
                node.skip = spec.if_ref is not None and not is_logically_true(spec.if_ref.resolve(self.results))
                field = "unless"
                node.skip = node.skip or (
                    spec.unless_ref is not None and is_logically_true(spec.unless_ref.resolve(self.results))
                )
            except Exception as error:  # noqa: BLE001 - e.g. jsonParse() of bad JSON: the node fails, not the run
                self._invoker.fail(node, located(error, spec, field, self.spec.source))  # type: ignore[union-attr]
                return False
            if node.skip and spec.default_value is UNDEFINED:
                node.state = NodeState.SKIPPED
                if self.progress is not None:
                    self.progress.skipped += 1
                if self.emitting_skipped:
                    self.emitter.emit(NodeSkipped(run_id=self.run_id, path=self.path, node_id=spec.node_id))
                return False
        return True

    def _queue(self, node: NodeRun) -> None:
        node.state = NodeState.QUEUED
        self._active += 1
        if self.progress is not None:
            self.progress.queued += 1
        if self.emitting_queued:
            self.emitter.emit(NodeQueued(run_id=self.run_id, path=self.path, node_id=node.spec.node_id))
        self.scheduler.submit(Ticket(node.spec.priority, node.spec.label, self._granted, self, node))

    def _granted(self, ticket: Ticket) -> None:
        """The scheduler gave one of our nodes a slot: a free worker takes it, else a new task."""
        if self._accepting and self._handoff is None:
            self._handoff = ticket
        else:
            assert self._task_group is not None
            self._task_group.start_soon(self._work, ticket, name=ticket.node.spec.node_id)

    async def _work(self, ticket: Ticket) -> None:
        """A worker: runs the granted node, then the next one handed to it, until none is."""
        done = 0
        progress = self.progress
        while True:
            node = ticket.node
            key = progress.start(self.path, node.spec.node_id) if progress is not None else None
            try:
                if done and done % _YIELD_EVERY == 0:
                    await anyio.lowlevel.checkpoint()  # let other tasks (and cancellation) in
                await self._invoker.execute(node, ticket)  # type: ignore[union-attr]
            except BaseException:
                if progress is not None:
                    progress.end(key, completed=False)  # type: ignore[arg-type]
                self._finish(ticket, take_next=False)  # cancelled: hand nothing to this worker
                raise
            if progress is not None:
                progress.end(key, completed=node.state is NodeState.COMPLETED)  # type: ignore[arg-type]
            self._finish(ticket, take_next=True)
            ticket, self._handoff = self._handoff, None
            if ticket is None:
                return
            done += 1

    def _finish(self, ticket: Ticket, take_next: bool) -> None:
        """Gives the node's slot back; with `take_next`, the next node granted here goes to this worker."""
        self._accepting = take_next
        self.scheduler.release(ticket)
        self._accepting = False
        self._active -= 1
        if self._active == 0 and self._drained is not None:
            self._drained.set()

    def set_result(self, node: NodeRun, result: Any) -> None:
        """Stores a node's result and queues the nodes that were waiting only for it.

        Called by the worker that ran the node, which takes the first node granted here.
        A run with a checkpointer saves the result in between (see NodeInvoker._complete).
        """
        self.store_result(node, result)
        self.release_waiters(node.spec.node_id)

    def store_result(self, node: NodeRun, result: Any) -> None:
        """Marks the node completed with its result; its waiters are not told yet."""
        node_id = node.spec.node_id
        node.state = NodeState.COMPLETED
        if result is not UNDEFINED:
            self.results[node_id] = result
        answers = self.context.answers
        if answers:
            answers.pop(self.answer_key(node_id), None)  # answered; a later iteration asks again

    def release_waiters(self, node_id: str) -> None:
        """Queues the nodes that were waiting only for `node_id`."""
        waiters = self.spec.waitlists.get(node_id)
        if not waiters:
            return
        self._accepting = True
        for waiter_id in waiters:
            waiter = self.nodes[waiter_id]
            if waiter.spec.any_input:
                if _has_any_input(waiter.spec, self.results):
                    waiter.pendings.clear()
            else:
                waiter.pendings.discard(node_id)
            if self._is_ready(waiter):
                self._queue(waiter)
        self._accepting = False
