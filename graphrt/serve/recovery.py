"""Saved runs read back as ServedRuns: one a request names that this server does not hold, and at start every
unfinished run of a served graph.

When the server starts, every saved run of a served graph that was running when
the last server stopped (or was killed) is read back queued, to be continued where
its rows leave off (completed nodes are not run again); a run waiting for an answer
is read back waiting. A run read back shows what its checkpoint holds: its inputs,
its nodes' results, the node that failed or asks, the answers people gave, and its
event log when the store keeps one (it goes on after the saved records).

Each run is read back with the version of its graph it started with (GraphCatalog.as_started),
whatever its file holds now; a run of a graph this server does not serve is not read.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from graphrt.base.secrets import Redactor
from graphrt.base.states import RunStatus
from graphrt.checkpoint.guard import GuardedStore
from graphrt.checkpoint.records import RunRecord
from graphrt.durable.saved_nodes import saved_nodes
from graphrt.serve.catalog import GraphCatalog, ServedGraph
from graphrt.serve.event_logs import EventLogs
from graphrt.serve.served_run import SPENDING_EVENTS, ServedRun
from graphrt.serve.transitions import Transitions

__all__ = ["Recovery"]


class Recovery:
    """Reads saved runs of `catalog`'s graphs back, with their event logs from `logs`, shown by `transitions`."""

    def __init__(self, catalog: GraphCatalog, logs: EventLogs, transitions: Transitions, redactor: Redactor,
                 shown: Callable[[str], str]) -> None:
        self.catalog = catalog
        self.logs = logs
        self.transitions = transitions
        self.redactor = redactor
        self.shown = shown

    async def unfinished(self, store: GuardedStore) -> list[ServedRun]:
        """The runs of served graphs that did not end, read back, oldest first: those saved running queued again
        (their server was cut off), those waiting for an answer waiting still."""
        runs = []
        for record in sorted(await store.runs(), key=lambda saved: saved.created_at):
            if record.status not in (RunStatus.RUNNING, RunStatus.INTERRUPTED):
                continue
            served = self.catalog.as_started(record)  # the version it started with, whatever the file is now
            if served is None:
                continue
            runs.append(await self.read_back(store, record, served, requeued=record.status == RunStatus.RUNNING))
        return runs

    async def read_back(self, store: GuardedStore, record: RunRecord, served: ServedGraph, *,
                        requeued: bool = False, held: bool = True) -> ServedRun:
        """The saved run `record` of graph version `served`, as its checkpoint holds it (queued, if `requeued`).
        Not `held`: a run of a store several servers share that this server does not hold (another runs it, or
        will): its log is its holder's to write, so its status is shown without a record added to it (the store
        would refuse the write, and this server would take the run for one taken over from it)."""
        saved = await self.logs.saved(record.run_id)
        run = ServedRun(record.run_id, served, self.redactor, shown=self.shown, all_results=record.all_results,
                        created_at=record.created_at or None,
                        events=self.logs.log_for(record.run_id, saved=saved))
        run.inputs = run.redactor.value(record.injected)
        run.parent = record.parent
        if isinstance(record.detail.get("usage"), dict):  # what it spent, as its saved end said
            run.final_usage = record.detail["usage"]
        if saved:  # and per node, as its saved log says
            run.spent_before(await self.logs.saved_records(record.run_id, saved, SPENDING_EVENTS))
        await self.restore_nodes(store, run, record)
        # A run that ended has its log saved, ending with its status (its events are saved before its end, and its
        # status after: graphrt.serve.workers); one saved by an older server has none, and one whose server was killed
        # between its end and its status has all but its status. The server that holds the run adds it.
        ended = not requeued and RunStatus.read(record.status) in RunStatus.ENDED
        whole = bool(saved) and ended and held and await self.logs.ends_saved(record.run_id, saved)
        self.transitions.read_back(run, record, requeued=requeued, announce=held and not whole)
        return run

    async def restore_nodes(self, store: GuardedStore, run: ServedRun, record: RunRecord) -> None:
        """What the saved run says of the run's nodes (graphrt.durable.saved_nodes: each completed node's result,
        the node that failed or asks) into its ledger, and the answers people gave; values redacted."""
        said = await saved_nodes(store, record)
        run.answers.extend({"key": key, "answer": run.redactor.value(answer)} for key, answer in said.answers)
        run.ledger.restore({node_id: dataclasses.replace(node, result=run.redactor.value(node.result))
                            for node_id, node in said.nodes.items() if node_id in run.nodes})
