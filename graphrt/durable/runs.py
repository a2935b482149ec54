"""Runs that survive crashes: a run saved to a checkpoint store as it goes, from its record to how it ended.

    results = await arun_checkpointed(graph, "runs.db", run_id="nightly")   # saves as it runs
    results = graphrt.resume("runs.db", "nightly")                          # after a crash (resume.py)

A run starts with its record (the graph's source, injected values, config with
its credentials left out: credentials.py), is claimed by this process, runs
with a `CheckpointWriter` observing it (writer.py), and ends with its status
saved (base/states.py's RunStatus): finished with its results, failed,
cancelled, or interrupted by a question; its `SavedRun` (saved_run.py) makes each
of these changes. A saved run given again continues where its rows leave off:
completed nodes are not run again, so its results are those of an
uninterrupted run.

Inside a node, only its outside calls are saved: each LLM request, tool call
and service call is journaled as it returns (journal.py; graphrt/engine/journal.py),
so a node that was running when the process died (a toolsAgent in its loop, a
nestedAgent or mapAgent node with all its nested nodes) runs again from its start
but takes the results of the calls it made from the journal instead of making
them again. A node whose result JSON cannot hold (bytes, an object) is not saved
and runs again on resume. A SQLite file is created readable by its owner only.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import hashlib
import json
import math
import os
from typing import Any, Awaitable, Callable, Mapping, Sequence

import anyio

from graphrt.base.budget import Budget
from graphrt.base.errors import BudgetExceeded, GraphAbortedError, GraphError, GraphInterrupted
from graphrt.base.secrets import Redactor
from graphrt.base.sync import blocking
from graphrt.base.states import RunStatus
from graphrt.checkpoint import CheckpointTarget
from graphrt.checkpoint.errors import CheckpointError, Unsavable
from graphrt.checkpoint.guard import GuardedStore
from graphrt.checkpoint.records import Row, RunRecord
from graphrt.checkpoint.restore import snapshot_from_rows
from graphrt.checkpoint.shared import shared_store
from graphrt.checkpoint.snapshot import RunSnapshot
from graphrt.checkpoint.values import encode_value
from graphrt.durable.credentials import saved_config, saved_source
from graphrt.durable.journal import StoreLog
from graphrt.durable.saved_run import SavedRun
from graphrt.durable.writer import CheckpointWriter
from graphrt.engine.graph import Graph
from graphrt.engine.journal import UNCERTAIN, Journal
from graphrt.engine.options import RunOptions, split_options
from graphrt.engine.run import run_timeout, within_timeout
from graphrt.graphdata.spec import check_injectable
from graphrt.observe.observer import RunObserver

__all__ = ["arun_checkpointed", "run_checkpointed", "save_new_run", "graph_hash"]


# ----- the run's record -----


def graph_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _source_of(graph: Graph) -> tuple[str | None, str | None, str]:
    """(file, text, sha256 of the text) of a graph; a dict graph's text is its JSON."""
    source = graph.spec.source
    if source.text is not None:
        return source.file, source.text, graph_hash(source.text)
    text = json.dumps(graph.data, sort_keys=True, ensure_ascii=False,
                      default=lambda value: getattr(value, "__qualname__", type(value).__name__))
    return None, text, graph_hash(text)


@dataclasses.dataclass(frozen=True)
class _SavedGraph:
    """What every record of a Graph's runs holds of the graph: worked out once per Graph, which does not change,
    and kept with it (`Graph.derived`)."""

    file: str | None
    text: str | None
    digest: str
    config: dict[str, Any]
    credentials: frozenset[str]  # those of its config and graph, which its runs' saved data never holds

    def redactor(self) -> Redactor:
        """What hides a run's known credentials in its saved data: these, and the environment's as it is now."""
        return Redactor.now(known=self.credentials)


_SAVED_TEXTS: dict[tuple[str, str], _SavedGraph] = {}  # (a graph text's digest, its config as JSON) -> the saved graph
_SAVED_TEXTS_KEPT = 16  # graphs at most: a script or server that builds a Graph per run builds a few, again and again


