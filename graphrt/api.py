"""`graphrt.run` and `graphrt.arun`: prepare and run a graph in one call; `resume` a saved run; `batch` a dataset."""

from __future__ import annotations

import dataclasses
import os
from contextlib import AbstractAsyncContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sized

from graphrt.base.sync import blocking
from graphrt.engine.executor import Executor
from graphrt.engine.graph import Graph
from graphrt.engine.options import split_options

if TYPE_CHECKING:
    from graphrt.batches import BatchProgress, RowOutcome
    from graphrt.engine.journal import CallLog

__all__ = ["run", "arun", "resume", "aresume", "batch", "abatch"]


def _executor(executor: Executor | str | None) -> AbstractAsyncContextManager[Executor | None]:
    """The executor of a call, held as the call holds it: `async with` it around the call's runs.

    One named by text is made here, so this call is its maker: it is opened before the runs and
    closed after them, once each. An Executor object is its caller's, lent to the runs as it is.
    """
    if isinstance(executor, Executor):
        return nullcontext(executor)
    if executor is None and not os.environ.get("GRAPHRT_EXECUTOR"):
        return nullcontext(None)  # in-process: the executors package (and Ray) is not even imported
    from graphrt.executors import executor_from_spec

    made = executor_from_spec(executor)
    return nullcontext(None) if made is None else made


async def arun(graph: Mapping[str, Any] | str | Path, **options: Any) -> dict[str, Any]:
    """Loads, validates and runs a graph; returns `{nodeId: result}`.

    The results are data, as the agents returned them: a credential in them (an LLM server that echoes its
    key back) is kept, where graphrt's commands print or save them without the credentials the run knows.

    Args:
        graph: GraphData as a dict, YAML/JSON text, or a path to a file.
        options: those of a Graph (`agents`, `config`, `filters`, `bypass_agent_ids`,
            `graph_loader`, `executor`, `services`: graphrt.engine.options.GraphOptions) and of
            a run (`inject`, `all_results`, `run_id`, `timeout`, `subscribe`, `progress`:
            RunOptions). `executor` may name one: "ray", "ray://HOST:PORT" or "inprocess"; None
            reads the GRAPHRT_EXECUTOR variable (unset: in this process). An executor named by
            text is made and opened for this run and closed after it; an Executor object is
            yours: the run borrows it, and you close it.

    Raises:
        GraphError: a subclass saying what went wrong, where (RunTimeoutError past `timeout`).
        TypeError: an option that is neither a Graph's nor a run's.
    """
    graph_options, run_options = split_options(options, where="graphrt.run")
    prepared = Graph(graph, dataclasses.replace(graph_options, executor=None))
    async with _executor(graph_options.executor) as executor:
        return await prepared.replace(executor=executor).arun(run_options)


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


