"""`GroupCommit`: a blocking DB-API connection whose writes of runs at once share one commit.

Where the time of a checkpointed run went (issue 26; 200 runs of one 50 ms node,
50 at a time, SQLite in WAL mode with synchronous=NORMAL): not fsync (8 fdatasync
calls in 1,300 runs: WAL syncs only at its checkpoints) and not the SQL (~0.1 ms of
a run), but one commit per write, each with its own trip through the event loop,
and the Python around the writes: a claim file created and removed per run
(file_claims.py now), a protocol check per run (open_store), a wrapper made per
call (GuardedStore). Here the writes made at the same time are committed together:

- PostgreSQL (a server, a round trip and a WAL flush per commit): the connection is
  used by a thread of its own, so the event loop never waits for the server; the
  writes that queue up while the thread is busy go in one transaction, sent as one
  SQL text with its values bound (`script`): one call into the driver and one round
  trip, where a statement each cost the thread more time than the server took.
  50 runs finishing their node at once cost one commit, not 50.
- SQLite (`inline`, a local file): on the event loop's thread, where a write takes
  microseconds; the first write of a turn of the loop schedules the commit for the
  next turn, so that the other runs of that turn add theirs, and it commits them all
  (consecutive statements of one text, 50 runs' node rows, in one `executemany`).

A write still returns only once it is committed, so whatever a caller does after
it (a node's waiters starting) comes after its row is durable: batching opens no
window. A failed batch is rolled back and its writes are made again one by one, so
each caller gets its own outcome. A write marked `alone` is never batched (a
PostgreSQL session lock must not be taken in a transaction that may be rolled
back and made again). Reads go through the same connection, before the writes
queued with them (none of those has returned to its caller yet). A cancelled
caller stops waiting; its write, once queued, is still made.

A write queued to be `held` (a journal entry of a call harmless to make again) is not committed by itself
when the thread is idle: it waits for the next write queued after it and goes in its transaction (a
toolsAgent's LLM reply rides with the mark of the tool call it asks for), or for a moment (`_HOLD`), or for
its caller to await it, whichever comes first. Each lone commit costs the thread two hops through the GIL and
the caller's event loop a wake-up; on a loaded machine, a millisecond or more each (bench journal cost).

A `fence` (graphrt serve's lease) is a statement made first in every transaction
of writes that fails when the store is no longer this writer's: the check and the
writes commit together, so a writer frozen after any earlier check (past its
lease, while another server took the store over) still writes nothing. A `refusal` is a check
the database makes itself (PostgreSQL's fence of each run's claim, postgres_claims.py): a write it
refuses gets the refusal's error, which names the run, instead of the driver's.
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Generator, Sequence

import sniffio

if TYPE_CHECKING:
    import asyncio

__all__ = ["Fence", "GroupCommit", "Refusal", "Statement", "query_runs"]

Statement = tuple[str, tuple[Any, ...]]
"""A query and its values."""

_BATCH = 512  # writes in one transaction at most: a bound on how long the first of them waits
_HOLD = 0.05  # seconds a held write waits for another to share its commit, at most
_NOW = object()  # queued to commit the held writes now (their caller awaits them)


@dataclass(frozen=True)
class Fence:
    """What makes a transaction of writes fail unless the store is still this writer's.

    `statement` fails (a constraint of `table` refuses the row it would add) when it is not; the
    driver's error then names `table`, and the writes get `lost()` instead."""

    statement: Statement
    table: str
    lost: Callable[[], Exception]

    def refused(self, error: BaseException | None) -> bool:
        return error is not None and self.table in str(error)


@dataclass(frozen=True)
class Refusal:
    """A check the database makes in a write's own transaction: its error names `table`; the write gets
    `lost(the driver's text)` instead."""

    table: str
    lost: Callable[[str], Exception]

    def refused(self, error: BaseException | None) -> Exception | None:
        return self.lost(str(error)) if error is not None and self.table in str(error) else None


@dataclass
class _Job:
    statements: tuple[Statement, ...]
    read: bool
    alone: bool
    loop: Any  # what schedules `settle` on the caller's event loop (asyncio loop or trio token)
    call_soon: Callable[[Callable[[], None]], Any]
    settle: Callable[[Any, BaseException | None], None]
    outcome: tuple[Any, BaseException | None] = field(default=(None, None))
    last: bool = False  # made after the batch's commit, with the other such writes of the batch in one call
    due: float | None = None  # held: committed with the next write, or at this time.monotonic() at the latest


