"""Resuming a saved run: finding it, rebuilding its Graph from its file or saved copy, and continuing it.

    graph, record = from_checkpoint("runs.db", "nightly")   # the saved run's Graph, and its record
    results = graphrt.resume("runs.db", "nightly")          # continues it (runs.py saves it as it goes)
    results = graphrt.resume("runs.db", answer="yes")       # the latest unfinished run, answered
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, Callable, Iterable

from graphrt.base.sync import blocking
from graphrt.checkpoint import CheckpointTarget, open_store
from graphrt.base.states import RunStatus
from graphrt.checkpoint.base import CheckpointStore
from graphrt.checkpoint.errors import CheckpointError
from graphrt.checkpoint.guard import GuardedStore
from graphrt.checkpoint.records import RunRecord
from graphrt.durable.credentials import usable_config
from graphrt.durable.runs import arun_checkpointed, graph_hash
from graphrt.engine.graph import Graph
from graphrt.engine.options import RunOptions, split_options

__all__ = ["find_run", "afrom_checkpoint", "from_checkpoint", "aresume", "resume", "graph_as_started"]


async def find_run(store: CheckpointStore, run_id: str | None) -> RunRecord:
    """The saved run `run_id`, or the most recent run a resume continues (RunStatus.RESUMABLE).

    Raises:
        CheckpointError: no such run (the message lists the saved ones).
    """
    if run_id is not None:
        record = await store.get_run(run_id)
        if record is None:
            known = ", ".join(saved.run_id for saved in (await store.runs())[:10]) or "none"
            raise CheckpointError(f"no run {run_id!r} in {store.location} (saved runs: {known})")
        return record
    runs = await store.runs()
    for record in runs:
        if record.status in RunStatus.RESUMABLE:
            return record
    if runs:
        raise CheckpointError(f"every run in {store.location} has completed (latest: {runs[0].run_id}); "
                              "pass a run id to see its results")
    raise CheckpointError(f"no run saved in {store.location}")


def graph_as_started(record: RunRecord) -> str | Path | dict[str, Any]:
    """What a saved run's Graph is built from to continue it as it started, whatever happened to its file since:
    the file while it is unchanged, else the copy saved with the run (its credentials left out: agents find
    them in the environment).

    Raises:
        CheckpointError: the file changed (or is gone) and the run has no saved copy (its credentials could
        not be left out of it, so the file was the only copy).
    """
    if record.graph_file is not None:
        path = Path(record.graph_file)
        try:
            unchanged = graph_hash(path.read_text(encoding="utf-8")) == record.graph_hash
        except (OSError, UnicodeDecodeError):
            unchanged = False
        if unchanged:
            return path
        if record.graph_text is None:
            raise CheckpointError(f"{path.name} changed since run {record.run_id!r} started, and the run has no "
                                  "saved copy of its graph (its credentials could not be left out of it)")
    elif record.graph_text is None:
        raise CheckpointError(f"run {record.run_id!r} has no saved graph: resume it with arun_checkpointed(graph, ...)")
    return _parsed_copy(record.graph_text)


def _parsed_copy(text: str) -> str | dict[str, Any]:
    if text.lstrip().startswith("{"):
        return json.loads(text)  # a graph given as a dict was saved as JSON
    return text


def _saved_graph(record: RunRecord, location: str, force: bool) -> str | Path | dict[str, Any]:
    """What a saved run's Graph is built from: its file, unchanged since (or any file, with `force`), else the
    copy saved with the run (with `force`, or when the run was given as a dict or text)."""
    source: str | Path
    if record.graph_file is not None:
        path = Path(record.graph_file)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError:
            if not force or record.graph_text is None:
                raise CheckpointError(f"{path} is gone since run {record.run_id!r} was saved in {location}; "
                                      "resume with force=True (--force) to use the copy saved with the run") from None
            source = record.graph_text
        else:
            if graph_hash(text) != record.graph_hash and not force:
                raise CheckpointError(f"{path} changed since run {record.run_id!r} was saved in {location}; "
                                      "resume with force=True (--force) to run the changed graph")
            source = path
    elif record.graph_text is not None:
        source = record.graph_text
    else:
        raise CheckpointError(f"run {record.run_id!r} has no saved graph: resume it with arun_checkpointed(graph, ...)")
    return _parsed_copy(source) if isinstance(source, str) else source


async def afrom_checkpoint(checkpoint: CheckpointTarget, run_id: str | None = None, *, force: bool = False,
                           as_started: bool = False, **options: Any) -> tuple[Graph, RunRecord]:
    """The Graph of a saved run, rebuilt from its file (or saved copy), and the run's record.

    Args:
        checkpoint: the store, a SQLite file or a postgresql:// URL.
        run_id: the run; the most recent unfinished one if None.
        force: use the graph file even if it changed since the run was saved.
        as_started: the graph the run started with, whatever happened to the file since (graph_as_started):
            how a server continues, resumes and forks its runs.
        options: a Graph's options (graphrt.engine.options.GraphOptions); Python agents are not
            saved, so pass `agents` again; `config` is merged over the saved config, whose
            secrets were not saved.

    Raises:
        CheckpointError: no such run, or the graph file changed (or is gone) and not `force`.
    """
    graph_options, _ = split_options(options, run=False, where="from_checkpoint")
    opened = open_store(checkpoint, existing=True)  # reading a run makes no store
    store = GuardedStore(opened)
    try:
        record = await find_run(store, run_id)
        location = store.location
    finally:
        if opened is not checkpoint:
            await store.close()
    source = graph_as_started(record) if as_started else _saved_graph(record, location, force)
    options = dict(options, config=usable_config(record.config, graph_options.config))
    return Graph(source, **options), record


from_checkpoint = blocking(afrom_checkpoint)


async def aresume(
    checkpoint: CheckpointTarget,
    run_id: str | None = None,
    *,
    answer: Any = None,
    force: bool = False,
    all_results: bool | None = None,
    subscribe: Iterable[Callable[[Any], Any]] = (),
    **options: Any,
) -> dict[str, Any]:
    """Continues a saved run (the most recent unfinished one if `run_id` is None); returns its results.

    Completed nodes are not run again. A run that stopped on a question needs
    `answer`. A completed run returns its saved results without running.

    Args:
        answer: the answer to the question the run stopped on.
        force: run the graph file even if it changed since the run was saved.
        all_results: every node's result (default: as the run was started).
        subscribe: callables given every event of the resumed run.
        options: a Graph's options, as for `afrom_checkpoint` (`agents`, `config`, `filters`, ...), and the
            resumed run's own (`timeout`, `budget`, `on_usage`, `progress`: graphrt.engine.options.RunOptions).

    Raises:
        GraphInterrupted: the run asks a question (again, or a new one).
        CheckpointError: no such run, or its graph file changed (see `force`).
    """
    given = {name: options[name] for name in options if name in _RUN_FIELDS}  # the rest are from_checkpoint's
    for name in ("inject", "run_id", "all_results"):
        if name in given:
            raise TypeError(f"resume: {name!r} is the saved run's: it cannot be given again")
    graph, record = await afrom_checkpoint(checkpoint, run_id, force=force,
                                           **{name: options[name] for name in options if name not in given})
    wanted = record.all_results if all_results is None else all_results
    return await arun_checkpointed(graph, checkpoint, run_id=record.run_id, answer=answer, force=force,
                                   all_results=wanted, subscribe=tuple(subscribe), **given)


resume = blocking(aresume)

_RUN_FIELDS = frozenset(field.name for field in dataclasses.fields(RunOptions))
