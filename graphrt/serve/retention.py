"""How long a server keeps ended runs in its store: the newest `keep_runs`, and none older than `keep_days`.

A sweep runs when the server starts and every `every` seconds after; it deletes
ended runs (finished, failed, cancelled) with their rows and event logs, never a
run that is queued, running or waiting for an answer (EventStore.prune_runs).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import anyio

from graphrt.base.defaults import KEEP_RUNS
from graphrt.checkpoint.base import EventStore

__all__ = ["Retention"]

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

    async def sweep(self, store: EventStore) -> list[str]:
        """Deletes the ended runs this retention lets go of; returns their ids."""
        if not self.active:
            return []
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
