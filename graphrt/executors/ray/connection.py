"""Joining Ray: a new local Ray for this process, or a cluster by its address, answered within seconds.

An address that does not answer within `connect_timeout` (15 s) is an ExecutorError,
not minutes of Ray's retries; a cluster on 127.0.0.1 is joined there
(graphrt.executors.loopback_ray); without an address a new local Ray is started,
never the machine's latest cluster. Either way the workers import what the driver
imports (its working folder and `sys.path`).
"""

from __future__ import annotations

import os
import socket
import sys
from typing import Any, Mapping

from graphrt.base.secrets import hide_credentials
from graphrt.engine.executor import ExecutorError
from graphrt.executors.loopback_ray import LOOPBACK, is_loopback, loopback_kept
from graphrt.executors.ray.installed import ray, require_ray

__all__ = ["DEFAULT_CONNECT_TIMEOUT", "connect_ray", "start_local_ray"]

DEFAULT_CONNECT_TIMEOUT = 15.0  # seconds a cluster's address may take to answer


def start_local_ray(num_cpus: int | None = None, **options: Any) -> None:
    """Starts a new Ray on this machine for this process, whose workers import what the driver imports.

    The workers get the driver's `sys.path`, so agents from test modules, `--agents`
    files and the current folder unpickle there as they were defined here. It is
    always a new one (`address="local"`): Ray would otherwise join whichever cluster
    was last started on the machine, someone else's included.
    """
    require_ray()
    options.setdefault("include_dashboard", False)
    options.setdefault("log_to_driver", True)
    ray.init(address="local", num_cpus=num_cpus, runtime_env=_driver_imports(options.pop("runtime_env", None)),
             **options)


def connect_ray(address: str, *, connect_timeout: float = DEFAULT_CONNECT_TIMEOUT, **options: Any) -> None:
    """Connects this process to the Ray cluster at `address` ("auto", "HOST:PORT" or "ray://HOST:PORT").

    An address that does not answer within `connect_timeout` seconds is an ExecutorError
    (Ray itself would retry for minutes). A cluster on this machine's loopback
    (127.0.0.1:PORT, as graphrt.executors.local_cluster starts one) is joined there:
    Ray would rewrite it to the machine's network address and then look for a node
    of that address; its workers import what the driver imports, as with start_local_ray.

    Raises:
        ExecutorError: the cluster does not answer.
    """
    require_ray()
    options = {"include_dashboard": False, **options}
    if address == "auto":
        address = _the_machines_cluster()
    if address != "local":
        _check_reachable(address, connect_timeout)
    if not is_loopback(address):
        ray.init(address=address, **options)
        return
    options["runtime_env"] = _driver_imports(options.get("runtime_env"))
    if not address.startswith("ray://"):
        options.setdefault("_node_ip_address", LOOPBACK)
    with loopback_kept():
        ray.init(address=address, **options)


def _the_machines_cluster() -> str:
    """What `--address auto` means: RAY_ADDRESS if set, else the one Ray cluster running on this machine.

    Ray's own "auto" joins the cluster started last when several run (a test's, another
    user's), with only a warning; here several is an error naming them, so a batch never
    lands on a cluster its user did not mean.

    Raises:
        ExecutorError: no Ray cluster runs on this machine, or several do.
    """
    from_environment = os.environ.get("RAY_ADDRESS")
    if from_environment and from_environment != "auto":
        return from_environment
    try:
        from ray._private import services
    except ImportError:  # another Ray: leave the choice to it
        return "auto"
    getattr(services, "_thread_safe_find_gcs_addresses_cache_clear", lambda: None)()  # Ray keeps the first answer
    found = sorted(services.find_gcs_addresses())
    if len(found) == 1:
        return found[0]
    if not found:
        raise ExecutorError("--address auto: no Ray cluster runs on this machine (start one with 'ray start --head')")
    raise ExecutorError(f"--address auto: {len(found)} Ray clusters run on this machine ({', '.join(found)}): "
                        "give the one to use with --address HOST:PORT (or RAY_ADDRESS)")


def _driver_imports(runtime_env: Mapping[str, Any] | None) -> dict[str, Any]:
    """A runtime env whose PYTHONPATH (unless it sets one) is the driver's working folder and `sys.path`."""
    runtime_env = dict(runtime_env or {})
    env_vars = dict(runtime_env.get("env_vars", {}))
    paths = [path for path in sys.path if path and os.path.isdir(path)]
    env_vars.setdefault("PYTHONPATH", os.pathsep.join(dict.fromkeys([os.getcwd(), *paths])))
    runtime_env["env_vars"] = env_vars
    return runtime_env


def _check_reachable(address: str, timeout: float) -> None:
    """Raises ExecutorError unless something answers at the address's host and port within `timeout` seconds."""
    where = address.partition("://")[2] or address
    host, _, port = where.rpartition(":")
    host = host.strip("[]")
    shown = hide_credentials(address)
    if not host or not port.isdigit():
        raise ExecutorError(f"the Ray address {shown!r} is not HOST:PORT, ray://HOST:PORT or auto")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            pass
    except OSError as error:
        reason = (f"no answer within {timeout:g} s" if isinstance(error, TimeoutError)
                  else error.strerror or type(error).__name__)
        raise ExecutorError(f"cannot reach the Ray cluster at {shown}: {reason} "
                            "(is it running? start one with 'ray start --head', or use --address auto "
                            "for the one on this machine)") from None
