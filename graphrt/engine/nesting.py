"""How graph agents (nestedAgent, mapAgent) run graphs inside a node.

A nested graph's run shares its parent's `RunContext`: scheduler, registry,
config, run services (e.g. MCP connections), event stream, filters, executor.
While it runs, the parent node lends its concurrency slot to the nested nodes,
so nesting never deadlocks, even at `concurrency: 1`: the port asks its parent
run to lend the slot and to reclaim it (`GraphRun.lend`, `GraphRun.reclaim`),
and changes nothing of any run itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Hashable, Mapping, Protocol

from graphrt.check.validate import validate_graph
from graphrt.graphdata.loader import GraphSource
from graphrt.graphdata.spec import ComputedNodeSpec, GraphSpec, compile_graph

if TYPE_CHECKING:
    from graphrt.authoring.registry import Registry
    from graphrt.engine.context import Carryover, RunContext
    from graphrt.engine.scheduler import Ticket

__all__ = ["NestingPort", "RunHandle"]


class RunHandle(Protocol):
    """The graph run a node is in, as the node's invoker (node.py) and its nesting handle need it:
    graphrt.engine.execution's `GraphRun` is one, and imports them, so they name it by this port."""

    spec: GraphSpec
    context: RunContext
    carryover: Carryover
    path: tuple[str | int, ...]

    def child(self, spec: GraphSpec, *, injected: Mapping[str, Any] | None, loop_count: int | None,
              path: tuple[str | int, ...]) -> "RunHandle":
        """A run of a graph nested in this one (see GraphRun.child)."""
        ...

    async def run(self, all_results: bool = False) -> dict[str, Any]:
        """Runs the graph to its end; its results, or its first error raised."""
        ...

    def lend(self, ticket: Ticket) -> None:
        """The node of `ticket` waits for a nested graph: its slot goes to the next in line."""
        ...

    def reclaim(self, ticket: Ticket) -> None:
        """The nested graph is done: the node takes its slot back."""
        ...


class NestingPort:
    """Runs graphs on behalf of one node of a parent run.

    Every agent call gets one (`ctx.nesting`, and `ctx.run_graph` uses it), so any
    agent can run a graph; an agent that does so should say `has_graph_data`
    (see AgentInfo), as nestedAgent, mapAgent and toolsAgent do.
    """

    __slots__ = ("_parent", "_ticket", "_lent", "node_id", "_source")

    def __init__(self, parent: RunHandle, ticket: Ticket, node_id: str, source: GraphSource | None = None) -> None:
        self._parent = parent
        self._ticket = ticket
        self._lent = 0
        self.node_id = node_id
        self._source = source  # the file of a graph loaded by graphLoader: its errors and its own graphLoaders

    @property
    def registry(self) -> "Registry":
        """The agents the parent run, and so every graph nested in it, can use."""
        return self._parent.context.registry

    @property
    def concurrency(self) -> int:
        """The run's global concurrency limit: more nested runs than this cannot all make progress."""
        return self._parent.context.scheduler.limit

    def compile(self, graph_data: Mapping[str, Any], key: Hashable = None) -> GraphSpec:
        """Validates and compiles a nested graph, once for any number of runs of it.

        With a `key` that says what the graph agent added to the node's own
        `graph` (e.g. the names of the inputs it turns into static nodes), the
        compiled graph is kept for the prepared Graph's runs (`RunContext.nested_specs`,
        not in the parent's spec, which runs share): a nestedAgent in a loop, in
        map rows or in every run is validated and compiled once, not at every call.
        """
        parent = self._parent
        node = parent.spec.nodes.get(self.node_id)
        written_in_file = isinstance(node, ComputedNodeSpec) and isinstance(node.graph, dict)
        cache_key = (self.node_id, key) if key is not None and written_in_file else None
        kept = parent.context.nested_specs
        if cache_key is not None:
            spec = kept.get(parent.spec, cache_key)
            if spec is not None:
                return spec
        source = parent.spec.source.nested("nodes", self.node_id, "graph") if written_in_file else self._source
        data = dict(graph_data)
        validate_graph(data, parent.context.registry, source)
        spec = compile_graph(data, source)
        if cache_key is not None:
            kept.keep(parent.spec, cache_key, spec)
        return spec

    async def run_graph(
        self,
        graph: GraphSpec | Mapping[str, Any],
        *,
        inject: Mapping[str, Any] | None = None,
        all_results: bool = False,
        loop_count: int | None = None,
        map_index: int | None = None,
        journal: str | None = None,
    ) -> dict[str, Any]:
        """Runs a nested graph to the end and returns its results (raises its first error); with `journal`, its
        nodes' agent calls are journaled as calls of that kind ("llm", "tool": graphrt.engine.journal)."""
        parent = self._parent
        spec = graph if isinstance(graph, GraphSpec) else self.compile(graph)
        path = (*parent.path, self.node_id) if map_index is None else (*parent.path, self.node_id, map_index)
        call_prefix = ""
        if parent.context.journal is not None:  # where its nodes' calls are in the run's journal
            from graphrt.engine.journal import call_path_part

            call_prefix = f"{parent.call_prefix}{call_path_part(self.node_id, parent.iteration)}/"
            if map_index is not None:
                call_prefix = f"{call_prefix}{map_index}/"
        child = parent.child(spec, injected=inject, loop_count=loop_count, path=path, call_prefix=call_prefix,
                             journal_kind=journal)
        self._lend()
        try:
            return await child.run(all_results)
        finally:
            self._reclaim()

    def _lend(self) -> None:
        if self._lent == 0:  # nested runs at once (a mapAgent's rows) share the one slot lent
            self._parent.lend(self._ticket)
        self._lent += 1

    def _reclaim(self) -> None:
        self._lent -= 1
        if self._lent == 0:
            self._parent.reclaim(self._ticket)
