"""Where a batch keeps its rows: one saved run per row in a checkpoint store, so a batch survives its process.

Row `ID` of batch `B` is the run `B/ID` of the store (`graphrt resume --checkpoint STORE --run-id B/ID`
continues one by hand). Running the batch again looks each row up first: a row
whose run completed is not run again, its saved results are its output; a row
that failed or was cut off runs again (in this process, from its last completed
node: graphrt.durable). The rows of a batch whose runs go elsewhere (an
executor's whole runs) are saved here by the driver: its record before the run,
its status and results after it, so a row cut off there runs again from its start.
What it saves hides the credentials the run knows, as a run saved as it goes does
(graphrt.durable.credentials): its results as data, its error as errors are hidden.
"""

from __future__ import annotations

from typing import Any

import anyio

from graphrt.base.errors import CheckpointError, GraphError
from graphrt.base.secrets import Redactor
from graphrt.base.states import RunStatus
from graphrt.checkpoint.errors import Unsavable
from graphrt.checkpoint.guard import GuardedStore
from graphrt.checkpoint.values import encode_value
from graphrt.durable.credentials import hidden_data
from graphrt.durable.runs import save_new_run
from graphrt.engine.graph import Graph
from graphrt.batches.outcome import FINISHED, RowOutcome
from graphrt.batches.rows import InputRow

__all__ = ["Ledger"]


class Ledger:
    """The saved runs of one batch's rows in `store`, named `batch_id/ROW`."""

    def __init__(self, store: GuardedStore, batch_id: str) -> None:
        self.store = store
        self.batch_id = batch_id

    def run_id(self, row: InputRow) -> str:
        return f"{self.batch_id}/{row.id}"

    async def done_before(self, row: InputRow) -> RowOutcome | None:
        """The row's outcome if its run completed in an earlier run of the batch; None if it has to run.

        Raises:
            CheckpointError: the saved run was started with other values (the input row changed since).
        """
        record = await self.store.get_run(self.run_id(row))
        if record is None:
            return None
        if record.injected != row.inject:
            raise CheckpointError(
                f"row {row.id!r} is not the row saved as run {record.run_id!r} in {self.store.location} "
                "(the input changed since): give the batch a new id (--batch-id) to run the changed rows")
        if record.status != RunStatus.FINISHED or not isinstance(record.results, dict):
            return None
        return RowOutcome(row.id, row.index, FINISHED, results=record.results, before=True)

    # ----- rows whose runs go elsewhere: the driver saves what it learns -----

    async def started(self, graph: Graph, row: InputRow) -> None:
        """Claims the row's run for this driver and saves its record (or marks the saved one running again).

        Raises:
            CheckpointError: another driver runs it now, or the store failed.
        """
        run_id = self.run_id(row)
        await self.store.claim_run(run_id)
        try:
            if await self.store.get_run(run_id) is None:
                await save_new_run(graph, self.store, run_id, inject=row.inject)
            else:
                await self.store.update_run(run_id, status=RunStatus.RUNNING)
        except BaseException:
            await self._release(run_id)
            raise

    async def finished(self, row: InputRow, results: dict[str, Any] | None, error: GraphError | None,
                       redactor: Redactor) -> None:
        """Saves how the row's run ended and lets go of it; a cancelled row is saved as stopped. `redactor` knows
        the run's credentials (the graph's, its config's, the environment's), hidden in what is saved."""
        run_id = self.run_id(row)
        try:
            with anyio.CancelScope(shield=True):
                if error is not None:
                    detail = {"node_id": error.node_id, "error": redactor.text(str(error))}
                    await self.store.update_run(run_id, status=RunStatus.FAILED, detail=detail)
                elif results is None:
                    await self.store.update_run(run_id, status=RunStatus.CANCELLED)
                else:
                    try:
                        encode_value(results)
                    except Unsavable as unsavable:
                        await self.store.update_run(run_id, status=RunStatus.FINISHED,
                                                    detail={"results": f"not saved: JSON cannot hold them ({unsavable})"})
                    else:
                        await self.store.update_run(run_id, status=RunStatus.FINISHED,
                                                    results=hidden_data(results, redactor))
        finally:
            await self._release(run_id)

    async def _release(self, run_id: str) -> None:
        with anyio.CancelScope(shield=True):
            try:
                await self.store.release_run(run_id)
            except Exception:  # noqa: BLE001 - the claim ends with the connection anyway
                pass
