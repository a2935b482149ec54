"""The server's runs: a bounded queue, at most `max_runs` at once, every run saved to a checkpoint store.

A run is saved when it is submitted (`save_new_run`), so a queued run survives
the server too; each change of its saved status is made by its `SavedRun`
(graphrt.durable), here as in a run that saves itself as it goes. Workers take
runs from the queue and run them with `arun_checkpointed`, which saves every
completed node. When the server starts, every saved run of a served graph that
was queued or running when the last server stopped (or was killed) goes back in
the queue and continues where its rows leave off: completed nodes are not run again.

Each run, as clients see it, is a ServedRun (served_run.py); what a request is
refused with is in refusals.py.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import anyio
from anyio.abc import ObjectReceiveStream, ObjectSendStream

from graphrt.base.defaults import MAX_QUEUE, MAX_RUNS, RUNS_IN_MEMORY
from graphrt.base.errors import GraphError, GraphInterrupted, RequestError
from graphrt.base.secrets import Redactor
from graphrt.base.states import NodeState, RunStatus
from graphrt.checkpoint import CheckpointTarget, open_store
from graphrt.checkpoint.errors import CheckpointError, LeaseLost, StoreFailed
from graphrt.checkpoint.guard import GuardedStore
from graphrt.checkpoint.records import Delivery, RunRecord
from graphrt.checkpoint.values import decode_value
from graphrt.durable import SavedRun, afork, afrom_checkpoint, arun_checkpointed, save_new_run
from graphrt.engine.graph import Graph
from graphrt.serve.catalog import GraphCatalog, ServedGraph
from graphrt.serve.event_backpressure import DEFAULT_HOLD_LIMIT, EventBackpressure
from graphrt.serve.event_saver import EventSaver
from graphrt.serve.events import DEFAULT_KEPT, DEFAULT_MAX_UNSAVED, EventLog
from graphrt.serve.lease import StoreLease, StoreLeased
from graphrt.serve.refusals import QueueFull, RunConflict, RunNotFound
from graphrt.serve.retention import Retention
from graphrt.serve.served_run import ServedRun
from graphrt.serve.waits import RunTimes, retry_after
from graphrt.serve.webhook_targets import WebhookRefused
from graphrt.serve.webhooks import WebhookSettings, Webhooks

__all__ = ["RunService"]

log = logging.getLogger("graphrt.serve")


@dataclass
class _Job:
    run: ServedRun
    graph: Graph | None  # None: rebuilt from the checkpoint (a resumed or recovered run)
    answer: Any = None
    record: RunRecord | None = None  # a new run's record as submit saved it: the run starts from it, unread


_WRITE_FAILURE_SHOWN = 60.0
"""Seconds /health says the store takes no writes after a run's write failed, unless a write succeeds sooner
(a small write, the lease's, may succeed on a full disk while a run's does not; and a balancer that takes
the 503 sends no runs that could succeed)."""


class RunService:
    """Runs graphs of a catalog: queue, workers, checkpoint store, and the runs' states.

    Use `async with anyio.create_task_group() as tg: await tg.start(service.serve)`;
    cancelling that task group stops the workers and leaves unfinished runs saved
    as running, so the next server continues them.

    The service owns its store while it serves (`lease`, serve/lease.py): `serve` refuses
    to start on a store another server holds, and a service whose lease was taken over
    (it was frozen past its expiry) stops: its workers are cancelled without a write,
    and every request that needs the store is a 503 saying why (`lease_lost`).
    """

    def __init__(self, catalog: GraphCatalog, checkpoint: CheckpointTarget, *, max_runs: int = MAX_RUNS,
                 max_queue: int = MAX_QUEUE, redactor: Redactor | None = None, runs_in_memory: int = RUNS_IN_MEMORY,
                 event_limit: int = DEFAULT_KEPT, retention: Retention | None = None,
                 max_unsaved_events: int = DEFAULT_MAX_UNSAVED, event_hold_limit: float = DEFAULT_HOLD_LIMIT,
                 webhooks: WebhookSettings | None = None,
                 lease: StoreLease | None = None) -> None:
        if max_runs < 1 or max_queue < 0:
            raise ValueError("max_runs must be at least 1 and max_queue at least 0")
        self.catalog = catalog
        self.checkpoint = checkpoint
        self.max_runs = max_runs
        self.max_queue = max_queue
        self.redactor = redactor or Redactor()
        self._runs_in_memory = runs_in_memory  # the store keeps what `retention` leaves
        self._event_limit = event_limit
        self.retention = retention or Retention()
        self._max_unsaved_events = max_unsaved_events  # a run's events waiting for the store before it is held
        self._event_hold_limit = event_hold_limit  # seconds it may be held before it fails
        self.lease = lease or StoreLease()
        self.lease_lost: str | None = None  # why this service stopped: another server took its store over
        self._saver: EventSaver | None = None
        self.webhook_settings = webhooks or WebhookSettings()
        self._webhooks: Webhooks | None = None  # while serving, with a store that keeps webhooks
        self._runs: OrderedDict[str, ServedRun] = OrderedDict()
        self._store: GuardedStore | None = None
        self._send: ObjectSendStream[_Job] | None = None
        self._run_times = RunTimes()  # recent run times per graph, for Retry-After
        self._in_slots: dict[str, tuple[str, float]] = {}  # run id -> (graph, time.monotonic() it took its slot)
        self.running = 0
        self._held = 0  # places in the queue held for runs being saved (submit, fork)
        self.stopping = anyio.Event()

    def shown(self, text: str) -> str:
        """An error's text as clients see it: without credentials, naming files as served, not by server paths."""
        return self.catalog.shown(self.redactor.text(text))

    @property
    def durable_events(self) -> bool:
        """Whether runs' event logs are saved to the store (it is an EventStore): their ids hold across restarts."""
        return self._saver is not None

    @property
    def store(self) -> GuardedStore:
        if self.lease_lost is not None:
            raise StoreFailed(self.lease_lost)
        if self._store is None:
            raise RuntimeError("the run service is not serving")
        return self._store

    # ----- lifecycle -----

    async def serve(self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        opened = open_store(self.checkpoint)
        self._store = GuardedStore(opened)  # a driver's failure is a CheckpointError (503), not a 500
        try:
            await self.lease.take(self._store)  # before anything is recovered: StoreLeased if another holds it
        except BaseException:
            with anyio.CancelScope(shield=True):
                await opened.close()
            self._store = None
            raise
        self._store.before_write = self._fence
        send, receive = anyio.create_memory_object_stream[_Job](self.max_queue)
        self._send = send
        durable = self._store.abilities.events
        if not durable:
            log.warning("%s keeps no event logs: replaying a run's events after a restart gives its state only",
                        self._store.location)
        try:
            async with anyio.create_task_group() as tg, send, receive:
                tg.start_soon(self._keep_lease, tg.cancel_scope)
                if durable:
                    self._saver = EventSaver(self._store, max_unsaved=self._max_unsaved_events)
                    tg.start_soon(self._saver.serve)
                    if self.retention.active:
                        tg.start_soon(self._sweep_forever)
                if self._store.abilities.webhooks:
                    self._webhooks = Webhooks(self._store, self.webhook_settings)
                    await tg.start(self._webhooks.serve)
                elif self.webhook_settings.url:
                    log.warning("%s keeps no webhooks: runs call none", self._store.location)
                for _ in range(self.max_runs):
                    tg.start_soon(self._worker, receive.clone())
                recovered = await self._recover()
                if self._webhooks is not None:
                    await self._webhooks.catch_up(self._maybe_get)
                if recovered:
                    tg.start_soon(self._enqueue_all, recovered)
                task_status.started()
                await anyio.sleep_forever()
        finally:
            self.stopping.set()
            self._send = None
            self._saver = None
            self._webhooks = None
            if self.lease_lost is None:
                await self._drop_lease()
            if opened is not self.checkpoint:
                with anyio.CancelScope(shield=True):
                    await opened.close()
            self._store = None

    async def _keep_lease(self, scope: anyio.CancelScope) -> None:
        """Renews the store's lease while serving; stops the service (`scope`) if another server took it over."""
        await self.lease.keep(self._store, self._lose_lease)
        if self.lease_lost is not None:
            scope.cancel()

    async def _fence(self) -> None:
        """Before each write of a run: the store is still this server's (serve/lease.py's check), else the
        write is refused and the server stops; a server woken from a freeze that outlasted its lease wrote
        the results of its runs in flight into a store another server owned by then."""
        if self.lease_lost is not None:
            raise StoreFailed(self.lease_lost)
        try:
            await self.lease.check(self._store)
        except StoreLeased as error:
            self._lose_lease(self.lease.lost(self._store.location, error.holder))
            raise StoreFailed(self.lease_lost) from None

    def _lose_lease(self, reason: str) -> None:
        if self.lease_lost is not None:  # said once (a write's check and the heartbeat may both find it)
            return
        self.lease_lost = self.shown(f"this server stopped serving: {reason}")  # what every request is told
        log.error("%s", self.lease_lost)
        self.stopping.set()

    async def _drop_lease(self) -> None:
        with anyio.CancelScope(shield=True):
            try:
                await self.lease.drop(self._store)
            except GraphError as error:  # it expires by itself
                log.warning("the store lease could not be given up (it expires in %.0f s): %s",
                            self.lease.seconds, error)

    async def _recover(self) -> list[_Job]:
        """Unfinished runs of served graphs, from the store: back in the queue, or waiting for an answer."""
        jobs = []
        for record in sorted(await self.store.runs(), key=lambda saved: saved.created_at):
            if record.status not in (RunStatus.RUNNING, RunStatus.INTERRUPTED):
                continue
            served = self.catalog.as_started(record)  # the version it started with, whatever the file is now
            if served is None:
                continue
            # A run saved as running was cut off with its server: it goes back in the queue.
            run = await self._from_record(record, served, requeued=record.status == RunStatus.RUNNING)
            self._remember(run)
            if run.status == RunStatus.QUEUED:
                jobs.append(_Job(run, None))
        if jobs:
            log.info("continuing %d saved run(s)", len(jobs))
        return jobs

    async def _enqueue_all(self, jobs: list[_Job]) -> None:
        for job in jobs:
            if self._send is not None:
                await self._send.send(job)

    async def _events_for(self, run_id: str, *, saved: int = 0) -> EventLog:
        """A run's event log: saved to the store as it grows (after the `saved` events it has there already)."""
        if self._saver is None:
            return EventLog(self._event_limit)
        return self._saver.log_for(run_id, self._event_limit, saved + 1)

    async def _from_record(self, record: RunRecord, served: ServedGraph, *, requeued: bool = False) -> ServedRun:
        saved = await self._saver.store.last_event_id(record.run_id) if self._saver is not None else 0
        status = RunStatus.QUEUED if requeued else RunStatus.read(record.status)
        run = ServedRun(record.run_id, served, self.redactor, shown=self.shown, status=status,
                        all_results=record.all_results, created_at=record.created_at or None,
                        event_limit=self._event_limit, events=await self._events_for(record.run_id, saved=saved))
        run.question = record.question
        run.inputs = self.redactor.value(record.injected)
        run.parent = record.parent
        if record.status == RunStatus.FAILED:
            run.error = self.shown(record.detail.get("error") or "") or None
        if record.status == RunStatus.FINISHED:
            run.results = self.redactor.value(record.results)
        await self._restore_nodes(run, record)
        # A run that ended has its whole log saved, ending with its status; one saved by an older server has none.
        run.set_status(run.status, results=run.results, error=run.error, question=run.question,
                       announce=not (saved and run.status in RunStatus.ENDED))
        run.updated_at = record.updated_at or run.created_at  # as saved, not the time it was read back
        if run.status in RunStatus.ENDED:
            run.ended_at = run.updated_at
        return run

    async def _restore_nodes(self, run: ServedRun, record: RunRecord) -> None:
        """What the checkpoint holds of the run's nodes (results, the failed or asking node) and its answers."""
        results = {}
        for row in await self.store.get_rows(record.run_id):
            if row.kind in ("node", "answer") and (row.kind == "answer" or row.key in run.nodes):
                try:
                    value = self.redactor.value(decode_value(row.value or "null"))
                except GraphError:
                    value = None
                if row.kind == "node":
                    results[row.key] = value
                else:
                    run.answers.append({"key": row.key, "answer": value})
        failed = asked = None
        if record.detail.get("node_id") in run.nodes:
            if record.status == RunStatus.FAILED:
                failed = (record.detail["node_id"], record.detail.get("error"))
            elif record.status == RunStatus.INTERRUPTED:
                asked = (record.detail["node_id"], record.question)
        run.ledger.restore(results=results, failed=failed, asked=asked)

    def _remember(self, run: ServedRun) -> None:
        self._runs[run.id] = run
        while len(self._runs) > self._runs_in_memory:
            oldest = next((run_id for run_id, kept in self._runs.items() if kept.status in RunStatus.ENDED), None)
            if oldest is None:
                break
            del self._runs[oldest]

    async def store_problem(self, timeout: float = 2.0) -> str | None:
        """What is wrong with the checkpoint store now (None: it answers); /health says it."""
        if self.lease_lost is not None:
            return self.lease_lost
        if self._store is None:
            return "the run service is not serving"
        with anyio.move_on_after(timeout):
            try:
                await self._store.check()
            except CheckpointError as error:
                return self.redactor.text(str(error))
            failed = self._store.failed_write  # a run's write that failed, none succeeding since
            try:  # a write: a store that reads but takes no writes (a full disk) takes no runs
                await self.lease.take(self._store)
            except StoreLeased as error:
                return self.shown(f"another graphrt serve holds {self._store.location} now ({error.holder})")
            except CheckpointError as error:
                failed = (str(error), time.monotonic())
            if failed is not None and time.monotonic() - failed[1] < _WRITE_FAILURE_SHOWN:
                said = failed[0].removeprefix(f"checkpoint store {self._store.location}: ")
                return self.redactor.text(f"checkpoint store {self._store.location} takes no writes ({said}): "
                                          "a full disk, or one mounted read-only?")
            return None
        return f"checkpoint store {self._store.location} did not answer within {timeout:g} s"

    # ----- requests -----

    def queued(self) -> int:
        return self._send.statistics().current_buffer_used if self._send is not None else 0

    def _room(self) -> int:
        """How many more runs the queue takes now: workers waiting for one, and free places in the queue, less the
        places held for runs being saved (`_holding_place`). Not `running`: a worker between two runs waits for
        none yet, and a run handed to no worker was a bare 500 (with --max-queue 0, under concurrent POSTs)."""
        stats = self._send.statistics()  # type: ignore[union-attr] - checked by the caller
        return stats.tasks_waiting_receive + stats.max_buffer_size - stats.current_buffer_used - self._held

    def _check_room(self) -> None:
        if self._send is None:
            raise RequestError("the server is stopping", status=503)
        if self._room() <= 0:
            raise QueueFull(self._retry_after())

    @contextmanager
    def _holding_place(self) -> Iterator[None]:
        """Holds a place in the queue (if one is free, else QueueFull) while a run is saved, so that the requests
        saving theirs meanwhile do not count on it too."""
        self._check_room()
        self._held += 1
        try:
            yield
        finally:
            self._held -= 1

    async def _queue_saved(self, run: ServedRun, job: _Job) -> None:
        """Queues a run saved by `submit` or `fork`; one refused now (its place was taken meanwhile: a restarted
        server queues its runs again) is saved cancelled, so that no later server runs it."""
        try:
            self._check_room()
        except RequestError:
            try:
                with anyio.CancelScope(shield=True):
                    await self._saved(run).cancel()
            except Exception as error:  # noqa: BLE001 - the refusal is what the client must get
                log.warning("run %s was refused, but could not be saved cancelled: %s", run.id, error)
            raise
        run.set_status(RunStatus.QUEUED)
        self._remember(run)
        self._send.send_nowait(job)  # type: ignore[union-attr] - room was checked, with no wait since

    def _retry_after(self) -> int:
        now = time.monotonic()
        running = [(graph, now - since) for graph, since in list(self._in_slots.values())]
        return retry_after(running, self._run_times, self.queued(), self.max_runs)

    async def submit(self, name: str, inputs: Mapping[str, Any] | None = None, *, all_results: bool = False,
                     webhook: str | None = None) -> ServedRun:
        """Saves and queues a run of graph `name`; `webhook`: a URL of its own to call when it settles (webhooks.py).

        Raises:
            RunNotFound: no such graph. QueueFull: the queue is at its bound.
            GraphError: the graph cannot run, or an input names no static node.
            WebhookRefused: a webhook the server will not call (webhook_targets.py), or none it can keep.
        """
        served = self.catalog.get(name)
        if served is None:
            raise RunNotFound(f"no graph named {name!r}")
        if served.error is not None:
            raise GraphError(f"graph {name!r} cannot run: {served.error}")
        with self._holding_place():
            if webhook is not None:
                if self._webhooks is None:
                    raise WebhookRefused(f"checkpoint store {self.store.location} keeps no webhooks")
                webhook = await self._webhooks.check(webhook)
            graph = served.build(self.catalog.registry, self.catalog.executor, self.catalog.services)
            run_id = uuid.uuid4().hex[:16]
            record = await save_new_run(graph, self.store, run_id, inject=dict(inputs or {}), all_results=all_results)
            if webhook is not None:
                await self._webhooks.subscribe(run_id, webhook)  # type: ignore[union-attr] - checked above
            run = ServedRun(run_id, served, self.redactor, shown=self.shown, all_results=all_results,
                            event_limit=self._event_limit,
                            events=await self._events_for(run_id))
            run.inputs = self.redactor.value(dict(inputs or {}))
        await self._queue_saved(run, _Job(run, graph, record=record))
        return run

    async def get(self, run_id: str) -> ServedRun:
        """A run of this server: one it holds, or one saved in its store (a run of an earlier server).

        Raises:
            RunNotFound: no such run of a served graph.
        """
        run = self._runs.get(run_id)
        if run is not None:
            return run
        if "\x00" in run_id:  # no saved run has one (PostgreSQL's text cannot hold it): not a store failure
            raise RunNotFound(f"no run {run_id!r}")
        record = await self.store.get_run(run_id)
        served = self.catalog.as_started(record) if record is not None else None
        if record is None or served is None:
            raise RunNotFound(f"no run {run_id!r}")
        run = await self._from_record(record, served)
        self._remember(run)
        return run

    async def run_deliveries(self, run_id: str) -> list[Delivery]:
        """The run's webhook subscriptions and deliveries (none when the store keeps no webhooks)."""
        return await self._webhooks.store.run_deliveries(run_id) if self._webhooks is not None else []

    async def _maybe_get(self, run_id: str) -> ServedRun | None:
        try:
            return await self.get(run_id)
        except RunNotFound:  # deleted by retention, or its graph is no longer served
            return None

    async def recent(self, limit: int = 50, offset: int = 0) -> list[dict[str, Any]]:
        """The most recently updated runs of served graphs, newest first, after the first `offset` of the store's.

        Read a page at a time through the store's index (runs_page), never the whole store: a store of
        thousands of runs answers a page as fast as one of ten.
        """
        listed: list[dict[str, Any]] = []
        page = max(limit, 100)
        while len(listed) < limit:
            summaries = await self.store.runs_page(page, offset)
            for summary in summaries:
                name = self.catalog.name_of(summary.graph_file)  # a run of an earlier version of a file too
                if name is None or len(listed) >= limit:
                    continue
                held = self._runs.get(summary.run_id)
                status = held.status if held is not None else RunStatus.read(summary.status)
                listed.append({"id": summary.run_id, "graph": name, "status": status,
                               "created_at": summary.created_at, "updated_at": summary.updated_at,
                               **({"parent": summary.parent} if summary.parent is not None else {})})
            if len(summaries) < page:
                break
            offset += page
        return listed

    async def resume(self, run_id: str, answer: Any) -> ServedRun:
        """Queues an interrupted run again, with the answer to its question.

        Raises:
            RunNotFound: no such run.
            RunConflict: it asks nothing.
            QueueFull: the queue is at its bound.
        """
        run = await self.get(run_id)
        if run.status != RunStatus.INTERRUPTED:
            raise RunConflict(f"run {run_id!r} is {run.status}, not waiting for an answer")
        if answer is None:  # the request's fault, not the run's state
            raise RequestError(f"run {run_id!r} asks {run.question!r}: send an answer that is not null")
        self._check_room()
        for node_id, state in run.nodes.items():
            if state == NodeState.INTERRUPTED:
                run.ledger.answered(node_id, time.time())
                run.answers.append({"key": node_id, "answer": self.redactor.value(answer), "time": time.time()})
        run.set_status(RunStatus.QUEUED)
        self._send.send_nowait(_Job(run, None, answer))  # type: ignore[union-attr]
        return run

    async def fork(self, run_id: str, node: str, values: Mapping[str, Any] | None = None,
                   iteration: int | None = None) -> ServedRun:
        """Saves and queues a fork of a run from `node` (graphrt.durable.fork): what does not depend on it is kept.

        Raises:
            RunNotFound: no such run.
            QueueFull: the queue is at its bound.
            GraphError: an unknown node, a value that cannot be saved, ...
        """
        parent = await self.get(run_id)
        with self._holding_place():
            forked = await afork(self.store, run_id, node=node, values=values, iteration=iteration,
                                 as_started=True,  # the parent's version
                                 agents=self.catalog.registry, executor=self.catalog.executor)
            run = ServedRun(forked.run_id, parent.graph, self.redactor, shown=self.shown,
                            all_results=parent.all_results, event_limit=self._event_limit,
                            events=await self._events_for(forked.run_id))
            run.inputs = self.redactor.value(forked.record.injected)
            run.parent = forked.record.parent
            await self._restore_nodes(run, forked.record)  # the results it keeps
        await self._queue_saved(run, _Job(run, None))  # rebuilt from its checkpoint, as a resume
        return run

    async def cancel(self, run_id: str) -> ServedRun:
        """Cancels a run: a queued or interrupted one at once, a running one by cancelling its agents.

        Raises:
            RunNotFound: no such run.
            RunConflict: it has ended.
        """
        run = await self.get(run_id)
        if run.status in RunStatus.ENDED:
            raise RunConflict(f"run {run_id!r} has {run.status} already")
        run.cancel_requested = True
        if run.status == RunStatus.RUNNING and run.scope is not None:
            run.scope.cancel()
            with anyio.move_on_after(10):
                await run.settled()
            return run
        await self._saved(run).cancel()
        run.set_status(RunStatus.CANCELLED)
        self._settled(run)
        return run

    async def _events_failed(self, run: ServedRun, why: str) -> None:
        """Fails a run stopped because the store could not keep its events: saved failed, never as cancelled."""
        store_said = f" (the store said: {self._saver.failure})" if self._saver and self._saver.failure else ""
        error = self.shown(f"run {run.id!r} was stopped: {why}; checkpoint store {self.store.location} "
                           f"did not keep up with its events{store_said}")
        log.warning("%s", error)
        try:
            with anyio.CancelScope(shield=True):
                await self._saved(run).fail(error)
        except Exception as failure:  # noqa: BLE001 - the store that failed the run may fail this too
            log.warning("could not save that run %s failed: %s", run.id, failure)
        run.set_status(RunStatus.FAILED, error=error)

    # ----- retention -----

    async def sweep(self) -> list[str]:
        """Deletes the runs retention lets go of, from the store and from memory; returns their ids."""
        if self._store is None or not self._store.abilities.events:
            return []
        deleted = await self.retention.sweep(self._store)
        for run_id in deleted:
            held = self._runs.get(run_id)
            if held is not None and held.status in RunStatus.ENDED:
                del self._runs[run_id]
        if deleted:
            log.info("retention: deleted %d ended run(s)", len(deleted))
        return deleted

    async def _sweep_forever(self) -> None:
        while True:
            try:
                await self.sweep()
            except Exception as error:  # noqa: BLE001 - a failed sweep is tried again at the next one
                log.warning("retention: the sweep failed: %s", error)
            await anyio.sleep(self.retention.every)

    # ----- running -----

    async def _worker(self, receive: ObjectReceiveStream[_Job]) -> None:
        async with receive:
            async for job in receive:
                if job.run.cancel_requested:
                    continue
                self.running += 1
                try:
                    await self._execute(job)
                finally:
                    self.running -= 1

    async def _execute(self, job: _Job) -> None:
        run = job.run
        try:
            graph = job.graph
            if graph is None:
                graph, _ = await afrom_checkpoint(self.store, run.id, as_started=True, agents=self.catalog.registry,
                                                  executor=self.catalog.executor, services=self.catalog.services)
        except GraphError as error:
            if not run.cancel_requested:
                run.set_status(RunStatus.FAILED, error=self.shown(str(error)))
                self._settled(run)
            return
        if run.cancel_requested:  # cancelled, still queued, while its checkpoint was read: cancel() saved it so
            return
        started = time.monotonic()
        self._in_slots[run.id] = (run.graph.name, started)
        run.set_status(RunStatus.RUNNING)
        unsaved: list[str] = []  # why the run was stopped: its events could not be saved fast enough

        def events_not_saved(why: str) -> None:
            unsaved.append(why)
            scope.cancel()

        run.events.on_overflow = lambda count: events_not_saved(f"{count} of its events were not saved yet")
        held = EventBackpressure(run.events, hold_limit=self._event_hold_limit,
                                 on_stuck=lambda seconds: events_not_saved(
                                     f"it waited {seconds:g} s for its events to be saved"))
        try:
            with anyio.CancelScope() as scope:
                run.scope = scope
                try:
                    results = await arun_checkpointed(graph, self.store, all_results=run.all_results, run_id=run.id,
                                                     answer=job.answer, subscribe=(run.on_event,), observers=[held],
                                                     new_record=job.record)
                except GraphInterrupted as asked:
                    run.set_status(RunStatus.INTERRUPTED, question=asked.question)
                except LeaseLost:  # the store refused its write (the check made in the write's own transaction)
                    self._lose_lease(f"another graphrt serve took {self.store.location} over while this one did "
                                     f"not renew its lease (frozen, or cut off from the store); the store refused "
                                     f"this server's writes from then on")
                    run.set_status(RunStatus.FAILED, error=self.lease_lost)
                except GraphError as error:
                    run.set_status(RunStatus.FAILED, error=self.shown(str(error)))
                except Exception as error:
                    log.exception("run %s failed", run.id)
                    run.set_status(RunStatus.FAILED, error=self.shown(f"{type(error).__name__}: {error}"))
                else:
                    run.set_status(RunStatus.FINISHED, results=self.redactor.value(results))
            if scope.cancelled_caught and unsaved:
                await self._events_failed(run, unsaved[0])
            elif scope.cancelled_caught:
                await self._cancelled(run)
        except anyio.get_cancelled_exc_class():
            # The server is stopping, not the run: leave it saved as running, for the next server (or, when
            # another took the store over, write nothing: the run is that server's now).
            if self.lease_lost is None:
                try:
                    with anyio.CancelScope(shield=True):
                        await self._saved(run).run_again()
                except Exception:
                    log.exception("could not mark run %s to continue", run.id)
            raise
        finally:
            run.scope = None
            self._in_slots.pop(run.id, None)
            self._run_times.add(run.graph.name, time.monotonic() - started)
        self._settled(run)  # not when the server stopped: the run goes on in the next one

    async def _cancelled(self, run: ServedRun) -> None:
        """Settles a run whose cancel stopped it, as its store says it ended: finished or failed if the durable
        run saved that end before the cancel reached it, else cancelled, saved so now if the cancel came before
        the durable run saved any end (while it claimed the run: the next server would have run it again)."""
        try:
            with anyio.CancelScope(shield=True):
                record = await self.store.get_run(run.id)
                saved = RunStatus.read(record.status) if record is not None else None
                if saved == RunStatus.FINISHED:
                    run.set_status(RunStatus.FINISHED, results=self.redactor.value(record.results))
                    return
                if saved == RunStatus.FAILED:
                    run.set_status(RunStatus.FAILED, error=self.shown(record.detail.get("error") or "") or None)
                    return
                if saved != RunStatus.CANCELLED:
                    await self._saved(run).cancel()
        except CheckpointError as error:  # StoreFailed too
            log.warning("run %s was cancelled, but its store could not say how it ended or save it so: %s",
                        run.id, self.redactor.text(str(error)))
        run.set_status(RunStatus.CANCELLED)

    def _saved(self, run: ServedRun) -> SavedRun:
        """The run as its store keeps it: each change of its saved status is made there (graphrt.durable)."""
        return SavedRun(self.store, run.id, self.redactor)

    def _settled(self, run: ServedRun) -> None:
        """A run settled (ended, or asks a person): its webhooks are called, by their own task."""
        if self._webhooks is not None:
            self._webhooks.settled(run)
