"""Executors: where a graph's agent calls run (see graphrt.engine.executor for the seam).

`executor_from_spec` turns what a user writes (`--executor NAME`, `NAME://ADDRESS`,
the GRAPHRT_EXECUTOR variable) into an Executor. Executors are found through the
entry point group `graphrt.executors`, each entry point named as `--executor`
names it, so that a package adds one by an entry point alone:

    [project.entry-points."graphrt.executors"]
    dask = "my_pack.executors:DaskExecutor"    # --executor dask, --executor dask://HOST:8786

graphrt's own is Ray's (`pip install 'graphrt[ray]'`); the class says what it
opens (`schemes`, `from_target`) and what to install for it (`extra`).

Whoever calls `executor_from_spec` made the executor, and so opens it once and
closes it once (`async with executor:`); the runs it is given to only borrow it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from graphrt.base.entry_points import EntryPoint, by_name

if TYPE_CHECKING:
    from graphrt.engine.executor import Executor

__all__ = ["EXECUTOR_GROUP", "EXECUTOR_VARIABLE", "executor_class", "executor_from_spec", "executor_names"]

EXECUTOR_GROUP = "graphrt.executors"
EXECUTOR_VARIABLE = "GRAPHRT_EXECUTOR"
_IN_PROCESS = ("", "inprocess", "in-process", "local")  # no executor: calls run in this process


def executor_from_spec(spec: str | Executor | None, *, address: str | None = None, **options: Any) -> Executor | None:
    """The executor named by `spec`, made and not opened (its caller opens and closes it); None: in this process.

    `spec` is "inprocess", or an installed executor's name, `NAME` or `NAME://ADDRESS`
    (`ray`, `ray://HOST:PORT`); None reads GRAPHRT_EXECUTOR. `address` is the cluster's
    (for Ray, "auto": the one running here). An Executor given as `spec` is returned as it is: its maker's.

    Raises:
        ExecutorError: an unknown executor, or its packages are not installed.
    """
    from graphrt.engine.executor import Executor, ExecutorError  # the seam, imported when an executor is named

    if isinstance(spec, Executor):
        return spec
    if spec is None:
        spec = os.environ.get(EXECUTOR_VARIABLE, "")
    text = spec.strip()
    if text.lower() in _IN_PROCESS:
        if address is not None:
            raise ExecutorError(f"--address {address} needs a cluster executor: --executor NAME ({_known()})")
        return None
    return executor_class(text).from_target(text, address=address, **options)


def executor_class(spec: str) -> type[Executor]:
    """The class of the executor `NAME` or `NAME://ADDRESS` names: the entry point NAME of `graphrt.executors`.

    Raises:
        ExecutorError: no executor of that name is installed, or its entry point cannot be loaded.
    """
    from graphrt.engine.executor import ExecutorError

    name = spec.partition("://")[0]
    point = by_name(EXECUTOR_GROUP).get(name)
    if point is None:
        raise ExecutorError(f"unknown executor {spec!r} (inprocess, or an executor {_known()})")
    return _loaded(point)


def executor_names() -> list[str]:
    """The installed executors' names, read from their entry points (none is imported)."""
    return list(by_name(EXECUTOR_GROUP))


def _known() -> str:
    names = executor_names()
    return f"installed: {', '.join(names)}" if names else "none is installed"


def _loaded(point: EntryPoint) -> type[Executor]:
    """The class an entry point names, checked to be an Executor that is found by that name."""
    from graphrt.engine.executor import Executor, ExecutorError

    where = f"executor '{point.name} = {point.value}' (entry point group {EXECUTOR_GROUP})"
    try:
        cls = point.load()
    except Exception as error:  # noqa: BLE001 - a broken package is reported by name
        raise ExecutorError(f"{where} cannot be loaded: {type(error).__name__}: {error}") from error
    if not (isinstance(cls, type) and issubclass(cls, Executor)):
        raise ExecutorError(f"{where} is not an Executor class")
    if point.name not in cls.schemes:
        raise ExecutorError(f"{where} is named {', '.join(cls.schemes) or 'nothing'}, not {point.name}")
    return cls
