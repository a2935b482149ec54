"""`--executor` and `--address`, shared by the commands that run graphs: where agent calls run."""

from __future__ import annotations

import argparse
from contextlib import contextmanager
from typing import Iterator

from graphrt.engine.executor import Executor

__all__ = ["add_executor_option", "executor_for"]


def add_executor_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--executor", metavar="NAME",
                        help="where agent calls run: 'inprocess' (the default), 'ray' (a local Ray started for the "
                        "run, or the cluster of --address), or 'ray://HOST:PORT'; default: $GRAPHRT_EXECUTOR")
    parser.add_argument("--address", metavar="ADDR",
                        help="the Ray cluster to use with --executor ray ('auto': the one running on this machine)")


@contextmanager
def executor_for(args: argparse.Namespace) -> Iterator[Executor | None]:
    """The executor the options name (None: in this process), shut down when the command is done."""
    spec = getattr(args, "executor", None)
    address = getattr(args, "address", None)
    if spec is None and address is not None:
        spec = "ray"
    from graphrt.executors import close_executor, executor_from_spec

    executor = executor_from_spec(spec, address=address)
    try:
        yield executor
    finally:
        close_executor(executor)
