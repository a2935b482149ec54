"""One run of a compiled graph: iterations, node readiness, results and errors.

Readiness is pushed, not polled: when a node gets its result it tells the
nodes waiting for it, and those that have all they need are queued on the
scheduler. An iteration is one anyio task group; it ends when no node of this
graph is queued or running. Then the loop, if any, starts the next iteration
with fresh computed nodes and updated static nodes, as GraphAI does.
"""

from __future__ import annotations

import uuid
from enum import Enum
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import anyio

from .errors import GraphError, GraphValidationError, ValidationIssue
from .events import Emitter, LoopIteration, NodeQueued, NodeSkipped
from .jsvalue import UNDEFINED, is_logically_true
from .node import NodeInvoker
from .refs import LOOP_COUNTER, DictOf, ListOf
from .registry import Registry
from .scheduler import Scheduler, Ticket
from .spec import ComputedNodeSpec, GraphSpec, LoopSpec, StaticNodeSpec

if TYPE_CHECKING:
    from .filters import AgentFilter

__all__ = ["NodeState", "NodeRun", "GraphRun"]


class NodeState(str, Enum):
    """Where a node is in its life; the values are GraphAI's, so logs read the same."""

    WAITING = "waiting"
    QUEUED = "queued"
    EXECUTING = "executing"
    COMPLETED = "completed"
    FAILED = "failed"
    TIMED_OUT = "timed-out"
    SKIPPED = "skipped"
    INJECTED = "injected"


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
        elif source.resolve(results) is not UNDEFINED:
            return True
    return False


class GraphRun:
    """Runs a GraphSpec to the end and keeps every node's result and error."""

    def __init__(
        self,
        spec: GraphSpec,
        *,
        registry: Registry,
        scheduler: Scheduler,
        config: Mapping[str, Any] | None = None,
        emitter: Emitter | None = None,
        injected: Mapping[str, Any] | None = None,
        loop_count: int | None = None,
        path: tuple[str | int, ...] = (),
        run_id: str | None = None,
        filters: Sequence[AgentFilter] = (),
    ) -> None:
        self.spec = spec
        self.registry = registry
        self.scheduler = scheduler
        self.config = dict(config or {})
        self.filters = tuple(filters)
        self.emitter = emitter or Emitter()
        self.injected = dict(injected or {})
        self.loop = spec.loop if loop_count is None else LoopSpec(count=loop_count)
        self.path = path
        self.run_id = run_id or uuid.uuid4().hex[:12]
        self.results: dict[str, Any] = {}
        self.nodes: dict[str, NodeRun] = {}
        self.iteration = 0
        self._invoker = NodeInvoker(self)
        self._active = 0
        self._drained: anyio.Event | None = None
        self._task_group: anyio.abc.TaskGroup | None = None
        for node_id in self.injected:
            if not isinstance(spec.nodes.get(node_id), StaticNodeSpec) or node_id == LOOP_COUNTER:
                kind = "a computed node" if node_id in spec.nodes else "not a node of this graph"
                raise GraphValidationError(
                    [ValidationIssue(f"cannot inject a value: '{node_id}' is {kind}", node_id, "value")]
                )

    # ----- the run -----

    async def run(self, all_results: bool = False) -> dict[str, Any]:
        """Runs every iteration; returns the results or raises the first node error."""
        self._start_first_iteration()
        try:
            while True:
                queued_any = await self._run_iteration()
                if self.iteration == 0 and not queued_any:
                    return {}  # GraphAI: "nothing to execute"
                if self._first_error() is not None or not self._advance_loop():
                    break
                await anyio.lowlevel.checkpoint()
        finally:
            self.scheduler.discard(self)
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
        return None

    async def _run_iteration(self) -> bool:
        """Runs one iteration until nothing is queued or running; True if any node was queued."""
        if self.emitter:
            self.emitter.emit(LoopIteration(run_id=self.run_id, path=self.path, index=self.iteration))
        self._drained = anyio.Event()
        async with anyio.create_task_group() as task_group:
            self._task_group = task_group
            queued_any = self._queue_ready_nodes()
            if self._active:
                await self._drained.wait()
        self._task_group = None
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
                elif spec.update is None:
                    missing.append(node_id)
        if missing:
            raise GraphValidationError(
                [ValidationIssue("a static node needs a value: set 'value', inject one, or set 'update'", node_id, "value",
                                 self.spec.source.locate("nodes", node_id)) for node_id in missing]
            )
        self._create_nodes()

    def _create_nodes(self) -> None:
        self.nodes = {spec.node_id: NodeRun(spec) for spec in self.spec.nodes.values() if isinstance(spec, ComputedNodeSpec)}
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
        previous = self.results
        updates = {
            node_id: spec.update.resolve(previous)
            for node_id, spec in self.spec.nodes.items()
            if isinstance(spec, StaticNodeSpec) and spec.update is not None
        }
        settled = dict(previous)
        settled.update((node_id, value) for node_id, value in updates.items() if value is not UNDEFINED)
        self.results = settled  # what the run returns if this was the last iteration
        self.iteration += 1
        if loop.count is not None and self.iteration >= loop.count:
            return False
        if loop.while_ is not None and not is_logically_true(loop.while_.resolve(settled)):
            return False
        fresh: dict[str, Any] = {}
        for node_id, spec in self.spec.nodes.items():
            if isinstance(spec, StaticNodeSpec):
                value = updates[node_id] if spec.update is not None else self._static_value(spec)
                if value is not UNDEFINED:
                    fresh[node_id] = value
                if spec.console:
                    self._invoker.print_static(spec, fresh.get(node_id, UNDEFINED))
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
            node.skip = (spec.if_ref is not None and not is_logically_true(spec.if_ref.resolve(self.results))) or (
                spec.unless_ref is not None and is_logically_true(spec.unless_ref.resolve(self.results))
            )
            if node.skip and spec.default_value is UNDEFINED:
                node.state = NodeState.SKIPPED
                if self.emitter:
                    self.emitter.emit(NodeSkipped(run_id=self.run_id, path=self.path, node_id=spec.node_id))
                return False
        return True

    def _queue(self, node: NodeRun) -> None:
        node.state = NodeState.QUEUED
        self._active += 1
        if self.emitter:
            self.emitter.emit(NodeQueued(run_id=self.run_id, path=self.path, node_id=node.spec.node_id))
        self.scheduler.submit(Ticket(node.spec.priority, node.spec.label, self._start, (self, node)))

    def _start(self, ticket: Ticket) -> None:
        assert self._task_group is not None
        self._task_group.start_soon(self._execute, ticket, name=ticket.owner[1].spec.node_id)

    async def _execute(self, ticket: Ticket) -> None:
        node: NodeRun = ticket.owner[1]
        try:
            await self._invoker.execute(node, ticket)
        finally:
            self.scheduler.release(ticket)
            self._active -= 1
            if self._active == 0 and self._drained is not None:
                self._drained.set()

    def set_result(self, node: NodeRun, result: Any) -> None:
        """Stores a node's result and queues the nodes that were waiting only for it."""
        node_id = node.spec.node_id
        node.state = NodeState.COMPLETED
        if result is not UNDEFINED:
            self.results[node_id] = result
        for waiter_id in self.spec.waitlists.get(node_id, ()):
            waiter = self.nodes[waiter_id]
            if waiter.spec.any_input:
                if _has_any_input(waiter.spec, self.results):
                    waiter.pendings.clear()
            else:
                waiter.pendings.discard(node_id)
            if self._is_ready(waiter):
                self._queue(waiter)