def _graph_as_saved(graph: Graph) -> _SavedGraph:
    file, text, digest = _source_of(graph)
    # Each time: where the file is now (realpath: Path.resolve's answer without its objects and its extra stat).
    resolved = os.path.realpath(file) if file else None
    # A graph read from text (a file's, most often) is what its text and config make it: a Graph built again from
    # the same ones (per run) is saved as the last was, without finding its credentials again (issue 44).
    config = _config_key(graph.config) if graph.spec.source.text is not None else None
    key = (digest, config) if config is not None else None
    saved = _SAVED_TEXTS.get(key) if key is not None else None
    if saved is None:
        saved = _SavedGraph(file=resolved, text=saved_source(text, graph.data) if text is not None else None,
                            digest=digest, config=saved_config(graph.config), credentials=graph.credentials)
        if key is not None:
            if len(_SAVED_TEXTS) >= _SAVED_TEXTS_KEPT:
                _SAVED_TEXTS.pop(next(iter(_SAVED_TEXTS)))  # the oldest
            _SAVED_TEXTS[key] = saved
    return saved if saved.file == resolved else dataclasses.replace(saved, file=resolved)


def _config_key(config: Mapping[str, Any]) -> str | None:
    """A config as JSON text that two equal configs share; None when JSON cannot write it (an object in it)."""
    if not config:
        return "{}"
    try:
        return json.dumps(config, sort_keys=True, ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError, RecursionError):
        return None


def _saved_graph(graph: Graph) -> _SavedGraph:
    return graph.derived(_graph_as_saved)


def _new_record(graph: Graph, run_id: str, injected: Mapping[str, Any], all_results: bool,
                budget: Any = None) -> RunRecord:
    saved = _saved_graph(graph)
    config = copy.deepcopy(saved.config) if saved.config else {}  # the record is the caller's to change
    if budget is not None:  # the run's budget is saved with it, in its config: resuming it goes on under it
        config["budget"] = Budget.of(budget).over(graph.usage_settings.budget).to_dict()
    for node_id, value in injected.items():
        check_injectable(graph.spec, node_id)
        try:
            encode_value(value)
        except Unsavable as error:
            raise Unsavable(f"cannot save the value injected into '{node_id}' in a checkpoint: {error}",
                            node_id=node_id) from None
    return RunRecord(
        run_id=run_id,
        graph_file=saved.file,
        graph_text=saved.text,
        graph_hash=saved.digest,
        injected=dict(injected),
        config=config,
        all_results=all_results,
    )


async def save_new_run(graph: Graph, store: GuardedStore, run_id: str, *, inject: Mapping[str, Any] | None = None,
                       all_results: bool = False, budget: Any = None) -> RunRecord:
    """Saves a run before it starts (a server's queued run): `arun_checkpointed` with this `run_id` starts it,
    and so does resuming it after a crash.

    Raises:
        CheckpointError: the id is taken, or an injected value cannot be saved.
    """
    record = _new_record(graph, run_id, inject or {}, all_results, budget)
    await SavedRun(store, run_id).create(record)
    return record


def _check_same_graph(graph: Graph, record: RunRecord, location: str) -> None:
    """A saved run continues with its graph: the file it was saved from, or the copy saved with it."""
    digest = _saved_graph(graph).digest
    if digest == record.graph_hash or (record.graph_text is not None and digest == graph_hash(record.graph_text)):
        return
    where = record.graph_file or "the graph"
    raise CheckpointError(
        f"{where} changed since run {record.run_id!r} was saved in {location}; "
        "resume with force=True (--force) to run the changed graph"
    )


def _check_same_inputs(inject: Mapping[str, Any], record: RunRecord, location: str) -> None:
    """A saved run continues with the values it was started with: other values need a new run id.

    Values are compared exactly, as the run would see them: `true` is not `1`, `1` is not `1.0`,
    and a value for a node the run was started without is another value too.
    """
    for node_id, value in inject.items():
        if node_id not in record.injected or not _identical(record.injected[node_id], value):
            started = "without a value" if node_id not in record.injected else "with other values"
            raise CheckpointError(
                f"run {record.run_id!r} in {location} was started {started} for '{node_id}'; "
                "use a new run id to run with these, or leave them out to continue that run", node_id=node_id)


def _identical(saved: Any, given: Any) -> bool:
    """Whether two values are the same JSON value, type included (Python's `True == 1 == 1.0` is not)."""
    if type(saved) is not type(given) and not (isinstance(saved, (list, tuple)) and isinstance(given, (list, tuple))):
        return False
    if isinstance(saved, dict):
        return saved.keys() == given.keys() and all(_identical(saved[key], given[key]) for key in saved)
    if isinstance(saved, (list, tuple)):
        return len(saved) == len(given) and all(map(_identical, saved, given))
    if isinstance(saved, float) and math.isnan(saved):
        return math.isnan(given)
    return saved == given


