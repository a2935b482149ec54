"""Run-wide services: what every agent of one run shares, nested graphs included.

A run carries the whole run config (`{"global": ..., "<agentId>": ..., "mcp": ...}`),
not only the slice an agent gets as `ctx.config`, and long-lived services that
agents open on first use, such as connections to MCP servers. A service runs in
a task of its own, so that it can outlive the node that opened it; it is closed
when the run ends, whether the run completed, failed or was cancelled.

    client = await ctx.services.open(("mcp", "files"), lambda: connect(...))

Every run has its services, with or without a config. Nothing starts before an
agent opens a service, so a run that opens none pays only for entering and
leaving `async with` (no task group, no task).

A process that runs many graphs (a server) can keep one `RunServices` open and
hand it to each run, so the services start once per process.
"""

from __future__ import annotations

import asyncio
import contextvars
from types import MappingProxyType, TracebackType
from typing import Any, AsyncContextManager, Awaitable, Callable, Hashable, Mapping, TypeVar

import anyio

from graphrt.base.errors import ServiceError

__all__ = ["RunServices", "ServiceFailed"]

CLOSE_GRACE_SECONDS = 5.0  # how long a service may take to close before it is cancelled

_T = TypeVar("_T")


class ServiceFailed(ServiceError):
    """Raised when a service could not be opened, or ended while the run still needed it; `__cause__` says why."""


class _Slot:
    """One service: set up once, then shared until the run ends."""

    __slots__ = ("ready", "closing", "done", "scope", "value", "error", "task")

    def __init__(self) -> None:
        self.ready = anyio.Event()
        self.closing = anyio.Event()
        self.done = anyio.Event()
        self.scope = anyio.CancelScope()  # cancels an opening or a slow close
        self.value: Any = None
        self.error: BaseException | None = None
        self.task: Any = None  # the asyncio task that holds the service (trio keeps its system tasks itself)


class RunServices:
    """The run config and the services of one run (or of one serving process).

    Use as `async with RunServices(config) as services:`; agents reach it as `ctx.services`.
    """

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        self.config: Mapping[str, Any] = MappingProxyType(dict(config or {}))
        self._slots: dict[Hashable, _Slot] = {}
        self._held: list[_Slot] = []  # every service started, forgotten ones included: all are closed at the end
        self._records: dict[Hashable, Any] = {}
        self._entered = False

    async def __aenter__(self) -> "RunServices":
        self._entered = True
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> bool | None:
        self._entered = False
        held, self._held = self._held, []
        self._slots.clear()
        if held:
            await _close(held)
        return None

    @property
    def is_open(self) -> bool:
        """Whether services can be opened (inside `async with`); true in every run."""
        return self._entered

    async def open(self, key: Hashable, opener: Callable[[], AsyncContextManager[Any]]) -> Any:
        """The service under `key`, opened with `opener()` by the first caller and shared after.

        Waiting for it is cancellable (a node's timeout applies); the opening goes on for the
        next caller. A service that failed to open fails every caller the same way.

        Raises:
            ServiceFailed: the service could not be opened, or has ended; `__cause__` is why.
            RuntimeError: the run has no open services (not inside `async with`).
        """
        slot = self._slots.get(key)
        if slot is None:
            if not self._entered:
                raise RuntimeError("run services are not open: use `async with RunServices(...)`")
            slot = self._slots[key] = _Slot()
            self._held.append(slot)
            slot.task = _start_detached(_hold, slot, opener)
        await slot.ready.wait()
        if slot.error is not None:
            raise ServiceFailed(str(slot.error), service=str(key)) from slot.error
        return slot.value

    def record(self, key: Hashable, make: Callable[[], _T]) -> _T:
        """What these services keep about the service under `key` across its restarts, for as long as they last
        (how many times an MCP server failed in a row: graphrt.mcp.supervision), made by `make()` on first use."""
        kept = self._records.get(key)
        if kept is None:
            kept = self._records[key] = make()
        return kept

    def forget(self, key: Hashable) -> None:
        """Drops a service that ended, so that the next `open` starts it again."""
        slot = self._slots.pop(key, None)
        if slot is not None:
            slot.closing.set()


async def _hold(slot: _Slot, opener: Callable[[], AsyncContextManager[Any]]) -> None:
    """Opens the service, keeps it open until the run closes, then closes it (in this one task)."""
    try:
        with slot.scope:
            async with opener() as value:
                slot.value = value
                slot.ready.set()
                await slot.closing.wait()
    except Exception as error:  # noqa: BLE001 - handed to every caller of open()
        if not slot.ready.is_set():
            slot.error = error
    finally:
        if not slot.ready.is_set() and slot.error is None:
            slot.error = RuntimeError("the run ended while the service was opening")
        slot.ready.set()
        slot.done.set()


async def _close(slots: list[_Slot]) -> None:
    """Closes services: each open one gets the grace time to close cleanly, then every one left is cancelled.

    Shielded, so that services close cleanly even when the run was cancelled.
    """
    for slot in slots:
        slot.closing.set()
    with anyio.CancelScope(shield=True):
        with anyio.move_on_after(CLOSE_GRACE_SECONDS):
            for slot in slots:
                if slot.ready.is_set():  # one still opening has nothing to close: it is cancelled at once
                    await slot.done.wait()
        for slot in slots:
            slot.scope.cancel()
        for slot in slots:
            await slot.done.wait()


def _start_detached(func: Callable[..., Awaitable[None]], *args: Any) -> Any:
    """Starts `func(*args)` in a task of no task group, in the caller's context; returns what keeps it alive.

    A service outlives the node that opens it, so its task cannot be the node's
    child; a task group around every run would cost each run that opens no
    service (most runs) about 25 us on asyncio, 45 us on trio. `_close` always
    ends these tasks before the run's `async with` is left.
    """
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # not asyncio: trio, the other event loop anyio runs on
        import trio

        trio.lowlevel.spawn_system_task(func, *args, context=contextvars.copy_context())
        return None
    return loop.create_task(func(*args))
