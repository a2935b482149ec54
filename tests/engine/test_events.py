"""What a run reports: events recorded in a list and compared whole (graphrt/observe/events.py).

Runs here use `concurrency: 1`, so the order of events is the order of the
scheduler and does not depend on timing.
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
import pytest

import graphrt
from graphrt import AgentContext, AgentInfo, Graph
from graphrt.base.states import NodeState
from graphrt.observe import events as ev

pytestmark = pytest.mark.anyio


def summary(event: ev.Event) -> tuple[Any, ...]:
    """The parts of an event a test can pin down (no times, ids or durations)."""
    name = type(event).__name__
    if isinstance(event, ev.NodeStarted):
        return name, event.node_id, event.attempt
    if isinstance(event, ev.NodeFailed):
        return name, event.node_id, type(event.error).__name__, event.timed_out, event.will_retry
    if isinstance(event, ev.NodeCompleted):
        return name, event.node_id, event.result
    if isinstance(event, ev.LoopIteration):
        return name, event.index
    if isinstance(event, ev.RunFinished):
        return name, type(event.error).__name__ if event.error else None
    node_id = getattr(event, "node_id", None)
    return (name, node_id) if node_id is not None else (name,)


async def flaky(ctx: AgentContext) -> str:
    if ctx.retry_count == 0:
        raise RuntimeError("first attempt fails")
    return "ok"


async def hang(ctx: AgentContext) -> None:
    await anyio.sleep_forever()


async def fail(ctx: AgentContext) -> None:
    raise ValueError("always fails")


AGENTS = [AgentInfo(name="flakyAgent", func=flaky), AgentInfo(name="hangAgent", func=hang), AgentInfo(name="failAgent", func=fail)]


async def record(graph: dict[str, Any], **kwargs: Any) -> list[ev.Event]:
    g = Graph(graph, agents=AGENTS, **kwargs)
    events: list[ev.Event] = []
    try:
        await g.arun(subscribe=[events.append])
    except graphrt.GraphError:
        pass
    return events


async def test_a_run_with_a_retry_a_skip_a_timeout_and_a_failure_reports_each_in_order() -> None:
    graph = {
        "concurrency": 1,
        "nodes": {
            "s": {"value": 1},
            "off": {"value": False},
            "flaky": {"agent": "flakyAgent", "inputs": {"s": ":s"}, "retry": 1},
            "skipped": {"agent": "copyAgent", "inputs": {"f": ":flaky"}, "if": ":off"},
            "slow": {"agent": "hangAgent", "inputs": {"f": ":flaky"}, "timeout": 5},
            "bad": {"agent": "failAgent", "inputs": {"f": ":flaky"}},
        },
    }
    events = await record(graph)
    assert [summary(event) for event in events] == [
        ("RunStarted",),
        ("LoopIteration", 0),
        ("NodeQueued", "flaky"),
        ("NodeStarted", "flaky", 1),
        ("NodeRetried", "flaky", "AgentError", False, True),
        ("NodeStarted", "flaky", 2),
        ("NodeCompleted", "flaky", "ok"),
        ("NodeSkipped", "skipped"),
        ("NodeQueued", "slow"),
        ("NodeQueued", "bad"),
        ("NodeStarted", "slow", 1),
        ("NodeTimedOut", "slow", "NodeTimeoutError", True, False),
        ("NodeStarted", "bad", 1),
        ("NodeFailed", "bad", "AgentError", False, False),
        ("RunFinished", "NodeTimeoutError"),
    ]


async def test_a_successful_run_reports_start_queue_start_complete_finish() -> None:
    graph = {"nodes": {"a": {"value": 1}, "b": {"agent": "copyAgent", "inputs": {"v": ":a"}}}}
    assert [summary(event) for event in await record(graph)] == [
        ("RunStarted",),
        ("LoopIteration", 0),
        ("NodeQueued", "b"),
        ("NodeStarted", "b", 1),
        ("NodeCompleted", "b", {"v": 1}),
        ("RunFinished", None),
    ]


async def test_node_started_carries_the_agent_and_resolved_inputs() -> None:
    graph = {"nodes": {"a": {"value": {"x": 1}}, "b": {"agent": "copyAgent", "inputs": {"v": ":a.x"}}}}
    started = [event for event in await record(graph) if isinstance(event, ev.NodeStarted)]
    assert [(event.agent_id, event.inputs) for event in started] == [("copyAgent", {"v": 1})]


async def test_a_failure_event_carries_the_error_that_the_run_raises() -> None:
    graph = {"nodes": {"a": {"value": 1}, "bad": {"agent": "failAgent", "inputs": {"v": ":a"}}}}
    g = Graph(graph, agents=AGENTS)
    failures: list[ev.Event] = []
    with pytest.raises(graphrt.AgentError) as caught:
        await g.arun(subscribe=[lambda event: failures.append(event) if isinstance(event, ev.NodeFailed) else None])
    assert [event.error for event in failures] == [caught.value]


async def test_every_event_of_a_run_carries_the_same_run_id() -> None:
    graph = {"nodes": {"a": {"value": 1}, "b": {"agent": "copyAgent", "inputs": {"v": ":a"}}, "c": {"agent": "copyAgent", "inputs": {"v": ":b"}}}}
    run_ids = {event.run_id for event in await record(graph)}
    assert len(run_ids) == 1 and run_ids != {""}


async def test_each_loop_iteration_is_reported() -> None:
    graph = {"loop": {"count": 3}, "nodes": {"a": {"value": 1}, "b": {"agent": "copyAgent", "inputs": {"v": ":a"}}}}
    assert [event.index for event in await record(graph) if isinstance(event, ev.LoopIteration)] == [0, 1, 2]


async def test_nested_events_carry_the_path_of_the_node_and_map_row() -> None:
    graph = {
        "concurrency": 1,
        "nodes": {
            "rows": {"value": ["a", "b"]},
            "m": {
                "agent": "mapAgent",
                "inputs": {"rows": ":rows"},
                "graph": {"nodes": {"inner": {"agent": "copyAgent", "inputs": {"r": ":row"}, "isResult": True}}},
            },
        },
    }
    completed = [(event.path, event.node_id) for event in await record(graph) if isinstance(event, ev.NodeCompleted)]
    assert completed == [(("m", 0), "inner"), (("m", 1), "inner"), ((), "m")]


async def test_a_failing_subscriber_does_not_change_the_run(caplog: pytest.LogCaptureFixture) -> None:
    def broken(event: ev.Event) -> None:
        raise RuntimeError("subscriber bug")

    g = Graph({"nodes": {"a": {"value": 1}, "b": {"agent": "copyAgent", "inputs": {"v": ":a"}, "isResult": True}}})
    with caplog.at_level(logging.ERROR, logger="graphrt"):
        assert await g.arun(subscribe=[broken]) == {"b": {"v": 1}}
    assert "event subscriber" in caplog.text


async def test_events_are_frozen() -> None:
    event = ev.NodeQueued(run_id="r", node_id="n", state=NodeState.QUEUED)
    with pytest.raises(AttributeError):
        event.node_id = "other"  # type: ignore[misc]


def test_no_queued_events_are_built_when_every_subscriber_lists_types_without_them() -> None:
    from graphrt.observe.events import NodeCompleted, NodeQueued

    class Picky:
        event_types = (NodeCompleted,)

        def __init__(self) -> None:
            self.seen: list[type] = []

        def __call__(self, event) -> None:
            self.seen.append(type(event))

    graph_data = {"version": 0.5, "nodes": {"a": {"value": 1}, "b": {"agent": "copyAgent", "inputs": {"v": ":a"}, "isResult": True}}}
    picky = Picky()
    graph = graphrt.Graph(graph_data)
    graph.run(subscribe=[picky])
    assert NodeCompleted in picky.seen and NodeQueued not in picky.seen

    everything: list[type] = []
    picky = Picky()
    graph = graphrt.Graph(graph_data)
    graph.run(subscribe=[picky, lambda event: everything.append(type(event))])
    assert NodeQueued in everything and NodeQueued in picky.seen  # built for one, handed to all


async def test_each_node_event_carries_the_state_the_run_set() -> None:
    graph = {
        "concurrency": 1,
        "nodes": {
            "s": {"value": 1},
            "off": {"value": False},
            "flaky": {"agent": "flakyAgent", "inputs": {"s": ":s"}, "retry": 1},
            "skipped": {"agent": "copyAgent", "inputs": {"f": ":flaky"}, "if": ":off"},
            "slow": {"agent": "hangAgent", "inputs": {"f": ":flaky"}, "timeout": 5},
            "bad": {"agent": "failAgent", "inputs": {"f": ":flaky"}},
        },
    }
    events: list[ev.Event] = []
    run = Graph(graph, agents=AGENTS).start(subscribe=[events.append])
    with pytest.raises(graphrt.GraphError):
        await run
    states = [(type(event).__name__, event.node_id, event.state) for event in events
              if isinstance(event, ev.NodeTransition)]
    assert states == [
        ("NodeQueued", "flaky", "queued"),
        ("NodeStarted", "flaky", "executing"),
        ("NodeRetried", "flaky", "executing"),  # between attempts the node runs on
        ("NodeStarted", "flaky", "executing"),
        ("NodeCompleted", "flaky", "completed"),
        ("NodeSkipped", "skipped", "skipped"),
        ("NodeQueued", "slow", "queued"),
        ("NodeQueued", "bad", "queued"),
        ("NodeStarted", "slow", "executing"),
        ("NodeTimedOut", "slow", "timed-out"),
        ("NodeStarted", "bad", "executing"),
        ("NodeFailed", "bad", "failed"),
    ]
    assert all(type(state) is NodeState for _, _, state in states)
    assert {node_id: state for _, node_id, state in states} == run.states()  # the last word is the run's


async def test_a_cancelled_run_reports_its_queued_nodes_aborted_as_it_sets_them() -> None:
    started = anyio.Event()

    async def wait(ctx: AgentContext) -> None:
        started.set()
        await anyio.sleep_forever()

    graph = {"concurrency": 1, "nodes": {"a": {"value": 1}, **{name: {"agent": "waitAgent", "inputs": {"a": ":a"}}
                                                                for name in ("w", "q1", "q2")}}}
    events: list[ev.Event] = []
    run = Graph(graph, agents=[AgentInfo(name="waitAgent", func=wait)]).start(subscribe=[events.append])
    async def abort_once_started() -> None:
        await started.wait()
        run.abort()

    with anyio.fail_after(5):  # a guard against a hang, not a timing check
        async with anyio.create_task_group() as task_group:
            task_group.start_soon(abort_once_started)
            with pytest.raises(graphrt.GraphAbortedError):
                await run.wait()
    aborted = [(event.node_id, event.state) for event in events if isinstance(event, ev.NodeAborted)]
    assert aborted == [("w", "abort"), ("q1", "abort"), ("q2", "abort")]
    assert run.states() == {"w": "abort", "q1": "abort", "q2": "abort"}
