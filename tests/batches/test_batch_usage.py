"""A batch's usage: each row says what it spent, the batch sums the rows it ran, and a budget bounds each row."""

from __future__ import annotations

import json

import graphrt
from graphrt.base.errors import BudgetExceeded
from graphrt.batches import BatchProgress

ASK = {"version": 0.5, "nodes": {
    "question": {"value": ""},
    "ask": {"agent": "openAIAgent", "inputs": {"prompt": ":question"}, "isResult": True},
    "check": {"agent": "openAIAgent", "inputs": {"prompt": ":ask.text"}, "isResult": True},
}}


def test_each_row_says_what_it_spent_and_the_batch_sums_them(openai_server, reply):
    openai_server.script(*(reply.text(f"answer {n}") for n in range(4)))
    progress = BatchProgress()
    outcomes = graphrt.batch(ASK, [{"question": "one"}, {"question": "two"}], concurrency=1, progress=progress)
    assert [outcome.usage.llm_calls for outcome in outcomes] == [2, 2]
    assert json.loads(outcomes[0].json_line())["usage"]["total_tokens"] == 36
    assert (progress.usage.llm_calls, progress.usage.tokens) == (4, 72)


def test_a_budget_stops_each_row_apart_and_the_others_run(openai_server, reply):
    openai_server.script(*(reply.text(f"answer {n}") for n in range(4)))
    outcomes = graphrt.batch(ASK, [{"question": "one"}, {"question": "two"}], concurrency=1, budget={"llm_calls": 1})
    assert [type(outcome.error) for outcome in outcomes] == [BudgetExceeded, BudgetExceeded]
    assert [outcome.usage.llm_calls for outcome in outcomes] == [1, 1]
    assert len(openai_server.requests) == 2
    assert json.loads(outcomes[1].json_line())["error"]["type"] == "BudgetExceeded"
