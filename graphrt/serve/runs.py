"""The server's runs: `RunService`, what the HTTP API asks of them (submit, get, list, resume, fork, cancel).

A run is saved when it is submitted (`save_new_run`), so a queued run survives
the server too. The service puts together one piece per job:

    held_store.py   the store while this server holds it: its lease, every run's write fenced; on a store
                    several servers share, this server's place among them and the runs it claims
    run_queue.py    the bounded queue, at most `max_runs` runs at once, Retry-After when full
    shared_queue.py on a shared store, the queue that also claims the runs other servers left
    workers.py      the workers that run queued runs with `arun_checkpointed` (every completed node saved)
    transitions.py  every change of a run's status: saved through graphrt.durable's SavedRun, then shown
    recovery.py     saved runs read back: at start every unfinished one (continued where its rows leave
                    off: completed nodes are not run again), and any a request names
    event_logs.py   each run's event log, saved to the store as it grows when the store keeps them
    retention.py    the ended runs the store keeps; webhooks.py the URLs called when runs settle;
    health.py       what /health says of the store

Each run, as clients see it, is a ServedRun (served_run.py); what a request is
refused with is in refusals.py.
"""

from __future__ import annotations

import logging
import os
import time
import uuid
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

import anyio

from graphrt.base.errors import GraphError, RequestError
from graphrt.base.secrets import Redactor
from graphrt.base.states import NodeState, RunStatus
from graphrt.checkpoint import CheckpointTarget
from graphrt.checkpoint.guard import GuardedStore
from graphrt.checkpoint.records import Delivery, Lease, RunRecord, RunSummary
from graphrt.base.budget import Budget
from graphrt.durable import afork, save_new_run
from graphrt.durable.served import holder_of
from graphrt.observe.meter import UsageSettings
from graphrt.serve.catalog import GraphCatalog, ServedGraph
from graphrt.serve.event_logs import EventLogs
from graphrt.serve.events import EventLog
from graphrt.serve.announcements import Announced
from graphrt.serve.followed_log import FollowedLog
from graphrt.serve.health import store_problem
from graphrt.serve.held_store import HeldStore
from graphrt.serve.lease import StoreLease
from graphrt.serve.recovery import Recovery
from graphrt.serve.refusals import QueueFull, RunConflict, RunNotFound
from graphrt.serve.run_queue import Job, RunQueue
from graphrt.serve.shared_queue import SharedRunQueue
from graphrt.serve.served_run import ServedRun
from graphrt.serve.settings import ServerSettings
from graphrt.serve.transitions import Transitions
from graphrt.serve.webhook_targets import WebhookRefused
from graphrt.serve.webhooks import Webhooks
from graphrt.serve.workers import Workers

__all__ = ["RunService"]

log = logging.getLogger("graphrt.serve")


