"""The workers of a server: `max_runs` tasks, each running the queued runs it claims, one at a time.

A worker runs a job with graphrt.durable's `arun_checkpointed`, which saves every
completed node and how the run ends; a job without a Graph (a resumed, forked or
recovered run) is rebuilt from its checkpoint first. The run's events go to its
ServedRun (its log, its ledger, its watchers), and the run is held while its store
has not saved them (event_backpressure.py). How it ends is shown through
transitions.py, which saves what serve decides: a cancel that stopped it, a run
failed because its store did not keep up with its events, a run left for the next
server when this one stops (cancelled from outside: the run goes on there).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import anyio

from graphrt.base.defaults import EVENT_HOLD_SECONDS
from graphrt.base.errors import BudgetExceeded, GraphError, GraphInterrupted
from graphrt.base.secrets import Redactor
from graphrt.base.states import RunStatus
from graphrt.checkpoint.errors import LeaseLost, RunTaken
from graphrt.durable import afrom_checkpoint, arun_checkpointed
from graphrt.engine.graph import Graph
from graphrt.serve.catalog import GraphCatalog
from graphrt.serve.event_backpressure import EventBackpressure
from graphrt.serve.event_logs import EventLogs
from graphrt.serve.held_store import HeldStore
from graphrt.serve.run_queue import Job, RunQueue
from graphrt.serve.served_run import ServedRun
from graphrt.serve.transitions import Transitions

__all__ = ["Workers"]

log = logging.getLogger("graphrt.serve")

_LOOK_SECONDS = 1.0
"""How often a run's end, waiting for its events to be saved, looks whether they still can be."""