# ----- running -----


async def arun_checkpointed(graph: Graph, checkpoint: CheckpointTarget, *, answer: Any = None, force: bool = False,
                            observers: Sequence[RunObserver] = (), new_record: RunRecord | None = None,
                            uncertain: str = "ask", journaled: bool = True,
                            before_end: Callable[[], Awaitable[None]] | None = None, **options: Any) -> dict[str, Any]:
    """Runs `graph`, saving its state to `checkpoint`; continues the run if `run_id` is saved there already.

    Its outside calls (LLM requests, tool calls, services': graphrt.engine.journal) are journaled in the store
    as they return, when it keeps journals: continued, the run takes their results instead of making them again.

    Args:
        checkpoint: a checkpoint store, a SQLite file or a postgresql:// URL.
        answer: the answer to the question the saved run stopped on.
        force: continue a saved run although its graph changed since, making anew a journaled call with side
            effects that asks otherwise now.
        uncertain: what a call with side effects that started and left no result does when its agent is not
            idempotent: "ask" a person whether it happened (the run stops as interrupted), or "fail".
        journaled: journal the run's outside calls in the store (False: a resumed node makes them again).
        observers: told of the run's transitions after the checkpoint writer (graphrt serve holds a run
            whose events its store has not saved yet: serve/event_backpressure.py).
        new_record: the record `save_new_run` returned for `run_id`, which nothing has run since (a server's
            queued run): the run starts from it without reading it and its rows back (it has none) or saving
            it as running again (it is saved so).
        before_end: awaited before the end of a run that ended by itself (finished, failed, or asking) is saved:
            what must be in the store first (graphrt serve's event log, so that a server killed between the two
            leaves the run running, for another to end with its whole log, never ended with a log cut short). It
            must return in bounded time. A cancelled run's end is saved without it (its server may be stopping).
        options: a run's options (graphrt.engine.options.RunOptions: `run_id`, `inject`,
            `all_results`, `timeout`, `subscribe`, `progress`, `journal`: a cassette the run also records to).

    Raises:
        GraphInterrupted: an agent asked a question; resume with `answer`.
        CheckpointError: the store failed, or the saved run belongs to a changed graph.
        JournalError: a journaled call asks otherwise now, or is uncertain and the run fails on that.
        GraphError: as `Graph.arun`; the state is saved, so the run can be resumed.
    """
    _, run_options = split_options(options, graph=False, where="arun_checkpointed")
    if new_record is not None and (new_record.run_id != run_options.run_id or new_record.status != RunStatus.RUNNING
                                   or answer is not None):
        raise ValueError("new_record is the record save_new_run returned for run_id, without an answer")

    calls = _DEFAULT_CALLS if uncertain == "ask" and journaled is True else _Calls(uncertain, journaled)
    run = functools.partial(_in_store, graph, checkpoint, run_options, answer=answer, force=force, observers=observers,
                            new_record=new_record, calls=calls, before_end=before_end)
    if run_timeout(run_options.timeout) is None:  # no limit: no cancel scope to enter and leave
        return await run()
    return await within_timeout(run, run_options.timeout, file=graph.file)


async def _in_store(graph: Graph, checkpoint: CheckpointTarget, options: RunOptions, **how: Any) -> dict[str, Any]:
    """The run in its store: a path or URL's, which the runs at once given it share (one connection, their writes
    one commit; closed when the last ends), or the store object given (graphrt serve's is guarded already).

    A function of the module, not a closure of arun_checkpointed: a run keeps fewer objects alive while it runs
    (issue 44: what 50 runs at once hold sets how often the garbage collector runs)."""
    inner = options.replace(timeout=None) if options.timeout is not None else options
    async with shared_store(checkpoint) as store:
        return await _run(graph, store, inner, **how)


run_checkpointed = blocking(arun_checkpointed)


