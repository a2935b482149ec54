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

A node inside a nestedAgent's or mapAgent's graph is named by its key in the node
ledger (`outer/inner`, `outer/2/inner` for row 2 of a map): the top-level node
that holds it runs again, and inside it only what depends on the change runs; the
rest keep their results (saved as the fork's `inner` rows), the other rows of a
map too. A checkpoint holds only top-level results, so the inner ones come from
the run's event log: only a store that keeps one (graphrt serve's runs) can fork
inside a nested graph, and a nested graph that loops cannot (only its last
iteration is known). When the fork runs, the nested graph reports what it kept as
completed nodes (`NodeCompleted` with `kept`), so the fork's own log holds every
inner result, and the fork can itself be forked inside that graph.

A looping run forks from its latest saved iteration: a store keeps no earlier
one. The parent is read, never changed; the fork lives in the same store.
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import Mapping
from typing import Any

from graphrt.base.errors import GraphError
from graphrt.base.secrets import is_mask
from graphrt.base.sync import blocking
from graphrt.checkpoint import CheckpointTarget, open_store
from graphrt.base.states import RunStatus
from graphrt.checkpoint.errors import CheckpointError, Unsavable
from graphrt.checkpoint.guard import GuardedStore
from graphrt.checkpoint.records import Row, RunRecord
from graphrt.checkpoint.values import decode_value, encode_value
from graphrt.durable.resume import afrom_checkpoint, find_run
from graphrt.durable.saved_run import SavedRun
from graphrt.engine.graph import Graph
from graphrt.graphdata.spec import ComputedNodeSpec, GraphSpec, compile_graph

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
                iteration: int | None = None, new_run_id: str | None = None, force: bool = False,
                **options: Any) -> Fork:
    """Saves a fork of run `run_id` from `node`; run it with `aresume(checkpoint, fork.run_id, ...)`.

    Args:
        node: the node to recompute from (a computed node; a static one when `values` gives it a value); inside a
            nestedAgent's or mapAgent's graph, its key as the node ledger writes it: `outer/inner`, `outer/2/inner`
            (row 2 of a map).
        values: new values by node id: a static node's value, or a computed node's result (and `node`'s own,
            nested or not).
        iteration: the loop iteration to fork from; a store keeps only a run's latest one, so that is the
            only one there is (another is a CheckpointError that says so).
        new_run_id: the fork's id (default: a fresh one).
        force: use the graph file even if it changed since the run was saved.
        options: a Graph's options, as for `afrom_checkpoint` (`agents`, `config`, ...).

    Raises:
        CheckpointError: no such run, nothing saved of it to fork, an unknown node, a value that
            cannot be saved, or the id is taken.
    """
    values = dict(values or {})
    given = sorted(values)  # what the record says was set, a nested node's value too
    nested = "/" in node
    for key in values:
        if "/" in key and key != node:
            raise CheckpointError(f"a value for {key!r} inside a nested graph can be given only with --from {key}",
                                  node_id=key.split("/")[0])
    opened = open_store(checkpoint, existing=True)  # a fork of a run that is not there makes no store
    store = GuardedStore(opened)
    try:
        parent = await find_run(store, run_id)
        graph, _ = await afrom_checkpoint(opened, parent.run_id, force=force, **options)
        spec = graph.spec
        top = node.split("/")[0]
        if top not in spec.nodes:
            raise CheckpointError(f"the graph of run {run_id!r} has no node {top!r} to fork from", node_id=top,
                                  field="from")
        for key in values:
            if "/" not in key and key not in spec.nodes:
                raise CheckpointError(f"a value is set for {key!r}, but the graph of run {run_id!r} has no such node",
                                      node_id=key, field="set")
        inner_kept: dict[str, dict[str, Any]] = {}
        inner_again: list[str] = []
        if nested:  # the top-level node that holds it runs again, keeping inside what does not depend on the change
            top, inner_kept, inner_again = await _fork_inside(store, spec, parent.run_id, node, values.get(node),
                                                              node in values)
            values.pop(node, None)
            changed = {top, *values}
            recomputed = dependents(spec, changed) | ({top} - set(values))
        else:
            if not isinstance(spec.nodes[node], ComputedNodeSpec) and node not in values:
                raise CheckpointError(f"'{node}' is a static node: give it a value to fork from it", node_id=node)
            changed = {node, *values}
            recomputed = dependents(spec, changed) | ({node} - set(values))
        rows = await store.get_rows(parent.run_id)
        statics_row = next((row for row in rows if row.kind == "iteration"), None)
        if statics_row is None or statics_row.value is None:
            raise CheckpointError(f"run {run_id!r} saved no state to fork from (it never started)")
        if iteration is not None and iteration != statics_row.iteration:
            raise CheckpointError(f"cannot fork run {run_id!r} from iteration {iteration}: a checkpoint keeps only "
                                  f"a run's latest iteration, {statics_row.iteration}, and the state of earlier ones "
                                  "was not saved")
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
            kept += [Row(fork_id, iteration, "inner", path, encode_value(results)) for path, results in inner_kept.items()]
        except Unsavable as error:
            raise CheckpointError(f"cannot save the fork's values: {error}") from None
        record = dataclasses.replace(
            parent, run_id=fork_id, injected=injected, status=RunStatus.RUNNING, detail={}, results=None,
            created_at=0.0, updated_at=0.0,
            parent={"run_id": parent.run_id, "node_id": node, "set": given},
        )
        await SavedRun(store, fork_id).create(record)
        await store.add_row(Row(fork_id, iteration, "iteration", "", statics_text))
        for row in kept:
            await store.add_row(dataclasses.replace(row, run_id=fork_id))
        saved = await store.get_run(fork_id)
    finally:
        if opened is not checkpoint:
            await store.close()
    return Fork(graph, saved or record, (*(node_id for node_id in spec.nodes if node_id in recomputed), *inner_again))


