"""`graphrt.run` and `graphrt.arun`: run a graph in one call."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable, Mapping

from graphrt.authoring.filters import AgentFilter, FilterFunction
from graphrt.engine.executor import Executor
from graphrt.engine.graph import AgentsArg, Graph
from graphrt.graphdata.loader import GraphLoader

__all__ = ["run", "arun", "resume", "aresume"]


Filters = Iterable[AgentFilter | FilterFunction] | None


ExecutorArg = Executor | str | None


def _prepare(graph: Mapping[str, Any] | str | Path, inject: Mapping[str, Any] | None, agents: AgentsArg,
             config: Mapping[str, Any] | None, filters: Filters, bypass_agent_ids: Iterable[str],
             graph_loader: GraphLoader | None) -> Graph:
    prepared = Graph(graph, agents=agents, config=config, filters=filters, bypass_agent_ids=bypass_agent_ids,
                     graph_loader=graph_loader)
    for node_id, value in (inject or {}).items():
        prepared.inject(node_id, value)
    return prepared


def _executor(executor: ExecutorArg) -> tuple[Executor | None, bool]:
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


def run(
    graph: Mapping[str, Any] | str | Path,
    *,
    inject: Mapping[str, Any] | None = None,
    all_results: bool = False,
    agents: AgentsArg = None,
    config: Mapping[str, Any] | None = None,
    filters: Filters = None,
    bypass_agent_ids: Iterable[str] = (),
    graph_loader: GraphLoader | None = None,
    executor: ExecutorArg = None,
    timeout: float | None = None,
) -> dict[str, Any]:
    """Loads, validates and runs a graph; returns `{nodeId: result}`.

    Args:
        graph: GraphData as a dict, YAML/JSON text, or a path to a file.
        inject: values for static nodes, set before the run.
        all_results: every node's result instead of the `isResult` nodes'.
        agents: a Registry to use as is, or agents to add to the built-in ones.
        config: per-agent configuration, `{"global": {...}, "<agentId>": {...}}`.
        filters: agent filters wrapped around every agent call, in order (see graphrt.filters).
        bypass_agent_ids: agent ids that need no agent (GraphAI's `bypassAgentIds`): a filter answers
            for them, else their nodes give null.
        graph_loader: `loader(fileName, option)` -> GraphData for `graphLoader` nodes (GraphAI's
            option); without one, `fileName` is read beside the graph file.
        executor: where agent calls run: an Executor, "ray", "ray://HOST:PORT", or "inprocess";
            None reads the GRAPHRT_EXECUTOR variable (unset: in this process). An executor
            named by text is started for this run and shut down after it.
        timeout: seconds the whole run may take (default: GRAPHRT_RUN_TIMEOUT, else no limit).

    Raises:
        GraphError: a subclass saying what went wrong, where (RunTimeoutError past `timeout`).
    """
    prepared = _prepare(graph, inject, agents, config, filters, bypass_agent_ids, graph_loader)
    prepared.executor, made = _executor(executor)
    try:
        return prepared.run(all_results, timeout=timeout)
    finally:
        if made:
            _shutdown(prepared.executor)


async def arun(
    graph: Mapping[str, Any] | str | Path,
    *,
    inject: Mapping[str, Any] | None = None,
    all_results: bool = False,
    agents: AgentsArg = None,
    config: Mapping[str, Any] | None = None,
    filters: Filters = None,
    bypass_agent_ids: Iterable[str] = (),
    graph_loader: GraphLoader | None = None,
    executor: ExecutorArg = None,
    timeout: float | None = None,
) -> dict[str, Any]:
    """`run()` for async callers (asyncio or trio)."""
    prepared = _prepare(graph, inject, agents, config, filters, bypass_agent_ids, graph_loader)
    prepared.executor, made = _executor(executor)
    try:
        return await prepared.arun(all_results, timeout=timeout)
    finally:
        if made:
            _shutdown(prepared.executor)


def resume(checkpoint: Any, run_id: str | None = None, *, answer: Any = None, **options: Any) -> dict[str, Any]:
    """Continues a run saved with `checkpoint=` (the latest unfinished one if `run_id` is None).

    Completed nodes are not run again; `answer` answers the question the run stopped on.
    Other options (`agents`, `config`, `filters`, `force`, `all_results`, `backend`) are
    those of graphrt.durable.aresume.

    Raises:
        GraphInterrupted: the run asks a question.
        CheckpointError: no such run, or its graph file changed since (pass `force=True`).
    """
    from graphrt.durable.runs import resume as resume_saved

    return resume_saved(checkpoint, run_id, answer=answer, **options)


async def aresume(checkpoint: Any, run_id: str | None = None, *, answer: Any = None, **options: Any) -> dict[str, Any]:
    """`resume()` for async callers."""
    from graphrt.durable.runs import aresume as aresume_saved

    return await aresume_saved(checkpoint, run_id, answer=answer, **options)
