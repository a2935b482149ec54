"""Where an agent call runs: the seam between the engine and an executor.

The engine decides *when* a node runs (readiness, the scheduler's limits,
retries, timeouts); an executor decides *where* its agent call runs. The
default is this process: a run without an executor calls `call_in_process`
(graphrt.engine.node) directly and pays nothing for the seam. An executor
(graphrt.executors, e.g. Ray) receives each agent call after the node's filters,
and may run it elsewhere; the node keeps graph agents (nestedAgent, mapAgent: the
orchestration) and agents whose function info says `runs_local` in this process
(`must_stay_local`).

Because every call still goes through the one scheduler in this process, the
graph's `concurrency` limits (global and per label) bound the calls in flight
on the whole cluster, and timeouts, retries and checkpoints work unchanged.

A run borrows its graph's executor: the executor's maker opens and closes it,
once each, and a run only calls it and says when it has ended (`Executor`). The
run names it by the port `AgentCalls` (graphrt.engine.context), as an Executor
also runs whole Graphs and so sits above them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import anyio

from graphrt.authoring.agent_info import AgentContext
from graphrt.base.errors import GraphError
from graphrt.engine.node import call_in_process

if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import TracebackType

    from graphrt.engine.graph import Graph
    from graphrt.engine.options import RunOptions

__all__ = ["Executor", "ExecutorError"]


class ExecutorError(GraphError):
    """An executor cannot be made: an unknown name, a bad address, or its packages are not installed."""


class Executor:
    """Runs agent calls somewhere else; a base class for executors, which declares all an executor does.

    Its lifetime is its maker's: whoever made it opens it once, before lending it,
    and closes it once, when done (`async with executor:`): the command of
    `--executor`, `graphrt.run` or `graphrt.batch` given a name, your code for an
    Executor it made. Runs, batches and a server's runs borrow it: they call
    `call`, `run_whole`, `run_wholes`, `whole_run_slots` and `run_ended`, and never
    open or close it. One used before its maker opened it may open itself (Ray
    connects on first use); its maker still closes it. Open, the runs and close may
    each have an event loop of their own (a command runs one per run), so nothing
    an executor keeps may be bound to one loop.

    `call` must behave as `call_in_process`: return the agent's result or raise its
    exception (a GraphError subclass where the agent raised one), and stop the
    remote work when cancelled.
    """

    name = "in-process"
    # How `--executor` finds the class (graphrt.executors): the names of its entry points in the group
    # `graphrt.executors`, written NAME or NAME://ADDRESS; and what to pip install for it ("graphrt[ray]").
    schemes: tuple[str, ...] = ()
    extra: str | None = None
    # Whole runs `run_wholes` is best given at once (a batch takes that many rows together): Ray sends them
    # in one task, so that the cluster's cost of a task is paid once for them.
    rows_per_task: int = 1

    @classmethod
    def from_target(cls, target: str, *, address: str | None = None, **options: Any) -> "Executor":
        """The executor `--executor TARGET [--address ADDRESS]` names; an executor that takes an address overrides it.

        Raises:
            ExecutorError: the target or address is not one this executor takes.
        """
        if "://" in target or address is not None:
            raise ExecutorError(f"the {target.partition('://')[0]} executor takes no address")
        return cls(**options)

    @property
    def location(self) -> str:
        """Where the calls run, as a person may see it (no credentials)."""
        return "this process"

    # ----- its maker's: once each -----

    async def open(self) -> None:
        """Connects to whatever runs the calls; its maker calls it once, before lending it (a run never does)."""

    async def close(self) -> None:
        """Releases all that `open` and the calls took (a cluster it started, its workers); once, by its maker."""

    async def __aenter__(self) -> "Executor":
        await self.open()
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        traceback: "TracebackType | None") -> None:
        with anyio.CancelScope(shield=True):  # closed however its maker's work ended, a cancellation included
            await self.close()

    # ----- its borrowers': runs, batches -----

    async def call(self, call: Any, ctx: AgentContext) -> Any:
        """Runs one agent call (after the node's filters) where this executor runs things; its result."""
        return await call_in_process(call, ctx)

    def run_ended(self, run_id: str) -> None:
        """A run that borrowed this executor has ended, however it ended: lets go of what its calls left here.

        Ray lets go of the run's values in the object store; the executor stays open for the next run.
        """

    def whole_run_slots(self) -> int | None:
        """How many whole runs at once keep this executor's workers busy (None: no opinion; a batch runs 8)."""
        return None

    async def run_whole(self, graph: "Graph", options: "RunOptions") -> dict[str, Any]:
        """Runs one whole run of `graph` where this executor runs things (a batch's row); returns its results.

        An executor of a cluster overrides it to run the whole run there (Ray: one task), so that
        a driver schedules runs, not agent calls. This one runs it in this process, with its agent
        calls on this executor. It raises what `Graph.arun` raises, and calls `options.on_usage` as it
        does: an override, wherever the run ran, calls it here with what the run spent.
        """
        return await graph.replace(executor=self).arun(options)

    async def run_wholes(self, graph: "Graph", options: "Sequence[RunOptions]") -> "list[dict[str, Any] | GraphError]":
        """Several whole runs of `graph`, given together; each one's results or its GraphError, in order.

        This one runs them one after another through `run_whole`; Ray runs them in one task.
        It raises a GraphError only when the runs could not be run at all.
        """
        ended: list[dict[str, Any] | GraphError] = []
        for one in options:
            try:
                ended.append(await self.run_whole(graph, one))
            except GraphError as error:
                ended.append(error)
        return ended
