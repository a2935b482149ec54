"""The usage ledger: sums per node, nested graph and map row, and a node's retried attempt moved apart."""

from __future__ import annotations

from graphrt.base.usage import CallUsage
from graphrt.observe.usage_ledger import UsageLedger


def _call(tokens: int = 10) -> CallUsage:
    return CallUsage("openai", "m", tokens, 0)


def test_a_call_counts_for_its_node_each_node_and_graph_it_is_nested_in_and_the_run():
    ledger = UsageLedger()
    ledger.add_call(("outer", "map", 2), "llm", _call(), None, kept=True)
    assert set(ledger.by_node()) == {"outer", "outer/map", "outer/map/2/llm"}
    assert set(ledger.by_graph()) == {"outer", "outer/map/2"}
    assert ledger.run.tokens == 10


def test_a_node_run_again_moves_what_its_attempt_spent_to_retried():
    ledger = UsageLedger()
    ledger.add_call((), "before", _call(5), None, kept=True)
    ledger.attempt_started((), "ask")
    ledger.add_call(("ask",), "llm", _call(), None, kept=True)
    ledger.add_call((), "other", _call(7), None, kept=True)  # another node's call in the meantime
    ledger.void((), "ask")
    assert (ledger.run.used.calls, ledger.run.retried.calls) == (2, 1)
    assert ledger.node(("ask",), "llm").retried.calls == 1
    assert ledger.node((), "other").used.calls == 1


def test_the_events_of_a_retried_node_give_the_same_sums():
    ledger = UsageLedger()
    for record in (
        {"type": "NodeStarted", "node_id": "ask", "path": []},
        {"type": "LlmCallFinished", "node_id": "llm", "path": ["ask"], "provider": "openai", "model": "m",
         "input_tokens": 10, "output_tokens": 2},
        {"type": "NodeRetried", "node_id": "ask", "path": []},
        {"type": "NodeStarted", "node_id": "ask", "path": []},
        {"type": "LlmCallFinished", "node_id": "llm", "path": ["ask"], "provider": "openai", "model": "m",
         "input_tokens": 10, "output_tokens": 2},
        {"type": "ToolCalled", "node_id": "llm", "path": ["ask"]},
    ):
        ledger.take(record)
    shown = ledger.run.to_dict()
    assert (shown["llm_calls"], shown["used"]["calls"], shown["retried"]["calls"], shown["tool_calls"]) == (2, 1, 1, 1)
    assert shown["by_model"]["openai:m"]["total_tokens"] == 24
