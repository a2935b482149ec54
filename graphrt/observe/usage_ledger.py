"""Usage summed where it happened: per node, per nested graph and map row, and for the run.

A call made by a node inside nested graphs counts for that node, for every node whose graph it is
nested in (a toolsAgent's, a ReAct loop's `react`, a mapAgent's), for each nested graph and map row
on the way (`map/3` is row 3 of `map`), and for the run: a node's usage is what it and everything
nested in it spent.

The ledger keeps what was spent as a list of entries (an LLM call's attempt, a tool call, a wait
for a rate limit) and the sums they make. An attempt whose reply its agent kept counts as used;
when the node that made it is run again (its `retry`), what its failed attempt spent is moved from
used to retried (`void`): it was paid for, and it is not what the run's result is made of. The
run's meter (graphrt.observe.meter) feeds a ledger as calls are made; `graphrt serve` feeds one from
a run's events (`take`), with the same operations, so both say the same.

Keys are node keys as serve's node ledger names them: the path of nested graphs and the node id,
joined by "/" (`react/llm`, `map/3/summarise`).
"""

from __future__ import annotations

from typing import Any

from graphrt.base.usage import CallUsage, Usage, label_of

__all__ = ["UsageLedger", "usage_key"]

Path = tuple[str | int, ...]

_LLM, _TOOL, _WAIT = 0, 1, 2


def usage_key(path: Path, node_id: str | None = None) -> str:
    """`react/llm`: a node's key (or a nested graph's, without `node_id`), as serve's node ledger names it."""
    return "/".join(str(part) for part in (*path, node_id) if part is not None)


def _under(where: Path, path: Path, node_id: str) -> bool:
    """Whether an entry of a node at `where` (its path and id) is the node `path`/`node_id`'s or nested in it."""
    own = (*path, node_id)
    return where[:len(own)] == own


class _Entry:
    """One thing spent: an LLM call's attempt, a tool call, or a wait."""

    __slots__ = ("kind", "path", "node_id", "usage", "cost", "kept", "label", "seconds")

    def __init__(self, kind: int, path: Path, node_id: str, usage: CallUsage | None = None, cost: float | None = None,
                 kept: bool = True, label: str | None = None, seconds: float = 0.0) -> None:
        self.kind = kind
        self.path = path
        self.node_id = node_id
        self.usage = usage
        self.cost = cost
        self.kept = kept
        self.label = label
        self.seconds = seconds

    @property
    def where(self) -> Path:
        return (*self.path, self.node_id)


