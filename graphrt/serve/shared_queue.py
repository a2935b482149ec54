"""The queue of a server among several on one store: its own runs, and the runs other servers left.

On a store that several servers share (held_store.py), a run a request gives a server is
claimed by that server when it is saved, and queued here as on a server of its own
(run_queue.py: the same bound, the same Retry-After): the load balancer in front spreads
the requests, and a server whose queue is full refuses with 429 as one alone does. The runs
of a server that is gone (killed, frozen past its lease, or stopped and giving its runs up)
are claimed by the others: each server, while a slot of its own is free and nothing waits in
its queue, claims as many as it has free slots (`claim_left`, each run by exactly one server),
at every `poll` and whenever a run of its own ends. At each poll it also carries out the cancels asked of its
runs through other servers (a mark on the run's claim), and whether it was asked to drain (`graphrt serve
--drain`): a server that drains claims and takes no more runs (503), finishes those it holds, then stops. Their completed nodes are not run again:
each is continued from its checkpoint, as a restarted server continues its runs.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable

import anyio

from graphrt.base.errors import GraphError, RequestError
from graphrt.serve.held_store import HeldStore
from graphrt.serve.run_queue import Job, RunQueue

__all__ = ["SharedRunQueue"]

log = logging.getLogger("graphrt.serve")


class SharedRunQueue(RunQueue):
    """A RunQueue that also claims, while its slots are free, the runs other servers left in `held`'s store.

    Args:
        job_of: the job of a run claimed (read back from the store); None: not one this server serves (its claim
            is given up for another server).
        busy: how many runs its workers run now.
        cancel: cancels a run this server holds that another server was asked to cancel (looked for at each poll).
        poll: seconds between two looks for runs left, at most.
    """

    def __init__(self, max_runs: int, max_queue: int, held: HeldStore,
                 job_of: Callable[[str], Awaitable[Job | None]], busy: Callable[[], int],
                 cancel: Callable[[str], Awaitable[None]], *, poll: float) -> None:
        super().__init__(max_runs, max_queue)
        self.held = held
        self.job_of = job_of
        self.busy = busy  # runs of this server in its workers
        self.cancel = cancel  # cancels a run this server holds, asked through another server
        self.poll = poll
        self.drained = anyio.Event()  # asked to drain, and done with every run it held
        self._look = anyio.Event()

    def look(self) -> None:
        """A slot may be free: look for runs left now."""
        self._look.set()

    async def claim_left(self) -> None:
        """Claims runs that other servers left, while slots are free, until cancelled."""
        while True:
            with anyio.move_on_after(self.poll):
                await self._look.wait()
            self._look = anyio.Event()
            await self._cancels()
            await self._drains()
            free = self.max_runs - self.busy() - self.queued
            if free <= 0 or self.held.lease.draining or self._send is None:
                continue
            try:
                taken = await self.held.store.claim_left(self.held.server, free)
                claimed = time.monotonic()
            except GraphError as error:  # the store is down: looked at again at the next poll
                log.warning("runs left by other servers could not be claimed: %s", error)
                continue
            for run_id in taken:
                self.held.took(run_id, claimed)
                job = await self._job(run_id)
                if job is None:
                    await self.held.release(run_id)
                    continue
                log.info("continuing run %s, left by another graphrt serve", run_id)
                await self._send.send(job)  # type: ignore[union-attr] - open: the room was counted above

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
        """As RunQueue's; a 503 while this server drains."""
        if self.held.lease.draining:
            raise RequestError("this server is draining: it takes no new runs (another server does)", status=503)
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

    async def _job(self, run_id: str) -> Job | None:
        try:
            return await self.job_of(run_id)
        except GraphError as error:
            log.warning("run %s, left by another graphrt serve, cannot be read back: %s", run_id, error)
            return None
