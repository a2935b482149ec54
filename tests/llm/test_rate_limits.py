"""Rate limits through the real SDK: the runs of a process share a label's limits, a call that must wait says so,
and a provider's Retry-After holds the label for every call."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

import graphrt
from graphrt import AgentContext, AgentInfo
from graphrt.observe import rate_limits
from graphrt.observe.events import LlmCallFinished, LlmCallStarted, LlmCallWaiting

pytestmark = pytest.mark.anyio

ASK = {"version": 0.5, "nodes": {"ask": {"agent": "openAIAgent", "inputs": {"prompt": "hi"}, "isResult": True}}}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The process's window of grants on a clock the test moves, and a quick second look for waiting calls."""
    clock = Clock()
    monkeypatch.setattr(rate_limits, "PROCESS_WINDOW", rate_limits.MemoryWindow(clock))
    monkeypatch.setattr(rate_limits, "_SHARED", {})
    monkeypatch.setattr(rate_limits, "_RECHECK", 0.01)
    return clock


async def test_two_runs_share_a_labels_limit_and_the_one_that_waits_says_so(openai_server, reply, clock):
    openai_server.script(reply.text("one"), reply.text("two"))
    config = {"rate_limits": {"openai": {"requests_per_minute": 1}}}
    events: list[Any] = []

    def watch(event: Any) -> None:
        events.append(event)
        kinds = {type(seen) for seen in events}
        if clock.now == 1000.0 and {LlmCallWaiting, LlmCallFinished} <= kinds:
            # The second run waits, the first has its reply: a minute (and a second) on, the first leaves the window.
            clock.now += 61

    first = graphrt.Graph(ASK, config=config)
    second = graphrt.Graph(ASK, config=dict(config))  # another Graph, the same limits: one process, one window
    async with anyio.create_task_group() as group:
        runs = [first.start(subscribe=[watch]), second.start(subscribe=[watch])]
        for run in runs:
            group.start_soon(run.wait)
    waits = [event for event in events if isinstance(event, LlmCallWaiting)]
    assert [(event.label, event.seconds) for event in waits] == [("openai", pytest.approx(61.0))]
    started = [event for event in events if isinstance(event, LlmCallStarted)]
    assert sorted(event.waited is not None for event in started) == [False, True]
    assert sorted(run.usage.waited > 0 for run in runs) == [False, True]
    assert len(openai_server.requests) == 2


async def test_a_providers_retry_after_holds_the_label_for_the_other_calls_of_the_process(openai_server, reply,
                                                                                          monkeypatch):
    monkeypatch.setattr(rate_limits, "PROCESS_WINDOW", rate_limits.MemoryWindow())  # its own, on the real clock
    monkeypatch.setattr(rate_limits, "_SHARED", {})
    refused = anyio.Event()

    def watch(event: Any) -> None:
        if isinstance(event, LlmCallFinished) and event.error:
            refused.set()

    async def after_refusal(ctx: AgentContext) -> str:
        await refused.wait()
        return "go"

    openai_server.script(reply.error(429, "slow down", **{"retry-after": "0.2"}), reply.text("x"), reply.text("y"))
    graph = {"version": 0.5, "nodes": {
        "x": {"agent": "openAIAgent", "inputs": {"prompt": "x"}, "isResult": True},
        "gate": {"agent": "gateAgent"},
        "y": {"agent": "openAIAgent", "inputs": {"prompt": ":gate"}, "isResult": True},
    }}
    events: list[Any] = []
    run = graphrt.Graph(graph, agents=[AgentInfo(name="gateAgent", func=after_refusal)]).start(
        subscribe=[watch, events.append])
    await run
    waits = [event for event in events if isinstance(event, LlmCallWaiting)]
    assert [(event.node_id, event.label) for event in waits] == [("y", "openai:gpt-4o")]
    assert len(openai_server.requests) == 3
