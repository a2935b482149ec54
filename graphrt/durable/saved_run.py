"""`SavedRun`: a saved run's status in its store, and every change of it, made here and nowhere else.

    created ──▶ running ──┬──▶ finished      finish: its results, or why JSON could not hold them
                  ▲       ├──▶ failed        fail: the node and the error, without the run's credentials
                  │       ├──▶ cancelled     cancel: stopped on purpose, or cut off
                  │       └──▶ interrupted   interrupt: an agent asked a person a question
                  └──── run_again: resumed, a batch's row run again, or left for the next server

A run is also claimed by the one process (and task) that runs it (`claim`, `release`): a
second resume of it is refused while the first goes on, and the claim ends with the process.

Who decides what happened to a run decides which transition it takes: graphrt.durable's
`arun_checkpointed` for a run saved as it goes, graphrt serve for the runs it cancels,
refuses or stops, a batch's ledger for a row that ran on an executor. What each transition
saves (the policy: the error's text without credentials, results JSON cannot hold said
instead of lost) is written once, here. Every method raises CheckpointError when the store
fails (it is a GuardedStore), but `release`, whose claim ends with the connection anyway.
"""

from __future__ import annotations

from typing import Any, Awaitable, Sequence

import anyio

from graphrt.base.errors import BudgetExceeded, CheckpointError, GraphError, GraphInterrupted
from graphrt.base.secrets import Redactor
from graphrt.base.states import RunStatus
from graphrt.base.usage import Usage
from graphrt.checkpoint.errors import Unsavable
from graphrt.checkpoint.guard import GuardedStore
from graphrt.checkpoint.records import Row, RunRecord
from graphrt.checkpoint.values import encode_value
from graphrt.durable.credentials import hidden_data

__all__ = ["SavedRun"]


class SavedRun:
    """The saved run `run_id` of `store`, as one process changes it.

    Args:
        redactor: the credentials the run knows (graphrt.durable.credentials), hidden in what is saved of
            its end (its results, its error's text); the environment's when none is given.
    """

    def __init__(self, store: GuardedStore, run_id: str, redactor: Redactor | None = None) -> None:
        self.store = store
        self.run_id = run_id
        self._redactor = redactor
        self._released = False  # its claim was given up (`release`)
        self.spent: Usage | None = None  # what the run spent, said with its end (`detail.usage`) when it spent any

    @property
    def redactor(self) -> Redactor:
        """What hides the run's credentials in its end, made when first needed (reading the environment takes
        a while): most transitions save no text."""
        if self._redactor is None:
            self._redactor = Redactor()
        return self._redactor

    @redactor.setter
    def redactor(self, redactor: Redactor) -> None:
        self._redactor = redactor

    # ----- its beginning, and the claim -----

    async def create(self, record: RunRecord) -> None:
        """Saves a new run's record, running (it has not run yet: a queued run, a fork, a batch's row).

        Raises:
            CheckpointError: the id is taken, or the store failed.
        """
        await self.store.create_run(record)

    def start_new(self, record: RunRecord) -> Awaitable[None] | None:
        """A new run's claim and record, queued at once where the store can (QueuedStart), awaited before the run
        writes a row or its end; None: `claim` it, then `create` it."""
        self._released = False
        return self.store.start_new_run(record)

    async def claim(self) -> None:
        """Takes the run for this process until `release`: another process or task running it is refused.

        Raises:
            RunTaken: another process or task runs it now.
        """
        self._released = False
        await self.store.claim_run(self.run_id)

    async def release(self, *, shield: bool = True) -> None:
        """Gives the claim up, once (a second call does nothing), shielded; a store that fails here is let be: the
        claim ends with its connection. `shield`: False where the caller shields it already (a run's end and its
        release in one cancel scope: each costs a run ~4 µs, issue 44)."""
        if self._released:
            return
        self._released = True
        try:
            if not shield:
                await self.store.release_run(self.run_id)
                return
            with anyio.CancelScope(shield=True):
                await self.store.release_run(self.run_id)
        except CheckpointError:
            pass

    async def run_again(self) -> None:
        """Saves the run as running again: it is resumed, its batch's row runs again, or the server that ran it
        stops and leaves it for the next, which continues every run saved running."""
        await self.store.update_run(self.run_id, status=RunStatus.RUNNING)

    # ----- its end: `rows`, those the run queued and did not await, saved with it or not at all -----

    async def finish(self, results: Any, *, rows: Sequence[Row] = ()) -> None:
        """Saves the run finished with its results, without the credentials the run knows; results JSON cannot
        hold are not saved, and the record says why (a resume then says to run it again)."""
        try:
            await self._end(RunStatus.FINISHED, rows, results=hidden_data(results, self.redactor))
        except CheckpointError:  # the results, encoded by the store (not twice), may be what JSON cannot hold
            try:
                encode_value(results)
            except Unsavable as error:
                await self._end(RunStatus.FINISHED, rows,
                                detail={"results": f"not saved: JSON cannot hold them ({error})"})
            else:
                raise

    async def fail(self, error: GraphError | str, *, rows: Sequence[Row] = ()) -> None:
        """Saves the run failed: the node that failed (of a GraphError) and the error's text, without the
        credentials the run knows; a run its budget stopped, which limit (`budget`: BudgetExceeded.to_dict())."""
        node_id = error.node_id if isinstance(error, GraphError) else None
        detail: dict[str, Any] = {"node_id": node_id, "error": self.redactor.text(str(error))}
        if isinstance(error, BudgetExceeded):
            detail["budget"] = error.to_dict()
        await self._end(RunStatus.FAILED, rows, detail=detail)

    async def cancel(self, *, rows: Sequence[Row] = ()) -> None:
        """Saves the run cancelled: stopped on purpose (Ctrl-C, an abort, a server's cancel), or cut off."""
        await self._end(RunStatus.CANCELLED, rows)

    async def interrupt(self, asked: GraphInterrupted, *, rows: Sequence[Row] = ()) -> None:
        """Saves the run waiting for an answer: the question (without the credentials the run knows: an agent may
        have put one in it), and the node (and nested key) that asked it."""
        await self._end(RunStatus.INTERRUPTED, rows, detail={
            "node_id": asked.node_id, "key": asked.key, "question": hidden_data(asked.question, self.redactor)})

    async def _end(self, status: RunStatus, rows: Sequence[Row], *, detail: dict[str, Any] | None = None,
                   results: Any = None) -> None:
        """With `rows` (queued before it, not awaited: the writer queues rows only for a store that can), the end
        is saved only if they are: a row that failed leaves the run as it was, not ended without it."""
        detail = detail if detail is not None else {}
        if self.spent is not None and self.spent:  # what it spent, for whoever reads the run (its rows have it too)
            detail = {**detail, "usage": self.spent.to_dict()}
        if rows:
            await self.store.finish_run(self.run_id, rows, status=status, detail=detail, results=results)
        else:
            await self.store.update_run(self.run_id, status=status, detail=detail, results=results)
