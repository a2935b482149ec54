"""The runs of one server waiting for a slot: at most `max_queue` of them, for `max_runs` slots.

A run is saved before it is queued (runs.py), so the queue keeps nothing a restart
needs: a server that starts queues again every saved run that was queued or
running (recovery.py). Each worker claims queued runs one at a time (`claims`); a
request that finds no room is refused with QueueFull, whose Retry-After comes from
the runs in the slots (waits.py).

This queue is this process's own. On a store several servers share, SharedRunQueue
(shared_queue.py) takes its place with the same methods, and places a new run that finds
no free slot in the store's queue instead (`placing`, `check_store_room`, `leave`).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import Any

import anyio
from anyio.abc import ObjectReceiveStream, ObjectSendStream

from graphrt.base.errors import RequestError
from graphrt.checkpoint.records import RunRecord
from graphrt.engine.graph import Graph
from graphrt.serve.refusals import QueueFull
from graphrt.serve.served_run import ServedRun
from graphrt.serve.waits import RunTimes, retry_after

__all__ = ["Job", "RunQueue"]


@dataclass
class Job:
    """A queued run, and what its worker starts it from."""

    run: ServedRun
    graph: Graph | None  # None: rebuilt from the checkpoint (a resumed, forked or recovered run)
    answer: Any = None  # a resumed run's answer to its question
    record: RunRecord | None = None  # a new run's record as submit saved it: the run starts from it, unread
    budget: Any = None  # a new run's own budget (graphrt.base.budget); a saved run's is in its saved config


class RunQueue:
    """The queue and its slots: `open()` while serving; `put` a job, workers take theirs from `claims()`."""

    def __init__(self, max_runs: int, max_queue: int) -> None:
        self.max_runs = max_runs
        self.max_queue = max_queue
        self._send: ObjectSendStream[Job] | None = None
        self._receive: ObjectReceiveStream[Job] | None = None
        self._held = 0  # places in the queue held for runs being saved (submit, fork)
        self._run_times = RunTimes()  # recent run times per graph, for Retry-After
        self._in_slots: dict[str, tuple[str, float]] = {}  # run id -> (graph, time.monotonic() it took its slot)

    @asynccontextmanager
    async def open(self) -> AsyncIterator[None]:
        """The queue while the server serves; closed after, when nothing more is queued."""
        send, receive = anyio.create_memory_object_stream[Job](self.max_queue)
        self._send, self._receive = send, receive
        try:
            async with send, receive:
                yield
        finally:
            self._send = self._receive = None

    # ----- putting runs in -----

    @property
    def queued(self) -> int:
        """Runs waiting for a slot."""
        return self._send.statistics().current_buffer_used if self._send is not None else 0

    def _room(self) -> int:
        """How many more runs the queue takes now: workers waiting for one, and free places in the queue, less the
        places held for runs being saved (`holding_place`). Not the runs in slots: a worker between two runs waits
        for none yet, and a run handed to no worker was a bare 500 (with --max-queue 0, under concurrent POSTs)."""
        stats = self._send.statistics()  # type: ignore[union-attr] - checked by the caller
        return stats.tasks_waiting_receive + stats.max_buffer_size - stats.current_buffer_used - self._held

    def check_room(self) -> None:
        """Raises QueueFull (with its Retry-After) when the queue takes no run now, a 503 when it is closed."""
        if self._send is None:
            raise RequestError("the server is stopping", status=503)
        if self._room() <= 0:
            raise QueueFull(self._retry_after())

    @contextmanager
    def holding_place(self) -> Iterator[None]:
        """Holds a place in the queue (if one is free, else QueueFull) while a run is saved, so that the requests
        saving theirs meanwhile do not count on it too."""
        self.check_room()
        self._held += 1
        try:
            yield
        finally:
            self._held -= 1

    @contextmanager
    def placing(self) -> Iterator[bool]:
        """Where a new run goes while it is saved: here, always (True), with a place held in this queue. A queue
        that shares a store's (shared_queue.py) may say False: the run is to wait in the store's queue."""
        with self.holding_place():
            yield True

    async def check_store_room(self) -> None:
        """Before a run is saved for the store's queue: nothing to check for a queue of this process alone, whose
        runs are all placed here."""

    async def leave(self, job: Job) -> None:
        """Leaves a saved run in the store's queue: never asked of a queue of this process alone (`placing` places
        every run here)."""
        raise RequestError(f"run {job.run.id!r} cannot wait in the store's queue: this server's store has none",
                           status=500)

    def put(self, job: Job) -> None:
        """Queues a job; `check_room` said there was room, with no wait since."""
        self._send.send_nowait(job)  # type: ignore[union-attr]

    async def put_all(self, jobs: list[Job]) -> None:
        """Queues the runs a server continues at start, each as soon as there is room (no refusal: they are saved)."""
        for job in jobs:
            if self._send is not None:
                await self._send.send(job)

    # ----- taking them -----

    def runs_left(self) -> None:
        """Runs were left in the store for any server: nothing to do for a queue of this process alone."""

    def look(self, asked: bool = False) -> None:
        """A slot was given back (or, `asked`, this server was asked something through its store): nothing to do
        for a queue of this process alone (a shared one looks for runs left in the store: shared_queue.py)."""

    def claims(self) -> ObjectReceiveStream[Job]:
        """What one worker takes its runs from, one at a time (`async with queue.claims() as claims:`)."""
        return self._receive.clone()  # type: ignore[union-attr] - while open

    @contextmanager
    def in_slot(self, run: ServedRun) -> Iterator[None]:
        """The run holds a slot: how long it holds it tells the Retry-After of the requests refused meanwhile."""
        started = time.monotonic()
        self._in_slots[run.id] = (run.graph.name, started)
        try:
            yield
        finally:
            self._in_slots.pop(run.id, None)
            self._run_times.add(run.graph.name, time.monotonic() - started)

    def _retry_after(self) -> int:
        now = time.monotonic()
        running = [(graph, now - since) for graph, since in list(self._in_slots.values())]
        return retry_after(running, self._run_times, self.queued, self.max_runs)
