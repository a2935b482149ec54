"""The queue of a server among several on one store: the store's queue, and the runs other servers left.

On a store that several servers share (held_store.py), a run a request gives a server is
claimed by that server when it is saved. If one of its slots is free, it starts there at once
(`placing`); it also waits in this server's own queue while fewer runs than it has slots wait there
(its next round, as workers prefetch: a busy server's next runs cost no call to the store); else it
waits in the store's queue (`leave`): its claim is given up, and the first server with a free slot
claims it, whichever server took the request. `--max-queue`
bounds the store's queue: a server refuses a new run with 429 (its Retry-After from the runs in
its slots) while that many wait there. A resumed run, whose answer is this server's to give, waits
in this server's own queue (run_queue.py) as on a server alone. The runs of a server that is gone
(killed, frozen past its lease, or stopped and giving its runs up) are claimed the same way: each
server, while a slot of its own is free and nothing waits in its queue, claims as many as it has
free slots (`claim_left`, each run by exactly one server), at every `poll`, whenever a run of its
own ends, and when another server announces runs left in the store's queue. At each poll it also carries out the cancels asked of its
runs through other servers (a mark on the run's claim), and whether it was asked to drain (`graphrt serve
--drain`): a server that drains claims and takes no more runs (503), finishes those it holds, then stops. Their completed nodes are not run again:
each is continued from its checkpoint, as a restarted server continues its runs.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager

import anyio

from graphrt.base.errors import GraphError, RequestError
from graphrt.serve.held_store import HeldStore
from graphrt.serve.refusals import QueueFull
from graphrt.serve.run_queue import Job, RunQueue

__all__ = ["SharedRunQueue"]

log = logging.getLogger("graphrt.serve")


class SharedRunQueue(RunQueue):
    """A RunQueue that also claims, while its slots are free, the runs other servers left in `held`'s store.

    Args:
        job_of: the job of a run claimed, given the job this server left it in the store's queue with, if it was
            left so and no other server claimed it since (else read back from the store); None: not one this server
            serves (its claim is given up for another server).
        busy: how many runs its workers run now.
        cancel: cancels a run this server holds that another server was asked to cancel (looked for at each poll).
        poll: seconds between two looks for runs left, at most.
    """

    def __init__(self, max_runs: int, max_queue: int, held: HeldStore,
                 job_of: Callable[[str, Job | None], Awaitable[Job | None]], busy: Callable[[], int],
                 cancel: Callable[[str], Awaitable[None]], *, poll: float) -> None:
        super().__init__(max_runs, max_queue)
        self.held = held
        self.job_of = job_of
        self.busy = busy  # runs of this server in its workers
        self.cancel = cancel  # cancels a run this server holds, asked through another server
        self.poll = poll
        self.drained = anyio.Event()  # asked to drain, and done with every run it held
        self._look = anyio.Event()
        self._asked = False  # this server was asked something through the store since the last look
        # Whether runs this server left may wait in the store's queue (since a claim found it empty): then a new run
        # waits there too, behind them, instead of taking a slot that frees before they are claimed (its requests
        # are served in order). Another server's runs there do not hold its own back: each server prefers its own.
        self._store_waiting = False
        self._left: OrderedDict[str, Job] = OrderedDict()  # the jobs of runs this server left in the store's queue
        self._store_seen = (0, float("-inf"))  # how many waited in the store's queue, as last seen, and when

    def look(self, asked: bool = False) -> None:
        """A slot may be free, or runs were left in the store's queue: look for runs now; `asked`: this server was
        asked something (a cancel, a drain), read too (else only at each poll: a run left, announced to every
        server, costs no server more than its claim)."""
        self._asked = self._asked or asked
        self._look.set()

    def runs_left(self) -> None:
        """Runs were left in the store's queue by another server (announced): claimed if a slot is free."""
        self.look()

    async def claim_left(self) -> None:
        """Claims runs that other servers left, while slots are free, until cancelled."""
        polled_at = time.monotonic()
        while True:
            with anyio.move_on_after(self.poll):
                await self._look.wait()
            self._look = anyio.Event()
            polled = time.monotonic() - polled_at >= self.poll  # a poll is due: under load, looks come far more often
            if polled:
                polled_at = time.monotonic()
            if polled or self._asked:
                self._asked = False
                await self._cancels()
                await self._drains()
            if self.held.lease.draining or self._send is None:
                continue
            free = self._free_slots()
            if free > 0:
                self._held += free  # these slots are the claim's: a request meanwhile waits in the store's queue
                try:
                    await self._claim(free)
                finally:
                    self._held -= free
            elif polled:  # no slot free, its own queue full of its own requests: a run that
                await self._claim(self._aged_room(), aged_only=True)  # waited over a second goes behind them

    def _aged_room(self) -> int:
        """How many runs that waited long in the store a server with no free slot takes at a poll: one round of its
        slots, as far as its own queue has room (they wait there behind its own runs, for one round at most)."""
        stats = self._send.statistics()  # type: ignore[union-attr] - open
        return min(self.max_runs, stats.max_buffer_size - stats.current_buffer_used)

    async def _claim(self, free: int, *, aged_only: bool = False) -> None:
        """Claims up to `free` runs left in the store and queues each for its slot (held by the caller meanwhile)."""
        if free <= 0:
            return
        try:
            taken = await self.held.store.claim_left(self.held.server, free, list(self._left), aged_only=aged_only)
            claimed = time.monotonic()
        except GraphError as error:  # the store is down: looked at again at the next poll
            log.warning("runs left by other servers could not be claimed: %s", error)
            return
        if len(taken) < free and not aged_only:
            self._store_waiting = False  # none left for now
        for run_id, token in taken:
            mine = self._left.pop(run_id, None)
            fresh = self.held.took(run_id, claimed, token)
            job = await self._job(run_id, mine if fresh else None)
            if job is None:
                await self.held.release(run_id)
                continue
            if mine is None:
                log.info("continuing run %s, left by another graphrt serve", run_id)
            await self._send.send(job)  # type: ignore[union-attr] - open: the room was counted above

    def _free_slots(self) -> int:
        """Slots no run holds, is queued for, or is being saved for here."""
        return self.max_runs - self.busy() - self.queued - self._held

    def _room_here(self) -> int:
        """Places for new runs here: its slots, and as many runs waiting for them in its own queue (one more round of
        its slots, as workers prefetch: a busy server's next runs need no call to the store)."""
        return 2 * self.max_runs - self.busy() - self.queued - self._held

    @contextmanager
    def placing(self) -> Iterator[bool]:
        """Where a new run goes while it is saved: True, here (a place is held for it: queue it with `put` once saved),
        if a slot is free or fewer runs than slots wait here, and none it left waits in the store's queue; False, it
        waits in the store's queue (`leave` it there once saved, after `check_store_room`)."""
        self.check_room_to_claim()
        here = self._room_here() > 0 and not self._store_waiting
        if here:
            self._held += 1
        try:
            yield here
        finally:
            if here:
                self._held -= 1

    def check_room_to_claim(self) -> None:
        """A 503 while this server drains or stops (it takes no new run); else nothing: the store's queue is
        checked by `check_store_room`."""
        if self.held.lease.draining:
            raise RequestError("this server is draining: it takes no new runs (another server does)", status=503)
        if self._send is None:
            raise RequestError("the server is stopping", status=503)

    async def check_store_room(self) -> None:
        """QueueFull while `max_queue` runs wait in the store's queue: checked before a run is saved for it (a
        run saved and then refused is saved cancelled). Counted in the store unless this server left a run there
        within the last poll and saw fewer than half the bound waiting then (`leave` refuses past it anyway)."""
        count, seen_at = self._store_seen
        if count * 2 < self.max_queue and time.monotonic() - seen_at < self.poll:
            return
        count = await self.held.store.store_queued()
        self._store_seen = (count, time.monotonic())
        if count >= self.max_queue:
            raise QueueFull(self._retry_after())

    async def leave(self, job: Job) -> None:
        """Leaves a saved run in the store's queue, for the first server with a free slot. Its job is kept (as many
        as the queue's bound): if this server claims it back, and no other did meanwhile, it starts from it unread.

        Raises:
            QueueFull: `max_queue` runs wait there (others were left since `check_store_room`).
        """
        run_id = job.run.id
        waiting = await self.held.leave_queued(run_id, self.max_queue)
        self._store_seen = (waiting if waiting is not None else self.max_queue, time.monotonic())
        if waiting is None:
            raise QueueFull(self._retry_after())
        self._store_waiting = True
        self._left[run_id] = job
        while len(self._left) > max(1, self.max_queue):  # those claimed by other servers are never popped
            self._left.popitem(last=False)
        log.debug("run %s waits in the store's queue", run_id)

    async def _drains(self) -> None:
        """Whether this server was asked to drain (graphrt serve --drain): then it claims and takes no more runs,
        and `drained` is set once those it holds are done."""
        if not self.held.lease.draining:
            try:
                self.held.lease.draining = await self.held.store.draining(self.held.server)
            except GraphError as error:
                log.warning("whether this server drains could not be read: %s", error)
                return
            if self.held.lease.draining:
                log.warning("this server drains: it takes no more runs, and stops once its %d run(s) are done",
                            self.busy() + self.queued)
        if self.held.lease.draining and self.busy() == 0 and self.queued == 0:
            self.drained.set()

    def check_room(self) -> None:
        """As RunQueue's (this server's own queue: a resumed run's); a 503 while this server drains."""
        self.check_room_to_claim()
        super().check_room()

    async def _cancels(self) -> None:
        """Carries out the cancels asked of this server's runs through other servers."""
        try:
            asked = await self.held.store.cancels(self.held.server)
        except GraphError as error:
            log.warning("cancels asked through other servers could not be read: %s", error)
            return
        for run_id in asked:
            if run_id in self.held.claimed:
                await self.cancel(run_id)

    async def _job(self, run_id: str, mine: Job | None) -> Job | None:
        try:
            return await self.job_of(run_id, mine)
        except GraphError as error:
            log.warning("run %s, left by another graphrt serve, cannot be read back: %s", run_id, error)
            return None
