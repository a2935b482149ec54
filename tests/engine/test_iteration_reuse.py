"""A loop's iterations reuse what the first one made (issue 44): its nodes and their scheduler tickets are made
once per run, not once per iteration, and each iteration still starts every node afresh."""

from __future__ import annotations

import graphrt
from graphrt.engine import node as node_module
from graphrt.engine import scheduler as scheduler_module

LOOP = {
    "version": 0.5,
    "loop": {"count": 5},
    "nodes": {
        "counter": {"value": 0, "update": ":next", "isResult": True},
        "next": {"agent": "copyAgent", "params": {"namedKey": "v"}, "inputs": {"v": ":counter.add(1)"}},
        "seen": {"agent": "copyAgent", "inputs": {"c": ":next"}, "isResult": True},
    },
}


def _count_made(monkeypatch, module, name: str) -> list[object]:
    made: list[object] = []
    original = getattr(module, name).__init__

    def counting(self, *args, **kwargs):
        made.append(self)
        original(self, *args, **kwargs)

    monkeypatch.setattr(getattr(module, name), "__init__", counting)
    return made


def test_five_iterations_make_each_node_and_ticket_once(monkeypatch) -> None:
    nodes = _count_made(monkeypatch, node_module, "NodeRun")
    tickets = _count_made(monkeypatch, scheduler_module, "Ticket")

    assert graphrt.run(LOOP) == {"counter": 5, "seen": {"c": 5}}
    assert (len(nodes), len(tickets)) == (2, 2)


def test_each_iteration_runs_every_node_again() -> None:
    events = []

    graphrt.run(LOOP, subscribe=[events.append])

    completed = [e.node_id for e in events if type(e).__name__ == "NodeCompleted"]
    assert completed == ["next", "seen"] * 5
