"""What the server keeps of each node of a run (graphrt/serve/node_ledger.py), fed events as a run sends them."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

import graphrt
from graphrt.authoring.agent_info import AgentContext, AgentInfo
from graphrt.base.errors import AgentError, Location
from graphrt.base.secrets import Redactor
from graphrt.base.states import NodeState
from graphrt.observe.events import (
    Event,
    LoopIteration,
    NodeCompleted,
    NodeFailed,
    NodeInterrupted,
    NodeQueued,
    NodeRetried,
    NodeStarted,
    TokenDelta,
)
from graphrt.observe.trace import event_record
from graphrt.serve import node_ledger
from graphrt.serve.node_ledger import NodeLedger


def _feed(ledger: NodeLedger, *events: Event) -> None:
    for event in events:
        ledger.record(event, event_record(event, Redactor()))


def _started(node: str, attempt: int = 1, path: tuple = (), **inputs: Any) -> NodeStarted:
    return NodeStarted(run_id="r", path=path, node_id=node, state=NodeState.EXECUTING, agent_id="copyAgent",
                       attempt=attempt, inputs=inputs)


def _queued(node: str, path: tuple = ()) -> NodeQueued:
    return NodeQueued(run_id="r", path=path, node_id=node, state=NodeState.QUEUED)


def _completed(node: str, result: Any, path: tuple = ()) -> NodeCompleted:
    return NodeCompleted(run_id="r", path=path, node_id=node, state=NodeState.COMPLETED, result=result, duration=0.1)


def test_a_retried_node_keeps_each_attempt_and_its_redacted_inputs() -> None:
    ledger = NodeLedger(["fetch"])
    error = AgentError("connection lost", node_id="fetch", location=Location("g.yaml", 4, 3))
    _feed(ledger, NodeQueued(run_id="r", node_id="fetch", state=NodeState.QUEUED, time=1.0),
          _started("fetch", api_key="sk-secret-0123456789abcdef", url="https://example.org"),
          NodeRetried(run_id="r", node_id="fetch", state=NodeState.EXECUTING, error=error, timed_out=False,
                      will_retry=True, time=2.0),
          _started("fetch", attempt=2, api_key="sk-secret-0123456789abcdef", url="https://example.org"),
          TokenDelta(run_id="r", node_id="fetch", token="he"), TokenDelta(run_id="r", node_id="fetch", token="llo"),
          NodeCompleted(run_id="r", node_id="fetch", state=NodeState.COMPLETED, result={"text": "hello"}, duration=0.5,
                        time=3.0))

    node = ledger.node("fetch")
    assert node["state"] == "completed" and node["tokens"] == "hello" and node["result"] == {"text": "hello"}
    assert node["inputs"] == Redactor().value({"api_key": "sk-secret-0123456789abcdef", "url": "https://example.org"})
    assert "sk-secret" not in repr(node)
    assert [attempt["attempt"] for attempt in node["attempts"]] == [1, 2]
    assert node["attempts"][0]["error"]["location"] == {"file": "g.yaml", "line": 4, "column": 3}
    assert "error" not in node  # the node did not fail in the end
    assert ledger.summary()["fetch"]["attempts"] == 2 and "inputs" not in ledger.summary()["fetch"]


def test_a_failed_node_has_its_error_and_where_and_an_asking_node_its_question() -> None:
    ledger = NodeLedger(["broken", "name"])
    error = AgentError("no such page", node_id="broken", field="inputs", location=Location("g.yaml", 9, 5))
    _feed(ledger, _started("broken"), NodeFailed(run_id="r", node_id="broken", state=NodeState.FAILED, error=error,
                                                 timed_out=False, will_retry=False),
          _started("name"), NodeInterrupted(run_id="r", node_id="name", state=NodeState.INTERRUPTED,
                                            question="Your name?", key="name", time=5.0))
    ledger.answered("name", 12.0)

    broken, name = ledger.node("broken"), ledger.node("name")
    assert broken["state"] == "failed" and broken["error"]["field"] == "inputs"
    assert broken["error"]["text"] == "AgentError: g.yaml:9:5: node 'broken', field 'inputs': no such page"  # as traced
    assert (name["question"], name["waited"], name["state"]) == ("Your name?", 7.0, "waiting")


def test_a_looping_node_keeps_its_earlier_iterations() -> None:
    ledger = NodeLedger(["step"])
    for index in range(3):
        _feed(ledger, LoopIteration(run_id="r", index=index), _queued("step"), _started("step", i=index),
              _completed("step", {"i": index}))

    node = ledger.node("step")
    assert node["iteration"] == 2 and node["result"] == {"i": 2}
    assert [(past["iteration"], past["result"]) for past in node["history"]] == [(0, {"i": 0}), (1, {"i": 1})]
    assert ledger.summary()["step"]["past"] == [{"iteration": 0, "state": "completed"},
                                                {"iteration": 1, "state": "completed"}]


def test_a_nested_graph_run_again_by_an_outer_loop_keeps_its_earlier_runs() -> None:
    """The inner graph does not loop (its own index stays 0), the outer one does: each outer iteration's run
    of the inner node is kept, not written over."""
    ledger = NodeLedger(["outer"])
    for index in range(3):
        _feed(ledger, LoopIteration(run_id="r", index=index), _queued("outer"), _queued("step", ("outer",)),
              _started("step", path=("outer",), i=index), _completed("step", {"i": index}, ("outer",)))

    node = ledger.node("outer/step")
    assert node["result"] == {"i": 2}
    assert [past["result"] for past in node["history"]] == [{"i": 0}, {"i": 1}]
    assert ledger.summary()["outer/step"]["iterations"] == 3

def test_nested_nodes_are_kept_by_path_up_to_a_bound(monkeypatch) -> None:
    monkeypatch.setattr(node_ledger, "_MAX_NODES", 3)
    ledger = NodeLedger(["each"])
    _feed(ledger, *(_started("double", path=("each", row)) for row in range(4)))

    assert sorted(ledger.summary()) == ["each", "each/0/double", "each/1/double"]
    assert ledger.untracked == 2
    assert ledger.node("each")["children"] == ["each/0/double", "each/1/double"]
    assert ledger.states() == {"each": "waiting"}


@pytest.mark.anyio
async def test_the_ledger_shows_the_states_the_run_set_a_cancelled_run_s_queued_nodes_included() -> None:
    started = anyio.Event()

    async def wait(ctx: AgentContext) -> None:
        started.set()
        await anyio.sleep_forever()

    ledger = NodeLedger(["w", "q1", "q2"])
    graph = graphrt.Graph({"concurrency": 1, "nodes": {"a": {"value": 1}, **{
        name: {"agent": "waitAgent", "inputs": {"a": ":a"}} for name in ("w", "q1", "q2")}}},
        agents=[AgentInfo(name="waitAgent", func=wait)])
    run = graph.start(subscribe=[lambda event: _feed(ledger, event)])

    async def abort_once_started() -> None:
        await started.wait()
        run.abort()

    with anyio.fail_after(5):  # a guard against a hang, not a timing check
        async with anyio.create_task_group() as task_group:
            task_group.start_soon(abort_once_started)
            with pytest.raises(graphrt.GraphAbortedError):
                await run.wait()
    assert ledger.states() == run.states() == {"w": "abort", "q1": "abort", "q2": "abort"}
