"""The typed event stream of a run: callbacks, the async iterator, nested paths."""

from __future__ import annotations

import anyio
import pytest

import graphrt
from graphrt.authoring.agent_info import AgentContext, AgentInfo
from graphrt.observe.events import (
    Emitter,
    Event,
    EventStream,
    LoopIteration,
    NodeCompleted,
    NodeFailed,
    NodeRetried,
    NodeTimedOut,
    RunFinished,
    RunStarted,
    TokenDelta,
)


def _flaky(ctx: AgentContext) -> str:
    if ctx.retry_count == 0:
        raise ValueError("first attempt fails")
    return "ok"


async def _forever(ctx: AgentContext) -> None:
    await anyio.sleep_forever()


def _boom(ctx: AgentContext) -> None:
    raise ValueError("boom")


async def _talker(ctx: AgentContext) -> str:
    for token in ("Hel", "lo"):
        ctx.stream_token(token)
    ctx.progress("half way", {"done": 1})
    return "Hello"


AGENTS = [AgentInfo("flaky", _flaky), AgentInfo("forever", _forever), AgentInfo("boom", _boom), AgentInfo("talker", _talker)]

# concurrency 1 and priorities make the order of events deterministic.
TROUBLED = {
    "version": 0.5,
    "concurrency": 1,
    "nodes": {
        "flag": {"value": False},
        "skipped": {"agent": "copyAgent", "if": ":flag", "inputs": {"x": ":flag"}},
        "flaky": {"agent": "flaky", "retry": 1},
        "slow": {"agent": "forever", "timeout": 1, "inputs": {"after": ":flaky"}},
        "broken": {"agent": "boom", "inputs": {"after": ":flaky"}, "priority": -1},
    },
}


def _pairs(events: list[Event]) -> list[tuple[str, str | None]]:
    return [(type(event).__name__, getattr(event, "node_id", None)) for event in events]


def test_a_run_reports_retry_timeout_failure_and_skip_in_order() -> None:
    graph = graphrt.Graph(TROUBLED, agents=AGENTS)
    events: list[Event] = []

    with pytest.raises(graphrt.GraphError):
        graph.run(subscribe=[events.append])

    assert _pairs(events) == [
        ("RunStarted", None),
        ("LoopIteration", None),
        ("NodeSkipped", "skipped"),
        ("NodeQueued", "flaky"),
        ("NodeStarted", "flaky"),
        ("NodeRetried", "flaky"),
        ("NodeStarted", "flaky"),
        ("NodeCompleted", "flaky"),
        ("NodeQueued", "slow"),
        ("NodeQueued", "broken"),
        ("NodeStarted", "slow"),
        ("NodeTimedOut", "slow"),
        ("NodeStarted", "broken"),
        ("NodeFailed", "broken"),
        ("RunFinished", None),
    ]


def test_retried_and_timed_out_are_failures_with_their_flags() -> None:
    graph = graphrt.Graph(TROUBLED, agents=AGENTS)
    failures: list[NodeFailed] = []

    with pytest.raises(graphrt.GraphError):
        graph.run(subscribe=[lambda event: failures.append(event) if isinstance(event, NodeFailed) else None])

    retried, timed_out, failed = failures
    assert (type(retried), retried.will_retry, retried.timed_out, str(retried.error)) == (
        NodeRetried, True, False, "node 'flaky': ValueError: first attempt fails (agent flaky)")
    assert (type(timed_out), timed_out.will_retry, timed_out.timed_out) == (NodeTimedOut, False, True)
    assert isinstance(timed_out.error, graphrt.NodeTimeoutError)
    assert (type(failed), failed.will_retry, failed.timed_out) == (NodeFailed, False, False)


def test_completed_events_carry_the_duration() -> None:
    graph = graphrt.Graph({"nodes": {"a": {"agent": "flaky", "retry": 1, "isResult": True}}}, agents=AGENTS)
    completed: list[NodeCompleted] = []

    graph.run(subscribe=[lambda event: completed.append(event) if isinstance(event, NodeCompleted) else None])

    assert [(event.node_id, event.result) for event in completed] == [("a", "ok")]
    assert completed[0].duration >= 0


