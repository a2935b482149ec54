"""`--executor` and `--address`, shared by the commands that run graphs: where agent calls run."""

from __future__ import annotations

import argparse
import sys
from contextlib import contextmanager, redirect_stdout
from typing import Iterator

import anyio

from graphrt.base.errors import GraphError
from graphrt.engine.executor import Executor, ExecutorError
from graphrt.executors import EXECUTOR_VARIABLE, executor_from_spec, executor_names

__all__ = ["add_executor_option", "executor_for"]


def add_executor_option(parser: argparse.ArgumentParser) -> None:
    names = executor_names()
    installed = f"an installed executor ({', '.join(names)}) by NAME, or NAME://ADDRESS" if names else "no other is installed"
    parser.add_argument("--executor", metavar="NAME",
                        help=f"where agent calls run: 'inprocess' (the default), or {installed}; "
                        f"default: ${EXECUTOR_VARIABLE}")
    parser.add_argument("--address", metavar="ADDR",
                        help="the address of the cluster the executor uses (e.g. Ray's 'auto': the one Ray cluster "
                        "running on this machine, an error if several run); without --executor, the one installed "
                        "executor's")


@contextmanager
def executor_for(args: argparse.Namespace) -> Iterator[Executor | None]:
    """The executor the options name (None: in this process), open while the command runs.

    The command made it, so the command opens it, once, before its runs (a cluster that does not
    answer is one line here) and closes it, once, when it is done; its runs, batch or server borrow it.
    """
    spec = getattr(args, "executor", None)
    address = getattr(args, "address", None)
    if spec is None and address is not None:
        names = executor_names()
        if len(names) != 1:
            raise ExecutorError(f"--address {address} needs --executor NAME (installed: {', '.join(names) or 'none'})")
        spec = names[0]
    with _refusal_said(spec):
        executor = executor_from_spec(spec, address=address)
    if executor is None:
        yield None
        return
    # What the cluster library prints as it connects goes to stderr: stdout holds the command's results alone.
    with _refusal_said(spec), redirect_stdout(sys.stderr):
        anyio.run(executor.open)
    try:
        yield executor
    finally:
        anyio.run(executor.close)


@contextmanager
def _refusal_said(spec: str | None) -> Iterator[None]:
    """The cluster library's own refusal (a missing ray[client], no cluster) as one ExecutorError line."""
    try:
        yield
    except GraphError:
        raise
    except Exception as error:  # noqa: BLE001 - said in one line, naming the option
        first = str(error).splitlines()[0] if str(error) else ""
        raise ExecutorError(f"--executor {spec}: {type(error).__name__}: {first}") from error