async def _restore_state(store: GuardedStore, record: RunRecord, answer: Any) -> RunSnapshot | None:
    snapshot = snapshot_from_rows(record, await store.get_rows(record.run_id))
    if record.status != RunStatus.INTERRUPTED:
        if answer is not None:
            raise CheckpointError(f"run {record.run_id!r} is not waiting for an answer (it is {record.status}); "
                                  "resume it without one")
        return snapshot
    key = record.detail.get("key") or record.detail.get("node_id")
    if answer is None:
        raise GraphInterrupted(record.detail.get("question", ""), key=key, node_id=record.detail.get("node_id"))
    if snapshot is None:
        raise CheckpointError(f"run {record.run_id!r} asked {record.detail.get('question')!r} but its state was not "
                              "saved; run the graph again")
    try:
        await store.add_row(Row(record.run_id, snapshot.iteration, "answer", key, encode_value(answer)))
    except Unsavable as error:
        raise Unsavable(f"cannot save the answer: {error}") from None
    return dataclasses.replace(snapshot, answers={**snapshot.answers, key: answer})


@dataclasses.dataclass(frozen=True)
class _Calls:
    """How a checkpointed run journals its outside calls (arun_checkpointed's `uncertain` and `journaled`)."""

    uncertain: str = "ask"
    journaled: bool = True

    def __post_init__(self) -> None:
        if self.uncertain not in UNCERTAIN:
            raise ValueError(f"uncertain must be one of {', '.join(UNCERTAIN)}, got {self.uncertain!r}")


_DEFAULT_CALLS = _Calls()  # most runs': made once


def _new_run_id() -> str:
    """A made-up run id: 12 random hex digits, as uuid4().hex[:12] gave them, without making a UUID."""
    return os.urandom(6).hex()


async def _run(graph: Graph, store: GuardedStore, options: RunOptions, *, answer: Any, force: bool,
               observers: Sequence[RunObserver] = (), new_record: RunRecord | None = None,
               calls: _Calls = _DEFAULT_CALLS, before_end: Callable[[], Awaitable[None]] | None = None) -> dict[str, Any]:
    fresh = not options.run_id  # an id made here names no saved run: no need to look for one
    started = None
    new = None
    if fresh:
        if answer is not None:
            raise CheckpointError("an answer is for a saved run that asked a question: give its run_id")
        options = options.replace(run_id=_new_run_id())
        new = _new_record(graph, options.run_id, options.inject, options.all_results, options.budget)
    saved = SavedRun(store, options.run_id)
    if new is not None:
        # Claim and record queued at once, awaited before the run's first row (and on its way out, by _finish).
        started = saved.start_new(new)
    if started is None:
        await saved.claim()  # a second run or resume of it, elsewhere, is refused until this one ends
    try:
        return await _run_claimed(graph, saved, options, answer=answer, force=force, new=new, started=started,
                                  observers=observers, new_record=new_record, calls=calls, before_end=before_end)
    finally:
        await saved.release()


