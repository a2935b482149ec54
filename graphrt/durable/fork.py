"""Forking a saved run from one of its nodes: a new run that keeps what does not depend on the change.

    fork = await afork("runs.db", "nightly", node="summary", values={"topic": "trees"}, agents=agents)
    results = await aresume("runs.db", fork.run_id, agents=agents)   # runs only what depends on the change

A fork is a new saved run (graphrt.durable.runs continues it as it would any
saved run): the parent's graph and values, its latest iteration's static values
and the results of its completed nodes, less the results the change reaches.
What is recomputed is `node` (unless `values` gives it a result) and every node
that depends on `node` or on a node given a value, directly or through others;
nothing else runs again. `values` sets a static node's value, or a computed
node's result in place of running it. The new record's `parent` names the run
and node it came from (`{"run_id", "node_id", "set"}`), which the server and the
viewer show as its lineage.

A looping run forks from its latest saved iteration. The parent is read, never
changed; the fork lives in the same store.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Mapping
from typing import Any

from graphrt.base.sync import blocking
from graphrt.checkpoint import CheckpointTarget, open_store
from graphrt.checkpoint.base import (
    CheckpointError,
    GuardedStore,
    Row,
    RunRecord,
    RunStatus,
    Unsavable,
    decode_value,
    encode_value,
)
from graphrt.durable.resume import afrom_checkpoint, find_run
from graphrt.engine.graph import Graph
from graphrt.graphdata.spec import ComputedNodeSpec, GraphSpec

__all__ = ["Fork", "afork", "fork", "dependents"]


@dataclasses.dataclass(frozen=True)
class Fork:
    """A saved fork, ready to run: its Graph, its record, and the nodes it will compute again."""

    graph: Graph
    record: RunRecord
    recomputed: tuple[str, ...]

    @property
    def run_id(self) -> str:
        return self.record.run_id


def dependents(spec: GraphSpec, changed: set[str]) -> set[str]:
    """The computed nodes that depend on any of `changed`, directly or through other nodes (not `changed` itself)."""
    reached: set[str] = set()
    todo = list(changed)
    while todo:
        for waiter in spec.waitlists.get(todo.pop(), ()):
            if waiter not in reached:
                reached.add(waiter)
                todo.append(waiter)
    return reached - changed


async def afork(checkpoint: CheckpointTarget, run_id: str, *, node: str, values: Mapping[str, Any] | None = None,
                new_run_id: str | None = None, force: bool = False, **options: Any) -> Fork:
    """Saves a fork of run `run_id` from `node`; run it with `aresume(checkpoint, fork.run_id, ...)`.

    Args:
        node: the node to recompute from (a computed node; a static one when `values` gives it a value).
        values: new values by node id: a static node's value, or a computed node's result.
        new_run_id: the fork's id (default: a fresh one).
        force: use the graph file even if it changed since the run was saved.
        options: a Graph's options, as for `afrom_checkpoint` (`agents`, `config`, ...).

    Raises:
        CheckpointError: no such run, nothing saved of it to fork, an unknown node, a value that
            cannot be saved, or the id is taken.
    """
    values = dict(values or {})
    opened = open_store(checkpoint)
    store = GuardedStore(opened)
    try:
        parent = await find_run(store, run_id)
        graph, _ = await afrom_checkpoint(opened, parent.run_id, force=force, **options)
        spec = graph.spec
        for node_id in (node, *values):
            if node_id not in spec.nodes:
                raise CheckpointError(f"run {run_id!r}'s graph has no node {node_id!r} to fork from", node_id=node_id)
        if not isinstance(spec.nodes[node], ComputedNodeSpec) and node not in values:
            raise CheckpointError(f"'{node}' is a static node: give it a value to fork from it", node_id=node)
        changed = {node, *values}
        recomputed = dependents(spec, changed) | ({node} - set(values))
        rows = await store.get_rows(parent.run_id)
        statics_row = next((row for row in rows if row.kind == "iteration"), None)
        if statics_row is None or statics_row.value is None:
            raise CheckpointError(f"run {run_id!r} saved no state to fork from (it never started)")
        iteration = statics_row.iteration
        statics = decode_value(statics_row.value, f"run {run_id!r}'s static values")
        injected = dict(parent.injected)
        kept: list[Row] = []
        for row in rows:
            if row.kind == "node" and row.key not in recomputed and row.key not in values:
                kept.append(row)
        fork_id = new_run_id or uuid.uuid4().hex[:12]
        try:
            for node_id, value in values.items():
                text = encode_value(value)
                if isinstance(spec.nodes[node_id], ComputedNodeSpec):
                    kept.append(Row(fork_id, iteration, "node", node_id, text))
                else:
                    statics[node_id] = value
                    injected[node_id] = value
            statics_text = encode_value(statics)
            encode_value(injected)
        except Unsavable as error:
            raise CheckpointError(f"cannot save the fork's values: {error}") from None
        record = dataclasses.replace(
            parent, run_id=fork_id, injected=injected, status=RunStatus.RUNNING, detail={}, results=None,
            created_at=0.0, updated_at=0.0,
            parent={"run_id": parent.run_id, "node_id": node, "set": sorted(values)},
        )
        await store.create_run(record)
        await store.add_row(Row(fork_id, iteration, "iteration", "", statics_text))
        for row in kept:
            await store.add_row(dataclasses.replace(row, run_id=fork_id))
        saved = await store.get_run(fork_id)
    finally:
        if opened is not checkpoint:
            await store.close()
    return Fork(graph, saved or record, tuple(node_id for node_id in spec.nodes if node_id in recomputed))


fork = blocking(afork)
