"""The store's contract in the open (graphrt/checkpoint/base.py, guard.py): abilities found once, when graphrt takes
a store, a guard with every method written out, and a store with the core methods alone still does all it must."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import graphrt
from graphrt.checkpoint import CheckpointError, CheckpointStore, GuardedStore, Row, SQLiteStore
from graphrt.checkpoint.base import (
    Abilities,
    EventBatches,
    EventStore,
    JournalStore,
    LeaseStore,
    QueuedCalls,
    QueuedRows,
    QueuedStart,
    RateWindows,
    RowBatches,
    RunPages,
    SelfCheck,
    WebhookStore,
)
from graphrt.durable import SavedRun, arun_checkpointed

pytestmark = pytest.mark.anyio

PROTOCOLS = (CheckpointStore, RowBatches, QueuedRows, QueuedStart, RunPages, SelfCheck, EventStore, EventBatches,
             WebhookStore, LeaseStore, JournalStore, QueuedCalls, RateWindows)

CHAIN = {
    "version": 0.5,
    "nodes": {
        "who": {"value": "Ada"},
        "first": {"agent": "recordAgent", "inputs": {"who": ":who"}},
        "second": {"agent": "recordAgent", "inputs": {"before": ":first.node"}, "isResult": True},
    },
}


class CoreOnly:
    """A third party's store with the methods of CheckpointStore and nothing more, over a SQLite file."""

    def __init__(self, path: Path) -> None:
        self._store = SQLiteStore(path)
        self.location = "core-only"
        self.calls: list[str] = []

    async def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        self.calls.append(name)
        return await getattr(self._store, name)(*args, **kwargs)

    async def create_run(self, record: Any) -> None:
        await self._call("create_run", record)

    async def update_run(self, run_id: str, **end: Any) -> None:
        await self._call("update_run", run_id, **end)

    async def add_row(self, row: Any) -> None:
        await self._call("add_row", row)

    async def get_run(self, run_id: str) -> Any:
        return await self._call("get_run", run_id)

    async def get_rows(self, run_id: str) -> Any:
        return await self._call("get_rows", run_id)

    async def runs(self) -> Any:
        return await self._call("runs")

    async def claim_run(self, run_id: str) -> None:
        await self._call("claim_run", run_id)

    async def release_run(self, run_id: str) -> None:
        await self._call("release_run", run_id)

    async def close(self) -> None:
        await self._store.close()


def test_the_guard_writes_out_every_method_of_the_contract() -> None:
    assert "__getattr__" not in vars(GuardedStore)
    for protocol in PROTOCOLS:
        for name, value in vars(protocol).items():
            if callable(value) and not name.startswith("_"):
                assert callable(vars(GuardedStore).get(name)), f"GuardedStore.{name} ({protocol.__name__})"


async def test_graphrts_stores_have_the_abilities_they_say(store: CheckpointStore) -> None:
    postgres = type(store).__name__ == "PostgresStore"
    assert Abilities.of(store) == Abilities(row_batches=True, queued_rows=True, queued_start=True, run_pages=True,
                                            self_check=True, events=True, event_batches=True, webhooks=True,
                                            leases=True, shared=postgres, announcements=postgres, journal=True,
                                            queued_calls=True, rate_windows=postgres)
    assert GuardedStore(store).abilities == Abilities.of(store)


async def test_a_store_with_the_core_methods_alone_has_no_ability(tmp_path: Path) -> None:
    store = CoreOnly(tmp_path / "runs.db")
    try:
        assert Abilities.of(store) == Abilities()
    finally:
        await store.close()


async def test_a_store_with_the_core_methods_alone_saves_lists_and_resumes_runs(recorder, tmp_path: Path) -> None:
    store = CoreOnly(tmp_path / "runs.db")
    try:
        recorder.failing.add("second")
        with pytest.raises(graphrt.GraphError):
            await arun_checkpointed(recorder.graph(CHAIN), store, run_id="r1")
        recorder.failing.clear()
        assert await graphrt.aresume(store, "r1", agents=recorder.agents) == {
            "second": {"node": "second", "before": "first"}}
        assert recorder.calls == ["first", "second", "second"]  # the first node was saved, and not run again

        guarded = GuardedStore(store)
        store.calls.clear()
        await guarded.check()  # reading a run no one saves, in place of a check of its own
        assert [summary.run_id for summary in await guarded.runs_page(10)] == ["r1"]  # a slice of runs()
        assert store.calls == ["get_run", "runs"]
    finally:
        await store.close()


