"""The checkpoint store protocol, on every store (graphrt/checkpoint/)."""

from __future__ import annotations

import pytest

from graphrt.base.jsvalue import UNDEFINED
from graphrt.checkpoint import (
    CheckpointError,
    CheckpointStore,
    Row,
    RunRecord,
    RunStatus,
    encode_value,
)

pytestmark = pytest.mark.anyio


def _record(run_id: str = "r1", **fields) -> RunRecord:
    return RunRecord(run_id=run_id, graph_file="/graphs/g.yaml", graph_text="nodes: {}", graph_hash="abc", **fields)


async def test_every_store_follows_the_protocol(store: CheckpointStore) -> None:
    assert isinstance(store, CheckpointStore)


async def test_a_new_run_comes_back_as_it_was_saved(store: CheckpointStore) -> None:
    await store.create_run(_record(injected={"name": "Ada", "gone": UNDEFINED}, config={"global": {"x": 1}}, all_results=True))

    saved = await store.get_run("r1")

    assert (saved.run_id, saved.graph_file, saved.graph_text, saved.graph_hash) == ("r1", "/graphs/g.yaml", "nodes: {}", "abc")
    assert saved.injected == {"name": "Ada", "gone": UNDEFINED}
    assert (saved.config, saved.all_results, saved.status, saved.results) == ({"global": {"x": 1}}, True, "running", None)


async def test_an_unknown_run_is_none(store: CheckpointStore) -> None:
    assert await store.get_run("nope") is None


async def test_saving_a_run_id_twice_is_an_error(store: CheckpointStore) -> None:
    await store.create_run(_record())

    with pytest.raises(CheckpointError, match="run 'r1' is already saved in"):
        await store.create_run(_record())


async def test_update_run_sets_the_status_its_detail_and_results(store: CheckpointStore) -> None:
    await store.create_run(_record())

    await store.update_run("r1", status=RunStatus.FINISHED, detail={"note": "done"}, results={"out": [1, UNDEFINED]})

    saved = await store.get_run("r1")
    assert (saved.status, saved.detail, saved.results) == ("finished", {"note": "done"}, {"out": [1, UNDEFINED]})


async def test_rows_come_back_in_the_order_they_were_written(store: CheckpointStore) -> None:
    rows = [Row("r1", 0, "iteration", "", encode_value({"a": 1})), Row("r1", 0, "node", "z", "1"),
            Row("r1", 0, "node", "b", "2"), Row("r1", 0, "answer", "q", '"yes"')]
    for row in rows:
        await store.add_row(row)

    assert await store.get_rows("r1") == rows


async def test_an_iteration_row_drops_the_rows_of_earlier_iterations(store: CheckpointStore) -> None:
    await store.add_row(Row("r1", 0, "iteration", "", "{}"))
    await store.add_row(Row("r1", 0, "node", "a", "1"))
    await store.add_row(Row("r1", 1, "iteration", "", "{}"))
    await store.add_row(Row("r1", 1, "node", "a", "2"))

    assert await store.get_rows("r1") == [Row("r1", 1, "iteration", "", "{}"), Row("r1", 1, "node", "a", "2")]


async def test_rows_saved_together_are_saved_as_one_by_one(store: CheckpointStore) -> None:
    """graphrt's stores' add_rows (not in the protocol): one transaction, the same rows as add_row of each."""
    await store.add_rows([Row("r1", 0, "iteration", "", "{}"), Row("r1", 0, "node", "a", "1")])
    await store.add_rows([Row("r1", 1, "iteration", "", "{}"), Row("r1", 1, "node", "a", "2"),
                          Row("r1", 1, "node", "b", "3")])

    assert await store.get_rows("r1") == [Row("r1", 1, "iteration", "", "{}"), Row("r1", 1, "node", "a", "2"),
                                          Row("r1", 1, "node", "b", "3")]


async def test_rows_of_other_runs_are_kept_apart(store: CheckpointStore) -> None:
    await store.add_row(Row("r1", 0, "iteration", "", "{}"))
    await store.add_row(Row("r2", 5, "iteration", "", "{}"))

    assert await store.get_rows("r1") == [Row("r1", 0, "iteration", "", "{}")]


async def test_runs_are_listed_most_recently_updated_first(store: CheckpointStore) -> None:
    for run_id in ("r1", "r2", "r3"):
        await store.create_run(_record(run_id))
    await store.update_run("r2", status=RunStatus.FAILED)

    assert [record.run_id for record in await store.runs()][0] == "r2"


async def test_a_fork_s_parent_is_kept_through_updates(store: CheckpointStore) -> None:
    parent = {"run_id": "r1", "node_id": "draft", "set": ["draft"]}
    await store.create_run(_record("r2", parent=parent))
    await store.update_run("r2", status=RunStatus.FINISHED, detail={}, results={"a": 1})

    assert (await store.get_run("r2")).parent == parent
    await store.create_run(_record("r3"))
    assert (await store.get_run("r3")).parent is None


async def test_a_status_an_older_graphrt_saved_reads_as_today_s(store: CheckpointStore) -> None:
    # Before run statuses were one vocabulary, graphrt's stores wrote "completed" and "stopped".
    await store.create_run(_record("done"))
    await store.create_run(_record("stopped"))
    await store.update_run("done", status="completed", results={"a": 1})
    await store.update_run("stopped", status="stopped", detail={"cancelled": True})
    assert (await store.get_run("done")).status is RunStatus.FINISHED
    assert (await store.get_run("stopped")).status is RunStatus.CANCELLED
    assert {record.run_id: record.status for record in await store.runs()} == {
        "done": RunStatus.FINISHED, "stopped": RunStatus.CANCELLED}
    if hasattr(store, "prune_runs"):  # retention counts them as ended, as it did
        assert sorted(await store.prune_runs(keep=0)) == ["done", "stopped"]
