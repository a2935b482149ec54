"""A node whose LLM call waits for its turn under a rate limit is shown waiting, with the time it waited."""

from __future__ import annotations

from graphrt.observe.events import LlmCallStarted, LlmCallWaiting
from graphrt.observe.trace import event_record
from graphrt.serve.node_ledger import NodeLedger


def test_the_node_ledger_shows_a_node_waiting_for_its_turn_and_then_how_long_it_waited():
    ledger = NodeLedger(["ask"])
    for event in (LlmCallWaiting(run_id="r", node_id="ask", label="openai:m", seconds=12.5, time=100.0),):
        ledger.record(event, event_record(event))
    assert ledger.summary()["ask"]["waiting"] == {"for": "rate limit", "label": "openai:m", "since": 100.0,
                                                  "expected": 12.5}
    started = LlmCallStarted(run_id="r", node_id="ask", call_id="c", model="m", waited=12.0)
    ledger.record(started, event_record(started))
    summary = ledger.summary()["ask"]
    assert "waiting" not in summary and summary["rate_waited"] == 12.0
