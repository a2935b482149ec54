"""Generator agents: progress updates and partial results; the last item is the result."""

from __future__ import annotations

from typing import AsyncIterator, Iterator

import anyio
import pytest

import graphrt
from graphrt import AgentContext, AgentInfo, Progress
from graphrt.observe.events import AgentProgress


def run_recording(graph: dict, agents: list) -> tuple[dict, list[tuple[str, object]]]:
    seen: list[tuple[str, object]] = []
    prepared = graphrt.Graph(graph, agents=agents)
    return prepared.run(subscribe=[lambda event: seen.append((event.message, event.data)) if isinstance(event, AgentProgress) else None]), seen


def one_node(agent: str, **node) -> dict:
    return {"version": 0.5, "nodes": {"n": {"agent": agent, "isResult": True, **node}}}


@graphrt.agent
async def crawl(urls: list[str]) -> AsyncIterator[list[str] | Progress]:
    """Fetches pages one by one.

    Args:
        urls: the pages.
    """
    pages: list[str] = []
    for number, url in enumerate(urls, 1):
        yield Progress(f"fetching {url}", data={"done": number - 1, "total": len(urls)})
        pages.append(url.upper())
        yield list(pages)


def test_progress_is_reported_and_the_last_yielded_value_is_the_result() -> None:
    results, seen = run_recording(one_node("crawl", inputs={"urls": ["a", "b"]}), [crawl])
    assert results == {"n": ["A", "B"]}
    assert seen == [
        ("fetching a", {"done": 0, "total": 2}),
        ("partial result", ["A"]),
        ("fetching b", {"done": 1, "total": 2}),
        ("partial result", ["A", "B"]),
    ]


def test_the_output_schema_leaves_progress_out() -> None:
    assert graphrt.as_agent(crawl).output == {"type": "array", "items": {"type": "string"}}


def test_a_generator_that_yields_nothing_results_in_none() -> None:
    @graphrt.agent
    async def quiet() -> AsyncIterator[int]:
        """Yields nothing."""
        return
        yield 0  # pragma: no cover

    assert run_recording(one_node("quiet"), [quiet])[0] == {"n": None}


def test_a_sync_generator_runs_in_a_worker_thread_and_reports_too() -> None:
    @graphrt.agent
    def countdown(start: int) -> Iterator[int | Progress]:
        """Counts down.

        Args:
            start: where to start.
        """
        for value in range(start, -1, -1):
            yield Progress(f"at {value}")
        yield 0

    results, seen = run_recording(one_node("countdown", inputs={"start": 2}), [countdown])
    assert results == {"n": 0}
    assert [message for message, _ in seen] == ["at 2", "at 1", "at 0", "partial result"]


def test_a_hand_written_async_generator_agent_is_drained_too() -> None:
    async def ticks(ctx: AgentContext):
        for tick in range(ctx.params["count"]):
            yield tick

    info = AgentInfo(name="ticks", func=ticks)
    assert info.is_async
    assert run_recording(one_node("ticks", params={"count": 3}), [info])[0] == {"n": 2}


def test_a_generator_cut_short_by_a_timeout_is_closed() -> None:
    closed = []

    @graphrt.agent
    async def endless() -> AsyncIterator[int]:
        """Never ends."""
        try:
            while True:
                yield 1
                await anyio.sleep(0.01)  # work between items; the node's timeout ends it whatever its length
        finally:
            closed.append(True)

    with pytest.raises(graphrt.NodeTimeoutError):
        graphrt.run(one_node("endless", timeout=50), agents=[endless])
    assert closed == [True]


def test_a_generator_called_as_a_tool_returns_its_last_item_as_the_tool_result() -> None:
    graph = one_node("crawl", inputs={"arg": {"urls": ["x"]}, "tool_call": {"id": "1"}})
    assert run_recording(graph, [crawl])[0] == {"n": {"content": '["X"]', "data": ["X"]}}