def _nested_spec(spec: GraphSpec, node_id: str, key: str, run_id: str) -> GraphSpec:
    """The graph a graph agent's node runs, compiled, for a fork from inside it."""
    node = spec.nodes.get(node_id)
    if not isinstance(node, ComputedNodeSpec) or not isinstance(node.graph, dict):
        what = "no such node" if node is None else "not a nestedAgent or mapAgent node with its graph written in it"
        raise CheckpointError(f"cannot fork run {run_id!r} from {key!r}: '{node_id}' is {what}", node_id=node_id)
    try:
        nested = compile_graph(node.graph)
    except GraphError as error:
        raise CheckpointError(f"cannot fork run {run_id!r} from {key!r}: the graph of '{node_id}': {error}",
                              node_id=node_id) from None
    if nested.loop is not None:
        raise CheckpointError(f"cannot fork run {run_id!r} from {key!r}: the graph of '{node_id}' loops, and only "
                              f"its last iteration's results are known; fork from '{node_id}' to run it whole",
                              node_id=node_id)
    return nested


async def _inner_results(store: GuardedStore, run_id: str, key: str) -> dict[str, dict[str, Any]]:
    """What each nested graph's nodes returned in the run, by nested path ("outer", "outer/2"): from its event log.

    A checkpoint keeps only top-level results; the inner ones are in the event log a store of events
    (EventStore: graphrt serve's runs) holds. Results a log hid as credentials are left out: they run again.
    """
    if not store.abilities.events:
        raise CheckpointError(f"cannot fork run {run_id!r} from {key!r}: its store keeps no event log, so what the "
                              "nodes inside nested graphs returned was not saved; fork from the top-level node")
    found: dict[str, dict[str, Any]] = {}
    after = 0
    while True:
        page = await store.get_events(run_id, after, 1000)
        if not page and not after:  # `graphrt run --checkpoint` and Python's durable runs save no event log
            raise CheckpointError(f"cannot fork run {run_id!r} from {key!r}: the run saved no event log (only "
                                  "graphrt serve's runs keep one), so what the nodes inside its nested graphs "
                                  f"returned is not known; fork from {key.split('/')[0]!r} to run it whole")
        for after, text in page:
            try:
                event = json.loads(text)
            except ValueError:
                continue
            if isinstance(event, dict) and event.get("type") == "NodeCompleted" and event.get("path"):
                if not _holds_mask(event.get("result")):
                    found.setdefault("/".join(map(str, event["path"])), {})[event["node_id"]] = event.get("result")
                else:
                    found.setdefault("/".join(map(str, event["path"])), {}).pop(event["node_id"], None)
        if len(page) < 1000:
            return found


def _holds_mask(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_holds_mask(item) for item in value.values())
    if isinstance(value, list):
        return any(_holds_mask(item) for item in value)
    return is_mask(value)


async def _fork_inside(store: GuardedStore, spec: GraphSpec, run_id: str, key: str, value: Any, has_value: bool
                       ) -> tuple[str, dict[str, dict[str, Any]], list[str]]:
    """For a fork from `key` inside nested graphs ("outer/inner", "outer/2/inner"): the top-level node that holds
    it, the results each nested graph on the way keeps (by nested path), and the inner keys recomputed."""
    parts = key.split("/")
    top = parts[0]
    inner_saved = await _inner_results(store, run_id, key)
    kept: dict[str, dict[str, Any]] = {}
    recomputed: list[str] = []
    graph, at, rest = spec, top, parts[1:]
    prefix: list[str] = []
    while rest:
        nested = _nested_spec(graph, at, key, run_id)
        prefix.append(at)
        if rest[0].isdigit():  # a mapAgent's row: the other rows keep everything they returned
            row = rest.pop(0)
            for path, results in inner_saved.items():
                if path.startswith("/".join(prefix) + "/") and path.count("/") == len(prefix) \
                        and path.rsplit("/", 1)[1] != row:
                    kept[path] = dict(results)
            prefix.append(row)
        if not rest:
            raise CheckpointError(f"cannot fork run {run_id!r} from {key!r}: name a node inside the row", node_id=top)
        inside = rest.pop(0)
        if inside not in nested.nodes:
            raise CheckpointError(f"cannot fork run {run_id!r} from {key!r}: the graph of '{at}' has no node "
                                  f"{inside!r}", node_id=top)
        path = "/".join(prefix)
        if path not in inner_saved:
            raise CheckpointError(f"cannot fork run {run_id!r} from {key!r}: its event log has no results of "
                                  f"'{path}' (it did not run, or not to the end)", node_id=top)
        last = not rest
        if last and not isinstance(nested.nodes[inside], ComputedNodeSpec) and not has_value:
            raise CheckpointError(f"'{key}' is a static node: give it a value to fork from it", node_id=top)
        again = dependents(nested, {inside}) | ({inside} - ({inside} if last and has_value else set()))
        level = {node_id: result for node_id, result in inner_saved[path].items()
                 if node_id in nested.nodes and node_id not in again}
        if last and has_value:
            level[inside] = value
        kept[path] = level
        recomputed += [f"{path}/{node_id}" for node_id in nested.nodes if node_id in again]
        graph, at = nested, inside
    return top, kept, recomputed


fork = blocking(afork)
