"""`shared_store`: the store a target names (a file path, a URL), opened once for the runs that use it at once.

Runs given the same path or URL at the same time, in one event loop, share one store: one connection and one
`GroupCommit` (group_commit.py), so their writes made in the same turn of the loop share one commit, as those of
runs given one store object do. Where each opened its own (issue 44: 200 runs of three 20 ms nodes, 50 at a
time, given a SQLite file's path), each run paid a connection opened (its pragmas, the schema's 20 statements),
a commit per write of its own, and the connection's close, which checkpoints the WAL when it is the last: about
0.9 ms a run, whatever its nodes do. The store closes when its last run gives it back; a run that starts after
that opens it again, as before. Nothing else changes: a run is claimed in the store (a second run of the same id
in this process is refused by it, as by another process), and each write returns once it is committed.

A store given as an object is its owner's to close; the runs at once given it share its `GuardedStore`. SQLite's
`:memory:`, a database of its own each time it is opened, is not shared.
"""

from __future__ import annotations

import contextlib
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, AsyncIterator

import anyio
import sniffio

from graphrt.checkpoint import CheckpointTarget, open_store
from graphrt.checkpoint.guard import GuardedStore

__all__ = ["shared_store"]


@dataclass
class _Opened:
    store: GuardedStore
    closes: bool  # opened here (from a path or URL): closed when its last user leaves; a store object is its owner's
    users: int = 0


_OPENED: dict[tuple[Any, Any], _Opened] = {}  # (the target or id of a store, the event loop) -> its store, in use
_LOCK = threading.Lock()  # event loops of several threads may open and give back stores at once


def _loop() -> Any:
    """What names the running event loop: a store's inline connection serves the loop it was opened on."""
    if sniffio.current_async_library() == "trio":
        import trio

        return trio.lowlevel.current_trio_token()
    import asyncio

    return asyncio.get_running_loop()


def _key(target: str | Path) -> str | None:
    """The target as runs name it alike (a relative path made absolute); None: not to share."""
    text = str(target)
    if text == ":memory:":
        return None
    return text if "://" in text else os.path.abspath(text)


@contextlib.asynccontextmanager
async def shared_store(target: CheckpointTarget) -> AsyncIterator[GuardedStore]:
    """The store `target` names, guarded: the one the runs at once in this event loop use, or opened now; closed
    (shielded) when its last user leaves. A store object is never closed here: the runs at once given it share
    its guard (its abilities found once, not once a run); a GuardedStore is used as it is (graphrt serve's).

    Raises:
        CheckpointError: as `open_store`.
    """
    if isinstance(target, GuardedStore):
        yield target
        return
    if isinstance(target, (str, Path)):
        name = _key(target)
        if name is None:
            store = GuardedStore(open_store(target))
            try:
                yield store
            finally:
                with anyio.CancelScope(shield=True):
                    await store.close()
            return
        key: tuple[Any, Any] = (name, _loop())
    else:
        key = (id(target), _loop())
    with _LOCK:
        entry = _OPENED.get(key)
        if entry is None:
            entry = _OPENED[key] = _Opened(GuardedStore(open_store(target)), closes=isinstance(target, (str, Path)))
        entry.users += 1
    try:
        yield entry.store
    finally:
        with _LOCK:
            entry.users -= 1
            last = entry.users == 0
            if last and _OPENED.get(key) is entry:
                del _OPENED[key]
        if last and entry.closes:
            with anyio.CancelScope(shield=True):
                await entry.store.close()
