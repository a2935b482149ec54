"""Scheduling: priority queue, FIFO within a priority, global and label limits, nesting (graphrt/engine/scheduler.py).

Ready nodes are released together by a `gate` node: while `gate` holds the only
slot, the nodes waiting for it are all queued, so the queue's order decides.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest

import graphrt
from graphrt import AgentContext, AgentInfo

pytestmark = pytest.mark.anyio


class Recorder:
    """`recordAgent`: notes start order and how many agents (per label) run at once."""

    def __init__(self, labels: dict[str, str] | None = None) -> None:
        self.order: list[str] = []
        self.labels = labels or {}
        self.running: dict[str, int] = {}
        self.most: dict[str, int] = {}

    def _count(self, key: str, step: int) -> None:
        self.running[key] = self.running.get(key, 0) + step
        self.most[key] = max(self.most.get(key, 0), self.running[key])

    async def record(self, ctx: AgentContext) -> str:
        self.order.append(ctx.node_id)
        keys = ["all", self.labels.get(ctx.node_id, "none")]
        for key in keys:
            self._count(key, 1)
        for _ in range(5):  # let every other task that may start, start
            await anyio.lowlevel.checkpoint()
        for key in keys:
            self._count(key, -1)
        return ctx.node_id

    @property
    def info(self) -> AgentInfo:
        return AgentInfo(name="recordAgent", func=self.record)


def gated(concurrency: Any, **nodes: dict[str, Any]) -> dict[str, Any]:
    """A graph whose nodes all wait for `gate`, so that they become ready at the same moment."""
    waiting = {node_id: {"agent": "recordAgent", "inputs": {"g": ":gate"}, **fields} for node_id, fields in nodes.items()}
    return {
        "concurrency": concurrency,
        "nodes": {"s": {"value": 1}, "gate": {"agent": "copyAgent", "inputs": {"s": ":s"}}, **waiting},
    }


async def test_higher_priority_nodes_start_first() -> None:
    recorder = Recorder()
    graph = gated(1, low={"priority": 0}, high={"priority": 10}, mid={"priority": 5}, negative={"priority": -1})
    await graphrt.arun(graph, agents=[recorder.info])
    assert recorder.order == ["high", "mid", "low", "negative"]


async def test_nodes_of_equal_priority_start_in_file_order() -> None:
    recorder = Recorder()
    graph = gated(1, c={}, a={}, d={}, b={})
    await graphrt.arun(graph, agents=[recorder.info])
    assert recorder.order == ["c", "a", "d", "b"]


async def test_priority_then_fifo() -> None:
    recorder = Recorder()
    graph = gated(1, x1={"priority": 1}, y0={}, x2={"priority": 1}, y1={}, x3={"priority": 1})
    await graphrt.arun(graph, agents=[recorder.info])
    assert recorder.order == ["x1", "x2", "x3", "y0", "y1"]


async def test_the_global_limit_is_never_passed() -> None:
    recorder = Recorder()
    await graphrt.arun(gated(2, **{f"n{i}": {} for i in range(6)}), agents=[recorder.info])
    assert recorder.most["all"] == 2


async def test_the_default_limit_is_eight() -> None:
    recorder = Recorder()
    graph = gated(8, **{f"n{i}": {} for i in range(12)})
    del graph["concurrency"]
    await graphrt.arun(graph, agents=[recorder.info])
    assert recorder.most["all"] == 8


async def test_a_label_limit_bounds_its_nodes_while_others_run_alongside() -> None:
    labels = {f"llm{i}": "llm" for i in range(3)}
    recorder = Recorder(labels)
    nodes = {**{node_id: {"label": "llm"} for node_id in labels}, **{f"cpu{i}": {} for i in range(3)}}
    await graphrt.arun(gated({"global": 4, "labels": {"llm": 1}}, **nodes), agents=[recorder.info])
    assert (recorder.most["llm"], recorder.most["all"]) == (1, 4)


async def test_a_full_label_lets_a_lower_priority_node_go_first() -> None:
    recorder = Recorder({"a1": "slow", "a2": "slow"})
    graph = gated(
        {"global": 2, "labels": {"slow": 1}},
        a1={"label": "slow", "priority": 9},
        a2={"label": "slow", "priority": 9},
        b={"priority": 0},
    )
    await graphrt.arun(graph, agents=[recorder.info])
    assert recorder.order == ["a1", "b", "a2"]


async def test_a_label_without_a_limit_only_counts_against_the_global_limit() -> None:
    recorder = Recorder()
    graph = gated({"global": 3, "labels": {"other": 1}}, **{f"n{i}": {"label": "free"} for i in range(5)})
    await graphrt.arun(graph, agents=[recorder.info])
    assert recorder.most["all"] == 3


# ----- nesting under the limits -----

INNER = {"nodes": {"inner": {"agent": "copyAgent", "inputs": {"row": ":row"}, "isResult": True}}}


async def test_a_nested_graph_at_concurrency_one_does_not_deadlock() -> None:
    graph = {
        "concurrency": 1,
        "nodes": {
            "row": {"value": 1},
            "n": {"agent": "nestedAgent", "inputs": {"row": ":row"}, "graph": INNER, "isResult": True},
        },
    }
    with anyio.fail_after(5):  # a guard against the deadlock, not a timing check
        assert await graphrt.arun(graph) == {"n": {"inner": {"row": 1}}}


async def test_map_agent_at_concurrency_one_does_not_deadlock() -> None:
    graph = {
        "concurrency": 1,
        "nodes": {
            "rows": {"value": [1, 2, 3]},
            "m": {"agent": "mapAgent", "inputs": {"rows": ":rows"}, "graph": INNER, "isResult": True},
        },
    }
    with anyio.fail_after(5):
        assert await graphrt.arun(graph) == {"m": [{"inner": {"row": 1}}, {"inner": {"row": 2}}, {"inner": {"row": 3}}]}


async def test_nested_maps_at_concurrency_one_do_not_deadlock() -> None:
    inner_map = {"nodes": {"m2": {"agent": "mapAgent", "inputs": {"rows": ":row"}, "graph": INNER, "isResult": True}}}
    graph = {
        "concurrency": 1,
        "nodes": {
            "rows": {"value": [[1, 2], [3]]},
            "m": {"agent": "mapAgent", "inputs": {"rows": ":rows"}, "graph": inner_map, "params": {"compositeResultKey": "m2"}, "isResult": True},
        },
    }
    with anyio.fail_after(5):
        assert await graphrt.arun(graph) == {"m": [[{"inner": {"row": 1}}, {"inner": {"row": 2}}], [{"inner": {"row": 3}}]]}


async def test_map_rows_share_the_run_concurrency_limit() -> None:
    recorder = Recorder()
    graph = {
        "concurrency": 2,
        "nodes": {
            "rows": {"value": list(range(6))},
            "m": {
                "agent": "mapAgent",
                "inputs": {"rows": ":rows"},
                "graph": {"nodes": {"work": {"agent": "recordAgent", "inputs": {"row": ":row"}, "isResult": True}}},
            },
        },
    }
    with anyio.fail_after(5):
        await graphrt.arun(graph, agents=[recorder.info])
    assert (len(recorder.order), recorder.most["all"]) == (6, 2)


async def test_nested_nodes_respect_the_parent_label_limits() -> None:
    recorder = Recorder({"work": "llm"})
    graph = {
        "concurrency": {"global": 4, "labels": {"llm": 1}},
        "nodes": {
            "rows": {"value": list(range(4))},
            "m": {
                "agent": "mapAgent",
                "inputs": {"rows": ":rows"},
                "graph": {"nodes": {"work": {"agent": "recordAgent", "label": "llm", "inputs": {"row": ":row"}, "isResult": True}}},
            },
        },
    }
    with anyio.fail_after(5):
        await graphrt.arun(graph, agents=[recorder.info])
    assert recorder.most["llm"] == 1


async def test_a_labelled_nested_graph_with_the_same_label_does_not_deadlock() -> None:
    inner = {"nodes": {"inner": {"agent": "copyAgent", "label": "llm", "inputs": {"row": ":row"}, "isResult": True}}}
    graph = {
        "concurrency": {"global": 1, "labels": {"llm": 1}},
        "nodes": {
            "row": {"value": 1},
            "n": {"agent": "nestedAgent", "label": "llm", "inputs": {"row": ":row"}, "graph": inner, "isResult": True},
        },
    }
    with anyio.fail_after(5):
        assert await graphrt.arun(graph) == {"n": {"inner": {"row": 1}}}
