"""How long a server keeps ended runs in its store: the newest `keep_runs`, and none older than `keep_days`.

A sweep runs when the server starts and every `every` seconds after; it deletes
ended runs (finished, failed, cancelled) with their rows and event logs, never a
run that is queued, running or waiting for an answer (EventStore.prune_runs). On a store several servers share,
one of them sweeps in each period: the first whose sweep comes.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import anyio

from graphrt.base.defaults import KEEP_RUNS
from graphrt.checkpoint.guard import GuardedStore

__all__ = ["Retention", "SWEEP_LEASE"]

SWEEP_LEASE = "retention"
"""The lease a server takes on a shared store for one sweep period."""

log = logging.getLogger("graphrt.serve")


@dataclass(frozen=True)
class Retention:
    """What a sweep keeps. `keep_runs=None` and `keep_days=None` keep every run."""

    keep_runs: int | None = KEEP_RUNS
    keep_days: float | None = None
    every: float = 600.0  # seconds between sweeps

    def __post_init__(self) -> None:
        if self.keep_runs is not None and self.keep_runs < 0:
            raise ValueError("keep_runs must be at least 0")
        if self.keep_days is not None and self.keep_days <= 0:
            raise ValueError("keep_days must be more than 0")
        if self.every <= 0:
            raise ValueError("every must be more than 0 seconds")

    @property
    def active(self) -> bool:
        return self.keep_runs is not None or self.keep_days is not None

    async def sweep(self, store: GuardedStore, *, server: str | None = None) -> list[str]:
        """Deletes the ended runs this retention lets go of; returns their ids. On a store that several servers
        share, `server` is this one: it sweeps only if no other server swept in the last `every` seconds (the
        store's lease `retention`, taken for that long), so that the servers' sweeps do not collide."""
        if not self.active:
            return []
        if server is not None and store.abilities.leases:
            now = time.time()
            taken = await store.take_lease(SWEEP_LEASE, server, "{}", until=now + self.every * 0.9, now=now)
            if taken.owner != server:
                return []  # another server swept a moment ago
        before = time.time() - self.keep_days * 86_400 if self.keep_days is not None else None
        return await store.prune_runs(keep=self.keep_runs, before=before)

    async def keep_sweeping(self, sweep: Callable[[], Awaitable[Any]]) -> None:
        """Calls `sweep` now and every `every` seconds until cancelled; one that fails is tried again at the next."""
        while True:
            try:
                await sweep()
            except Exception as error:  # noqa: BLE001 - a failed sweep is tried again at the next one
                log.warning("retention: the sweep failed: %s", error)
            await anyio.sleep(self.every)