def test_nested_graphs_report_with_their_path() -> None:
    graph = graphrt.Graph("graphs/fruit_map.yaml")
    events: list[Event] = []

    graph.run(subscribe=[events.append])

    completed = sorted((event.path, event.node_id) for event in events if isinstance(event, NodeCompleted))
    assert completed == [
        ((), "sentences"),
        ((), "summary"),
        (("sentences", 0), "sentence"),
        (("sentences", 1), "sentence"),
        (("sentences", 2), "sentence"),
    ]


def test_loops_report_each_iteration() -> None:
    graph = graphrt.Graph("graphs/accumulate.yaml")
    iterations: list[int] = []

    graph.run(subscribe=[lambda event: iterations.append(event.index) if isinstance(event, LoopIteration) else None])

    assert iterations == [0, 1, 2]


def test_agents_stream_tokens_and_progress() -> None:
    graph = graphrt.Graph({"nodes": {"say": {"agent": "talker", "isResult": True}}}, agents=AGENTS)
    events: list[Event] = []

    graph.run(subscribe=[events.append])

    reported = [(type(e).__name__, getattr(e, "token", None) or getattr(e, "message", None))
                for e in events if type(e).__name__ in ("TokenDelta", "AgentProgress")]
    assert reported == [("TokenDelta", "Hel"), ("TokenDelta", "lo"), ("AgentProgress", "half way")]


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_stream_iterates_the_events_of_one_run(anyio_backend: str) -> None:
    graph = graphrt.Graph({"nodes": {"say": {"agent": "talker", "isResult": True}}}, agents=AGENTS)
    seen: list[Event] = []

    run = graph.start()
    async with run.events() as events, anyio.create_task_group() as tasks:
        tasks.start_soon(run.wait)
        async for event in events:
            seen.append(event)

    assert _pairs(seen) == [
        ("RunStarted", None),
        ("LoopIteration", None),
        ("NodeQueued", "say"),
        ("NodeStarted", "say"),
        ("TokenDelta", "say"),
        ("TokenDelta", "say"),
        ("AgentProgress", "say"),
        ("NodeCompleted", "say"),
        ("RunFinished", None),
    ]
    assert run._emitter.subscribers == []  # the stream unsubscribed itself


@pytest.mark.anyio
async def test_stream_drops_what_a_slow_reader_cannot_take_but_keeps_the_end() -> None:
    emitter = Emitter()
    async with EventStream(emitter, max_buffer=2) as stream:
        for index in range(5):
            emitter.emit(LoopIteration(run_id="r", index=index))
        emitter.emit(RunFinished(run_id="r"))
        received = [event async for event in stream]

    assert [(type(e).__name__, getattr(e, "index", getattr(e, "count", None))) for e in received] == [
        ("LoopIteration", 0),
        ("LoopIteration", 1),
        ("EventsDropped", 3),
        ("RunFinished", None),
    ]
    assert stream.dropped == 3


@pytest.mark.anyio
async def test_stream_takes_events_from_sync_agents_in_worker_threads() -> None:
    def threaded(ctx: AgentContext) -> str:
        ctx.stream_token("from a thread")
        return "done"

    graph = graphrt.Graph({"nodes": {"t": {"agent": "threaded", "isResult": True}}}, agents=[AgentInfo("threaded", threaded)])
    run = graph.start()
    async with run.events() as events, anyio.create_task_group() as tasks:
        tasks.start_soon(run.wait)
        tokens = [event.token async for event in events if isinstance(event, TokenDelta)]

    assert tokens == ["from a thread"]


@pytest.mark.anyio
async def test_leaving_the_stream_early_unsubscribes_it() -> None:
    run = graphrt.Graph("graphs/hello.yaml").start()
    async with run.events() as events:
        pass
    assert run._emitter.subscribers == []
    assert [event async for event in events] == []
    assert isinstance(RunStarted(run_id="x"), Event)