class Workers:
    """Runs the jobs of `queue` with the graphs of `catalog`, saved to `held`'s store.

    Args:
        hold_limit: seconds a run may wait for its events to be saved before it fails.
    """

    def __init__(self, queue: RunQueue, held: HeldStore, logs: EventLogs, transitions: Transitions,
                 catalog: GraphCatalog, *, redactor: Redactor, shown: Callable[[str], str],
                 hold_limit: float = EVENT_HOLD_SECONDS) -> None:
        self.queue = queue
        self.held = held
        self.logs = logs
        self.transitions = transitions
        self.catalog = catalog
        self.redactor = redactor
        self.shown = shown
        self.hold_limit = hold_limit
        self.running = 0  # workers busy with a job

    def start(self, tg: anyio.abc.TaskGroup) -> None:
        """Starts one worker per slot in `tg`."""
        for _ in range(self.queue.max_runs):
            tg.start_soon(self._work)

    async def _work(self) -> None:
        async with self.queue.claims() as claims:
            async for job in claims:
                if not job.run.cancel_requested:
                    self.running += 1
                    try:
                        await self._execute(job)
                    finally:
                        self.running -= 1
                await self.release(job.run)
                self.queue.look()

    async def release(self, run: ServedRun) -> None:
        """Gives a shared store's claim of the run up (it ended, asks a person, or was cancelled) once its events
        are saved; a store that does not save them in time leaves the claim to this server's leaving."""
        if not self.held.shared or run.id not in self.held.claimed:
            return
        with anyio.move_on_after(self.hold_limit) as waited:
            await run.events.all_saved()
        if waited.cancelled_caught:
            log.warning("run %s: its events were not saved within %g s; its claim is kept until this server "
                        "stops", run.id, self.hold_limit)
            return
        await self.held.release(run.id)

    async def _execute(self, job: Job) -> None:
        run = job.run
        try:
            graph = job.graph
            if graph is None:
                graph, _ = await afrom_checkpoint(self.held.store, run.id, as_started=True,
                                                  agents=self.catalog.registry, executor=self.catalog.executor,
                                                  services=self.catalog.services,
                                                  config=self.catalog.continued_config)
        except GraphError as error:
            if not run.cancel_requested:  # not saved: the next server tries it again
                self.transitions.ran(run, RunStatus.FAILED, error=run.shown(str(error)))
            return
        if run.cancel_requested:  # cancelled, still queued, while its checkpoint was read: cancel() saved it so
            return
        with self.queue.in_slot(run):
            self.transitions.running(run)
            try:
                await self._run(job, graph)
            except anyio.get_cancelled_exc_class():
                # The server is stopping, not the run: leave it saved as running, for the next server (or, when
                # another took the store over, write nothing: the run is that server's now).
                if self.held.lost is None and run.id not in self.held.lost_runs:
                    await self.transitions.leave(run)
                raise
            finally:
                run.scope = None

    async def _run(self, job: Job, graph: Graph) -> None:
        """Runs one job in its slot, and shows how it ended."""
        run = job.run
        unsaved: list[str] = []  # why the run was stopped: its events could not be saved fast enough

        def events_not_saved(why: str) -> None:
            unsaved.append(why)
            scope.cancel()

        run.events.on_overflow = lambda count: events_not_saved(f"{count} of its events were not saved yet")
        held = EventBackpressure(run.events, hold_limit=self.hold_limit,
                                 on_stuck=lambda seconds: events_not_saved(
                                     f"it waited {seconds:g} s for its events to be saved"))
        with anyio.CancelScope() as scope:
            run.scope = scope
            try:
                results = await arun_checkpointed(graph, self.held.store, all_results=run.all_results,
                                                  run_id=run.id, answer=job.answer, subscribe=(run.on_event,),
                                                  observers=[held], new_record=job.record, budget=job.budget,
                                                  before_end=lambda: self._events_saved(run))
            except RunTaken as taken:
                if not self.held.shared:
                    self.transitions.ran(run, RunStatus.FAILED, error=run.shown(str(taken)))
                    return
                # Claimed from a server that is gone to the store but whose process still runs it (frozen): left
                # for a later claim, once that process ended or was cut off.
                await self.held.release(run.id)
                self.held.lose_run(run.id)
                return
            except GraphInterrupted as asked:
                self.transitions.ran(run, RunStatus.INTERRUPTED, question=asked.question)
            except LeaseLost:  # the store refused its write (the check made in the write's own transaction)
                if self.held.shared:  # another server took this run over: the run is lost, not the store
                    self.held.lose_run(run.id)
                    return
                store = self.held.store
                self.held.lose(f"another graphrt serve took {store.location} over while this one did not renew "
                               f"its lease (frozen, or cut off from the store); the store refused this server's "
                               f"writes from then on")
                self.transitions.ran(run, RunStatus.FAILED, error=self.held.lost)
            except BudgetExceeded as stopped:  # which budget stopped it, beside the error's text
                self.transitions.ran(run, RunStatus.FAILED, error=run.shown(str(stopped)), budget=stopped.to_dict())
            except GraphError as error:
                self.transitions.ran(run, RunStatus.FAILED, error=run.shown(str(error)))
            except Exception as error:
                log.exception("run %s failed", run.id)
                self.transitions.ran(run, RunStatus.FAILED, error=run.shown(f"{type(error).__name__}: {error}"))
            else:
                self.transitions.ran(run, RunStatus.FINISHED, results=run.redactor.value(results))
        if run.id in self.held.lost_runs:  # another server's now: nothing more is written here
            return
        if scope.cancelled_caught and unsaved:
            await self._events_failed(run, unsaved[0])
        elif scope.cancelled_caught:
            await self.transitions.cancelled(run)

    async def _events_saved(self, run: ServedRun) -> None:
        """Before a run's end is saved: its events so far, so that its log in the store is whole whenever its end
        is there (a server killed between the two leaves the run running, for the next to end, log and all). The end
        is not held back longer than `hold_limit`, nor once the events cannot be saved: the store fails or was taken
        over, the run was, or the server stops (it is waited on shielded, in the run's end)."""
        with anyio.move_on_after(self.hold_limit):
            while run.events.unsaved_count and self.logs.saving and self.held.lost is None \
                    and run.id not in self.held.lost_runs:
                with anyio.move_on_after(_LOOK_SECONDS):
                    await run.events.all_saved()

    async def _events_failed(self, run: ServedRun, why: str) -> None:
        """Fails a run stopped because the store could not keep its events: saved failed, never as cancelled."""
        store_said = f" (the store said: {self.logs.failure})" if self.logs.failure else ""
        error = run.shown(f"run {run.id!r} was stopped: {why}; checkpoint store {self.held.store.location} "
                           f"did not keep up with its events{store_said}")
        log.warning("%s", error)
        await self.transitions.fail(run, error)
