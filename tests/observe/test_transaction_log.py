"""The transaction log: GraphAI's per-node log, bounded across loop iterations."""

from __future__ import annotations

import pytest

import graphrt
from graphrt.authoring.agent_info import AgentContext, AgentInfo
from graphrt.base.states import NodeState
from graphrt.observe.events import LoopIteration, NodeQueued
from graphrt.observe.transaction_log import TransactionLog


def _flaky(ctx: AgentContext) -> str:
    if ctx.retry_count == 0:
        raise ValueError("first attempt fails")
    return "ok"


def logged(graph: graphrt.Graph, log: TransactionLog) -> list[tuple]:
    try:
        graph.run(subscribe=[log])
    except graphrt.GraphError:
        pass
    return [(e["nodeId"], e["state"], e["repeatCount"], e.get("retryCount"), e.get("result"), e.get("errorMessage"))
            for e in log.to_json()]


def test_only_the_last_loop_iteration_is_kept() -> None:
    assert logged(graphrt.Graph("graphs/accumulate.yaml"), TransactionLog()) == [
        ("shift", "completed", 2, None, {"array": [], "item": "cherry"}, None),
        ("push", "completed", 2, None, {"array": ["apple in round 0", "lemon in round 1", "cherry in round 2"]}, None),
    ]


def test_every_iteration_is_kept_when_asked() -> None:
    entries = logged(graphrt.Graph("graphs/accumulate.yaml"), TransactionLog(keep_iterations=True))
    assert [(node_id, iteration) for node_id, _, iteration, *_ in entries] == [
        ("shift", 0), ("push", 0), ("shift", 1), ("push", 1), ("shift", 2), ("push", 2),
    ]


def test_retries_failures_and_skips_are_logged_with_graphai_states() -> None:
    graph = graphrt.Graph(
        {"nodes": {
            "flag": {"value": False},
            "maybe": {"agent": "copyAgent", "if": ":flag", "inputs": {"x": ":flag"}},
            "flaky": {"agent": "flaky", "retry": 1, "isResult": True},
            "bad": {"agent": "flaky", "inputs": {"x": ":flag"}, "isResult": True},
        }},
        agents=[AgentInfo("flaky", _flaky)],
    )
    entries = logged(graph, TransactionLog())
    assert sorted(entries) == [
        ("bad", "failed", 0, None, None, "ValueError: first attempt fails"),
        ("flaky", "completed", 0, 1, "ok", "ValueError: first attempt fails"),
        ("maybe", "skipped", 0, None, None, None),
    ]


def test_map_rows_carry_their_index() -> None:
    log = TransactionLog()
    graph = graphrt.Graph("graphs/fruit_map.yaml")
    logged(graph, log)
    rows = sorted((e["path"], e["mapIndex"]) for e in log.to_json() if e["nodeId"] == "sentence")
    assert rows == [(["sentences", 0], 0), (["sentences", 1], 1), (["sentences", 2], 2)]


def test_the_log_never_holds_more_than_its_limit() -> None:
    log = TransactionLog(keep_iterations=True, max_entries=2)
    log(LoopIteration(run_id="r", index=0))
    for node_id in ("a", "b", "c"):
        log(NodeQueued(run_id="r", node_id=node_id, state=NodeState.QUEUED))
    assert ([entry.node_id for entry in log.entries], log.dropped) == (["b", "c"], 1)
    with pytest.raises(ValueError):
        TransactionLog(max_entries=0)
