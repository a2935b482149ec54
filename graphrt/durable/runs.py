"""Runs that survive crashes: saved to a checkpoint store as they go, resumed where they stopped.

    results = await arun_checkpointed(graph, "runs.db", run_id="nightly")   # saves as it runs
    results = graphrt.resume("runs.db", "nightly")                          # after a crash
    results = graphrt.resume("runs.db", answer="yes")                       # after a question

Saving is a hook, as in Burr: `Graph.execute(checkpointer=...)` awaits the
`CheckpointWriter` after every node completes and when an iteration starts, and
the writer turns each call into one row (that node's result, or the iteration's
static values). Store calls are coroutines, so saving never blocks the event loop.
A resumed run is rebuilt from the saved graph and values, and starts where the
rows leave off: completed nodes are not run again, so its results are those of
an uninterrupted run.

What is not saved: the inside of a node. A node that was running when the
process died (a nestedAgent or mapAgent node with all its nested nodes, too)
runs again from its start. A node whose result JSON cannot hold (bytes, an
object) is not saved either and runs again on resume.

A checkpoint holds the run's real data - node results, injected values,
answers - never redacted, so that resuming gives exactly the results of an
uninterrupted run; a SQLite file is created readable by its owner only.
Credentials are left out: the config's keys and URL passwords, and those in
the graph's node params (the saved copy of the graph has them blanked out).
"""

from __future__ import annotations

import hashlib
import json
import uuid
import weakref
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping

import anyio

from graphrt.base.errors import GraphAbortedError, GraphError, GraphInterrupted
from graphrt.base.jsvalue import UNDEFINED
from graphrt.checkpoint import CheckpointTarget, open_store
from graphrt.checkpoint.base import (
    CheckpointError,
    CheckpointStore,
    GuardedStore,
    Row,
    RunRecord,
    RunStatus,
    Unsavable,
    decode_value,
    encode_value,
    snapshot_from_rows,
)
from graphrt.base.secrets import SECRET_KEY, url_passwords
from graphrt.checkpoint.snapshot import RunSnapshot
from graphrt.engine.graph import AgentsArg, Graph, within_timeout
from graphrt.observe.trace import REDACTED, Redactor

if TYPE_CHECKING:
    from graphrt.authoring.filters import AgentFilter, FilterFunction
    from graphrt.engine.execution import GraphRun

__all__ = ["CheckpointWriter", "saved_config", "saved_source", "arun_checkpointed", "run_checkpointed", "save_new_run",
           "from_checkpoint",
           "afrom_checkpoint",
           "find_run", "aresume", "resume", "graph_hash"]

# Graphs from_checkpoint built with force=True, or from the saved copy (which differs from the
# original by its credentials): their runs continue although the graph's hash differs.
_FORCED: "weakref.WeakSet[Graph]" = weakref.WeakSet()


