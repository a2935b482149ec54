"""`Batch`: one run of a graph per input row, `concurrency` rows at a time, each row's outcome to a sink.

A row that fails does not stop the others: its outcome is `failed` with the
located error (a row that cannot be read, names no static node, or whose run
fails). The sink gets the outcomes in input order (a row that finishes early
waits for those before it), or as they finish with `ordered=False`.

Where a row runs:
- in this process (no executor): `concurrency` runs at once on this event loop,
  each saved as it goes when the batch has a ledger (a row cut off continues
  from its last completed node when the batch runs again);
- on an executor (`executor.run_whole`: Ray runs each row as one task on the
  cluster): the driver only schedules rows, so the cluster's size, not the
  driver, bounds the throughput; the ledger saves each row's end, without the
  credentials the run knows (`Batch.redactor`), as a run saved as it goes.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import time
from typing import Any, Callable, Iterable, Iterator

import anyio

from graphrt.base.budget import Budget
from graphrt.base.errors import GraphError, GraphValidationError
from graphrt.base.usage import Usage
from graphrt.durable.runs import arun_checkpointed
from graphrt.engine.executor import Executor
from graphrt.engine.graph import Graph
from graphrt.engine.journal import CallLog
from graphrt.engine.options import RunOptions
from graphrt.graphdata.spec import DEFAULT_CONCURRENCY, check_injectable  # GraphAI's concurrency: rows are runs
from graphrt.batches.ledger import Ledger
from graphrt.batches.outcome import FINISHED, FAILED, RowOutcome
from graphrt.batches.progress import BatchProgress
from graphrt.batches.rows import InputRow

__all__ = ["Batch"]

Sink = Callable[[RowOutcome], Any]


class Batch:
    """How a batch runs: the graph, how many rows at once, where they are saved and where they run.

    Args:
        graph: the prepared graph (its executor, if any, is where each row's agent calls run).
        concurrency: rows running at once; None: 8, or on an executor the runs its cluster runs at once
            (`Executor.whole_run_slots`: Ray's CPUs over a task's).
        ledger: where rows are saved and looked up (None: nothing saved, every row runs).
        executor: runs each row as a whole run elsewhere (`Executor.run_whole`); None: in this process.
            The batch borrows it: its maker opens it before and closes it after.
        timeout: seconds each row's run may take.
        journal_of: the journal of each row's run by its id, for it to record its outside calls to or replay them
            from (a cassette's part: graphrt.testing.Cassette.part); rows then run in this process.
        all_results: every node's result in a row's results, not only the `isResult` nodes'.
        ordered: outcomes to the sink in input order (else as they finish).
        progress: the counters to keep (a display reads them); `progress.usage` sums what the rows run now spent.
        budget: what each row's run may spend (graphrt.base.budget); a row it stops fails alone.
    """

    def __init__(self, graph: Graph, *, concurrency: int | None = None, ledger: Ledger | None = None,
                 executor: Executor | None = None, timeout: float | None = None, all_results: bool = False,
                 ordered: bool = True, progress: BatchProgress | None = None, budget: Any = None,
                 journal_of: Callable[[str], CallLog] | None = None) -> None:
        if concurrency is not None and concurrency < 1:
            raise ValueError(f"a batch runs at least one row at a time, not {concurrency}")
        if journal_of is not None and executor is not None:
            raise ValueError("a batch's rows journal their calls in this process (journal_of): run them here, "
                             "not on an executor")
        self.graph = graph
        self.concurrency = concurrency
        self.ledger = ledger
        self.executor = executor
        self.timeout = timeout
        self.all_results = all_results
        self.ordered = ordered
        self.budget = Budget.of(budget, "budget")  # a mistake is said before any row runs
        self.progress = progress if progress is not None else BatchProgress()
        self.redactor = graph.redactor()  # hides them in what is saved
        self.journal_of = journal_of
        self._ids: dict[str, InputRow] = {}  # every row's id as its saved run names it: the first row of each
        self._workers = 1  # workers at most: the rows at once
        self._started = 0  # workers started so far

    async def run(self, rows: Iterable[InputRow], sink: Sink) -> BatchProgress:
        """Runs every row; each outcome goes to `sink`. Returns the counters at the end.

        Raises:
            GraphLoadError: the rows' file cannot be read further (a bad row fails alone).
        """
        emit = _InOrder(sink) if self.ordered else sink
        source = _Source(iter(rows))
        concurrency = self.concurrency
        if self.executor is not None:  # borrowed: its maker opens and closes it
            concurrency = concurrency or self.executor.whole_run_slots()
        self._workers = concurrency or DEFAULT_CONCURRENCY
        # Workers share one source, each row taken once, in order; a worker that takes a row starts the next
        # worker while there are fewer than `concurrency`: never more workers than rows (`--concurrency
        # 10000000` on 2 rows starts 3, the last to find no row).
        self._started = 1
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(self._worker, source, emit, group)
        except BaseExceptionGroup as failed:
            raise _one_error(failed) from None
        if source.error is not None:  # the rows taken before it have run and gone to the sink
            raise source.error
        return self.progress

    async def _worker(self, source: "_Source", emit: Sink, group: anyio.abc.TaskGroup) -> None:
        # On an executor that runs several rows per task (`rows_per_task`), a worker takes that many and sends
        # together those that run.
        while rows := await source.take(self._chunk(source)):
            if self._started < self._workers:
                self._started += 1
                group.start_soon(self._worker, source, emit, group)
            to_run = []
            for row in rows:
                outcome = await self._decided(row)
                if outcome is None:
                    to_run.append(row)
                else:
                    self._count(outcome, emit)
            if len(to_run) == 1:
                self._count(await self._outcome(to_run[0]), emit)
            elif to_run:
                for outcome in await self._outcomes_together(to_run):
                    self._count(outcome, emit)

    def _chunk(self, source: "_Source") -> int:
        """How many rows a worker takes at once: the executor's rows per task, fewer near the end of the rows.

        Rows that come as they are written (stdin) are taken one at a time: a row never waits for the next.
        """
        most = self.executor.rows_per_task if self.executor is not None else 1
        if most <= 1 or source.blocks:
            return 1
        total = self.progress.total
        if total is None:
            return most
        left = max(total - source.taken, 0)  # each worker keeps about two chunks of what is left: an even end
        return max(1, min(most, left // (2 * self._workers)))

    def _count(self, outcome: RowOutcome, emit: Sink) -> None:
        if outcome.before:
            self.progress.before += 1
        elif outcome.ok:
            self.progress.completed += 1
        else:
            self.progress.failed += 1
        emit(outcome)

    async def _decided(self, row: InputRow) -> RowOutcome | None:
        """The row's outcome without running it (it cannot run, or it completed before); None: it has to run."""
        if row.error is not None:
            return RowOutcome(row.id, row.index, FAILED, error=row.error)
        same = self._ids.setdefault(str(row.id), row)  # ids 1 and "1" name one saved run, BATCH/1
        if same is not row:
            where = f" ({same.location})" if same.location is not None else ""
            alike = f": {same.id!r} and {row.id!r} are one id, as the saved run's name" if same.id != row.id else ""
            return _failed(row, GraphError(f"row id {row.id!r} is also the id of an earlier row{where}{alike}; "
                                           "each row needs its own id", field=row.id_field))
        try:
            for node_id in row.inject:
                check_injectable(self.graph.spec, node_id)
        except GraphValidationError as error:  # the row is where the mistake is, not the graph
            issue = dataclasses.replace(error.issues[0], location=row.location)
            return _failed(row, GraphValidationError([issue]))
        if self.ledger is not None:
            try:
                return await self.ledger.done_before(row)
            except GraphError as error:
                return _failed(row, error)
        return None

    async def _outcome(self, row: InputRow) -> RowOutcome:
        self.progress.running += 1
        started = time.perf_counter()
        spent: list[Usage] = []  # what the row's run spent, however it ended (a run in this process says)
        try:
            results = await self._run(row, spent.append)
        except GraphError as error:
            outcome = _failed(row, error, time.perf_counter() - started)
        except Exception as error:  # noqa: BLE001 - a row's failure of any kind is that row's alone
            outcome = _failed(row, GraphError.from_exception(error, doing="the row's run failed"),
                              time.perf_counter() - started)
        else:
            outcome = RowOutcome(row.id, row.index, FINISHED, results=results, seconds=time.perf_counter() - started)
        finally:
            self.progress.running -= 1
        self._spent(outcome, spent)
        return outcome

    def _spent(self, outcome: RowOutcome, said: list[Usage]) -> None:
        """The row's usage, the last its run said (once, as it ended), counted in the batch's."""
        if said:
            outcome.usage = said[-1]
            self.progress.usage.merge(said[-1])

    def _options(self, row: InputRow, on_usage: Callable[[Usage], Any] | None = None) -> RunOptions:
        run_id = self.ledger.run_id(row) if self.ledger is not None else None
        return RunOptions(inject=row.inject, all_results=self.all_results, timeout=self.timeout, run_id=run_id,
                          budget=self.budget, on_usage=on_usage)

    async def _run(self, row: InputRow, on_usage: Callable[[Usage], Any] | None = None) -> dict[str, Any]:
        if self.executor is None:
            journal = self.journal_of(row.id) if self.journal_of is not None else None
            if self.ledger is None:
                return await self.graph.arun(self._options(row, on_usage).replace(journal=journal))
            return await arun_checkpointed(self.graph, self.ledger.store, run_id=self.ledger.run_id(row),
                                           inject=row.inject, all_results=self.all_results, timeout=self.timeout,
                                           budget=self.budget, on_usage=on_usage, journal=journal)
        if self.ledger is None:
            return await self.executor.run_whole(self.graph, self._options(row, on_usage))
        await self.ledger.started(self.graph, row)
        results: dict[str, Any] | None = None
        error: GraphError | None = None
        try:
            results = await self.executor.run_whole(self.graph, self._options(row, on_usage))
            return results
        except GraphError as failed:
            error = failed
            raise
        finally:
            await self.ledger.finished(row, results, error, self.redactor)

    async def _outcomes_together(self, rows: list[InputRow]) -> list[RowOutcome]:
        """Rows sent to the executor together (`run_wholes`: one Ray task runs them one after another).

        Each row is still its own run: saved as started before, and as it ended after, one by one.
        """
        assert self.executor is not None
        started_rows: list[InputRow] = []
        outcomes: dict[int, RowOutcome] = {}
        for row in rows:
            if self.ledger is not None:
                try:
                    await self.ledger.started(self.graph, row)
                except GraphError as error:
                    outcomes[row.index] = _failed(row, error)
                    continue
            started_rows.append(row)
        self.progress.running += len(started_rows)
        ended: list[Any] = [None] * len(started_rows)  # per row: its results, its GraphError, or None (cut off)
        spent: dict[int, list[Usage]] = {row.index: [] for row in started_rows}  # per row: what its run said it spent
        began = time.perf_counter()
        try:
            ended = list(await self.executor.run_wholes(
                self.graph, [self._options(row, spent[row.index].append) for row in started_rows]))
        except GraphError as error:  # the task failed (its worker died): each row fails with its own copy
            ended = [copy.copy(error) for _ in started_rows]
        except Exception as error:  # noqa: BLE001 - the rows' failure of any kind is theirs alone
            wrapped = GraphError.from_exception(error, doing="the rows' runs failed")
            ended = [copy.copy(wrapped) for _ in started_rows]
        finally:
            self.progress.running -= len(started_rows)
            seconds = (time.perf_counter() - began) / max(len(started_rows), 1)  # the task's time, shared
            for row, end in zip(started_rows, ended):
                failed = end if isinstance(end, GraphError) else None
                results = end if isinstance(end, dict) else None
                if self.ledger is not None:
                    await self.ledger.finished(row, results, failed, self.redactor)
                if failed is not None:
                    outcomes[row.index] = _failed(row, failed, seconds)
                elif results is not None:
                    outcomes[row.index] = RowOutcome(row.id, row.index, FINISHED, results=results, seconds=seconds)
                if row.index in outcomes:
                    self._spent(outcomes[row.index], spent[row.index])
        return [outcomes[row.index] for row in rows if row.index in outcomes]


def _failed(row: InputRow, error: GraphError, seconds: float = 0.0) -> RowOutcome:
    """A failed row; an error that says nothing of where (no node, no place) is placed at the row's line."""
    if error.node_id is None and error.location is None and row.location is not None:
        error.location = row.location
    return RowOutcome(row.id, row.index, FAILED, error=error, seconds=seconds)


def _one_error(group: BaseExceptionGroup) -> BaseException:
    """The error a batch stops with: the first GraphError in `group` (the sink could not write, say); else `group`."""
    for error in group.exceptions:
        found = _one_error(error) if isinstance(error, BaseExceptionGroup) else error
        if isinstance(found, GraphError):
            return found
    return group


class _Source:
    """The rows the batch takes, in order; rows that may be long in coming (stdin) on a thread.

    A reading that cannot go on (GraphLoadError: a line too long, UTF-16 text) ends the rows; it is kept in
    `error`, raised once the rows taken before it have run.
    """

    def __init__(self, rows: Iterator[InputRow]) -> None:
        self.rows = rows
        self.blocks = getattr(rows, "blocks", False)
        self.lock = anyio.Lock()
        self.taken = 0
        self.error: GraphError | None = None

    async def take(self, most: int) -> list[InputRow]:
        """Up to `most` rows (fewer at the end; none: no rows are left, or they cannot be read further)."""
        if self.error is not None:
            return []
        taken: list[InputRow] = []
        try:
            if self.blocks:
                async with self.lock:  # one reader at a time: a generator cannot be resumed from two threads
                    row = await anyio.to_thread.run_sync(next, self.rows, None, abandon_on_cancel=True)
                taken = [] if row is None else [row]
            else:
                taken.extend(itertools.islice(self.rows, most))
        except GraphError as error:
            self.error = error
        self.taken += len(taken)
        return taken


class _InOrder:
    """Hands outcomes on in input order: each waits until those of every earlier row have gone."""

    def __init__(self, sink: Sink) -> None:
        self.sink = sink
        self.next = 0
        self.waiting: dict[int, RowOutcome] = {}

    def __call__(self, outcome: RowOutcome) -> None:
        self.waiting[outcome.index] = outcome
        while self.next in self.waiting:
            self.sink(self.waiting.pop(self.next))
            self.next += 1
