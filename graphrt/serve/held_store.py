"""The checkpoint store while this server holds it: opened, its lease taken, every run's write fenced, given up.

`hold()` opens the store and takes its lease (serve/lease.py) before anything is
read from it, so that two servers never continue the same runs: StoreLeased if
another holds it. While it is held, the lease is renewed (`keep`) and every write of
a run is fenced: before the write, the lease is checked, and the store itself
compares the lease's owner in the write's own transaction (LeaseStore.fence_writes).
A server whose lease was taken over (it was frozen past its expiry) has `lost` the
store: it says why, the service stops, and it writes nothing more. When the server
stops, the lease is given up and the store closed (a store given as an object is its
giver's to close).

One owner for the whole store is SQLite's rule. A store that several servers share
(PostgreSQL's) has no owner: the lease is this server's place among its servers
(lease.py), and each run is claimed by one server (`claim`, `release`) and fenced by
the store itself in each write's transaction. A server whose claim of a run was taken
over (it was frozen past its lease, cut off from the store) loses that run alone
(`lose_run`, from a refused write or from the heartbeat's list of the runs it holds):
the run is stopped without a write, and shown as the store says; the server goes on.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import anyio

from graphrt.base.errors import GraphError
from graphrt.checkpoint import CheckpointTarget, open_store
from graphrt.checkpoint.errors import StoreFailed
from graphrt.checkpoint.guard import GuardedStore
from graphrt.serve.lease import StoreLease, StoreLeased

__all__ = ["HeldStore"]

log = logging.getLogger("graphrt.serve")


class HeldStore:
    """The store at `checkpoint`, held with `lease` while serving.

    Args:
        shown: an error's text as clients see it (what `lost` says to every request).
        on_lost: called once when another server took the store over (the service stops).
    """

    def __init__(self, checkpoint: CheckpointTarget, lease: StoreLease, *, shown: Callable[[str], str],
                 on_lost: Callable[[], None]) -> None:
        self.checkpoint = checkpoint
        self.lease = lease
        self.lost: str | None = None  # why this server stopped serving: another server took its store over
        self._shown = shown
        self._on_lost = on_lost
        self._store: GuardedStore | None = None
        self.claimed: dict[str, float] = {}  # a shared store's runs this server holds: when each claim was made
        self.lost_runs: set[str] = set()  # runs another server took over from this one: nothing more is written
        self.tokens: dict[str, int] = {}  # the token of this server's last claim of each run it claimed itself
        self._kept: dict[str, int] = {}  # runs whose claim is held for what is still to be saved of them
        self._holds: dict[str, int] = {}  # runs claimed more than once here, each given up once: how many times
        self.fresh: set[str] = set()  # runs whose last claim here followed this server's own: what it knows holds
        self.on_run_lost: Callable[[str], None] = lambda run_id: None  # set by the service: what it shows of it

    @property
    def shared(self) -> bool:
        """Whether several servers share the store: a claim per run, no owner."""
        return self.lease.shared

    @property
    def server(self) -> str:
        """This server's id among the store's servers (its lease's owner token)."""
        return self.lease.owner

    async def claim(self, run_id: str) -> bool:
        """Claims a run for this server on a shared store (a new one, or one a request continues); False: another
        live server holds it. Always True on a store with one owner."""
        if not self.shared:
            return True
        if run_id in self.claimed:  # held still for what this server did before (a worker giving it up next)
            self._holds[run_id] = self._holds.get(run_id, 1) + 1
            self.fresh.add(run_id)
            return True
        token = await self.store.claim_for(self.server, run_id)
        if token is None:
            return False
        claimed = time.monotonic()  # made by now: a heartbeat that asks after it finds it
        if self.tokens.get(run_id) == token - 1:  # no other server claimed it since this one did
            self.fresh.add(run_id)
        else:
            self.fresh.discard(run_id)
        self.tokens[run_id] = token
        self.claimed[run_id] = claimed
        self.lost_runs.discard(run_id)
        return True

    def took(self, run_id: str, claimed: float, token: int) -> bool:
        """A run this server claimed among those left in the store (the queue's claim), made by `claimed` (the
        time.monotonic() once the store answered: a heartbeat's read that started before may not find it), with the
        claim's `token`. Whether no other server claimed it since this server's last claim of it (then what this
        server knew of it holds: a run it left in the store's queue itself is as it left it)."""
        fresh = self.tokens.get(run_id) == token - 1
        self.tokens[run_id] = token
        self.claimed[run_id] = claimed
        self.lost_runs.discard(run_id)
        return fresh

    def hold_until_saved(self, run_id: str) -> None:
        """Holds a claimed run's claim once more, until `kept_saved`: for what this server has still to save of
        a run that settled (its webhook deliveries). A server that dies meanwhile leaves the run claimed, and the
        server that claims it after it saves what it did not (runs.py's `_left_job`)."""
        if self.shared and run_id in self.claimed:
            self._holds[run_id] = self._holds.get(run_id, 1) + 1
            self._kept[run_id] = self._kept.get(run_id, 0) + 1

    async def kept_saved(self, run_id: str) -> None:
        """What `hold_until_saved` held the claim for is saved: that hold is given up (none if the run was not kept)."""
        kept = self._kept.pop(run_id, 0)
        if kept > 1:
            self._kept[run_id] = kept - 1
        if kept:
            await self.release(run_id)

    async def release(self, run_id: str) -> None:
        """Gives the claim of a run up (it ended, asks a person, or was refused); a store that fails leaves it to
        this server's leaving, or its expiry."""
        if not self.shared or run_id not in self.claimed:
            return
        holds = self._holds.pop(run_id, 1) - 1
        if holds > 0:  # claimed again meanwhile, for what this server does next with it
            self._holds[run_id] = holds
            return
        self.claimed.pop(run_id, None)
        if run_id in self.lost_runs:
            return
        with anyio.CancelScope(shield=True):
            try:
                await self.store.release_claim(self.server, run_id)
            except GraphError as error:
                log.warning("the claim of run %s could not be given up: %s", run_id, error)

    async def leave_queued(self, run_id: str, bound: int) -> int | None:
        """Leaves a run this server claimed and saved, and has no free slot for, in the store's queue, for the first
        server with one (this server included), unless `bound` runs wait there; how many wait there now, None if it
        was not left. Its claim is given up by the store's write: this server writes nothing more for it unless it
        claims it again."""
        waiting = await self.store.leave_queued(self.server, run_id, bound)
        if waiting is not None:
            self.claimed.pop(run_id, None)
            self._holds.pop(run_id, None)
        return waiting

    def lose_run(self, run_id: str) -> None:
        """Another server took the run over: this one writes nothing more for it."""
        if run_id in self.lost_runs:
            return
        self.lost_runs.add(run_id)
        self.claimed.pop(run_id, None)
        self._holds.pop(run_id, None)
        self._kept.pop(run_id, None)
        log.warning("run %s was taken over by another graphrt serve (this one did not renew its claim in time); "
                    "it is stopped here without a write", run_id)
        self.on_run_lost(run_id)

    def held_now(self, held: list[str], asked: float) -> None:
        """The heartbeat's list of the runs the store says this server holds, asked at `asked`: those whose claim
        was made before it and missing were taken over (a claim asked before it may be made after its read)."""
        for run_id in [run_id for run_id, claimed in self.claimed.items() if claimed < asked]:
            if run_id not in held:
                self.lose_run(run_id)

    @property
    def store(self) -> GuardedStore:
        """The store, while it is held.

        Raises:
            StoreFailed: it was lost (another server took it over).
            RuntimeError: it is not held.
        """
        if self.lost is not None:
            raise StoreFailed(self.lost)
        if self._store is None:
            raise RuntimeError("the run service is not serving")
        return self._store

    @property
    def held(self) -> GuardedStore | None:
        """The store while it is held, lost or not; None before and after."""
        return self._store

    @asynccontextmanager
    async def hold(self) -> AsyncIterator[GuardedStore]:
        """Opens the store and takes its lease (StoreLeased: another server holds it); gives both up after."""
        opened = open_store(self.checkpoint)
        self._store = GuardedStore(opened)  # a driver's failure is a CheckpointError (503), not a 500
        try:
            await self.lease.take(self._store)  # before anything is recovered: StoreLeased if another holds it
        except BaseException:
            with anyio.CancelScope(shield=True):
                await opened.close()
            self._store = None
            raise
        if not self.lease.shared:  # a shared store fences each run's writes itself
            self._store.before_write = self._fence
        try:
            yield self._store
        finally:
            if self.lost is None:
                await self._drop_lease()
            if opened is not self.checkpoint:
                with anyio.CancelScope(shield=True):
                    await opened.close()
            self._store = None

    async def keep(self, scope: anyio.CancelScope) -> None:
        """Renews the lease while the store is held; cancels `scope` (the service) if another server took it over."""
        await self.lease.keep(self.store, self.lose, self.held_now)
        if self.lost is not None:
            scope.cancel()

    async def _fence(self) -> None:
        """Before each write of a run: the store is still this server's (serve/lease.py's check), else the
        write is refused and the server stops; a server woken from a freeze that outlasted its lease wrote
        the results of its runs in flight into a store another server owned by then."""
        if self.lost is not None:
            raise StoreFailed(self.lost)
        store = self.store
        try:
            await self.lease.check(store)
        except StoreLeased as error:
            self.lose(self.lease.lost(store.location, error.holder))
            raise StoreFailed(self.lost) from None

    def lose(self, reason: str) -> None:
        """Another server took the store over: every request is told `lost` from now on, and the service stops."""
        if self.lost is not None:  # said once (a write's check and the heartbeat may both find it)
            return
        self.lost = self._shown(f"this server stopped serving: {reason}")
        log.error("%s", self.lost)
        self._on_lost()

    async def _drop_lease(self) -> None:
        with anyio.CancelScope(shield=True):
            try:
                await self.lease.drop(self._store)  # type: ignore[arg-type] - held
            except GraphError as error:  # it expires by itself
                log.warning("the store lease could not be given up (it expires in %.0f s): %s",
                            self.lease.seconds, error)