class RunService:
    """Runs graphs of a catalog: queue, workers, checkpoint store, and the runs' states.

    Use `async with anyio.create_task_group() as tg: await tg.start(service.serve)`;
    cancelling that task group stops the workers and leaves unfinished runs saved
    as running, so the next server continues them.

    The service owns its store while it serves (held_store.py, with its `lease`): `serve`
    refuses to start on a store another server holds, and a service whose lease was taken
    over (it was frozen past its expiry) stops: its workers are cancelled without a write,
    and every request that needs the store is a 503 saying why (`lease_lost`).

    Args:
        settings: its limits and how it keeps runs (ServerSettings; graphrt.base's defaults when not given).
        lease: how it holds its store (default: a StoreLease of `settings.lease_seconds`; graphrt serve gives the
            one it took before listening, so that a second server on the store is refused in one line).
    """

    def __init__(self, catalog: GraphCatalog, checkpoint: CheckpointTarget, settings: ServerSettings | None = None,
                 *, redactor: Redactor | None = None, lease: StoreLease | None = None) -> None:
        self.catalog = catalog
        self.settings = settings = settings or ServerSettings()
        self.redactor = redactor or Redactor()
        self.stopping = anyio.Event()
        self.queue = RunQueue(settings.max_runs, settings.max_queue)
        self.held = HeldStore(checkpoint, lease or StoreLease(settings.lease_seconds), shown=self.shown,
                              on_lost=self.stopping.set)
        self.logs = EventLogs(settings.events_in_memory, settings.max_unsaved_events)
        self.transitions = Transitions(lambda: self.store, self.redactor, self.shown, self._settled)
        self.recovery = Recovery(catalog, self.logs, self.transitions, self.redactor, self.shown)
        self.workers = Workers(self.queue, self.held, self.logs, self.transitions, catalog, redactor=self.redactor,
                               shown=self.shown, hold_limit=settings.event_hold_seconds)
        self._runs: OrderedDict[str, ServedRun] = OrderedDict()  # the runs it shows without reading the store
        self._webhooks: Webhooks | None = None  # while serving, with a store that keeps webhooks
        self._announced: Announced | None = None  # while serving a store several servers share
        self._reading_back: set[str] = set()  # runs claimed from the store's queue, not yet read back to run here

    def shown(self, text: str) -> str:
        """An error's text as clients see it: without credentials, naming files as served, not by server paths."""
        return self.catalog.shown(self.redactor.text(text))

    # ----- what the server's answers read -----

    @property
    def store(self) -> GuardedStore:
        """The checkpoint store while serving (StoreFailed once another server took it over)."""
        return self.held.store

    @property
    def lease(self) -> StoreLease:
        return self.held.lease

    @property
    def lease_lost(self) -> str | None:
        """Why this service stopped: another server took its store over (None while it is its own)."""
        return self.held.lost

    @property
    def durable_events(self) -> bool:
        """Whether runs' event logs are saved to the store (it is an EventStore): their ids hold across restarts."""
        return self.logs.durable

    @property
    def running(self) -> int:
        """Runs a worker has taken and not finished."""
        return self.workers.running

    def queued(self) -> int:
        """Runs waiting for a worker."""
        return self.queue.queued

    def events_of(self, run: ServedRun) -> EventLog | FollowedLog:
        """Where a reader gets the run's events: its log here, or, for a run of a shared store that this server
        does not hold and that has not ended (another server runs it, or will), or whose last events are not saved
        yet (not kept here: `get`), the store's copy as it grows."""
        if self.held.shared and self.logs.durable and not self.runs_here(run) \
                and (run.status not in RunStatus.ENDED or self._runs.get(run.id) is not run):
            return FollowedLog(self.store, run.id, self._announced)
        return run.events

    @property
    def drained(self) -> bool:
        """Asked to drain (graphrt serve --drain), and done with every run it held: the server may stop."""
        return isinstance(self.queue, SharedRunQueue) and self.queue.drained.is_set()

    def server_said(self) -> dict[str, Any]:
        """Which server this is and how many runs it holds (/health): on a store several servers share, its id
        among them and the runs it has claimed; nothing on a store with one owner."""
        if not self.held.shared:
            return {}
        return {"server": self.held.server, "held": len(self.held.claimed), "draining": self.lease.draining}

    async def servers(self) -> list[dict[str, Any]]:
        """The live servers of the store (GET /servers): each one's id, what it says of itself, whether it drains,
        the runs it holds; on a store with one owner, this server and the runs it runs."""
        if not self.held.shared:
            return [{"server": self.lease.owner, "url": self.lease.url, "pid": os.getpid(), "draining": False,
                     "runs": sorted(run.id for run in self._runs.values() if run.status == RunStatus.RUNNING)}]
        listed = []
        for row in await self.store.servers():
            if not row.live:
                continue
            said = holder_of(Lease(row.server, row.holder, row.expires_at))
            listed.append({"server": row.server, **{key: said.get(key) for key in ("pid", "host", "url", "since")},
                           "expires_in": round(row.expires_at - row.now, 3), "draining": row.draining,
                           "runs": list(row.runs)})
        return listed

    async def store_problem(self, timeout: float = 2.0) -> str | None:
        """What is wrong with the checkpoint store now (None: it answers); /health says it."""
        return await store_problem(self.held, self.redactor, self.shown, timeout)

    # ----- lifecycle -----

    async def serve(self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        async with self.held.hold() as store:
            if self.held.shared:  # one server among several: it also claims the runs the others left
                self.queue = self.workers.queue = SharedRunQueue(
                    self.settings.max_runs, self.settings.max_queue, self.held, self._left_job,
                    lambda: self.workers.running, self._cancel_asked, poll=min(1.0, self.settings.lease_seconds / 6))
                self.held.on_run_lost = self._forget
                self._announced = Announced(store, self._claims_announced)
            if not store.abilities.events:
                log.warning("%s keeps no event logs: replaying a run's events after a restart gives its state only",
                            store.location)
            try:
                async with anyio.create_task_group() as tg, self.queue.open():
                    tg.start_soon(self.held.keep, tg.cancel_scope)
                    self.logs.start(store, tg, self.held.lose_run if self.held.shared else None)
                    if self.logs.durable and self.settings.retention.active:
                        tg.start_soon(self.settings.retention.keep_sweeping, self.sweep)
                    if store.abilities.webhooks:
                        self._webhooks = Webhooks(store, self.settings.signed_webhooks, shared=self.held.shared,
                                                  saved=self.held.kept_saved if self.held.shared else None)
                        await tg.start(self._webhooks.serve)
                    elif self.settings.webhooks.url:
                        log.warning("%s keeps no webhooks: runs call none", store.location)
                    self.workers.start(tg)
                    if isinstance(self.queue, SharedRunQueue):
                        tg.start_soon(self.queue.claim_left)
                    if self._announced is not None:
                        tg.start_soon(self._announced.listen)
                    continued = await self._recover(store) if not self.held.shared else []
                    if self._webhooks is not None:
                        await self._webhooks.catch_up(self._maybe_get)
                    if continued:
                        tg.start_soon(self.queue.put_all, continued)
                    task_status.started()
                    await anyio.sleep_forever()
            finally:
                self.stopping.set()
                self.logs.stop()
                self._webhooks = None

    async def _recover(self, store: GuardedStore) -> list[Job]:
        """Unfinished runs of served graphs, from the store: back in the queue, or waiting for an answer."""
        jobs = []
        for run in await self.recovery.unfinished(store):
            self._remember(run)
            if run.status == RunStatus.QUEUED:
                jobs.append(Job(run, None))
        if jobs:
            log.info("continuing %d saved run(s)", len(jobs))
        return jobs

    async def _left_job(self, run_id: str, mine: Job | None = None) -> Job | None:
        """The job of a run left in the store, claimed by this one: `mine`, the job this server left it in the store's
        queue with, untouched since; else read back queued, rebuilt from its checkpoint by its worker (None: gone,
        or of a graph this server does not serve)."""
        if mine is not None:
            self.transitions.queued(mine.run)
            self._remember(mine.run)
            return mine
        self._reading_back.add(run_id)
        try:
            return await self._read_back_left(run_id)
        finally:
            self._reading_back.discard(run_id)

    async def _read_back_left(self, run_id: str) -> Job | None:
        store = self.store
        record = await store.get_run(run_id)
        served = self.catalog.as_started(record) if record is not None else None
        if record is None or served is None:
            return None
        if RunStatus.read(record.status) in RunStatus.ENDED:
            await self._left_ended(store, record, served)
            return None
        if record.status != RunStatus.RUNNING:
            return None
        run = await self.recovery.read_back(store, record, served, requeued=True)
        self._remember(run)
        return Job(run, None)

    async def _left_ended(self, store: GuardedStore, record: RunRecord, served: ServedGraph) -> None:
        """A run that ended on a server that died before it saved all it had to of the run (it held the run's claim
        until then): its status at the end of its log, and its webhook deliveries, are saved now, by this server,
        which holds the claim until they are."""
        run = await self.recovery.read_back(store, record, served)  # held here: its log gets its end if it lacks it
        self._remember(run)
        with anyio.move_on_after(self.workers.hold_limit):
            await run.events.all_saved()
        if self._webhooks is not None and not await self._webhooks.delivered(run):
            log.info("run %s ended on a server that died before saving its webhook deliveries; they are made now",
                     run.id)
            self._settled(run)

    async def _cancel_asked(self, run_id: str) -> None:
        """A cancel of a run this server holds, asked through another server: done as `cancel` does, without waiting
        for the run to settle (the other server waits for the store to say it ended)."""
        run = self._runs.get(run_id)
        if run is None or run.status in RunStatus.ENDED or run.cancel_requested:
            return
        run.cancel_requested = True
        if run.status == RunStatus.RUNNING and run.scope is not None:
            run.scope.cancel()
            return
        try:
            await self.transitions.cancel(run)
        except GraphError as error:
            log.warning("run %s could not be cancelled as another server asked: %s", run_id, error)

    def _claims_announced(self, server: str) -> None:
        """A server was asked something through the store (a cancel, a drain; '': runs were left): this one
        looks at once if it is the one asked."""
        if server == self.held.server:
            self.queue.look(asked=True)
        elif server == "":
            self.queue.runs_left()

    def _forget(self, run_id: str) -> None:
        """A run another server took over: stopped here without a write, and shown as the store says from now on,
        not as this server last saw it. Its events not saved yet are dropped: its new server continues its log after
        what the store holds (and whatever waits for them here goes on)."""
        run = self._runs.pop(run_id, None)
        if run is None:
            return
        run.events.drop_unsaved()
        if run.scope is not None:
            run.scope.cancel()

    # ----- retention -----

    async def sweep(self) -> list[str]:
        """Deletes the runs retention lets go of, from the store and from memory; returns their ids."""
        store = self.held.held
        if store is None or not store.abilities.events:
            return []
        deleted = await self.settings.retention.sweep(store, server=self.held.server if self.held.shared else None)
        for run_id in deleted:
            kept = self._runs.get(run_id)
            if kept is not None and kept.status in RunStatus.ENDED:
                del self._runs[run_id]
        if deleted:
            log.info("retention: deleted %d ended run(s)", len(deleted))
        return deleted

    def _settled(self, run: ServedRun) -> None:
        """A run settled (ended, or asks a person): its webhooks are called, by their own task."""
        if self._webhooks is not None and self._webhooks.settled(run):
            self.held.hold_until_saved(run.id)  # on a shared store, claimed until its deliveries are saved

    # ----- the runs it holds -----

    def _remember(self, run: ServedRun) -> None:
        self._runs[run.id] = run
        while len(self._runs) > self.settings.runs_in_memory:  # the store keeps what retention leaves
            oldest = next((run_id for run_id, kept in self._runs.items() if kept.status in RunStatus.ENDED), None)
            if oldest is None:
                break
            del self._runs[oldest]

    async def _queue_saved(self, run: ServedRun, job: Job, here: bool = True) -> None:
        """Queues a run saved by `submit` or `fork`: here, or, when `placing` found no free slot on a store several
        servers share, in the store's queue, for the first server with one (shown queued, with no event: the server
        that claims it writes its log). One refused now (its place was taken meanwhile: a restarted server queues its
        runs again; others were left in the store's queue) is saved cancelled, so that no later server runs it."""
        try:
            if here:
                try:
                    self.queue.check_room()
                except QueueFull:
                    if not self.held.shared:
                        raise
                    here = False  # its slot went to a run claimed from the store meanwhile: it waits there too
            if not here:
                await self.queue.leave(job)
                return
        except RequestError:
            await self.transitions.refuse(run)
            await self.workers.release(run)
            raise
        self.transitions.queued(run)
        self._remember(run)
        self.queue.put(job)

    # ----- requests -----

    async def submit(self, name: str, inputs: Mapping[str, Any] | None = None, *, all_results: bool = False,
                     webhook: str | None = None, budget: Any = None) -> ServedRun:
        """Saves and queues a run of graph `name`; `webhook`: a URL of its own to call when it settles (webhooks.py);
        `budget`: what it may spend (graphrt.base.budget), within the server's for each run (the config's).

        Raises:
            RunNotFound: no such graph.
            QueueFull: the queue is at its bound.
            GraphError: the graph cannot run, or an input names no static node.
            WebhookRefused: a webhook the server will not call (webhook_targets.py), or none it can keep.
        """
        served = self.catalog.get(name)
        if served is None:
            raise RunNotFound(f"no graph named {name!r}")
        if served.error is not None:
            raise GraphError(f"graph {name!r} cannot run: {served.error}")
        if budget is not None:  # its own, no limit above the server's; saved with it, for its resumes too
            budget = Budget.of(budget, "budget").within(UsageSettings(self.catalog.config).budget)
        with self.queue.placing() as here:
            if not here:
                await self.queue.check_store_room()
            if webhook is not None:
                if self._webhooks is None:
                    raise WebhookRefused(f"checkpoint store {self.store.location} keeps no webhooks")
                webhook = await self._webhooks.check(webhook)
            graph = self.catalog.build(served)
            run_id = uuid.uuid4().hex[:16]
            await self.held.claim(run_id)  # a store several servers share: this server's run from the start
            record = await save_new_run(graph, self.store, run_id, inject=dict(inputs or {}), all_results=all_results,
                                        budget=budget)
            if webhook is not None:
                await self._webhooks.subscribe(run_id, webhook)  # type: ignore[union-attr] - checked above
            run = ServedRun(run_id, served, self.redactor, shown=self.shown, all_results=all_results,
                            events=self.logs.log_for(run_id))
            run.inputs = run.redactor.value(dict(inputs or {}))
        await self._queue_saved(run, Job(run, graph, record=record, budget=budget), here)
        return run

    async def get(self, run_id: str) -> ServedRun:
        """A run of this server: one it holds, or one saved in its store (a run of an earlier server).

        Raises:
            RunNotFound: no such run of a served graph.
        """
        run = self._runs.get(run_id)
        if run is not None and (not self.held.shared or run_id in self.held.claimed or run.status in RunStatus.ENDED):
            return run
        if "\x00" in run_id:  # no saved run has one (PostgreSQL's text cannot hold it): not a store failure
            raise RunNotFound(f"no run {run_id!r}")
        store = self.store
        record = await store.get_run(run_id)
        served = self.catalog.as_started(record) if record is not None else None
        if record is None or served is None:
            raise RunNotFound(f"no run {run_id!r}")
        # Claimed here from the store's queue and being read back to run: that read shows it, and writes its log.
        held = not self.held.shared or (run_id in self.held.claimed and run_id not in self._reading_back)
        waits = not held and record.status == RunStatus.RUNNING and bool(await store.in_store_queue([run_id]))
        run = await self.recovery.read_back(store, record, served, held=held, requeued=waits)
        # On a shared store, another server may change a run that has not ended meanwhile, and one that ended may
        # not have its status saved in its log yet (its server saves it after its end): such a run is read again.
        # (Its log goes on after the records the store held when it was read back: those must end with its end.)
        if not self.held.shared or (run.status in RunStatus.ENDED
                                    and await self.logs.ends_saved(run_id, run.events.last_id)):
            self._remember(run)
        return run

    def runs_here(self, run: ServedRun) -> bool:
        """Whether this server runs the run (or will: it is in its own queue), so that `run` is the one that changes:
        always on a store with one owner; on a shared store, a run it holds."""
        return not self.held.shared or (run.id in self.held.claimed and self._runs.get(run.id) is run)

    async def settled(self, run: ServedRun) -> ServedRun:
        """The run once it ended or asks a question, wherever it runs (what `?wait=true`, the OpenAI-compatible
        endpoint and MCP answer with). This server's own run is awaited; one another server runs, or that waits in
        the store's queue (which may give it to this server), is read again from the store whenever its events are
        announced saved (or every 5 s; every 0.5 s on a store that announces nothing)."""
        if not self.held.shared:
            await run.settled()
            return run
        while True:
            kept = self._runs.get(run.id)
            if kept is not None and self.runs_here(kept):
                await kept.settled()
                return kept
            announced = self._announced
            changed = announced.changed(run.id) if announced is not None and announced.live else None
            if run.id not in self.held.claimed:  # being read back here after a claim: its events will say so
                record = await self.store.get_run(run.id)  # its status alone, until it settled: then the whole run
                if record is None or RunStatus.read(record.status) in RunStatus.SETTLED:
                    if announced is not None:
                        announced.forget(run.id)
                    return await self.get(run.id)
            if changed is None:
                await anyio.sleep(0.5)
            else:
                with anyio.move_on_after(5.0):
                    await changed.wait()

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
            waiting = await self._waiting_in_store(summaries)
            for summary in summaries:
                name = self.catalog.name_of(summary.graph_file)  # a run of an earlier version of a file too
                if name is None or len(listed) >= limit:
                    continue
                held = self._runs.get(summary.run_id)
                if held is not None and self.held.shared and summary.run_id not in self.held.claimed \
                        and held.status not in RunStatus.ENDED:  # another server may have changed it since
                    held = None
                status = held.status if held is not None else \
                    RunStatus.QUEUED if summary.run_id in waiting else RunStatus.read(summary.status)
                listed.append({"id": summary.run_id, "graph": name, "status": status,
                               "created_at": summary.created_at, "updated_at": summary.updated_at,
                               **({"parent": summary.parent} if summary.parent is not None else {})})
            if len(summaries) < page:
                break
            offset += page
        return listed

    async def _waiting_in_store(self, summaries: list[RunSummary]) -> set[str]:
        """Which of the listed runs, saved running and held by no server here, wait in the store's queue (shown
        queued, as `get` shows them)."""
        if not self.held.shared:
            return set()
        running = [summary.run_id for summary in summaries
                   if summary.status == RunStatus.RUNNING and summary.run_id not in self.held.claimed]
        return await self.store.in_store_queue(running) if running else set()

    async def resume(self, run_id: str, answer: Any) -> ServedRun:
        """Queues an interrupted run again, with the answer to its question.

        Raises:
            RunNotFound: no such run.
            RunConflict: it asks nothing.
            QueueFull: the queue is at its bound.
        """
        if self.held.shared:  # claimed first: what it says after is this server's to change
            if "\x00" in run_id:
                raise RunNotFound(f"no run {run_id!r}")
            if not await self.held.claim(run_id):
                raise RunConflict(f"run {run_id!r} is being resumed by another graphrt serve")
            if run_id not in self.held.fresh:  # another server had it since this one: what it shows may be old
                self._runs.pop(run_id, None)
        try:
            run = await self.get(run_id)
            if run.status != RunStatus.INTERRUPTED:
                raise RunConflict(f"run {run_id!r} is {run.status}, not waiting for an answer")
            if answer is None:  # the request's fault, not the run's state
                raise RequestError(f"run {run_id!r} asks {run.question!r}: send an answer that is not null")
            self.queue.check_room()
        except BaseException:
            await self.held.release(run_id)
            raise
        self._remember(run)
        for node_id, state in run.nodes.items():
            if state == NodeState.INTERRUPTED:
                run.ledger.answered(node_id, time.time())
                run.answers.append({"key": node_id, "answer": run.redactor.value(answer), "time": time.time()})
        self.transitions.queued(run)
        self.queue.put(Job(run, None, answer))
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
        with self.queue.placing() as here:
            if not here:
                await self.queue.check_store_room()
            store = self.store
            forked = await afork(store, run_id, node=node, values=values, iteration=iteration,
                                 as_started=True,  # the parent's version
                                 agents=self.catalog.registry, executor=self.catalog.executor,
                                 config=self.catalog.continued_config)
            run = ServedRun(forked.run_id, parent.graph, self.redactor, shown=self.shown,
                            all_results=parent.all_results, events=self.logs.log_for(forked.run_id))
            run.inputs = run.redactor.value(forked.record.injected)
            run.parent = forked.record.parent
            await self.recovery.restore_nodes(store, run, forked.record)  # the results it keeps
            await self.held.claim(forked.run_id)
        await self._queue_saved(run, Job(run, None), here)  # rebuilt from its checkpoint, as a resume
        return run

    async def _cancel_there(self, run_id: str) -> ServedRun:
        """Asks the server that holds the run to cancel it (it looks at each poll), and shows the run as the store
        says once it ended there, or after 10 s, as a cancel here waits."""
        store = self.store
        if not await store.ask_cancel(run_id):
            raise RunConflict(f"run {run_id!r} is held by no server now; ask again")
        announced = self._announced
        with anyio.move_on_after(10):
            while True:
                changed = announced.changed(run_id) if announced is not None and announced.live else None
                record = await store.get_run(run_id)
                if record is None or RunStatus.read(record.status) in RunStatus.ENDED:
                    break
                if changed is None:
                    await anyio.sleep(0.1)  # the other server's doing, announced nowhere
                else:
                    with anyio.move_on_after(1.0):  # its end is announced with its last events
                        await changed.wait()
        if announced is not None:
            announced.forget(run_id)
        self._runs.pop(run_id, None)
        return await self.get(run_id)

    async def cancel(self, run_id: str) -> ServedRun:
        """Cancels a run: a queued or interrupted one at once, a running one by cancelling its agents.

        Raises:
            RunNotFound: no such run.
            RunConflict: it has ended.
        """
        run = await self.get(run_id)
        if run.status in RunStatus.ENDED:
            raise RunConflict(f"run {run_id!r} has {run.status} already")
        if self.held.shared and run_id not in self.held.claimed:  # not this server's: it may be no one's
            if not await self.held.claim(run_id):  # another server runs it: it is asked to cancel it
                return await self._cancel_there(run_id)
            try:
                self._runs.pop(run_id, None)
                run = await self.get(run_id)
                if run.status in RunStatus.ENDED:
                    raise RunConflict(f"run {run_id!r} has {run.status} already")
                await self.transitions.cancel(run)
                self._remember(run)
                await self.workers.release(run)
                return run
            finally:
                await self.held.release(run_id)  # (given up already, unless it failed)
        run.cancel_requested = True
        if run.status == RunStatus.RUNNING and run.scope is not None:
            run.scope.cancel()
            with anyio.move_on_after(10):
                await run.settled()
            return run
        await self.transitions.cancel(run)
        return run
