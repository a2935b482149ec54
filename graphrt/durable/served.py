"""Whether a `graphrt serve` owns a checkpoint store: the lease it holds, read by anyone, and who holds it.

A server takes the store's lease (graphrt.serve.lease) and owns the runs in it: it recovers them, shows
them and continues them. Another process that wrote to one of its runs behind its back (`graphrt resume`
on the server's store) would leave the server showing the run as it last saw it, and a later resume
through its API would continue a run already continued. So a command that continues a saved run asks
`served_by` first, and is refused while a live server holds the store.

A lease is live until it expires, unless its holder was a process of this machine that no longer exists
(killed with SIGKILL): its lease is as good as gone, at once. On a store that several servers share
(PostgreSQL's), none owns it: a command is refused while any live server serves it, named as the holder of
a lease is.
"""

from __future__ import annotations

import json
import os
import socket
import time
from typing import Any

from graphrt.base.errors import GraphError
from graphrt.checkpoint.guard import GuardedStore
from graphrt.checkpoint.records import Lease

__all__ = ["SERVE_LEASE", "StoreLeased", "described", "holder_of", "is_gone", "process_started", "served_by"]

SERVE_LEASE = "serve"
"""The name of the lease a server holds on its store."""


class StoreLeased(GraphError):
    """Another server owns the checkpoint store (its lease is still valid), or took it over from this one.

    `holder` says which: `pid 1234 on host-a, at http://127.0.0.1:8000, since ...`."""

    def __init__(self, message: str, holder: str = "") -> None:
        super().__init__(message)
        self.holder = holder


async def served_by(store: GuardedStore) -> Lease | None:
    """The lease of the server that owns `store` now, if one does (None: none does, or the store keeps no leases)."""
    if store.abilities.shared:
        for row in await store.servers():
            lease = Lease(row.server, row.holder, time.time() + row.expires_at - row.now)  # in this machine's clock
            if row.live and not is_gone(lease):
                return lease
        return None
    if not store.abilities.leases:
        return None
    lease = await store.get_lease(SERVE_LEASE)
    if lease is None or lease.expires_at < time.time() or is_gone(lease):
        return None
    return lease


def holder_of(lease: Lease) -> dict[str, Any]:
    """What the holder wrote of itself: its pid, the pid's start, its host, its URL, since when."""
    try:
        holder = json.loads(lease.holder)
    except ValueError:
        return {}
    return holder if isinstance(holder, dict) else {}


def described(lease: Lease) -> str:
    """`pid 1234 on host-a, at http://127.0.0.1:8000, since 05:40:12 UTC; its lease expires in 24 s unless renewed`"""
    holder = holder_of(lease)
    parts = [f"pid {holder.get('pid', '?')} on {holder.get('host', '?')}"]
    if holder.get("url"):
        parts.append(f"at {holder['url']}")
    if isinstance(holder.get("since"), (int, float)):
        parts.append("since " + time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(holder["since"])))
    left = max(0.0, lease.expires_at - time.time())
    return ", ".join(parts) + f"; its lease expires in {left:.0f} s unless it renews it"


def is_gone(lease: Lease) -> bool:
    """The holder was a process of this machine that no longer exists: its lease need not be waited for."""
    holder = holder_of(lease)
    pid = holder.get("pid")
    if holder.get("host") != socket.gethostname() or not isinstance(pid, int):
        return False
    return not _alive(pid, holder.get("started"))


def process_started(pid: int) -> str | None:
    """When process `pid` started, in the kernel's clock ticks since boot (/proc): a pid reused later differs."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[19].decode()
    except (OSError, IndexError):
        return None


def _alive(pid: int, started: str | None) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        pass
    return started is None or process_started(pid) in (None, started)
