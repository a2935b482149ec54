"""One run of a compiled graph: iterations, node readiness, results and errors.

Readiness is pushed, not polled: when a node gets its result it tells the
nodes waiting for it, and those that have all they need are queued on the
scheduler. A run is one anyio task group. An iteration ends when no node of
this graph is queued or running; then the loop, if any, starts the next
iteration with its computed nodes reset (the same NodeRun objects, each with its
ticket: an iteration makes none) and its static nodes updated, as GraphAI does.

The run owns every state change of its nodes: `NodeInvoker` computes a node's
outcome, and the run applies it (sets the node's state, stores the result or the
error, tells the observers the state it set, queues the waiters). A run that
stops before its end (cancelled, or an error) sets its nodes still queued to
ABORT and says so. The scheduler answers each submit and release with the
tickets it granted; the run starts them.

Workers, not a task per node: a task that finishes a node goes on with the
next node granted to this run (usually the node that was waiting for it), and
the run's own task is the first worker. A chain or a loop of quick agents thus
runs without creating a task per node; a new task starts only when more nodes
can run at once.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Mapping

import anyio

from graphrt.base.errors import GraphError, GraphInterrupted, GraphValidationError, ResolveError, ValidationIssue
from graphrt.base.jsvalue import UNDEFINED, is_logically_true
from graphrt.engine.context import Carryover, RunContext
from graphrt.engine.node import NodeInvoker, NodeRun, NodeState, Outcome, answer_key, failed, print_after
from graphrt.engine.scheduler import NO_GRANTS, Ticket
from graphrt.graphdata.refs import LOOP_COUNTER, DictOf, ListOf
from graphrt.graphdata.spec import ComputedNodeSpec, GraphSpec, LoopSpec, StaticNodeSpec, check_injectable

if TYPE_CHECKING:  # a run restored from a checkpoint brings its own snapshot: a plain run imports none
    from graphrt.checkpoint.snapshot import RunSnapshot

__all__ = ["NodeState", "NodeRun", "GraphRun", "RunContext", "Carryover"]

_YIELD_EVERY = 64  # nodes (or iterations) a worker runs before it lets other tasks in

# The states a run sets or tests for every node, read once: a member read through its enum class costs three
# times a plain class attribute (EnumType's __getattr__ keeps the interpreter from caching the lookup).
_WAITING, _QUEUED = NodeState.WAITING, NodeState.QUEUED
_EXECUTING, _COMPLETED = NodeState.EXECUTING, NodeState.COMPLETED


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


class GraphRun:
    """Runs a GraphSpec to the end and keeps every node's result and error.

    `context` is what the whole execution shares, read-only (registry, scheduler,
    config, observers, ...), and `carryover` what a resumed execution takes as it
    goes (answers, a fork's kept results); a nested graph's run gets the same
    two (see `child`). What is this run's own: its graph, injected values, loop,
    path, and for the top run a saved state to continue from. The injected values
    are checked by whoever gives them (`Run`, `child`), once.
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
        kept: Mapping[str, Any] | None = None,
        carryover: Carryover | None = None,
        call_prefix: str = "",
        journal_kind: str | None = None,
    ) -> None:
        self.spec = spec
        self.context = context
        self.carryover = Carryover() if carryover is None else carryover
        self.injected = dict(injected or {})
        self.loop = spec.loop if loop_count is None else LoopSpec(count=loop_count)
        self.path = path
        # Its nodes' calls in the journal: their paths start with this (the nodes and iterations above), and with a
        # kind, every agent call of its own nodes is journaled (a toolsAgent's LLM and tool calls).
        self.call_prefix = call_prefix
        self.journal_kind = journal_kind
        self.run_id = context.run_id
        self.scheduler = context.scheduler
        self.observers = context.observers
        self.results: dict[str, Any] = {}
        self.nodes: dict[str, NodeRun] = {}
        self.iteration = 0
        self.loop_error: GraphError | None = None  # an `update`, `loop.while` or static `console` that failed
        self._failed = False  # some node has an error: only then does _first_error look through the nodes
        self._fixed: dict[str, Any] | None = None  # the static nodes without `update`: their value, each iteration's
        self._invoker: NodeInvoker | None = NodeInvoker(self)
        self._active = 0  # nodes of this run queued or running
        self._drained: anyio.Event | None = None
        self._task_group: anyio.abc.TaskGroup | None = None
        self._restore = restore
        self._kept = dict(kept) if kept else None  # a forked nested graph's results that do not run again

    def child(self, spec: GraphSpec, *, injected: Mapping[str, Any] | None, loop_count: int | None,
              path: tuple[str | int, ...], call_prefix: str = "", journal_kind: str | None = None) -> "GraphRun":
        """A run of a nested graph, with this run's context and carryover (a nested node's answer is keyed by
        its path).

        The first run of a nested graph a fork reaches into keeps the results the fork saved for its path.

        Raises:
            GraphValidationError: an injected value names no static node of `spec`.
        """
        for node_id in injected or ():
            check_injectable(spec, node_id)
        carryover = self.carryover
        kept = carryover.take_inner_results("/".join(map(str, path))) if carryover.inner_results else None
        return GraphRun(spec, self.context, injected=injected, loop_count=loop_count, path=path, kept=kept,
                        carryover=carryover, call_prefix=call_prefix, journal_kind=journal_kind)

    def states(self) -> dict[str, NodeState]:
        """Each computed node's state in the current iteration, in file order."""
        return {node_id: node.state for node_id, node in self.nodes.items()}

    def lend(self, ticket: Ticket) -> None:
        """A node of this run waits for a graph nested in it: its slot goes to whichever run's node is next in
        line (the nested nodes, usually), so nesting never deadlocks, even at concurrency 1."""
        for granted in self.scheduler.release(ticket):
            granted.owner.spawn(granted)  # in its own run's task group

    def reclaim(self, ticket: Ticket) -> None:
        """The nested graph is done: the node takes its slot back at once, past the limit if it must, until
        it releases it."""
        self.scheduler.reclaim(ticket)

    # ----- the run -----

    async def run(self, all_results: bool = False) -> dict[str, Any]:
        """Runs every iteration; returns the results or raises the first node error."""
        if self._restore is not None:
            self._restore_iteration(self._restore)
        else:
            self._start_first_iteration()
            if self._kept is not None:
                self._keep_results(self._kept)
                await self._report_kept()
        try:
            async with anyio.create_task_group() as task_group:
                self._task_group = task_group
                try:
                    while True:
                        queued_any = await self._run_iteration()
                        if (self.iteration == 0 and not queued_any and self._restore is None and self._kept is None
                                and self._first_error() is None):
                            return {}  # GraphAI: "nothing to execute"
                        if self._first_error() is not None or not self._advance_loop():
                            break
                        if self.iteration % _YIELD_EVERY == 0:
                            await anyio.lowlevel.checkpoint()
                finally:
                    # Before the task group closes: a slot freed elsewhere must not start a node here.
                    self.scheduler.discard(self)
        except BaseException:
            self._drop_queued()
            raise
        finally:
            self._task_group = None
            self._invoker = None  # breaks the run <-> invoker cycle, so a finished run is freed at once
            for node in self.nodes.values():  # and the run -> node -> ticket -> run one (a Ticket's owner is its run)
                node.ticket = None
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

    def _drop_queued(self) -> None:
        """The run stopped before its end: its nodes still queued (dropped from the scheduler, or granted a slot
        no worker took) will not run. Each worker has already set the node it ran to ABORT."""
        dropped = tuple(node_id for node_id, node in self.nodes.items() if node.state is _QUEUED)
        if not dropped:
            return
        for node_id in dropped:
            self.nodes[node_id].state = NodeState.ABORT
        for hook in self.observers.nodes_dropped:
            hook(run_id=self.run_id, path=self.path, count=len(dropped), node_ids=dropped, state=NodeState.ABORT)

    def _first_error(self) -> GraphError | None:
        if self._failed:
            for node in self.nodes.values():
                if node.error is not None:
                    return node.error
        return self.loop_error

    async def _run_iteration(self) -> bool:
        """Runs one iteration until nothing is queued or running; True if any node was queued."""
        hooks = self.observers.iteration_started
        if hooks:
            statics = {node_id: value for node_id, value in self.results.items() if node_id not in self.nodes}
            for hook in hooks:
                pending = hook(run_id=self.run_id, path=self.path, iteration=self.iteration, statics=statics)
                if pending is not None:
                    await pending
        granted: list[Ticket] = []
        queued_any = False
        for node in self.nodes.values():
            if self._is_ready(node):
                queued = self._queue(node)
                if queued:
                    granted.extend(queued)
                queued_any = True
        first = self._start_granted(granted, take_one=True)
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
            node.state = _COMPLETED
            for waiter_id in self.spec.waitlists.get(node_id, ()):  # _create_nodes missed those with no result
                self.nodes[waiter_id].pendings.discard(node_id)

    def _keep_results(self, kept: Mapping[str, Any]) -> None:
        """A forked nested graph: its nodes that do not depend on the change keep their results, as restored ones do."""
        from graphrt.checkpoint.snapshot import RunSnapshot

        completed = [node_id for node_id in kept if node_id in self.nodes]
        self._restore_iteration(RunSnapshot(self.run_id, 0, {**self.results, **kept}, completed))

    async def _report_kept(self) -> None:
        """Tells the observers of the results a forked nested graph keeps, as completed nodes marked `kept`: what
        watches the run (a viewer, an event log that a later fork reads) knows them as it knows those that run."""
        hooks = self.observers.node_completed
        if not hooks:
            return
        for node_id, node in self.nodes.items():
            if node.state != NodeState.COMPLETED:
                continue
            for hook in hooks:
                pending = hook(run_id=self.run_id, path=self.path, iteration=self.iteration, node_id=node_id,
                               value=self.results.get(node_id, UNDEFINED), duration=0.0, state=NodeState.COMPLETED,
                               kept=True)
                if pending is not None:
                    await pending

    def _create_nodes(self) -> None:
        """Every computed node WAITING for what `results` lacks: made for the first iteration, reset for the next
        (the nodes of an iteration that ended are done with: none is queued or running)."""
        results = self.results
        nodes = self.nodes
        if nodes:
            for node in nodes.values():  # a loop's every iteration: the usual node's pendings made here, without a call
                spec = node.spec
                node.reset(self._pendings(spec, results) if spec.any_input
                           else set(spec.dependencies).difference(results))
        else:
            self.nodes = {spec.node_id: NodeRun(spec, self._pendings(spec, results)) for spec in self.spec.computed}

    @staticmethod
    def _pendings(spec: ComputedNodeSpec, results: Mapping[str, Any]) -> set[str]:
        """What a node waits for when an iteration starts with `results`."""
        if spec.any_input:
            return set() if _has_any_input(spec, results) else set(spec.dependencies)
        return set(spec.dependencies).difference(results)  # in C: each dependency looked up in the dict

    def _advance_loop(self) -> bool:
        """Moves static nodes on by their `update`; True if another iteration starts."""
        loop = self.loop
        if loop is None:
            return False
        settled = self.results  # becomes what the run returns if this was the last iteration
        fresh: dict[str, Any] = {}  # every update reads the results before any update: set after
        for spec in self.spec.updated_statics:
            try:
                value = spec.update.resolve(settled)
            except Exception as error:  # noqa: BLE001 - e.g. jsonParse() of bad JSON: the run stops with a located error
                self.loop_error = ResolveError.from_exception(error, node_id=spec.node_id, field="update", source=self.spec.source)
                return False
            if value is not UNDEFINED:
                fresh[spec.node_id] = value
        settled.update(fresh)
        self.iteration += 1
        if loop.count is not None and self.iteration >= loop.count:
            return False
        if loop.while_ is not None:
            try:
                go_on = loop.while_.resolve(settled)
                go_on = go_on is True or (go_on is not False and is_logically_true(go_on))
            except Exception as error:  # noqa: BLE001
                self.loop_error = ResolveError.from_exception(error, field="loop.while", source=self.spec.source)
                return False
            if not go_on:
                return False
        fixed = self._fixed
        if fixed is None:  # the same for every iteration of this run
            fixed = self._fixed = {spec.node_id: value for spec in self.spec.fixed_statics
                                   if (value := self._static_value(spec)) is not UNDEFINED}
        fresh.update(fixed)
        for spec in self.spec.console_statics:
            try:
                print_after(spec, fresh.get(spec.node_id, UNDEFINED))
            except Exception as error:  # noqa: BLE001
                self.loop_error = ResolveError.from_exception(error, node_id=spec.node_id, field="console", source=self.spec.source)
                return False
        self.results = fresh
        self._create_nodes()
        return True

    # ----- readiness -----

    def _is_ready(self, node: NodeRun) -> bool:
        """GraphAI's isReadyNode: nothing pending; an `if`/`unless` that fails skips the node."""
        if node.state is not _WAITING or node.pendings:
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
                self._fail(node, failed(ResolveError.from_exception(error, node_id=spec.node_id, field=field, source=self.spec.source)))
                return False
            if node.skip and spec.default_value is UNDEFINED:
                node.state = NodeState.SKIPPED
                for hook in self.observers.node_skipped:
                    hook(run_id=self.run_id, path=self.path, node_id=spec.node_id, state=NodeState.SKIPPED)
                return False
        return True

    def _queue(self, node: NodeRun) -> list[Ticket]:
        """Queues a ready node; returns the tickets the scheduler granted (this node's, or others')."""
        node.state = _QUEUED
        self._active += 1
        for hook in self.observers.node_queued:
            hook(run_id=self.run_id, path=self.path, node_id=node.spec.node_id, state=_QUEUED)
        ticket = node.ticket
        if ticket is None:  # made once per node and run: a node holds a slot at most once at a time
            ticket = node.ticket = Ticket(node.spec.priority, node.spec.label, self, node)
        return self.scheduler.submit(ticket)

    def _start_granted(self, granted: list[Ticket], take_one: bool) -> Ticket | None:
        """Starts granted tickets, each in its own run's task group; with `take_one`, returns the first
        of this run's instead of starting it, for the calling worker to run next."""
        kept = None
        for ticket in granted:
            if take_one and kept is None and ticket.owner is self:
                kept = ticket
            else:
                ticket.owner.spawn(ticket)
        return kept

    def spawn(self, ticket: Ticket) -> None:
        """Starts a worker task for a node of this run that the scheduler granted a slot."""
        assert self._task_group is not None
        self._task_group.start_soon(self._work, ticket, name=ticket.node.spec.node_id)

    async def _work(self, ticket: Ticket) -> None:
        """A worker: runs the granted node, then the next one granted to this run, until none is."""
        done = 0
        observers = self.observers
        running_hooks = observers.node_running
        completed_hooks = observers.node_completed
        invoker = self._invoker
        while True:
            node = ticket.node
            try:
                if not node.skip:  # a skipped node that gives its defaultValue stays QUEUED until it completes
                    node.state = _EXECUTING
                for hook in running_hooks:
                    hook(run_id=self.run_id, path=self.path, node_id=node.spec.node_id, state=node.state)
                if done and done % _YIELD_EVERY == 0:
                    await anyio.lowlevel.checkpoint()  # let other tasks (and cancellation) in
                outcome = await invoker.execute(node, ticket, self.results)  # type: ignore[union-attr]
                if outcome[1] is None:
                    self._complete(node, outcome)
                    if completed_hooks:
                        await self._report_completed(node, outcome)  # saved before its waiters start
                    granted = self._release_waiters(node.spec.node_id)
                else:
                    self._fail(node, outcome)
                    granted = NO_GRANTS
            except BaseException:
                if node.state is _EXECUTING or node.state is _QUEUED:
                    node.state = NodeState.ABORT
                    for hook in observers.node_aborted:
                        hook(run_id=self.run_id, path=self.path, node_id=node.spec.node_id, state=NodeState.ABORT)
                self._start_granted(self._release(ticket), take_one=False)  # cancelled: this worker takes nothing
                raise
            released = self._release(ticket)
            if released:
                granted = released if not granted else granted + released
            if not granted:
                return
            if len(granted) == 1 and granted[0].owner is self:
                ticket = granted[0]  # the usual case: the next node of this run, for this worker
            else:
                next_ticket = self._start_granted(granted, take_one=True)
                if next_ticket is None:
                    return
                ticket = next_ticket
            done += 1

    def _release(self, ticket: Ticket) -> list[Ticket]:
        """Gives the node's slot back; returns the tickets granted in its place."""
        granted = self.scheduler.release(ticket)
        self._active -= 1
        if self._active == 0 and self._drained is not None:
            self._drained.set()
        return granted

    # ----- outcomes -----

    def _complete(self, node: NodeRun, outcome: Outcome) -> None:
        """Stores a node's result; the worker then tells the observers, and queues its waiters."""
        node_id = node.spec.node_id
        result = outcome[0]
        node.state = _COMPLETED
        node.attempts = outcome[4]
        if result is not UNDEFINED:
            self.results[node_id] = result
        carryover = self.carryover
        if carryover.answers:
            carryover.take_answer(answer_key(self.path, node_id))  # answered; a later iteration asks again

    async def _report_completed(self, node: NodeRun, outcome: Outcome) -> None:
        """Tells the observers of a completed node, awaiting those that save it."""
        duration = time.perf_counter() - outcome[3]
        for hook in self.observers.node_completed:
            pending = hook(run_id=self.run_id, path=self.path, iteration=self.iteration, node_id=node.spec.node_id,
                           value=outcome[0], duration=duration, state=_COMPLETED)
            if pending is not None:
                await pending

    def _fail(self, node: NodeRun, outcome: Outcome) -> None:
        """Marks a node failed (or timed out, or asking a person) with its error."""
        _, error, timed_out, _, node.attempts = outcome
        if isinstance(error, GraphInterrupted):
            state = NodeState.INTERRUPTED
        else:
            state = NodeState.TIMED_OUT if timed_out else NodeState.FAILED
        node.state = state
        node.error = error
        self._failed = True
        for hook in self.observers.node_failed:
            hook(run_id=self.run_id, path=self.path, node_id=node.spec.node_id, error=error, timed_out=timed_out,
                 state=state)

    def _release_waiters(self, node_id: str) -> list[Ticket]:
        """Queues the nodes that were waiting only for `node_id`; returns the tickets granted."""
        waiters = self.spec.waitlists.get(node_id)
        granted = NO_GRANTS
        if not waiters:
            return granted
        for waiter_id in waiters:
            waiter = self.nodes[waiter_id]
            if waiter.spec.any_input:
                if _has_any_input(waiter.spec, self.results):
                    waiter.pendings.clear()
            else:
                waiter.pendings.discard(node_id)
            if self._is_ready(waiter):
                queued = self._queue(waiter)
                if queued:
                    granted = queued if not granted else granted + queued
        return granted
