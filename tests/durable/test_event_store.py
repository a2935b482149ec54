"""Event logs and retention, on every store that is an EventStore (graphrt/checkpoint/base.py, sql.py)."""

from __future__ import annotations

import pytest

from graphrt.checkpoint import CheckpointStore, EventStore, Row, RunRecord, RunStatus

pytestmark = pytest.mark.anyio


def _record(run_id: str, status: str = RunStatus.RUNNING, updated_at: float = 0.0) -> RunRecord:
    return RunRecord(run_id=run_id, graph_file="/graphs/g.yaml", graph_text="nodes: {}", graph_hash="abc",
                     status=status, created_at=updated_at or 0.0, updated_at=updated_at)


async def test_graphrts_stores_keep_event_logs(store: CheckpointStore) -> None:
    assert isinstance(store, EventStore)


async def test_events_come_back_after_an_id_in_order_and_apart_per_run(store: EventStore) -> None:
    await store.add_events("r1", [(1, '{"type": "A"}'), (2, '{"type": "B"}')])
    await store.add_events("r1", [(3, '{"type": "C"}')])
    await store.add_events("r2", [(1, '{"type": "other"}')])

    assert await store.get_events("r1") == [(1, '{"type": "A"}'), (2, '{"type": "B"}'), (3, '{"type": "C"}')]
    assert await store.get_events("r1", after=1, limit=1) == [(2, '{"type": "B"}')]
    assert await store.get_events("r1", after=3) == []
    assert await store.last_event_id("r1") == 3
    assert await store.last_event_id("r2") == 1
    assert await store.last_event_id("nope") == 0


async def test_prune_keeps_the_newest_ended_runs_and_every_unfinished_one(store: EventStore) -> None:
    for number, status in enumerate([RunStatus.FINISHED, RunStatus.FAILED, RunStatus.RUNNING, RunStatus.CANCELLED,
                                     RunStatus.INTERRUPTED, RunStatus.FINISHED], start=1):
        await store.create_run(_record(f"r{number}", status, updated_at=1000.0 + number))
        await store.add_row(Row(f"r{number}", 0, "iteration", "", "{}"))
        await store.add_events(f"r{number}", [(1, "{}")])

    deleted = await store.prune_runs(keep=2)

    assert sorted(deleted) == ["r1", "r2"]  # the two newest ended runs (r6, r4) stay, and r3, r5 are unfinished
    assert sorted(record.run_id for record in await store.runs()) == ["r3", "r4", "r5", "r6"]
    assert await store.get_rows("r1") == [] and await store.get_events("r1") == []
    assert await store.get_events("r4") == [(1, "{}")]


async def test_prune_drops_ended_runs_last_updated_before_a_time(store: EventStore) -> None:
    await store.create_run(_record("old", RunStatus.FINISHED, updated_at=1000.0))
    await store.create_run(_record("old-but-asking", RunStatus.INTERRUPTED, updated_at=1000.0))
    await store.create_run(_record("new", RunStatus.FAILED, updated_at=5000.0))

    assert await store.prune_runs(before=2000.0) == ["old"]
    assert await store.prune_runs(before=2000.0) == []
    assert sorted(record.run_id for record in await store.runs()) == ["new", "old-but-asking"]
