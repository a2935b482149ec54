"""A batch's ledger saves a row that ran on an executor as a run saved as it goes is saved (graphrt/batches/ledger.py):
one SavedRun, one policy for what a run's end saves (graphrt/durable/saved_run.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import graphrt
from graphrt import AgentContext, AgentInfo
from graphrt.base.secrets import Redactor, known_credentials
from graphrt.batches.ledger import Ledger
from graphrt.batches.rows import InputRow
from graphrt.checkpoint import GuardedStore, SQLiteStore
from graphrt.durable import arun_checkpointed

pytestmark = pytest.mark.anyio

KEY = "sk-ledger-0123456789abcdef"


def _graph(fail: bool = False) -> graphrt.Graph:
    async def echo(ctx: AgentContext) -> Any:
        if fail:
            raise RuntimeError(f"the service refused {ctx.params['apiKey']}")
        return {"said": ctx.params["apiKey"]}

    data = {"version": 0.5, "nodes": {"n": {"value": 1},
                                      "echo": {"agent": "echoAgent", "params": {"apiKey": KEY}, "inputs": {"n": ":n"},
                                               "isResult": True}}}
    return graphrt.Graph(data, agents=[AgentInfo("echoAgent", echo)])


def _redactor(graph: graphrt.Graph) -> Redactor:
    """The batch's one redactor, as graphrt.batches.runner makes it."""
    return Redactor(known=known_credentials(graph.config, graph.data))


async def _saved_both_ways(tmp_path: Path, fail: bool) -> tuple[Any, Any]:
    """The record of a run saved as it goes, and of the same run's row ended by the ledger (its run elsewhere)."""
    store = GuardedStore(SQLiteStore(tmp_path / "runs.db"))
    try:
        try:
            results = await arun_checkpointed(_graph(fail), store, run_id="as-it-goes")
        except graphrt.GraphError as error:
            results, failed = None, error
        else:
            failed = None
        ledger, row, graph = Ledger(store, "batch"), InputRow(1, 0), _graph(fail)
        await ledger.started(graph, row)
        await ledger.finished(row, results, failed, _redactor(graph))
        return await store.get_run("as-it-goes"), await store.get_run("batch/1")
    finally:
        await store.close()


async def test_a_row_run_elsewhere_is_saved_finished_as_a_run_saved_as_it_goes(tmp_path: Path) -> None:
    durable, row = await _saved_both_ways(tmp_path, fail=False)
    assert (row.status, row.detail, row.results) == (durable.status, durable.detail, durable.results)
    assert row.results == {"echo": {"said": "REDACTED"}}  # a credential the graph gives its agent is not saved


async def test_a_row_run_elsewhere_is_saved_failed_as_a_run_saved_as_it_goes(tmp_path: Path) -> None:
    durable, row = await _saved_both_ways(tmp_path, fail=True)
    assert (row.status, row.detail) == (durable.status, durable.detail) == ("failed", {
        "node_id": "echo", "error": "node 'echo': RuntimeError: the service refused REDACTED (agent echoAgent)"})


async def test_a_rows_results_json_cannot_hold_are_said_and_not_lost_silently(tmp_path: Path) -> None:
    store = GuardedStore(SQLiteStore(tmp_path / "runs.db"))
    try:
        ledger, row = Ledger(store, "batch"), InputRow("bytes", 0)
        await ledger.started(_graph(), row)
        await ledger.finished(row, {"echo": b"\x00"}, None, _redactor(_graph()))
        saved = await store.get_run("batch/bytes")
        assert (saved.status, saved.results, saved.detail) == (
            "finished", None, {"results": "not saved: JSON cannot hold them (a bytes is not a JSON value)"})
    finally:
        await store.close()