class UsageLedger:
    """The usage of one run, and of each node and nested graph that spent anything.

    Args:
        before: what the run spent before (a resumed run's, from its checkpoint): the run's total goes on from it.
    """

    __slots__ = ("run", "nodes", "graphs", "_keyed", "_before", "_entries", "_marks")

    def __init__(self, before: Usage | None = None) -> None:
        self._before = before
        self._entries: list[_Entry] = []
        self._marks: dict[tuple[Path, str], int] = {}  # a node's attempt: the entries from it on are the attempt's
        self.run = Usage()
        self.nodes: dict[tuple[Path, str], Usage] = {}
        self.graphs: dict[Path, Usage] = {}
        self._keyed: dict[str, Usage] = {}  # the nodes by key
        self._rebuild()

    def _targets(self, path: Path, node_id: str) -> list[Usage]:
        """The run, each node the call is nested in and each nested graph on the way, and the node itself."""
        targets = [self.run]
        for depth, step in enumerate(path):
            prefix = path[:depth]
            if isinstance(step, str):
                targets.append(self._node(prefix, step))
            following = path[depth + 1] if depth + 1 < len(path) else None
            if not isinstance(following, int):  # a node's graph, or a map row: not a map node's rows as one
                targets.append(self._graph(path[:depth + 1]))
        targets.append(self._node(path, node_id))
        return targets

    def _node(self, path: Path, node_id: str) -> Usage:
        usage = self.nodes.get((path, node_id))
        if usage is None:
            usage = self.nodes[(path, node_id)] = self._keyed[usage_key(path, node_id)] = Usage()
        return usage

    def _graph(self, path: Path) -> Usage:
        usage = self.graphs.get(path)
        if usage is None:
            usage = self.graphs[path] = Usage()
        return usage

    def _count(self, entry: _Entry) -> None:
        for target in self._targets(entry.path, entry.node_id):
            if entry.kind == _LLM:
                target.add_call(entry.usage, entry.cost, kept=entry.kept, label=entry.label)
            elif entry.kind == _TOOL:
                target.tool_calls += 1
            else:
                target.waited += entry.seconds

    def _rebuild(self) -> None:
        self.run = Usage()
        if self._before is not None:
            self.run.merge(self._before)
        self.nodes = {}
        self.graphs = {}
        self._keyed = {}
        for entry in self._entries:
            self._count(entry)

    def _add(self, entry: _Entry) -> None:
        self._entries.append(entry)
        self._count(entry)

    # ----- what was spent -----

    def add_call(self, path: Path, node_id: str, usage: CallUsage | None, cost: float | None, *, kept: bool,
                 label: str | None = None) -> None:
        """One attempt of an LLM request of the node at `path`: kept (its reply was used) or not (retried, failed)."""
        self._add(_Entry(_LLM, path, node_id, usage, cost, kept, label))

    def add_tool_call(self, path: Path, node_id: str) -> None:
        """The node at `path` ran a tool an LLM asked for."""
        self._add(_Entry(_TOOL, path, node_id))

    def add_wait(self, path: Path, node_id: str, seconds: float) -> None:
        """The node waited `seconds` for its turn under a rate limit."""
        self._add(_Entry(_WAIT, path, node_id, seconds=seconds))

    def attempt_started(self, path: Path, node_id: str) -> None:
        """The node's agent is called (again): what is spent from now on under it is this attempt's."""
        self._marks[(path, node_id)] = len(self._entries)

    def void(self, path: Path, node_id: str) -> None:
        """The node's attempt failed and the node runs again: what its LLM calls (nested ones included) spent in
        that attempt was not used; it counts as retried."""
        mark = self._marks.get((path, node_id))
        if mark is None:
            return
        changed = False
        for entry in self._entries[mark:]:
            if entry.kind == _LLM and entry.kept and _under(entry.where, path, node_id):
                entry.kept = False
                changed = True
        if changed:
            self._rebuild()

    def take(self, record: dict[str, Any]) -> None:
        """Counts what an event record says was spent (serve's event log: LlmCallFinished, LlmCallStarted's
        wait, ToolCalled; NodeStarted and NodeRetried for a node run again), as the meter counted it when the
        run made the call."""
        kind = record.get("type")
        node_id = record.get("node_id")
        if not isinstance(node_id, str):
            return
        path = tuple(record.get("path") or ())
        if kind == "LlmCallFinished":
            provider = str(record.get("provider") or "unknown")
            usage: CallUsage | None = CallUsage(provider, record.get("model"), record.get("input_tokens"),
                                                record.get("output_tokens"), record.get("cached_tokens"),
                                                record.get("reasoning_tokens"))
            if not usage.has_tokens:
                usage = None  # nothing said: a call without usage, under its label
            self.add_call(path, node_id, usage, record.get("cost_usd"), kept=not record.get("error"),
                          label=label_of(provider, record.get("model")))
        elif kind == "LlmCallStarted" and record.get("waited"):
            self.add_wait(path, node_id, float(record["waited"]))
        elif kind == "ToolCalled":
            self.add_tool_call(path, node_id)
        elif kind == "NodeStarted":
            self.attempt_started(path, node_id)
        elif kind == "NodeRetried":
            self.void(path, node_id)

    # ----- reading it -----

    def node(self, path: Path, node_id: str) -> Usage | None:
        """What the node and everything nested in it spent; None: nothing."""
        return self.nodes.get((path, node_id))

    def keyed(self, key: str) -> dict[str, Any] | None:
        """What the node of `key` (`react/llm`) and everything nested in it spent, as `Usage.to_dict()` spells it;
        None: nothing."""
        usage = self._keyed.get(key)
        return usage.to_dict() if usage is not None else None

    def by_node(self) -> dict[str, dict[str, Any]]:
        """Every node that spent anything, by key, as `Usage.to_dict()` spells it."""
        return {key: usage.to_dict() for key, usage in self._keyed.items()}

    def by_graph(self) -> dict[str, dict[str, Any]]:
        """Every nested graph and map row that spent anything, by its path (`react`, `map/3`)."""
        return {usage_key(path): usage.to_dict() for path, usage in self.graphs.items()}