async def _run_claimed(graph: Graph, saved: SavedRun, options: RunOptions, *, answer: Any,
                       force: bool, new: RunRecord | None, started: Any = None,
                       observers: Sequence[RunObserver] = (), new_record: RunRecord | None = None,
                       calls: _Calls = _DEFAULT_CALLS,
                       before_end: Callable[[], Awaitable[None]] | None = None) -> dict[str, Any]:
    """Runs a claimed run (`started`: its claim and record `new`, queued, to await before any row;
    `new_record`: a server's queued run, saved as running by save_new_run and never run; `before_end`:
    arun_checkpointed's)."""
    store = saved.store
    record = new if new is not None else (new_record or await store.get_run(options.run_id))
    fresh = True  # a new run: its journal is empty
    if new_record is not None:  # nothing to restore
        if not force:
            _check_same_graph(graph, new_record, store.location)
        _check_same_inputs(options.inject, new_record, store.location)
        options = options.replace(inject={**new_record.injected, **options.inject})
        restore = None
    elif new is not None or record is None:
        if answer is not None:
            raise CheckpointError(f"run {options.run_id!r} is not saved in {store.location}, "
                                  "so it has no question to answer")
        if record is None:
            record = _new_record(graph, options.run_id, options.inject, options.all_results, options.budget)
        if started is None:
            await saved.create(record)
        restore = None
    else:
        if not force:
            _check_same_graph(graph, record, store.location)
        _check_same_inputs(options.inject, record, store.location)
        options = options.replace(inject={**record.injected, **options.inject})  # that run's values, continued
        fresh = False
        if record.status == RunStatus.FINISHED:
            if record.results is None and "results" in record.detail:
                raise CheckpointError(f"run {record.run_id!r} completed, but its results were {record.detail['results']}; "
                                      "run the graph again with a new run id")
            return record.results if isinstance(record.results, dict) else {}
        restore = await _restore_state(store, record, answer)
        await saved.run_again()
    saved.redactor = _saved_graph(graph).redactor()  # the run's credentials, hidden in its rows and its end
    options = _journaled(options, store, record.run_id, calls, force=force, redactor=saved.redactor, fresh=fresh)
    if options.rate_window is None and graph.usage_settings.rate_limits and store.abilities.rate_windows:
        options = options.replace(rate_window=store.rate_window())  # its limits count every process on the store
    writer = CheckpointWriter(store, record.run_id, restore.iteration if restore is not None else None, started,
                              waitlists=graph.spec.waitlists, redactor=saved.redactor)
    end: Callable[..., Awaitable[None]] = saved.cancel  # a run cancelled (or cut off) is saved as cancelled
    finished, results = False, None
    try:
        with anyio.CancelScope() as scope:
            writer.on_failure = scope.cancel
            run = graph.start(options, restore=restore, observers=[writer, *observers])
            writer.spent = run.spent  # saved as the run goes, and with its end: a resumed run goes on counting
            try:
                results = await run.wait()
            finally:
                saved.spent = run.spent()
            await writer.settled(rows=False)  # a run that saved no row still has its record
            end, finished = functools.partial(saved.finish, results), True
        if writer.failure is not None:
            raise _not_saved(writer.failure, record.run_id, store.location)
    except GraphInterrupted as interrupted:
        end = functools.partial(saved.interrupt, interrupted)
        raise
    except BudgetExceeded as stopped:  # failed, saying which limit; resumed with a larger budget, it goes on
        end = functools.partial(saved.fail, stopped)
        raise
    except GraphAbortedError:
        raise
    except GraphError as error:
        if not isinstance(error, CheckpointError):
            end = functools.partial(saved.fail, error)
        raise
    finally:
        with anyio.CancelScope(shield=True):  # a cancelled run is saved as cancelled, at once (its server may stop)
            await _finish(writer, end, finished, None if end == saved.cancel else before_end)
            await saved.release(shield=False)  # once its end is saved (or not): _run's release does nothing then
        writer.detach()
    if writer.failure is not None:  # the row of a node nobody waited for, committed with the run's end, failed
        raise _not_saved(writer.failure, record.run_id, store.location)
    return results


def _journaled(options: RunOptions, store: GuardedStore, run_id: str, calls: _Calls, *, force: bool,
               redactor: Redactor, fresh: bool) -> RunOptions:
    """The run's options with its journal: the store's (when it keeps journals), before any the caller gave (a
    cassette it records to); what is kept hides the run's credentials (`redactor`). `fresh`: a new run, whose
    journal is empty."""
    logs = (StoreLog(store, run_id, fresh=fresh),) if calls.journaled and store.abilities.journal else ()
    if not logs and options.journal is None:
        return options
    given = Journal.of(options.journal).logs if options.journal is not None else ()
    return options.replace(journal=Journal((*logs, *given), force=force, uncertain=calls.uncertain, redactor=redactor))


def _not_saved(failure: BaseException, run_id: str, location: str) -> CheckpointError:
    error = CheckpointError(f"could not save run {run_id!r} to {location}: {type(failure).__name__}: {failure}")
    error.__cause__, error.__suppress_context__ = failure, True  # as `raise ... from failure`
    return error


async def _finish(writer: CheckpointWriter, end: Callable[..., Awaitable[None]], finished: bool,
                  before_end: Callable[[], Awaitable[None]] | None = None) -> None:
    """Saves how the run ended (`end`, a transition of its SavedRun); never raises a store's failure over the run's
    own outcome (its results, or its error): the run stays saved as it was, to be resumed.

    The rows queued and not awaited (nodes nobody waited for) come before the run's end in the store's
    queue: the end is queued first and their outcome awaited after, one commit for both where they meet."""
    await writer.settled(rows=False)
    try:
        if writer.failure is not None:
            return
        if not finished and writer.started:
            await writer.save_iteration()  # a run stopped before any node completed still has its first iteration
        await writer.save_usage()  # the calls of nodes that did not complete were spent too
        if before_end is not None:
            await before_end()
        await end(rows=writer.rows_in_doubt())
    except CheckpointError:  # the store failed (a GuardedStore's every failure is one): the run's outcome matters more
        pass
    finally:
        await writer.settled()  # every queued row awaited, also when the run's end is not saved
