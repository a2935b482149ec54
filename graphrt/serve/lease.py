"""StoreLease: one server owns a checkpoint store at a time.

Two servers on one store would both recover its unfinished runs and both write
them (one marked six runs failed while the other finished them). So a server
takes the store's lease before it recovers anything, renews it every third of
`seconds` (its heartbeat), and drops it when it stops. A second server on the
store refuses to start, naming the holder; it takes the lease over only when
the lease has expired (the holder stopped renewing it: frozen, cut off, its
machine gone), or at once when the holder was a process of this machine that
no longer exists (killed with SIGKILL: a restart need not wait).

A server that finds at a heartbeat that another took its lease over (it was
frozen past its expiry) stops serving: the other owns the runs now. A frozen
server woken writes nothing before it knows: every write of a run is fenced
twice. The store itself compares the lease's owner token in each write's own
transaction (`LeaseStore.fence_writes`): a write after the lease changed hands is
refused (LeaseLost), however long the server was frozen and wherever. And before
each write that is not queued (`check`), when the last renewal is older than two
thirds of the lease, the lease is renewed first, so that a server woken late finds
out before its runs' writes fail, and stops.

The lease lives in the store itself (LeaseStore: a row written in one atomic
statement). Expiry compares this machine's clock with the one of the server that
wrote the lease: servers on several machines need their clocks kept in time (NTP),
as leases always do.

A store that several servers share (PostgreSQL's: SharedServers) has no owner: there
the same object is this server's place among the store's servers. `take` joins them
(its row, renewed by the heartbeat), each run is claimed by one server and fenced by
the store (checkpoint/postgres_claims.py), `keep` renews the row and hands the runs the
store says this server holds to `on_claims` (those another server took over are
stopped), and marks the servers of this machine whose process is gone (kill -9) as gone,
so that their runs are claimed at once; `drop` leaves, giving its runs up. The clock
there is the database's.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import time
import uuid
from collections.abc import Callable

import anyio

from graphrt.base.defaults import LEASE_SECONDS
from graphrt.base.errors import GraphError
from graphrt.checkpoint.guard import GuardedStore
from graphrt.checkpoint.records import Lease
from graphrt.durable.served import SERVE_LEASE, StoreLeased, described, is_gone, process_started

__all__ = ["StoreLeased", "StoreLease"]

_NAME = SERVE_LEASE

log = logging.getLogger("graphrt.serve")


class StoreLease:
    """This server's lease of its store: taken at start, renewed while it serves, dropped when it stops.

    Args:
        seconds: how long the lease lasts after its last renewal; it is renewed every third of that.
    """

    def __init__(self, seconds: float = LEASE_SECONDS, *, clock: Callable[[], float] = time.monotonic) -> None:
        if not seconds > 0:
            raise GraphError("a store lease must last more than 0 seconds")
        self.seconds = float(seconds)
        self.owner = uuid.uuid4().hex
        self.url: str | None = None  # where this server listens, once known: shown to a server refused
        self.since = time.time()
        self._clock = clock  # time.monotonic: it goes on while the process is stopped (SIGSTOP)
        self.renewed: float | None = None  # the clock when the lease last was this server's (taken or renewed)
        self._leased = True  # False once a take found a store that keeps no leases: nothing to check
        self.shared = False  # True once a take found a store that several servers share: a claim per run, no lease
        self.draining = False  # a shared store's server asked to drain (graphrt serve --drain): it takes no more runs

    def _holder(self) -> str:
        return json.dumps({"pid": os.getpid(), "started": process_started(os.getpid()), "host": socket.gethostname(),
                           "url": self.url, "since": self.since})

    async def take(self, store: GuardedStore) -> None:
        """Takes (or renews) the store's lease; nothing for a store that keeps no leases.

        Raises:
            StoreLeased: another server holds it and its lease has not expired.
            CheckpointError: the store failed.
        """
        if store.abilities.shared:
            self.shared, self._leased = True, False
            await store.join_servers(self.owner, self._holder(), seconds=self.seconds)
            await self._expire_gone(store)
            self.renewed = self._clock()
            return
        if not store.abilities.leases:
            self._leased = False
            return
        asked = self._clock()
        now = time.time()
        lease = await store.take_lease(_NAME, self.owner, self._holder(), until=now + self.seconds, now=now)
        if lease.owner != self.owner and is_gone(lease):  # its process here is gone: no need to wait
            lease = await store.take_lease(_NAME, self.owner, self._holder(), until=now + self.seconds, now=now,
                                           replacing=lease.owner)
        if lease.owner != self.owner:
            holder = described(lease)
            raise StoreLeased(f"{store.location} is served by another graphrt serve ({holder}); "
                              f"stop that one first, or give this one another --checkpoint", holder)
        if self.renewed is None:  # taken for the first time: from now on the store refuses writes once it is not
            store.fence_writes(_NAME, self.owner)
        self.renewed = asked

    async def check(self, store: GuardedStore) -> None:
        """Before a run's write: the lease is renewed first if its last renewal is older than two thirds of its
        length (this server was frozen, or its heartbeat is late), so that a server woken after another took
        its store over writes nothing; nothing to do otherwise (the heartbeat keeps it fresh).

        Raises:
            StoreLeased: another server took the store over.
        """
        if self._leased and (self.renewed is None or self._clock() - self.renewed > self.seconds * 2 / 3):
            await self.take(store)

    def lost(self, location: str, holder: str) -> str:
        """Why this server stops: another took its store over."""
        return (f"another graphrt serve took {location} over ({holder}) while this one did not renew its lease "
                f"(frozen, or cut off from the store, for over {self.seconds:g} s)")

    async def _expire_gone(self, store: GuardedStore) -> None:
        """Marks the store's servers of this machine whose process is gone (kill -9) as gone: their runs are
        claimed now, not once their row expires."""
        for row in await store.servers():
            if row.server != self.owner and row.live and is_gone(Lease(row.server, row.holder, row.expires_at)):
                log.info("graphrt serve %s is gone: its %d run(s) go to the servers left", row.server, len(row.runs))
                await store.expire_server(row.server)

    async def keep(self, store: GuardedStore, on_lost: Callable[[str], None],
                   on_claims: Callable[[list[str], float], None] | None = None) -> None:
        """Renews the lease every third of its length until cancelled; calls `on_lost(reason)` and returns if
        another server took it over meanwhile. A store that fails at a renewal is tried again at the next.
        On a shared store: renews this server's row instead, and hands `on_claims` the runs it holds and the
        time.monotonic() before it asked (a run claimed after that may be missing from them)."""
        if self.shared:
            while True:
                await anyio.sleep(self.seconds / 3)
                try:
                    asked = time.monotonic()
                    held = await store.renew_server(self.owner, seconds=self.seconds)
                    self.renewed = self._clock()
                    if on_claims is not None:
                        on_claims(held, asked)
                    await self._expire_gone(store)
                except GraphError as error:  # the store is down: tried again at the next heartbeat
                    log.warning("this server's heartbeat could not be written (tried again in %.0f s): %s",
                                self.seconds / 3, error)
        if not store.abilities.leases:
            return
        while True:
            await anyio.sleep(self.seconds / 3)
            try:
                await self.take(store)
            except StoreLeased as error:
                on_lost(self.lost(store.location, error.holder))
                return
            except GraphError as error:  # the store is down: runs fail meanwhile; the lease is renewed when it is back
                log.warning("the store lease could not be renewed (tried again in %.0f s): %s", self.seconds / 3, error)

    async def drop(self, store: GuardedStore) -> None:
        """Gives the lease up (at shutdown), so that the next server need not wait for it to expire; on a shared
        store, leaves it: its runs go to the other servers at once."""
        if self.shared:
            await store.leave_servers(self.owner)
        elif store.abilities.leases:
            await store.drop_lease(_NAME, self.owner)
