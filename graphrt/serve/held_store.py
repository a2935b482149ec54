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

One owner for the whole store is the rule here. Several servers on one store would
fence each run instead (a lease per run), and would take this class's place.
"""

from __future__ import annotations

import logging
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
        await self.lease.keep(self.store, self.lose)
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
