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
Each change of a row's saved run is its `SavedRun`'s (graphrt.durable.saved_run), as a
run saved as it goes: what its end saves is said once, there.
"""

from __future__ import annotations

from typing import Any

import anyio

from graphrt.base.errors import CheckpointError, GraphError
from graphrt.base.secrets import Redactor
from graphrt.base.states import RunStatus
from graphrt.checkpoint.guard import GuardedStore
from graphrt.durable.runs import save_new_run
from graphrt.durable.saved_run import SavedRun
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
        saved = SavedRun(self.store, run_id)
        await saved.claim()
        try:
            if await self.store.get_run(run_id) is None:
                await save_new_run(graph, self.store, run_id, inject=row.inject)
            else:
                await saved.run_again()
        except BaseException:
            await saved.release()
            raise

    async def finished(self, row: InputRow, results: dict[str, Any] | None, error: GraphError | None,
                       redactor: Redactor) -> None:
        """Saves how the row's run ended (a row cut off: cancelled) and lets go of it. `redactor` knows the run's
        credentials (the graph's, its config's, the environment's), hidden in what is saved.

        Raises:
            CheckpointError: the store failed.
        """
        saved = SavedRun(self.store, self.run_id(row), redactor)
        try:
            with anyio.CancelScope(shield=True):
                if error is not None:
                    await saved.fail(error)
                elif results is None:
                    await saved.cancel()
                else:
                    await saved.finish(results)
        finally:
            await saved.release()
