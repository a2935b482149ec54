"""What the server knows of each node of a run, nested ones included: the viewer's "click a node, see everything".

A `NodeLedger` is fed every event of one run (as the redacted record readers
get, beside the event itself for what a record flattens: an error's place in
the file) and keeps, per node, its state, agent, resolved inputs, result, error
with its location, every attempt, its timings (queued, running, waiting for a
person), streamed text and tool calls. A node is named by its key: its path of
nested graphs and its id, joined by "/" (`react/0/think`), as a question's key is.

Values come from the records, so they are redacted exactly as traces are
(graphrt.base.secrets); the ledger copies nothing. A node's state is the one its
last event carries (the state the run set: NodeTransition.state); a run restored
from a checkpoint (another server's) gets what its saved run says
(graphrt.durable.saved_nodes): each completed node with its result, and the node
that failed or asked, with its error or question. The ledger works out no state
from what it is fed. It only starts a node as every run does, waiting, until an
event says otherwise: a node it has not heard of, a node's next iteration in a
loop, and the node whose question a person answered, which waits for its resumed run.
A node whose agent waits for its turn under a rate limit says so while it waits
(`waiting`: the label, since when) and how long it waited in all (`rate_waited`):
its state stays the one its last event carried, as its agent was called.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import islice
from typing import Any

from graphrt.base.errors import GraphError
from graphrt.base.states import NodeState
from graphrt.durable.saved_nodes import SavedNode
from graphrt.observe.events import (
    AgentProgress,
    Event,
    LlmCallFinished,
    LlmCallStarted,
    LlmCallWaiting,
    LoopIteration,
    NodeAborted,
    NodeCompleted,
    NodeEvent,
    NodeFailed,
    NodeInterrupted,
    NodeQueued,
    NodeRetried,
    NodeSkipped,
    NodeStarted,
    NodeTimedOut,
    NodeTransition,
    TokenDelta,
    ToolCalled,
    ToolReturned,
)

__all__ = ["NodeLedger", "node_key"]

_MAX_TOKENS = 200_000  # characters of streamed text kept per node
_MAX_CALLS = 500  # tool calls and progress lines kept per node
_MAX_ITERATIONS = 200  # earlier iterations of a looping graph's nodes kept per node
_MAX_NODES = 20_000  # nodes kept per run (nested ones, map rows' included); the top level is always kept


def node_key(path: tuple[str | int, ...], node_id: str) -> str:
    """`react/0/think`: the nested graphs' node ids and map rows, then the node's own id."""
    return "/".join(str(part) for part in (*path, node_id))


def _error(event: NodeFailed, record: Mapping[str, Any]) -> dict[str, Any]:
    """A failure as the page shows it: the message (redacted, as in the record) and, when known, where."""
    error = event.error
    shown: dict[str, Any] = {"text": record.get("error")}
    if isinstance(error, GraphError):
        shown["type"] = type(error).__name__
        if error.field:
            shown["field"] = error.field
        if error.location is not None:
            shown["location"] = {"file": error.location.file, "line": error.location.line,
                                 "column": error.location.column}
    else:
        shown["type"] = type(error).__name__
    return shown


class NodeLedger:
    """Every node of one run, by key; `summary()` for the page's picture and activity, `node(key)` for one node."""

    def __init__(self, computed: list[str] = ()) -> None:
        self._nodes: dict[str, dict[str, Any]] = {}
        self._iterations: dict[tuple[str | int, ...], int] = {}
        self.untracked = 0  # events of nested nodes past _MAX_NODES, not kept
        for node_id in computed:
            self._entry((), node_id)

    # ----- feeding it -----

    def _entry(self, path: tuple[str | int, ...], node_id: str) -> dict[str, Any] | None:
        key = node_key(path, node_id)
        entry = self._nodes.get(key)
        if entry is None:
            if path and len(self._nodes) >= _MAX_NODES:
                self.untracked += 1
                return None
            entry = self._nodes[key] = {
                "key": key, "node_id": node_id, "path": list(path), "state": NodeState.WAITING,
                "iteration": self._iterations.get(path, 0), "attempts": [],
            }
        return entry

    def _loop_position(self, path: tuple[str | int, ...]) -> tuple[int, ...]:
        """The iteration of every loop the node is in, outermost first: a nested graph run again in a later
        iteration of an outer loop is a later run of its nodes, even where its own loop index starts at 0 again."""
        return tuple(self._iterations.get(path[:depth], 0) for depth in range(len(path) + 1))

    def record(self, event: Event, record: Mapping[str, Any]) -> None:
        """Takes in one event of the run and its redacted record."""
        if isinstance(event, LoopIteration):
            self._iterations[event.path] = event.index
            return
        if not isinstance(event, NodeEvent):
            return
        entry = self._entry(event.path, event.node_id)
        if entry is None:
            return
        state = event.state if isinstance(event, NodeTransition) else None  # as the run set it
        if isinstance(event, NodeQueued):
            entry = self._next_iteration(entry, event.path)
            entry["queued_at"] = event.time
        elif isinstance(event, NodeStarted):
            entry["agent"] = event.agent_id
            entry["inputs"] = record.get("inputs")
            entry.setdefault("started_at", event.time)
            entry["attempts"].append({"attempt": event.attempt, "started_at": event.time})
        elif isinstance(event, NodeCompleted):
            entry["result"] = record.get("result")
            entry["ended_at"] = event.time
            entry["duration"] = event.duration
            self._end_attempt(entry, event.time)
        elif isinstance(event, NodeInterrupted):
            entry["question"] = event.question
            entry["asked_at"] = event.time
            self._end_attempt(entry, event.time, asked=True)
        elif isinstance(event, NodeFailed):  # NodeRetried and NodeTimedOut too
            error = _error(event, record)
            self._end_attempt(entry, event.time, error=error)
            if not isinstance(event, NodeRetried):
                entry["error"] = error
                entry["ended_at"] = event.time
                entry["timed_out"] = isinstance(event, NodeTimedOut) or event.timed_out
        elif isinstance(event, (NodeSkipped, NodeAborted)):
            entry.pop("waiting", None)
            entry["ended_at"] = event.time
            self._end_attempt(entry, event.time, aborted=isinstance(event, NodeAborted))
        elif isinstance(event, TokenDelta):
            tokens = entry.get("tokens", "")
            if len(tokens) < _MAX_TOKENS:
                entry["tokens"] = tokens + record.get("token", "")
        elif isinstance(event, ToolCalled):
            self._append(entry, "tool_calls", {"id": event.tool_call_id, "name": event.name,
                                               "arguments": record.get("arguments"), "called_at": event.time})
        elif isinstance(event, ToolReturned):
            for call in reversed(entry.get("tool_calls", [])):
                if call["id"] == event.tool_call_id:
                    call.update(content=record.get("content"), returned_at=event.time)
                    if event.error is not None:
                        call["error"] = record.get("error")
                    break
        elif isinstance(event, AgentProgress):
            self._append(entry, "progress", {"message": record.get("message"), "data": record.get("data"),
                                             "time": event.time})
        elif isinstance(event, LlmCallWaiting):  # its agent runs, and waits for its turn: the node waits
            entry["waiting"] = {"for": "rate limit", "label": event.label, "since": event.time,
                                "expected": event.seconds}
        elif isinstance(event, LlmCallStarted):
            entry.pop("waiting", None)
            if event.waited:
                entry["rate_waited"] = entry.get("rate_waited", 0.0) + event.waited
        elif isinstance(event, LlmCallFinished):
            self._append(entry, "llm_calls", {key: record.get(key) for key in (
                "provider", "model", "input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens", "cost_usd",
                "finish_reason", "error")})
        if state is not None:
            entry["state"] = state

    def _next_iteration(self, entry: dict[str, Any], path: tuple[str | int, ...]) -> dict[str, Any]:
        """A node queued again in a later iteration of a loop: its earlier run goes to its history."""
        iteration = self._iterations.get(path, 0)
        position = self._loop_position(path)
        if entry["state"] == NodeState.WAITING or entry.get("position", position) == position:
            entry.update(iteration=iteration, position=position)
            return entry
        earlier = {name: value for name, value in entry.items() if name != "history"}
        history = [*entry.get("history", [])[-(_MAX_ITERATIONS - 1):], earlier]
        fresh = {"key": entry["key"], "node_id": entry["node_id"], "path": entry["path"], "state": NodeState.WAITING,
                 "iteration": iteration, "position": position, "attempts": [], "history": history}
        self._nodes[entry["key"]] = fresh
        return fresh

    @staticmethod
    def _end_attempt(entry: dict[str, Any], time: float, **outcome: Any) -> None:
        if entry["attempts"] and "ended_at" not in entry["attempts"][-1]:
            entry["attempts"][-1].update(ended_at=time, **outcome)

    @staticmethod
    def _append(entry: dict[str, Any], name: str, item: dict[str, Any]) -> None:
        items = entry.setdefault(name, [])
        if len(items) < _MAX_CALLS:
            items.append(item)

    def restore(self, nodes: Mapping[str, SavedNode]) -> None:
        """What a checkpoint says of a run of an earlier server (graphrt.durable.saved_nodes): each top-level node's
        state as its saved run left it, and a completed node's result, a failed one's error, an asking one's
        question."""
        for node_id, saved in nodes.items():
            entry = self._entry((), node_id)
            if saved.state == NodeState.COMPLETED:
                entry.update(state=saved.state, result=saved.result, restored=True)
            elif saved.state == NodeState.FAILED:
                entry.update(state=saved.state, error={"text": saved.error}, restored=True)
            elif saved.state == NodeState.INTERRUPTED:
                entry.update(state=saved.state, question=saved.question, restored=True)

    def answered(self, key: str, time: float) -> None:
        """A person answered the node that asked: the time it waited for them ends."""
        entry = self._nodes.get(key)
        if entry is not None and entry["state"] == NodeState.INTERRUPTED:
            entry.update(state=NodeState.WAITING, answered_at=time)
            entry["waited"] = time - entry["asked_at"] if "asked_at" in entry else None

    # ----- reading it -----

    def states(self) -> dict[str, NodeState]:
        """The top-level nodes' states: a run's `nodes`."""
        return {entry["node_id"]: entry["state"] for entry in self._nodes.values() if not entry["path"]}

    def __len__(self) -> int:
        """The nodes it keeps."""
        return len(self._nodes)

    @property
    def max_nodes(self) -> int:
        """The most nodes it keeps; `untracked` counts the events of nested nodes past it."""
        return _MAX_NODES

    def summary(self, offset: int = 0, limit: int | None = None) -> dict[str, dict[str, Any]]:
        """Every node (or `limit` of them after the first `offset`), without its values: state, agent, timings,
        attempts, error, question. Nodes stay in the order they were first seen: a page of a run that goes on
        is the same nodes later, and the nodes seen since come after the last page."""
        shown = {}
        for key, entry in islice(self._nodes.items(), offset, None if limit is None else offset + limit):
            brief = {name: value for name, value in entry.items()
                     if name not in ("inputs", "result", "tokens", "tool_calls", "progress", "history", "llm_calls")}
            brief["attempts"] = len(entry["attempts"])
            brief["iterations"] = len(entry.get("history", ())) + 1
            if "history" in entry:  # the state it ended each earlier iteration of its loop in
                brief["past"] = [{"iteration": past["iteration"], "state": past["state"]} for past in entry["history"]]
            if "tool_calls" in entry:
                brief["tool_calls"] = len(entry["tool_calls"])
            shown[key] = brief
        return shown

    def node(self, key: str) -> dict[str, Any] | None:
        """Everything known of one node (None: no such node)."""
        entry = self._nodes.get(key)
        if entry is None:
            return None
        return {**entry, "children": sorted(other for other in self._nodes if other.startswith(key + "/"))}
