"""Executors: where a graph's agent calls run (see graphrt.engine.executor for the seam).

`executor_from_spec` turns what a user writes (`--executor ray`, `ray://HOST:PORT`,
the GRAPHRT_EXECUTOR variable) into an Executor; the Ray one needs `pip install 'graphrt[ray]'`.
"""

from __future__ import annotations

import os
from typing import Any

from graphrt.base.errors import GraphError
from graphrt.engine.executor import Executor

__all__ = ["ExecutorError", "executor_from_spec", "close_executor", "EXECUTOR_VARIABLE", "IN_PROCESS"]

EXECUTOR_VARIABLE = "GRAPHRT_EXECUTOR"
IN_PROCESS = ("", "inprocess", "in-process", "local")


class ExecutorError(GraphError):
    """An executor cannot be made: an unknown name, or its package is not installed."""


def executor_from_spec(spec: str | Executor | None, *, address: str | None = None, **options: Any) -> Executor | None:
    """The executor named by `spec`; None means in this process.

    `spec` is "inprocess", "ray", or "ray://HOST:PORT" (Ray Client); None reads
    GRAPHRT_EXECUTOR. `address` is the Ray cluster's ("auto": the one running here).

    Raises:
        ExecutorError: an unknown executor, or Ray is not installed.
    """
    if isinstance(spec, Executor):
        return spec
    if spec is None:
        spec = os.environ.get(EXECUTOR_VARIABLE, "")
    text = spec.strip()
    if text.lower() in IN_PROCESS:
        if address is not None:
            raise ExecutorError(f"--address {address} needs a cluster executor: --executor ray")
        return None
    if text == "ray" or text.startswith("ray://"):
        try:
            from graphrt.executors.ray import RayExecutor
        except ImportError as missing:
            raise ExecutorError(f"the Ray executor needs Ray: pip install 'graphrt[ray]' ({missing})") from None
        if text.startswith("ray://"):
            if address is not None and address != text:
                raise ExecutorError(f"two addresses for the Ray cluster: {text} and {address}")
            address = text
        return RayExecutor(address, **options)
    raise ExecutorError(f"unknown executor {spec!r} (use: inprocess, ray, ray://HOST:PORT)")


def close_executor(executor: Executor | None) -> None:
    """Shuts down an executor made by `executor_from_spec` (e.g. stops the local Ray it started)."""
    shutdown = getattr(executor, "shutdown", None)
    if shutdown is not None:
        shutdown()
