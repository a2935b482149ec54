"""What a saved run says of its nodes, read back for whoever shows a run it did not watch (graphrt serve).

A saved run's rows hold each node of its latest iteration that completed, with its
result, and the answers people gave; its record names the node a failed run failed
at and the node an interrupted run asks at (SavedRun writes both: saved_run.py). So
the states a saved run leaves its nodes in are read here, once: completed, failed,
interrupted. A node it says nothing of did not end in that iteration (it runs on
resume).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graphrt.base.errors import GraphError
from graphrt.base.states import NodeState, RunStatus
from graphrt.checkpoint.guard import GuardedStore
from graphrt.checkpoint.records import Row, RunRecord
from graphrt.checkpoint.values import decode_value

__all__ = ["SavedNode", "SavedNodes", "saved_nodes"]


@dataclass(frozen=True)
class SavedNode:
    """One node as its saved run left it: its state, and what goes with that state."""

    state: NodeState
    result: Any = None  # a completed node's result (None too when JSON could not give it back)
    error: str | None = None  # a failed node's error, as saved (without the run's credentials)
    question: str | None = None  # the question of the node that asks


@dataclass(frozen=True)
class SavedNodes:
    """What a saved run says of its nodes (`nodes`, by top-level node id) and the answers people gave it
    (`answers`: (key, answer), in the order saved)."""

    nodes: dict[str, SavedNode] = field(default_factory=dict)
    answers: list[tuple[str, Any]] = field(default_factory=list)


def _value(row: Row) -> Any:
    try:
        return decode_value(row.value or "null")
    except GraphError:  # a value this graphrt cannot read back: the node's state is still known
        return None


async def saved_nodes(store: GuardedStore, record: RunRecord) -> SavedNodes:
    """What the saved run `record` of `store` says of its nodes, from its rows and its record."""
    said = SavedNodes()
    for row in await store.get_rows(record.run_id):
        if row.kind == "node":
            said.nodes[row.key] = SavedNode(NodeState.COMPLETED, result=_value(row))
        elif row.kind == "answer":
            said.answers.append((row.key, _value(row)))
    node_id = record.detail.get("node_id")
    if isinstance(node_id, str):
        if record.status == RunStatus.FAILED:
            said.nodes[node_id] = SavedNode(NodeState.FAILED, error=record.detail.get("error"))
        elif record.status == RunStatus.INTERRUPTED:
            said.nodes[node_id] = SavedNode(NodeState.INTERRUPTED, question=record.question)
    return said
