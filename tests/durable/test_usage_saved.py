"""What a run spent is saved with it: a resumed run goes on counting, and its budget counts what was spent before."""

from __future__ import annotations

from typing import Any

import pytest

import graphrt
from graphrt.base.errors import BudgetExceeded, UsageConfigError
from graphrt.base.states import RunStatus
from graphrt.checkpoint import open_store
from graphrt.durable import aresume, arun_checkpointed

pytestmark = pytest.mark.anyio

CHAIN = {"version": 0.5, "nodes": {
    "a": {"agent": "openAIAgent", "inputs": {"prompt": "one"}, "isResult": True},
    "b": {"agent": "openAIAgent", "inputs": {"prompt": ":a.text"}, "isResult": True},
    "c": {"agent": "openAIAgent", "inputs": {"prompt": ":b.text"}, "isResult": True},
}}


async def _record(path: str, run_id: str) -> Any:
    store = open_store(path)
    try:
        return await store.get_run(run_id)
    finally:
        await store.close()


async def test_a_run_stopped_by_its_budget_is_saved_failed_and_resumes_with_a_larger_one(tmp_path, openai_server, reply):
    openai_server.script(reply.text("one"), reply.text("two"), reply.text("three"))
    store = str(tmp_path / "runs.db")
    with pytest.raises(BudgetExceeded):
        await arun_checkpointed(graphrt.Graph(CHAIN), store, run_id="r", budget={"llm_calls": 2})
    record = await _record(store, "r")
    assert record.status == RunStatus.FAILED
    assert record.detail["budget"] == {"limit": "llm_calls", "allowed": 2, "spent": 2, "node": None, "at": "c"}
    assert record.detail["usage"]["llm_calls"] == 2

    spent: list[Any] = []
    results = await aresume(store, "r", budget={"llm_calls": 3}, on_usage=spent.append)
    assert [results[node]["text"] for node in "abc"] == ["one", "two", "three"]
    assert len(openai_server.requests) == 3  # a and b were not asked again
    assert (spent[0].llm_calls, spent[0].tokens) == (3, 54)  # the resumed run counts what it spent before


async def test_a_budget_not_above_what_the_run_spent_cannot_resume_it(tmp_path, openai_server, reply):
    openai_server.script(reply.text("one"), reply.text("two"))
    store = str(tmp_path / "runs.db")
    with pytest.raises(BudgetExceeded):
        await arun_checkpointed(graphrt.Graph(CHAIN), store, run_id="r", budget={"tokens": 40})
    with pytest.raises(UsageConfigError) as caught:
        await aresume(store, "r", budget={"tokens": 30})
    assert str(caught.value) == ("budget: tokens=30 is not above what the run spent before it was resumed (36): "
                                 "give a larger budget to resume it")
    assert len(openai_server.requests) == 2
