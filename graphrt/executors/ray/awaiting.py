"""Awaiting a Ray object ref under asyncio or trio alike, so that an abort or a timeout stops the wait."""

from __future__ import annotations

import asyncio
from typing import Any, Callable

import anyio

__all__ = ["resolved"]


async def resolved(ref: Any) -> Any:
    """The value of an object ref, awaited under asyncio or trio alike (an abort or timeout stops the wait)."""
    future = ref.future()
    if not future.done():
        event = anyio.Event()
        wake = _waker(event)
        future.add_done_callback(lambda _: wake())
        await event.wait()
    return future.result()


def _waker(event: anyio.Event) -> Callable[[], None]:
    """A function that sets `event` from any thread (Ray completes futures on its own threads)."""
    import sniffio

    if sniffio.current_async_library() == "trio":
        import trio

        token = trio.lowlevel.current_trio_token()
        schedule: Callable[[Callable[[], Any]], Any] = token.run_sync_soon
    else:
        schedule = asyncio.get_running_loop().call_soon_threadsafe

    def wake() -> None:
        try:
            schedule(event.set)
        except RuntimeError:  # the run is over (its loop closed) before the abandoned call ended
            pass

    return wake