async def test_a_guarded_store_refuses_what_its_store_cannot_do(tmp_path: Path) -> None:
    store = CoreOnly(tmp_path / "runs.db")
    guarded = GuardedStore(store)
    try:
        assert guarded.queue_rows([]) is None and guarded.start_new_run(None) is None  # type: ignore[arg-type]
        with pytest.raises(CheckpointError, match="^checkpoint store core-only keeps no event logs$"):
            await guarded.add_events("r1", [(1, "{}")])
        with pytest.raises(CheckpointError, match="^checkpoint store core-only keeps no webhooks$"):
            await guarded.subscribed_runs()
        with pytest.raises(CheckpointError, match="^checkpoint store core-only keeps no leases$"):
            guarded.fence_writes("serve", "me")
        with pytest.raises(CheckpointError, match="^checkpoint store core-only keeps no journal of outside calls$"):
            await guarded.get_calls("r1")
    finally:
        await store.close()


async def test_a_drivers_failure_is_a_checkpoint_error_naming_the_store_and_the_call(tmp_path: Path) -> None:
    store = CoreOnly(tmp_path / "runs.db")
    guarded = GuardedStore(store)

    async def broken(row: Any) -> None:
        raise OSError("disk full")

    store.add_row = broken  # type: ignore[method-assign]
    try:
        with pytest.raises(CheckpointError, match=r"^checkpoint store core-only: add_row failed: OSError: disk full$"):
            await guarded.add_rows([Row("r1", 0, "node", "a", "1")])  # one add_row a row
        assert guarded.failed_write is not None and "add_row failed" in guarded.failed_write[0]
    finally:
        await store.close()


async def test_a_failure_of_an_ability_names_the_call_of_the_contract(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.db")
    guarded = GuardedStore(store)

    async def broken(*args: Any) -> None:
        raise OSError("disk full")

    store.add_rows = broken  # type: ignore[method-assign]
    store.runs_page = broken  # type: ignore[method-assign]
    try:
        with pytest.raises(CheckpointError, match=r"^checkpoint store .*: add_rows failed: OSError: disk full$"):
            await guarded.add_rows([Row("r1", 0, "node", "a", "1"), Row("r1", 0, "node", "b", "2")])
        with pytest.raises(CheckpointError, match=r"^checkpoint store .*: runs_page failed: OSError: disk full$"):
            await guarded.runs_page(10)
    finally:
        await store.close()


async def test_a_failure_at_a_runs_end_that_is_not_the_stores_is_not_hidden(recorder, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The run's end is saved, or the store's failure (a CheckpointError) is let be for the run's own outcome;
    anything else is a fault of graphrt's and goes up."""

    async def faulty(self: SavedRun, results: Any, **rows: Any) -> None:
        raise RuntimeError("a fault saving the end")

    monkeypatch.setattr(SavedRun, "finish", faulty)
    store = SQLiteStore(tmp_path / "runs.db")
    try:
        with pytest.raises(RuntimeError, match="a fault saving the end"):
            await arun_checkpointed(recorder.graph(CHAIN), store, run_id="r1")
    finally:
        await store.close()


async def test_a_store_that_fails_at_a_runs_end_leaves_the_run_its_results_and_resumable(
        recorder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = SQLiteStore(tmp_path / "runs.db")

    async def down(*args: Any, **kwargs: Any) -> None:
        raise OSError("the server went away")

    try:
        monkeypatch.setattr(store, "finish_run", down)
        monkeypatch.setattr(store, "update_run", down)
        results = await arun_checkpointed(recorder.graph(CHAIN), store, run_id="r1")
        assert results == {"second": {"node": "second", "before": "first"}}
        assert (await store.get_run("r1")).status == "running"  # its end was not saved: a resume finishes it
    finally:
        await store.close()