def query_runs(statements: Sequence[Statement]) -> list[tuple[str, list[tuple[Any, ...]]]]:
    """The statements as runs of one query text each, in order: (query, the values of each in turn); a store
    sends each run in one call (executemany, or one multi-row insert)."""
    runs: list[tuple[str, list[tuple[Any, ...]]]] = []
    for query, values in statements:
        if runs and runs[-1][0] == query:
            runs[-1][1].append(values)
        else:
            runs.append((query, [values]))
    return runs


def _due(held: Sequence[_Job]) -> float:
    """When the first of the held writes is to be committed at the latest."""
    return min(job.due for job in held if job.due is not None)


def _call(call: Callable[[], None]) -> None:
    call()


def _settler(future: Any) -> Callable[[Any, BaseException | None], None]:
    """What settles an asyncio future with a job's outcome (nothing once its caller was cancelled)."""

    def settle(result: Any, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    return settle


class _TrioOutcome:
    """The outcome of a job queued from trio: awaiting it waits for `settle` (asyncio's is a future)."""

    def __init__(self) -> None:
        import trio

        self._done = trio.Event()
        self._outcome: tuple[Any, BaseException | None] = (None, None)

    def settle(self, result: Any, error: BaseException | None) -> None:
        self._outcome = (result, error)
        self._done.set()

    def done(self) -> bool:
        return self._done.is_set()

    async def _wait(self) -> Any:
        await self._done.wait()
        result, error = self._outcome
        if error is not None:
            raise error
        return result

    def __await__(self) -> Generator[Any, None, Any]:
        return self._wait().__await__()


class GroupCommit:
    """A DB-API connection, used by a thread of its own (or `inline`), that commits the writes waiting for it together.

    The connection opens on first use, in the thread; `begin` opens a transaction (the
    connection is in autocommit mode otherwise); `script(db, statements)` renders a
    transaction's statements, values bound, as one text the server runs in one round
    trip (psycopg's client-side binding). `inline`: used on the event loop's thread instead (a local file),
    where the writes of one turn of the loop share a commit. `close` waits for the queued work.
    """

    def __init__(self, connect: Callable[[], Any], *, begin: str = "BEGIN", inline: bool = False,
                 script: Callable[[Any, Sequence[Statement]], str] | None = None,
                 name: str = "graphrt-checkpoint") -> None:
        self._connect = connect
        self._begin = begin
        self._script = script  # a transaction's statements as one text: one round trip (a server)
        self._inline = inline
        self._name = name
        self._db: Any = None
        self._queue: queue.SimpleQueue[_Job | object | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._pending: list[_Job] = []  # inline: the writes queued in this turn of the event loop
        self._flushing = False
        self.fence: Fence | None = None  # made first in each transaction of writes but lone ones (see the top)
        self.refusal: Refusal | None = None  # a write the database refused itself (see the top)

    async def read(self, query: str, values: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """The rows a query finds."""
        if self._inline:  # at once: a caller's own writes are made before it reads
            result, error = self._attempt(lambda: list(self._connection().execute(query, values).fetchall()))
            if error is not None:
                raise error
            return result
        return await self._enqueue(((query, values),), read=True, alone=False)

    def write(self, *statements: Statement, alone: bool = False) -> Awaitable[None]:
        """Runs the statements in one transaction (with others' writes, unless `alone`); what it returns, awaited at
        once, returns once they are committed. Queued now, not a coroutine: no frame of its own between the caller
        and the commit's future (issue 44)."""
        if self._inline:
            return self._queue_inline(statements, alone)  # committed with this turn's writes (below)
        return self._enqueue(statements, read=False, alone=alone)

    def post(self, *statements: Statement, alone: bool = False, last: bool = False) -> None:
        """Queues a write no caller waits for: made in order with the rest of the work, its failure ignored.

        For what must happen but holds nobody up: a run's claim given back after the run ended (its
        status committed). Work queued after it (the same run claimed again) comes after it. `last`: made
        at the end of its batch instead, after its commit, together with the batch's other `last` writes
        (one call for 50 runs' claims given back): for statements outside any transaction that work
        queued after them may precede (a session's lock taken again by this session is counted twice,
        then given back once)."""
        job = _Job(statements, False, alone, None, lambda call: None, lambda result, error: None, last=last)
        if self._inline:
            self._flush_inline()  # the writes queued before it come first
            self._run([job])
            return
        self._started()
        self._queue.put(job)

    def close(self) -> None:
        """Makes the queued work, then closes the connection and ends the thread."""
        with self._start_lock:
            thread, self._thread = self._thread, None
        if thread is not None:
            self._queue.put(None)
            thread.join()
            return
        self._flush_inline()  # inline writes still queued for the loop's next turn
        if self._db is not None:
            self._db.close()
            self._db = None

    # ----- inline: on the event loop's thread, one commit per turn of the loop -----

    def _queue_inline(self, statements: tuple[Statement, ...], alone: bool) -> Awaitable[None]:
        """Queues a write for the commit of this turn of the event loop; returns what its outcome settles.

        The first write of a turn schedules the commit for the loop's next turn, so that the other tasks
        of this turn add theirs (one turn, not until a turn adds none: with 50 runs at once some write
        comes every turn, and waiting for a quiet one held each write ~17 ms; the commit takes ~0.1 ms).
        Blocking the loop for the commit is cheaper than a thread: a write to a local WAL file takes
        microseconds, and a hop to a thread and back (with the GIL changing hands) took a millisecond
        on a loaded machine. A cancelled writer stops waiting; its write is still made."""
        if sniffio.current_async_library() == "asyncio":
            import asyncio

            loop = asyncio.get_running_loop()
            future = loop.create_future()
            self._pending.append(_Job(statements, False, alone, None, _call, _settler(future)))
            if not self._flushing:
                self._flushing = True
                loop.call_soon(self._flush_inline)
            return future
        import trio

        outcome = _TrioOutcome()
        self._pending.append(_Job(statements, False, alone, None, _call, outcome.settle))
        if not self._flushing:
            self._flushing = True
            trio.lowlevel.current_trio_token().run_sync_soon(self._flush_inline)
        return outcome

    def _flush_inline(self) -> None:
        """Commits the writes queued in the last turn of the loop together, then tells each writer."""
        jobs, self._pending, self._flushing = self._pending, [], False
        if not jobs:
            return
        self._run(jobs)
        for job in jobs:
            job.settle(*job.outcome)

    # ----- the caller's side -----

    def queue(self, *statements: Statement, read: bool = False, hold: bool = False) -> Awaitable[Any]:
        """Queues the work now and returns what to await for its outcome later (a read's rows; a write's None).

        Work queued after it is made after it, so a caller may go on and wait only where it must (a run's
        record is saved while its first node runs). Await what it returns, on the way out of a failure too:
        its error is raised there. A read queued after a write that is not committed yet may be made before
        it (a batch's reads go first): a caller reads its own write only once it has awaited it. Only
        a write inline: committed with the writes of this turn of the event loop.

        `hold`: a write that may wait to share the commit of the next write queued after it, a moment at most
        (see the top); awaiting it commits it now if it is still held. Inline, every write shares its turn's."""
        if self._inline:
            if read:
                raise RuntimeError("GroupCommit.queue: an inline connection reads at once (read)")
            return self._queue_inline(statements, False)
        pending = self._enqueue(statements, read=read, alone=False, hold=hold and not read)
        return self._awaited(pending) if hold and not read else pending

    async def _awaited(self, pending: "asyncio.Future[Any] | _TrioOutcome") -> Any:
        """A held write's outcome, asked for now: the writes held with it are committed without waiting more."""
        if not pending.done():  # (a write queued after it committed it already, most often)
            self._queue.put(_NOW)
        return await pending

    def _enqueue(self, statements: tuple[Statement, ...], *, read: bool, alone: bool,
                 hold: bool = False) -> "asyncio.Future[Any] | _TrioOutcome":
        """Puts the job on the thread's queue at once; returns the awaitable its outcome settles."""
        self._started()
        due = time.monotonic() + _HOLD if hold else None
        if sniffio.current_async_library() == "asyncio":
            import asyncio

            loop = asyncio.get_running_loop()
            future = loop.create_future()
            self._queue.put(_Job(statements, read, alone, loop, loop.call_soon_threadsafe, _settler(future),
                                 due=due))
            return future
        import trio

        token = trio.lowlevel.current_trio_token()
        outcome = _TrioOutcome()
        self._queue.put(_Job(statements, read, alone, token, token.run_sync_soon, outcome.settle, due=due))
        return outcome

    def _started(self) -> None:
        if self._thread is not None:
            return
        with self._start_lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name=self._name, daemon=True)
                self._thread.start()

    # ----- the thread's side -----

    def _work(self) -> None:
        held: list[_Job] = []  # writes waiting for another to share its commit (`hold`), in their order
        try:
            while True:
                now = False
                try:
                    job = self._queue.get(timeout=max(0.0, _due(held) - time.monotonic())) if held \
                        else self._queue.get()
                except queue.Empty:  # the first held write waited long enough
                    job, now = _NOW, True
                jobs, held = held, []
                stop = job is None
                if isinstance(job, _Job):
                    jobs.append(job)
                else:
                    now = True
                while not stop and len(jobs) < _BATCH:
                    try:
                        more = self._queue.get_nowait()
                    except queue.Empty:
                        break
                    if more is None:
                        stop = True
                    elif isinstance(more, _Job):
                        jobs.append(more)
                    else:
                        now = True
                if not stop and not now and jobs and all(job.due is not None for job in jobs):
                    held = jobs  # none of them is waited for yet: they wait for the next write
                    continue
                if jobs:
                    self._run(jobs)
                    self._settle(jobs)
                if stop:
                    return
        finally:
            if self._db is not None:
                try:
                    self._db.close()
                except Exception:  # noqa: BLE001 - closing a broken connection
                    pass
                self._db = None

    def _run(self, jobs: list[_Job]) -> None:
        try:
            db = self._connection()
        except BaseException as error:  # noqa: BLE001 - every caller learns why the store cannot open
            for job in jobs:
                job.outcome = (None, error)
            return
        # Reads and lone writes first, then the rest in one transaction. No caller can depend on a write
        # that is not committed yet (its caller is still waiting), so reading before it is as if the read
        # had come first; writes keep their order.
        writes: list[_Job] = []
        last: list[Statement] = []
        for job in jobs:
            if job.last:
                last.extend(job.statements)
            elif job.read:
                job.outcome = self._attempt(lambda: list(db.execute(*job.statements[0]).fetchall()))
            elif job.alone:
                self._commit(db, [job], fenced=False)
            else:
                writes.append(job)
        self._commit(db, writes)
        if last:
            self._run_last(db, last)

    def _run_last(self, db: Any, statements: list[Statement]) -> None:
        """The batch's `last` writes, outside any transaction: in one call where the driver takes one text."""
        if self._script is not None and len(statements) > 1:
            if self._attempt(lambda: db.execute(self._script(db, statements)))[1] is None:
                return
        for statement in statements:  # one by one (or after the text failed): each its own outcome, ignored
            self._attempt(lambda: db.execute(*statement))

    def _commit(self, db: Any, writes: list[_Job], *, fenced: bool = True) -> None:
        """Makes the writes in one transaction (after the fence, if any); if it fails, each in a transaction
        of its own; if the fence refused them, none."""
        if not writes:
            return
        fence = self.fence if fenced else None
        first = [fence.statement] if fence is not None else []
        if len(writes) > 1:
            statements = [*first, *(statement for job in writes for statement in job.statements)]
            outcome = self._attempt(lambda: self._transaction(db, statements))
            if outcome[1] is None or (fence is not None and fence.refused(outcome[1])):
                for job in writes:
                    job.outcome = outcome if outcome[1] is None else (None, fence.lost())  # type: ignore[union-attr]
                return
        for job in writes:
            job.outcome = self._attempt(lambda: self._transaction(db, [*first, *job.statements]))
            if fence is not None and fence.refused(job.outcome[1]):
                job.outcome = (None, fence.lost())
            refused = self.refusal.refused(job.outcome[1]) if self.refusal is not None else None
            if refused is not None:
                job.outcome = (None, refused)

    def _transaction(self, db: Any, statements: list[Statement] | tuple[Statement, ...]) -> None:
        if len(statements) == 1:
            db.execute(*statements[0])  # autocommit
            return
        try:
            if self._script is not None:
                db.execute(self._script(db, [(self._begin, ()), *statements, ("COMMIT", ())]))
            else:
                db.execute(self._begin)
                for query, rows in query_runs(statements):  # 50 runs' node rows: one executemany, not 50 calls
                    if len(rows) == 1:
                        db.execute(query, rows[0])
                    else:
                        db.executemany(query, rows)
                db.execute("COMMIT")
        except BaseException:
            try:
                db.execute("ROLLBACK")
            except Exception:  # noqa: BLE001 - the failure may have ended the transaction already
                pass
            raise

    @staticmethod
    def _attempt(call: Callable[[], Any]) -> tuple[Any, BaseException | None]:
        try:
            return call(), None
        except Exception as error:  # noqa: BLE001 - handed to the caller, who wraps it
            return None, error

    def _connection(self) -> Any:
        if self._db is not None and getattr(self._db, "closed", False):  # a server's connection that broke
            self._db = None
        if self._db is None:
            self._db = self._connect()
        return self._db

    @staticmethod
    def _settle(jobs: list[_Job]) -> None:
        """Hands each job's outcome to its caller: one wake-up per event loop, not per job."""
        by_loop: dict[int, list[_Job]] = {}
        for job in jobs:
            by_loop.setdefault(id(job.loop), []).append(job)
        for group in by_loop.values():
            def settle_all(group: list[_Job] = group) -> None:
                for job in group:
                    job.settle(*job.outcome)
            try:
                group[0].call_soon(settle_all)
            except RuntimeError:  # the caller's event loop is closed: nobody waits
                pass
