"""`graphrt.run` and `graphrt.arun`: prepare and run a graph in one call; `resume` a saved run."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any, Mapping

from graphrt.base.sync import blocking
from graphrt.engine.executor import Executor
from graphrt.engine.graph import Graph
from graphrt.engine.options import split_options

__all__ = ["run", "arun", "resume", "aresume"]


def _executor(executor: Executor | str | None) -> tuple[Executor | None, bool]:
    """The run's executor, and whether this call made it (and so shuts it down after the run)."""
    if isinstance(executor, Executor):
        return executor, False
    if executor is None and not os.environ.get("GRAPHRT_EXECUTOR"):
        return None, False  # in-process: the executors package (and Ray) is not even imported
    from graphrt.executors import executor_from_spec

    made = executor_from_spec(executor)
    return made, made is not None


def _shutdown(executor: Executor | None) -> None:
    from graphrt.executors import close_executor

    close_executor(executor)


async def arun(graph: Mapping[str, Any] | str | Path, **options: Any) -> dict[str, Any]:
    """Loads, validates and runs a graph; returns `{nodeId: result}`.

    Args:
        graph: GraphData as a dict, YAML/JSON text, or a path to a file.
        options: those of a Graph (`agents`, `config`, `filters`, `bypass_agent_ids`,
            `graph_loader`, `executor`, `services`: graphrt.engine.options.GraphOptions) and of
            a run (`inject`, `all_results`, `run_id`, `timeout`, `subscribe`, `progress`:
            RunOptions). `executor` may name one: "ray", "ray://HOST:PORT" or "inprocess"; None
            reads the GRAPHRT_EXECUTOR variable (unset: in this process). An executor named by
            text is started for this run and shut down after it.

    Raises:
        GraphError: a subclass saying what went wrong, where (RunTimeoutError past `timeout`).
        TypeError: an option that is neither a Graph's nor a run's.
    """
    graph_options, run_options = split_options(options, where="graphrt.run")
    prepared = Graph(graph, dataclasses.replace(graph_options, executor=None))
    executor, made = _executor(graph_options.executor)
    try:
        return await prepared.replace(executor=executor).arun(run_options)
    finally:
        if made:
            _shutdown(executor)


run = blocking(arun)


async def aresume(checkpoint: Any, run_id: str | None = None, *, answer: Any = None, **options: Any) -> dict[str, Any]:
    """Continues a run saved with a checkpoint (the latest unfinished one if `run_id` is None).

    Completed nodes are not run again; `answer` answers the question the run stopped on.
    Other options (`agents`, `config`, `filters`, `force`, `all_results`, `subscribe`) are
    those of graphrt.durable.aresume.

    Raises:
        GraphInterrupted: the run asks a question.
        CheckpointError: no such run, or its graph file changed since (pass `force=True`).
    """
    from graphrt.durable.resume import aresume as aresume_saved

    return await aresume_saved(checkpoint, run_id, answer=answer, **options)


resume = blocking(aresume)
