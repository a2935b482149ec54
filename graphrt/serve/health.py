"""What GET /health says of the checkpoint store: nothing (it answers and takes writes), or what is wrong.

The store is asked to read (its self-check) and to write (the lease is renewed: a
store that reads but takes no writes, on a full disk, takes no runs either). A
run's write that failed lately counts too, unless a write succeeded since: a small
write, the lease's, may succeed on a full disk while a run's does not, and a
balancer that takes the 503 sends no runs that could succeed.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import anyio

from graphrt.base.secrets import Redactor
from graphrt.checkpoint.errors import CheckpointError
from graphrt.serve.held_store import HeldStore
from graphrt.serve.lease import StoreLeased

__all__ = ["WRITE_FAILURE_SHOWN", "store_problem"]

WRITE_FAILURE_SHOWN = 60.0
"""Seconds /health says the store takes no writes after a run's write failed, unless a write succeeds sooner."""


async def store_problem(held: HeldStore, redactor: Redactor, shown: Callable[[str], str],
                        timeout: float = 2.0) -> str | None:
    """What is wrong with the held store now (None: it answers, and takes writes), as clients may see it."""
    if held.lost is not None:
        return held.lost
    store = held.held
    if store is None:
        return "the run service is not serving"
    with anyio.move_on_after(timeout):
        try:
            await store.check()
        except CheckpointError as error:
            return redactor.text(str(error))
        failed = store.failed_write  # a run's write that failed, none succeeding since
        try:  # a write: a store that reads but takes no writes (a full disk) takes no runs
            await held.lease.take(store)
        except StoreLeased as error:
            return shown(f"another graphrt serve holds {store.location} now ({error.holder})")
        except CheckpointError as error:
            failed = (str(error), time.monotonic())
        if failed is not None and time.monotonic() - failed[1] < WRITE_FAILURE_SHOWN:
            said = failed[0].removeprefix(f"checkpoint store {store.location}: ")
            return redactor.text(f"checkpoint store {store.location} takes no writes ({said}): "
                                 "a full disk, or one mounted read-only?")
        return None
    return f"checkpoint store {store.location} did not answer within {timeout:g} s"
