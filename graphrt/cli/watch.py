"""Live progress of a run on a terminal, for `graphrt run`.

A subscriber that writes one line per thing worth seeing (a node done with its
duration, a failure, a retry, a timeout, a skip, a loop iteration, a tool call,
an agent's progress), streams tokens as they come, and keeps a status line at
the bottom with the loop counts and the nodes running now. The status line is
redrawn in place and removed at the end, so the terminal keeps only the lines.
Nodes done inside mapAgent rows are counted, not listed: there may be thousands.
"""

from __future__ import annotations

import shutil
import threading
from typing import Any, TextIO

from graphrt.base.errors import GraphInterrupted
from graphrt.observe.events import (
    AgentProgress,
    Event,
    LlmCallFinished,
    LoopIteration,
    NodeCompleted,
    NodeFailed,
    NodeRetried,
    NodeSkipped,
    NodeStarted,
    NodeTimedOut,
    RunFinished,
    TokenDelta,
    ToolCalled,
    ToolReturned,
)

__all__ = ["ProgressDisplay", "graph_name", "node_name"]

_CLEAR_LINE = "\r\x1b[K"
_SHOWN_RUNNING = 4
_SHORT = 80


def graph_name(path: tuple[str | int, ...]) -> str:
    """`sentences[0]` for the graph of a map row, `react` for a nested graph, "" at the top level."""
    parts: list[str] = []
    for step in path:
        if isinstance(step, int) and parts:
            parts[-1] += f"[{step}]"
        else:
            parts.append(str(step))
    return " > ".join(parts)


def node_name(path: tuple[str | int, ...], node_id: str) -> str:
    """`sentences[0] > sentence` for a node of a map row; the node id at the top level."""
    return f"{graph_name(path)} > {node_id}" if path else node_id


def _duration(seconds: float) -> str:
    if seconds < 0.0001:
        return "<0.1 ms"
    if seconds < 0.01:
        return f"{seconds * 1000:.1f} ms"
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def _short(value: Any) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= _SHORT else text[: _SHORT - 3] + "..."


def _message(error: BaseException) -> str:
    return _short(getattr(error, "message", None) or error)


class ProgressDisplay:
    """Shows a run's progress on `stream`, a terminal; call `close()` when the run is over."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self._running: dict[tuple[Any, ...], str] = {}
        self._done = 0
        self._failed = 0
        self._iterations: dict[tuple[str | int, ...], int] = {}
        self._streaming: tuple[Any, ...] | None = None
        self._status = ""
        self._lock = threading.Lock()

    def __call__(self, event: Event) -> None:
        with self._lock:
            self._handle(event)
            self.stream.flush()

    def close(self) -> None:
        with self._lock:
            self._end_tokens()
            self._clear_status()
            self.stream.flush()

    # ----- events -----

    def _handle(self, event: Event) -> None:
        node_id = getattr(event, "node_id", None)
        key = (event.path, node_id)
        name = node_name(event.path, node_id) if node_id is not None else ""
        if isinstance(event, TokenDelta):
            self._token(key, name, event.token)
        elif isinstance(event, NodeStarted):
            self._running[key] = name
        elif isinstance(event, NodeCompleted):
            self._node_ended(event.path, event.node_id)
            self._done += 1
            if not any(isinstance(step, int) for step in event.path):
                self._line(f"done     {name}  {_duration(event.duration)}")
        elif isinstance(event, NodeRetried):
            self._running.pop(key, None)
            self._line(f"retry    {name}  attempt failed: {_message(event.error)}")
        elif isinstance(event, NodeTimedOut):
            self._node_ended(event.path, event.node_id)
            self._failed += 1
            self._line(f"timeout  {name}  {_message(event.error)}")
        elif isinstance(event, NodeFailed) and isinstance(event.error, GraphInterrupted):
            self._node_ended(event.path, event.node_id)
            self._line(f"asks     {name}  {event.error.question}")
        elif isinstance(event, NodeFailed):
            self._node_ended(event.path, event.node_id)
            self._failed += 1
            self._line(f"FAILED   {name}  {_message(event.error)}")
        elif isinstance(event, NodeSkipped):
            self._line(f"skipped  {name}")
        elif isinstance(event, LoopIteration):
            if event.index:
                self._iterations[event.path] = event.index
                where = f"{graph_name(event.path)} " if event.path else ""
                self._line(f"loop     {where}iteration {event.index + 1}")
        elif isinstance(event, ToolCalled):
            self._line(f"tool     {name}  -> {event.name}({_short(event.arguments)})")
        elif isinstance(event, ToolReturned):
            outcome = f"error: {_short(event.error)}" if event.error else _short(event.content)
            self._line(f"tool     {name}  <- {event.name}: {outcome}")
        elif isinstance(event, AgentProgress):
            self._line(f"progress {name}  {_short(event.message)}")
        elif isinstance(event, LlmCallFinished):
            usage = f"{event.input_tokens or 0} in, {event.output_tokens or 0} out"
            self._line(f"llm      {name}  {event.model or ''} ({usage}){' error: ' + _short(event.error) if event.error else ''}")
        elif isinstance(event, RunFinished):
            if not event.path:
                self._end_tokens()
                self._clear_status()
            return
        self._draw_status()

    def _node_ended(self, path: tuple[str | int, ...], node_id: str) -> None:
        """Forgets a node that will not run again now, and the loops of the graphs it ran."""
        self._running.pop((path, node_id), None)
        inner = (*path, node_id)
        for looping in [p for p in self._iterations if p[: len(inner)] == inner]:
            del self._iterations[looping]

    # ----- writing -----

    def _token(self, key: tuple[Any, ...], name: str, token: str) -> None:
        if self._streaming != key:
            self._end_tokens()
            self._clear_status()
            self.stream.write(f"{name} > ")
            self._streaming = key
        self.stream.write(token)

    def _end_tokens(self) -> None:
        if self._streaming is not None:
            self.stream.write("\n")
            self._streaming = None

    def _line(self, text: str) -> None:
        self._end_tokens()
        self._clear_status()
        self.stream.write(text + "\n")

    def _clear_status(self) -> None:
        if self._status:
            self.stream.write(_CLEAR_LINE)
            self._status = ""

    def _draw_status(self) -> None:
        if self._streaming is not None:
            return  # the token line is in the way; the status comes back after it
        running = list(self._running.values())
        shown = ", ".join(running[:_SHOWN_RUNNING]) + (f" (+{len(running) - _SHOWN_RUNNING})" if len(running) > _SHOWN_RUNNING else "")
        parts = [
            f"{graph_name(path) + ' ' if path else ''}loop {index + 1}"
            for path, index in self._iterations.items()
        ]
        parts += [f"running: {shown or '-'}", f"done {self._done}"]
        if self._failed:
            parts.append(f"failed {self._failed}")
        width = shutil.get_terminal_size().columns - 1
        status = " | ".join(parts)[:width]
        if status != self._status:
            self.stream.write(_CLEAR_LINE + status)
            self._status = status
