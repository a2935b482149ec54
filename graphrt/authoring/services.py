"""Run-wide services: what every agent of one run shares, nested graphs included.

A run carries the whole run config (`{"global": ..., "<agentId>": ..., "mcp": ...}`),
not only the slice an agent gets as `ctx.config`, and long-lived services that
agents open on first use, such as connections to MCP servers. A service runs in
a task of its own, so that it can outlive the node that opened it; it is closed
when the run ends, whether the run completed, failed or was cancelled.

    client = await ctx.services.open(("mcp", "files"), lambda: connect(...))

A process that runs many graphs (a server) can keep one `RunServices` open and
hand it to each run, so the services start once per process.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType, TracebackType
from typing import Any, AsyncContextManager, Callable, Hashable, Mapping

import anyio
import anyio.abc

from graphrt.base.errors import ServiceError

__all__ = ["RunServices", "ServiceFailed"]

CLOSE_GRACE_SECONDS = 5.0  # how long a service may take to close before it is cancelled


class ServiceFailed(ServiceError):
    """Raised when a service could not be opened, or ended while the run still needed it; `__cause__` says why."""


@dataclass(eq=False)
class _Slot:
    """One service: set up once, then shared until the run ends."""

    ready: anyio.Event = field(default_factory=anyio.Event)
    closing: anyio.Event = field(default_factory=anyio.Event)
    done: anyio.Event = field(default_factory=anyio.Event)
    value: Any = None
    error: BaseException | None = None
    ended: bool = False


class RunServices:
    """The run config and the services of one run (or of one serving process).

    Use as `async with RunServices(config) as services:`; agents reach it as `ctx.services`.
    """

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        self.config: Mapping[str, Any] = MappingProxyType(dict(config or {}))
        self._slots: dict[Hashable, _Slot] = {}
        self._group: anyio.abc.TaskGroup | None = None

    async def __aenter__(self) -> "RunServices":
        group = anyio.create_task_group()
        await group.__aenter__()
        self._group = group
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> bool | None:
        group, self._group = self._group, None
        if group is None:
            return None
        for slot in self._slots.values():
            slot.closing.set()
        with anyio.CancelScope(shield=True), anyio.move_on_after(CLOSE_GRACE_SECONDS):
            for slot in self._slots.values():  # a clean close for open services, even when the run was cancelled
                if slot.ready.is_set():
                    await slot.done.wait()
        group.cancel_scope.cancel()
        await group.__aexit__(None, None, None)
        return None

    @property
    def is_open(self) -> bool:
        return self._group is not None

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
            if self._group is None:
                raise RuntimeError("run services are not open: use `async with RunServices(...)`")
            slot = self._slots[key] = _Slot()
            self._group.start_soon(self._hold, slot, opener)
        await slot.ready.wait()
        if slot.error is not None:
            raise ServiceFailed(str(slot.error), service=str(key)) from slot.error
        return slot.value

    def forget(self, key: Hashable) -> None:
        """Drops a service that ended, so that the next `open` starts it again."""
        slot = self._slots.pop(key, None)
        if slot is not None:
            slot.closing.set()

    async def _hold(self, slot: _Slot, opener: Callable[[], AsyncContextManager[Any]]) -> None:
        """Opens the service, keeps it open until the run closes, then closes it (in this one task)."""
        try:
            async with opener() as value:
                slot.value = value
                slot.ready.set()
                await slot.closing.wait()
        except Exception as error:  # noqa: BLE001 - handed to every caller of open()
            if not slot.ready.is_set():
                slot.error = error
        finally:
            slot.ended = True
            slot.ready.set()
            slot.done.set()
