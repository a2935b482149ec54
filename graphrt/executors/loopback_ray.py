"""Ray on 127.0.0.1 as asked: `python -m graphrt.executors.loopback_ray start ...` is `ray start ...` that keeps it.

Ray replaces a loopback address (127.0.0.1, localhost, ::1) given for a node or a
cluster by the machine's network address, so that other machines could reach it:
a node started with `--node-ip-address=127.0.0.1` registers as 192.0.2.2, say,
and a driver given `127.0.0.1:PORT` connects to 192.0.2.2:PORT and looks for a
node of that address. `loopback_kept()` turns that off while Ray starts or
connects, so that a cluster on loopback stays there (graphrt.executors.local_cluster
starts its nodes through this module; RayExecutor connects to a loopback
address inside it). An address that is not loopback is left to Ray.
"""

from __future__ import annotations

import ipaddress
import sys
from contextlib import contextmanager
from typing import Iterator

__all__ = ["LOOPBACK", "is_loopback", "loopback_kept", "main"]

LOOPBACK = "127.0.0.1"


def is_loopback(host: str) -> bool:
    """Whether a host (or `host:port`, or `ray://host:port`) is this machine's loopback."""
    host = host.partition("://")[2] or host
    if host.startswith("["):
        host = host[1:].partition("]")[0]
    elif host.count(":") == 1:
        host = host.partition(":")[0]
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@contextmanager
def loopback_kept() -> Iterator[None]:
    """While inside, Ray keeps a loopback address as it is given (its `resolve_ip_for_localhost` leaves it)."""
    from ray._private import services

    resolve = services.resolve_ip_for_localhost
    services.resolve_ip_for_localhost = lambda host: host if is_loopback(host) else resolve(host)
    try:
        yield
    finally:
        services.resolve_ip_for_localhost = resolve


def main(argv: list[str] | None = None) -> int:
    """Ray's `ray` command, with loopback addresses kept for the whole process (`ray start --block` stays in it)."""
    from ray._private import services
    from ray.scripts.scripts import main as ray_main

    resolve = services.resolve_ip_for_localhost
    services.resolve_ip_for_localhost = lambda host: host if is_loopback(host) else resolve(host)
    sys.argv = ["ray", *(sys.argv[1:] if argv is None else argv)]
    ray_main()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
