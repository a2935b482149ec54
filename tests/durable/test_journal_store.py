"""The journal of outside calls, on every store that keeps one (graphrt/checkpoint/base.py's JournalStore, sql.py)."""

from __future__ import annotations

import pytest

from graphrt.base.states import CallState
from graphrt.checkpoint import CheckpointStore, RunRecord, RunStatus
from graphrt.checkpoint.base import JournalStore
from graphrt.checkpoint.records import JournalEntry

pytestmark = pytest.mark.anyio


def _entry(path: str = "agent/llm", index: int = 0, *, run_id: str = "r1", state: str = CallState.RETURNED,
           result: str | None = '{"text":"hi"}') -> JournalEntry:
    return JournalEntry(run_id, path, index, "llm", "openAIAgent", '{"inputs":{},"params":{}}', state, result,
                        1000.0 + index, 1001.0 + index if result is not None else None)


async def test_graphrts_stores_keep_journals(store: CheckpointStore) -> None:
    assert isinstance(store, JournalStore)


async def test_entries_come_back_as_saved_by_path_and_index_and_apart_per_run(store: JournalStore) -> None:
    await store.add_call(_entry("agent/llm", 1))
    await store.add_call(_entry("agent/0/tool", 0, state=CallState.STARTED, result=None))
    await store.add_call(_entry("agent/llm", 0))
    await store.add_call(_entry("agent/llm", 0, run_id="r2"))

    assert await store.get_calls("r1") == [_entry("agent/0/tool", 0, state=CallState.STARTED, result=None),
                                           _entry("agent/llm", 0), _entry("agent/llm", 1)]
    assert [entry.run_id for entry in await store.get_calls("r2")] == ["r2"]
    assert await store.get_calls("nope") == []


async def test_an_entry_saved_again_replaces_the_one_with_its_key(store: JournalStore) -> None:
    await store.add_call(_entry("agent/0/tool", 0, state=CallState.STARTED, result=None))
    await store.add_call(_entry("agent/0/tool", 0))

    assert await store.get_calls("r1") == [_entry("agent/0/tool", 0)]


async def test_a_dropped_entry_is_gone_and_the_others_stay(store: JournalStore) -> None:
    await store.add_call(_entry("agent/llm", 0))
    await store.add_call(_entry("agent/llm", 1))

    await store.drop_call("r1", "agent/llm", 0)

    assert await store.get_calls("r1") == [_entry("agent/llm", 1)]


async def test_retention_deletes_a_run_s_journal_with_the_run(store: CheckpointStore) -> None:
    for run_id, status in (("done", RunStatus.FINISHED), ("going", RunStatus.RUNNING)):
        await store.create_run(RunRecord(run_id=run_id, graph_file=None, graph_text="{}", graph_hash="h",
                                         status=status, created_at=1000.0, updated_at=1000.0))
        await store.add_call(_entry(run_id=run_id))

    assert await store.prune_runs(keep=0) == ["done"]

    assert await store.get_calls("done") == []
    assert [entry.run_id for entry in await store.get_calls("going")] == ["going"]