async def abatch(
    graph: Mapping[str, Any] | str | Path | Graph,
    rows: Iterable[Mapping[str, Any]] | str | Path,
    *,
    concurrency: int | None = None,
    checkpoint: Any = None,
    batch_id: str | None = None,
    id_field: str | None = None,
    ordered: bool = True,
    on_row: Callable[["RowOutcome"], Any] | None = None,
    progress: "BatchProgress | None" = None,
    executor: Executor | str | None = None,
    timeout: float | None = None,
    all_results: bool = False,
    keep: bool = True,
    budget: Any = None,
    journal_of: Callable[[str], "CallLog"] | None = None,
    **options: Any,
) -> list["RowOutcome"]:
    """Runs `graph` once per row of `rows`; returns each row's outcome, in input order (graphrt.batches).

    A row is the values its run injects into static nodes. A row that fails is
    recorded with its located error and the others go on. With a `checkpoint`,
    each row is a saved run named `BATCH_ID/ROW_ID`: called again, the batch skips
    the rows that completed (their saved results are their outcomes) and runs the others.
    The outcomes' results are data, as `run`'s; `RowOutcome.json_line(redactor)` writes a row hiding the credentials
    the redactor knows.

    Args:
        graph: a Graph, or what a Graph is made from (a path, YAML/JSON text, a dict).
        rows: mappings, or the path of a JSONL file (one JSON object a line).
        concurrency: rows at once (default 8; on an executor, the cluster's CPUs for whole runs).
        checkpoint: a checkpoint store, a SQLite file or a postgresql:// URL: makes the batch resumable.
        batch_id: names the batch's runs in the store (default: the graph's and the rows' file names).
        id_field: the rows' field that is their id (default: the row's line number, or place from 1).
        ordered: `on_row` and the list in input order; False: as rows finish.
        on_row: called with each outcome as it is decided (a file is written as the batch goes).
        progress: counters to keep, for a display to read.
        executor: runs each row as one whole run there: an Executor (yours: the batch borrows it), or
            its name ("ray", "ray://HOST:PORT"): made and opened for the batch and closed after it.
        timeout: seconds each row's run may take.
        all_results: every node's result in a row's results, not only the `isResult` nodes'.
        keep: return the outcomes; False returns none (a batch of millions of rows read through `on_row`).
        budget: what each row's run may spend (graphrt.base.budget), over the config's; a row it stops fails alone.
            Each outcome's `usage` says what its row spent, and `progress.usage` what the rows run now did.
        journal_of: each row's journal of outside calls by the row's id, to record them or replay them from:
            a cassette's `part` (graphrt.testing.Cassette); the rows then run in this process.
        options: a Graph's options (`agents`, `config`, `filters`, ...) when `graph` is not a Graph.

    Raises:
        GraphError: the graph cannot be prepared, the rows' file cannot be read, or the store cannot be opened.
    """
    from graphrt.batches import Batch, BatchProgress, Ledger, rows_of
    from graphrt.checkpoint import open_store
    from graphrt.checkpoint.guard import GuardedStore

    prepared = graph if isinstance(graph, Graph) else Graph(graph, **options)
    if progress is None:
        progress = BatchProgress(total=_rows_count(rows))  # known, a batch ends its chunks of rows evenly
    holder = _executor(executor)  # made (when named) before the store is opened: a wrong name is said first
    opened = open_store(checkpoint) if checkpoint is not None else None
    outcomes: list[RowOutcome] = []

    def take(outcome: "RowOutcome") -> None:
        if keep:
            outcomes.append(outcome)
        if on_row is not None:
            on_row(outcome)

    try:
        ledger = Ledger(GuardedStore(opened), batch_id or default_batch_id(prepared, rows)) if opened else None
        async with holder as lent:
            runner = Batch(prepared, concurrency=concurrency, ledger=ledger, executor=lent, timeout=timeout,
                           all_results=all_results, ordered=ordered, progress=progress, budget=budget,
                           journal_of=journal_of)
            await runner.run(rows_of(rows, id_field=id_field), take)
    finally:
        if opened is not None and opened is not checkpoint:
            await opened.close()
    return outcomes


batch = blocking(abatch)


def _rows_count(rows: Any) -> int | None:
    """How many rows there are, when that is known up front (a file's lines, a list's length)."""
    if isinstance(rows, (str, Path)):
        from graphrt.batches import count_rows

        try:
            return count_rows(rows)
        except OSError:
            return None  # reading the rows says why
    return len(rows) if isinstance(rows, Sized) else None


def default_batch_id(graph: Graph, rows: Any) -> str:
    """`GRAPH:ROWS` from the files' names (`qa:questions`); a graph or rows not from a file go by a hash."""
    from graphrt.durable.runs import graph_hash

    if graph.file:
        name = Path(graph.file).stem
    else:
        name = "graph-" + graph_hash(repr(sorted(graph.data.items(), key=str)))[:8]
    if isinstance(rows, (str, Path)):
        return f"{name}:{Path(rows).stem}"
    return name

