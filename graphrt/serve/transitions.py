"""Every change of how a served run stands, in one place: saved first, then shown, then told to its webhooks.

A saved run's status has one writer, graphrt.durable's SavedRun. The durable run
(`arun_checkpointed`) saves how it ends; the changes serve decides are SavedRun's
calls made here, and nowhere else in serve:

    cancel      a run no worker runs (queued, or waiting for an answer) is cancelled
    cancelled   a running run's cancel stopped it: it ends as its store says it ended
    fail        its store did not keep up with its events: it is stopped and saved failed
    leave       the server stops under it: saved running, for the next server to continue
    refuse      saved by a request, then refused its place in the queue: saved cancelled, never run

What clients see of a run follows (ServedRun.show, called only here): a change is shown
once the store took it, and a run that settles (ends, or asks a person) is handed to
the webhooks from here, once per settling. Two are shown without a write here: queued,
which no store keeps (a queued run is saved running, as it was created), and running,
which the durable run saves itself as it starts (a new run's record, or `run_again`). A
run read back from the store is shown as its record says (`read_back`). A run can also
end without a write: its graph could not be built from its checkpoint, or another
server took the store over (the store refused the write); `ran` shows those as failed,
and the saved run stays as it was.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import anyio

from graphrt.base.secrets import Redactor
from graphrt.base.states import RunStatus
from graphrt.checkpoint.errors import CheckpointError
from graphrt.checkpoint.guard import GuardedStore
from graphrt.checkpoint.records import RunRecord
from graphrt.durable import SavedRun
from graphrt.serve.served_run import ServedRun

__all__ = ["Transitions"]

log = logging.getLogger("graphrt.serve")


class Transitions:
    """The changes of a server's runs: `store()` the store they are saved to (while serving), `shown(text)` an
    error's text as clients see it, `settled(run)` told of each run that settles (the server's webhooks)."""

    def __init__(self, store: Callable[[], GuardedStore], redactor: Redactor, shown: Callable[[str], str],
                 settled: Callable[[ServedRun], None]) -> None:
        self._store = store
        self.redactor = redactor
        self.shown = shown
        self._settled = settled

    def _saved(self, run: ServedRun) -> SavedRun:
        """The run as its store keeps it: each change of its saved status is made there (graphrt.durable)."""
        return SavedRun(self._store(), run.id, run.redactor)

    def _show(self, run: ServedRun, status: RunStatus, **outcome: Any) -> None:
        run.show(status, **outcome)
        if status in RunStatus.SETTLED:
            self._settled(run)

    # ----- the server's own -----

    def queued(self, run: ServedRun) -> None:
        """Queued: submitted, forked, answered, or read back to be continued."""
        self._show(run, RunStatus.QUEUED)

    def running(self, run: ServedRun) -> None:
        """A worker runs it (the durable run claims it in the store)."""
        self._show(run, RunStatus.RUNNING)

    # ----- what the durable run saved -----

    def ran(self, run: ServedRun, status: RunStatus, *, results: Any = None, error: str | None = None,
            question: str | None = None, budget: dict[str, Any] | None = None) -> None:
        """How its run ended, as the durable run saved it (`budget`: the one that stopped it, as its record's
        detail says); or failed without a write (see the module's doc)."""
        self._show(run, status, results=results, error=error, question=question, budget=budget)

    # ----- what serve decides: saved here, then shown -----

    async def cancel(self, run: ServedRun) -> None:
        """Cancels a run that no worker runs: saved cancelled, then shown so.

        Raises:
            CheckpointError: the store did not take it (the run stands as it did).
        """
        await self._saved(run).cancel()
        self._show(run, RunStatus.CANCELLED)

    async def cancelled(self, run: ServedRun) -> None:
        """Settles a run whose cancel stopped it, as its store says it ended: finished or failed if the durable
        run saved that end before the cancel reached it, else cancelled, saved so now if the cancel came before
        the durable run saved any end (while it claimed the run: the next server would have run it again)."""
        try:
            with anyio.CancelScope(shield=True):
                record = await self._store().get_run(run.id)
                saved = RunStatus.read(record.status) if record is not None else None
                if saved == RunStatus.FINISHED:
                    self._show(run, RunStatus.FINISHED, results=run.redactor.value(record.results))
                    return
                if saved == RunStatus.FAILED:
                    self._show(run, RunStatus.FAILED, error=run.shown(record.detail.get("error") or "") or None,
                               budget=record.detail.get("budget"))
                    return
                if saved != RunStatus.CANCELLED:
                    await self._saved(run).cancel()
        except CheckpointError as error:  # StoreFailed too
            log.warning("run %s was cancelled, but its store could not say how it ended or save it so: %s",
                        run.id, run.redactor.text(str(error)))
        self._show(run, RunStatus.CANCELLED)

    async def fail(self, run: ServedRun, error: str) -> None:
        """Fails a run stopped because the store could not keep its events: saved failed, never as cancelled;
        shown failed even if the store, failing, did not take that either."""
        try:
            with anyio.CancelScope(shield=True):
                await self._saved(run).fail(error)
        except Exception as failure:  # noqa: BLE001 - the store that failed the run may fail this too
            log.warning("could not save that run %s failed: %s", run.id, failure)
        self._show(run, RunStatus.FAILED, error=error)

    async def leave(self, run: ServedRun) -> None:
        """The server stops, not the run: it is saved running, so that the next server continues it. Shown as it
        was: this server shows nothing more of it."""
        try:
            with anyio.CancelScope(shield=True):
                await self._saved(run).run_again()
        except Exception:
            log.exception("could not mark run %s to continue", run.id)

    async def refuse(self, run: ServedRun) -> None:
        """A run saved by a request (submit, fork) and then refused its place in the queue (a restarted server
        queued its runs meanwhile): saved cancelled, so that no later server runs it; never shown, its client
        gets the refusal."""
        try:
            with anyio.CancelScope(shield=True):
                await self._saved(run).cancel()
        except Exception as error:  # noqa: BLE001 - the refusal is what the client must get
            log.warning("run %s was refused, but could not be saved cancelled: %s", run.id, error)

    # ----- read back -----

    def read_back(self, run: ServedRun, record: RunRecord, *, requeued: bool, announce: bool) -> None:
        """Shows a run read back from its store as its record says it stands, or queued (`requeued`: saved
        running, its server stopped under it, it is continued here). `announce`: its saved log does not end with
        that status already. Its webhooks were called when it settled (or are made up for: Webhooks.catch_up)."""
        status = RunStatus.QUEUED if requeued else RunStatus.read(record.status)
        run.show(status, results=run.redactor.value(record.results) if status == RunStatus.FINISHED else None,
                 error=run.shown(record.detail.get("error") or "") or None if status == RunStatus.FAILED else None,
                 question=record.question, announce=announce,
                 budget=record.detail.get("budget") if status == RunStatus.FAILED else None,
                 updated_at=record.updated_at or run.created_at)  # as saved, not the time it was read back