def _credentials_in(value: Any, under_secret_key: bool = False) -> Iterator[str]:
    """The credentials in an agent's params or config: strings under secret keys, passwords in URLs."""
    if isinstance(value, str):
        if under_secret_key and value and value != REDACTED:
            yield value
        else:
            yield from url_passwords(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _credentials_in(item, under_secret_key or bool(SECRET_KEY.search(str(key))))
    elif isinstance(value, list):
        for item in value:
            yield from _credentials_in(item, under_secret_key)


def _graph_credentials(data: Any) -> Iterator[str]:
    """The credentials written in a graph's node params (nested graphs included); static values are data."""
    nodes = data.get("nodes") if isinstance(data, dict) else None
    if not isinstance(nodes, dict):
        return
    for node in nodes.values():
        if isinstance(node, dict) and "agent" in node:
            yield from _credentials_in(node.get("params"))
            yield from _credentials_in(node.get("filterParams"))
            yield from _graph_credentials(node.get("graph"))


def saved_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """The config as a checkpoint keeps it: credentials left out (resuming takes them from the
    environment or the config given again), everything else as it is."""

    def kept(value: Any, under_secret_key: bool) -> Any:
        if any(True for _ in _credentials_in(value, under_secret_key)):
            if isinstance(value, dict):
                return {key: kept(item, under_secret_key or bool(SECRET_KEY.search(str(key)))) for key, item in value.items()}
            if isinstance(value, list):
                return [kept(item, under_secret_key) for item in value]
            return REDACTED
        return value

    try:
        return decode_value(encode_value(kept(dict(config), False)))
    except Unsavable:
        return Redactor().value(kept(dict(config), False))


_SOURCE_MASK = "REDACTED"  # a plain word: YAML would read "[redacted]" unquoted as a list


def saved_source(text: str, data: Any) -> str | None:
    """The graph's text as a checkpoint keeps it: the credentials in its node params blanked out.

    None if a credential cannot be found in the text as written (the file is then the only copy).
    """
    for credential in sorted(set(_graph_credentials(data)), key=len, reverse=True):
        written = [form for form in (credential, json.dumps(credential, ensure_ascii=False)[1:-1]) if form in text]
        if not written:
            return None
        for form in written:
            text = text.replace(form, _SOURCE_MASK)
    return text


class CheckpointWriter:
    """The checkpoint hook (an engine `Checkpointer`): one row per completed node, one per iteration start.

    It never raises into the run: if the store fails, it remembers the error and
    calls `on_failure` (which stops the run), and the caller raises CheckpointError.
    """

    def __init__(self, store: CheckpointStore, run_id: str, saved_iteration: int | None = None) -> None:
        self.store = store
        self.run_id = run_id
        self.failure: BaseException | None = None
        self.on_failure: Callable[[], None] = lambda: None
        self.run: "GraphRun | None" = None  # the run being saved, once it started
        self._iteration = saved_iteration  # the iteration whose static values are saved
        self._unsavable: int | None = None  # an iteration whose static values JSON cannot hold
        self._lock = anyio.Lock()  # nodes completing together are saved one after the other

    async def iteration_started(self, run: "GraphRun") -> None:
        first = self.run is None
        self.run = run
        if not first:  # the first iteration is saved with its first node (or when the run stops)
            await self._save(run, None)

    async def node_completed(self, run: "GraphRun", node_id: str) -> None:
        await self._save(run, node_id)

    async def _save(self, run: "GraphRun", node_id: str | None) -> None:
        if self.failure is not None or run.iteration == self._unsavable:
            return
        async with self._lock:
            try:
                if node_id is None or run.iteration != self._iteration:
                    await self.save_iteration(run)
                if node_id is not None and run.iteration == self._iteration:
                    try:
                        value = encode_value(run.results.get(node_id, UNDEFINED))
                    except Unsavable:
                        return  # not saved: the node runs again on resume
                    await self.store.add_row(Row(self.run_id, run.iteration, "node", node_id, value))
            except Exception as error:  # noqa: BLE001 - a store failure stops the run, it is reported by the caller
                self.failure = error
                self.on_failure()
        if self.failure is not None:
            # Stop here, before the waiters of a node whose result is not saved start: agents that
            # await nothing would otherwise run the whole graph before the cancellation is seen.
            await anyio.lowlevel.checkpoint()

    async def save_iteration(self, run: "GraphRun") -> None:
        """Saves the static values the current iteration started with (unless already saved)."""
        if run.iteration == self._iteration:
            return
        statics = {node_id: value for node_id, value in run.results.items() if node_id not in run.nodes}
        try:
            value = encode_value(statics)
        except Unsavable:
            self._unsavable = run.iteration  # resuming goes back to the last iteration that was saved
            return
        await self.store.add_row(Row(self.run_id, run.iteration, "iteration", "", value))
        self._iteration = run.iteration


# ----- the graph's source -----


def graph_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _source_of(graph: "Graph") -> tuple[str | None, str | None, str]:
    """(file, text, sha256 of the text) of a graph; a dict graph's text is its JSON."""
    source = graph.spec.source
    if source.text is not None:
        return source.file, source.text, graph_hash(source.text)
    text = json.dumps(graph.data, sort_keys=True, ensure_ascii=False,
                      default=lambda value: getattr(value, "__qualname__", type(value).__name__))
    return None, text, graph_hash(text)


def _new_record(graph: "Graph", run_id: str, all_results: bool) -> RunRecord:
    file, text, digest = _source_of(graph)
    injected = dict(graph.injected)
    for node_id, value in injected.items():
        try:
            encode_value(value)
        except Unsavable as error:
            raise CheckpointError(f"cannot save the value injected into '{node_id}' in a checkpoint: {error}",
                                  node_id=node_id) from None
    return RunRecord(
        run_id=run_id,
        graph_file=str(Path(file).resolve()) if file else None,
        graph_text=saved_source(text, graph.data) if text is not None else None,
        graph_hash=digest,
        injected=injected,
        config=saved_config(graph.config),
        all_results=all_results,
    )


async def save_new_run(graph: "Graph", store: CheckpointStore, run_id: str, *, all_results: bool = False) -> RunRecord:
    """Saves a run before it starts (a server's queued run): `arun_checkpointed` with this `run_id` starts it,
    and so does resuming it after a crash.

    Raises:
        CheckpointError: the id is taken, or an injected value cannot be saved.
    """
    record = _new_record(graph, run_id, all_results)
    await store.create_run(record)
    return record


def _check_same_graph(graph: "Graph", record: RunRecord, location: str) -> None:
    if graph in _FORCED:
        return
    _, _, digest = _source_of(graph)
    if digest != record.graph_hash:
        where = record.graph_file or "the graph"
        raise CheckpointError(
            f"{where} changed since run {record.run_id!r} was saved in {location}; "
            "resume with force=True (--force) to run the changed graph"
        )


# ----- running -----


async def arun_checkpointed(
    graph: "Graph",
    checkpoint: CheckpointTarget,
    *,
    all_results: bool = False,
    run_id: str | None = None,
    answer: Any = None,
    timeout: float | None = None,
) -> dict[str, Any]:
    """Runs `graph`, saving its state to `checkpoint`; continues the run if `run_id` is saved there already.

    Args:
        checkpoint: a checkpoint store, a SQLite file or a postgresql:// URL.
        all_results, run_id, timeout: as for `Graph.arun`.
        answer: the answer to the question the saved run stopped on.

    Raises:
        GraphInterrupted: an agent asked a question; resume with `answer`.
        CheckpointError: the store failed, or the saved run belongs to a changed graph.
        GraphError: as `Graph.arun`; the state is saved, so the run can be resumed.
    """
    async def run() -> dict[str, Any]:
        opened = open_store(checkpoint)
        store = GuardedStore(opened)
        try:
            return await _run(graph, store, all_results=all_results, run_id=run_id, answer=answer)
        finally:
            if opened is not checkpoint:
                with anyio.CancelScope(shield=True):
                    await store.close()

    return await within_timeout(run, timeout)


def run_checkpointed(graph: "Graph", checkpoint: CheckpointTarget, *, backend: str = "asyncio", **options: Any) -> dict[str, Any]:
    """`arun_checkpointed()` for synchronous callers; `backend` is "asyncio" or "trio"."""
    return anyio.run(partial(arun_checkpointed, graph, checkpoint, **options), backend=backend)


async def _restore_state(store: CheckpointStore, record: RunRecord, answer: Any) -> RunSnapshot | None:
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
        raise CheckpointError(f"cannot save the answer: {error}") from None
    return RunSnapshot(snapshot.run_id, snapshot.iteration, snapshot.results, snapshot.completed, snapshot.injected,
                       {**snapshot.answers, key: answer})


async def _run(graph: "Graph", store: CheckpointStore, *, all_results: bool, run_id: str | None, answer: Any) -> dict[str, Any]:
    run_id = run_id or uuid.uuid4().hex[:12]
    await store.claim_run(run_id)  # a second run or resume of it, elsewhere, is refused until this one ends
    try:
        return await _run_claimed(graph, store, all_results=all_results, run_id=run_id, answer=answer)
    finally:
        try:
            with anyio.CancelScope(shield=True):
                await store.release_run(run_id)
        except Exception:  # noqa: BLE001 - the claim ends with the connection anyway; the run's outcome matters more
            pass


def _check_same_inputs(graph: "Graph", record: RunRecord, location: str) -> None:
    """A saved run continues with the values it was started with: other values need a new run id."""
    for node_id, value in graph.injected.items():
        if node_id in record.injected and record.injected[node_id] != value:
            raise CheckpointError(
                f"run {record.run_id!r} in {location} was started with other values for '{node_id}'; "
                "use a new run id to run with these, or leave them out to continue that run", node_id=node_id)


async def _run_claimed(graph: "Graph", store: CheckpointStore, *, all_results: bool, run_id: str,
                       answer: Any) -> dict[str, Any]:
    record = await store.get_run(run_id)
    if record is None:
        if answer is not None:
            raise CheckpointError(f"run {run_id!r} is not saved in {store.location}, so it has no question to answer")
        record = _new_record(graph, run_id, all_results)
        await store.create_run(record)
        restore = None
    else:
        _check_same_graph(graph, record, store.location)
        _check_same_inputs(graph, record, store.location)
        for node_id, value in record.injected.items():
            if node_id not in graph.injected:
                graph.inject(node_id, value)  # this graph continues that run, with its values
        if record.status == RunStatus.COMPLETED:
            if record.results is None and "results" in record.detail:
                raise CheckpointError(f"run {record.run_id!r} completed, but its results were {record.detail['results']}; "
                                      "run the graph again with a new run id")
            return record.results if isinstance(record.results, dict) else {}
        restore = await _restore_state(store, record, answer)
        await store.update_run(record.run_id, status=RunStatus.RUNNING)
    saved_iteration = restore.iteration if restore is not None else None
    writer = CheckpointWriter(store, record.run_id, saved_iteration)
    status, detail, results = RunStatus.STOPPED, {}, None
    try:
        with anyio.CancelScope() as scope:
            writer.on_failure = scope.cancel
            results = await graph.execute(all_results, run_id=record.run_id, restore=restore, checkpointer=writer)
            status = RunStatus.COMPLETED
        if writer.failure is not None:
            raise CheckpointError(f"could not save run {record.run_id!r} to {store.location}: "
                                  f"{type(writer.failure).__name__}: {writer.failure}") from writer.failure
        return results
    except GraphInterrupted as interrupted:
        status, detail = RunStatus.INTERRUPTED, {"node_id": interrupted.node_id, "key": interrupted.key,
                                                 "question": interrupted.question}
        raise
    except GraphAbortedError:
        raise
    except GraphError as error:
        if not isinstance(error, CheckpointError):
            status, detail = RunStatus.FAILED, {"node_id": error.node_id, "error": Redactor().text(str(error))}
        raise
    finally:
        with anyio.CancelScope(shield=True):  # a cancelled run is saved as stopped
            await _finish(store, writer, record.run_id, status, detail, results)


async def _finish(store: CheckpointStore, writer: CheckpointWriter, run_id: str, status: str,
                  detail: dict[str, Any], results: Any) -> None:
    """Saves how the run ended; never raises over the run's own outcome."""
    if writer.failure is not None:
        return
    try:
        run = writer.run
        if status != RunStatus.COMPLETED and run is not None and (run.nodes or run.results):
            await writer.save_iteration(run)  # a run stopped before any node completed still has its first iteration
        if status == RunStatus.COMPLETED:
            try:
                encode_value(results)
            except Unsavable as error:
                results, detail = None, {"results": f"not saved: JSON cannot hold them ({error})"}
        await store.update_run(run_id, status=status, detail=detail, results=results)
    except Exception:  # noqa: BLE001 - the run's own error (or results) matters more than this write
        pass


# ----- resuming -----


async def find_run(store: CheckpointStore, run_id: str | None) -> RunRecord:
    """The saved run `run_id`, or the most recent unfinished run.

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
        if record.status in RunStatus.UNFINISHED:
            return record
    if runs:
        raise CheckpointError(f"every run in {store.location} has completed (latest: {runs[0].run_id}); "
                              "pass a run id to see its results")
    raise CheckpointError(f"no run saved in {store.location}")


def _config(saved: Mapping[str, Any], given: Mapping[str, Any] | None) -> dict[str, Any]:
    """The saved config without its redacted secrets (agents find them in the environment), then `given`."""

    def usable(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: usable(item) for key, item in value.items() if item != REDACTED}
        return value

    merged = usable(dict(saved))
    for key, value in (given or {}).items():
        merged[key] = {**merged.get(key, {}), **value} if isinstance(value, dict) and isinstance(merged.get(key), dict) else value
    return merged


async def afrom_checkpoint(
    checkpoint: CheckpointTarget,
    run_id: str | None = None,
    *,
    agents: "AgentsArg" = None,
    config: Mapping[str, Any] | None = None,
    filters: "Iterable[AgentFilter | FilterFunction] | None" = None,
    force: bool = False,
) -> tuple["Graph", RunRecord]:
    """The Graph of a saved run, rebuilt from its file (or saved text) with its injected values.

    Args:
        checkpoint: the store, a SQLite file or a postgresql:// URL.
        run_id: the run; the most recent unfinished one if None.
        agents, filters: as for Graph (Python agents are not saved: pass them again).
        config: merged over the saved config, whose secrets were not saved.
        force: run the graph file even if it changed since the run was saved.

    Raises:
        CheckpointError: no such run, or the graph file changed (or is gone) and not `force`.
    """
    opened = open_store(checkpoint)
    store = GuardedStore(opened)
    try:
        record = await find_run(store, run_id)
        location = store.location
    finally:
        if opened is not checkpoint:
            await store.close()
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
    if isinstance(source, str) and source.lstrip().startswith("{"):
        source = json.loads(source)  # a graph given as a dict was saved as JSON
    graph = Graph(source, agents=agents, config=_config(record.config, config), filters=filters)
    for node_id, value in record.injected.items():
        graph.inject(node_id, value)
    if force or not isinstance(source, Path):  # the saved copy: it differs from the original only by credentials
        _FORCED.add(graph)
    return graph, record


def from_checkpoint(checkpoint: CheckpointTarget, run_id: str | None = None, **options: Any) -> tuple["Graph", RunRecord]:
    """`afrom_checkpoint()` for synchronous callers."""
    return anyio.run(partial(afrom_checkpoint, checkpoint, run_id, **options))


async def aresume(
    checkpoint: CheckpointTarget,
    run_id: str | None = None,
    *,
    answer: Any = None,
    all_results: bool | None = None,
    agents: "AgentsArg" = None,
    config: Mapping[str, Any] | None = None,
    filters: "Iterable[AgentFilter | FilterFunction] | None" = None,
    force: bool = False,
    subscribe: Iterable[Callable[[Any], Any]] = (),
) -> dict[str, Any]:
    """Continues a saved run (the most recent unfinished one if `run_id` is None); returns its results.

    Completed nodes are not run again. A run that stopped on a question needs
    `answer`. A completed run returns its saved results without running.

    Raises:
        GraphInterrupted: the run asks a question (again, or a new one).
        CheckpointError: no such run, or its graph file changed (see `force`).
    """
    graph, record = await afrom_checkpoint(checkpoint, run_id, agents=agents, config=config, filters=filters, force=force)
    for callback in subscribe:
        graph.subscribe(callback)
    wanted = record.all_results if all_results is None else all_results
    return await arun_checkpointed(graph, checkpoint, all_results=wanted, run_id=record.run_id, answer=answer)


def resume(checkpoint: CheckpointTarget, run_id: str | None = None, *, backend: str = "asyncio", **options: Any) -> dict[str, Any]:
    """`aresume()` for synchronous callers."""
    return anyio.run(partial(aresume, checkpoint, run_id, **options), backend=backend)
