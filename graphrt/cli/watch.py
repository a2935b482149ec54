"""Live progress of a run on a terminal, for `graphrt run`.

The display summarises, and does no work per node. The engine counts nodes
into a `RunProgress` (a run's `progress` option); a thread of the display reads it
at most `rate` times a second (never once per event) and redraws a status line
at the bottom: how long the run has taken, the loop iteration, how many nodes
are done, failed, skipped and queued, and the first few of the nodes running
now. Lines above it are kept for what a person reads, which comes as events:
failures, retries, timeouts, questions, tool and LLM calls, agent progress,
streamed tokens; and, from the counters, nodes slow enough to wait for (`slow`
seconds or more, outside mapAgent rows). At the end the status line gives way
to one summary line. A graph of 100,000 fast nodes prints that line and
nothing else, and costs the run a few counter updates per node.

What it shows hides the credentials the run knows (its redactor's, graphrt.base.secrets):
a line as errors are hidden, streamed tokens as a run's data, a credential cut across
tokens too (`StreamRedactor`: the end of a node's tokens that may begin one waits for
the next token, the end of the node's LLM call, or the end of the run).
"""

from __future__ import annotations

import itertools
import shutil
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, TextIO

from graphrt.base.errors import error_message
from graphrt.base.secrets import Redactor, StreamRedactor
from graphrt.observe.events import (
    AgentProgress,
    Event,
    LlmCallFinished,
    LoopIteration,
    NodeFailed,
    NodeInterrupted,
    NodeRetried,
    NodeTimedOut,
    RunFinished,
    RunStarted,
    TokenDelta,
    ToolCalled,
    ToolReturned,
)
from graphrt.observe.progress import RunProgress

if TYPE_CHECKING:
    from graphrt.engine.graph import Graph

__all__ = ["ProgressDisplay", "graph_name", "node_name"]

_CLEAR_LINE = "\r\x1b[K"
_SHOWN_RUNNING = 4
_SHOWN_LOOPS = 2
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
    return _short(error_message(error))


def _in_map_row(path: tuple[str | int, ...]) -> bool:
    return any(isinstance(step, int) for step in path)


def _usage(input_tokens: int | None, output_tokens: int | None) -> str:
    """Token counts as the server reported them; a server that sends no usage gets "tokens unknown", not 0."""
    if input_tokens is None and output_tokens is None:
        return "tokens unknown"
    return f"{'?' if input_tokens is None else input_tokens} in, {'?' if output_tokens is None else output_tokens} out"


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


class ProgressDisplay:
    """Shows a run's progress on `stream`, a terminal; call `close()` when the run is over.

    `watch(graph)` connects it to a graph's runs: the graph counts into `progress`,
    and hands the display the few events a person reads. `rate` bounds the status
    redraws per second; `slow` is the duration (seconds) from which a completed node
    gets a line of its own; `clock` is for tests; `redactor` hides the run's credentials
    (by default the environment's).
    """

    def __init__(self, stream: TextIO, progress: RunProgress | None = None, *, rate: float = 10.0,
                 slow: float = 1.0, clock: Callable[[], float] = time.monotonic,
                 redactor: Redactor | None = None) -> None:
        self.stream = stream
        self.redactor = redactor or Redactor()
        self.progress = progress if progress is not None else RunProgress(slow_after=slow)
        self.interval = 1.0 / rate
        self.clock = clock
        self.started: float | None = None
        self.iterations = 0  # of the top-level graph, once it loops
        self.redraws = 0
        self._loops: dict[tuple[str | int, ...], int] = {}  # nested graph path -> its iteration index
        self._paused = False  # between the top-level run's end and the next event (a prompt may be on screen)
        self._streaming: tuple[Any, ...] | None = None
        self._tokens: dict[tuple[Any, ...], StreamRedactor] = {}  # per node streaming: its tokens' redaction
        self._status = ""
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        self._handlers: dict[type, Callable[[Any], None]] = {
            RunStarted: lambda event: None,  # the status starts (again, after a question) with the run
            NodeRetried: self._retried,
            NodeTimedOut: self._timed_out,
            NodeFailed: self._failed,
            NodeInterrupted: self._asks,
            LoopIteration: self._loop,
            TokenDelta: self._token,
            ToolCalled: self._tool_called,
            ToolReturned: self._tool_returned,
            AgentProgress: self._agent_progress,
            LlmCallFinished: self._llm,
            RunFinished: self._run_finished,
        }
        self.event_types = tuple(self._handlers)  # the engine builds no other events for the display (Emitter.wants)

    @property
    def run_options(self) -> dict[str, Any]:
        """What a run is given for the display to show it: `graph.run(**display.run_options)`."""
        return {"subscribe": (self,), "progress": self.progress}

    def __call__(self, event: Event) -> None:
        handler = self._handlers.get(type(event))
        if handler is None:
            return
        with self._lock:
            if self.started is None:
                self._start()
            self._paused = False
            handler(event)

    def close(self) -> None:
        """Stops the redraws and leaves one summary line in place of the status line."""
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
        with self._lock:
            self._end_streams()
            self._clear_status()
            if self.started is not None:
                self._slow_lines()
                self.stream.write(self.summary() + "\n")
                self.started = None
            self.stream.flush()

    def summary(self) -> str:
        """`finished 10,001 nodes in 3.21 s (1 failed, 2 skipped, 3 loop iterations); slowest: llm 1.25 s`."""
        progress = self.progress
        elapsed = self.clock() - self.started if self.started is not None else 0.0
        counts = [f"{progress.failed:,} failed" if progress.failed else "",
                  f"{progress.skipped:,} skipped" if progress.skipped else "",
                  _plural(self.iterations, "loop iteration") if self.iterations else ""]
        counts = [count for count in counts if count]
        text = f"finished {_plural(progress.done, 'node')} in {_duration(elapsed)}"
        text += f" ({', '.join(counts)})" if counts else ""
        if progress.slowest is not None:
            duration, key = progress.slowest
            text += f"; slowest: {node_name(*key)} {_duration(duration)}"
        return text

    # ----- the status line -----

    def _start(self) -> None:
        self.started = self.clock()
        self._ticker = threading.Thread(target=self._tick, name="graphrt-progress", daemon=True)
        self._ticker.start()

    def _tick(self) -> None:
        while not self._stop.wait(self.interval):
            with self._lock:
                if self.started is not None and not self._paused:
                    self.redraw()

    def redraw(self) -> None:
        """What each tick does: lines for the slow nodes completed since the last one, then the status line."""
        self._slow_lines()
        self._draw_status()

    def status(self) -> str:
        """The status line's text: elapsed time, loops, counts, and the first nodes running now."""
        progress = self.progress
        parts = [_duration(self.clock() - self.started) if self.started is not None else "0 ms"]
        if self.iterations:
            parts.append(f"loop {self.iterations}")
        if self._loops:
            self._forget_ended_loops()
        parts += [f"{graph_name(path)} loop {index + 1}" for path, index in itertools.islice(self._loops.items(), _SHOWN_LOOPS)]
        parts.append(f"done {progress.done:,}")
        if progress.failed:
            parts.append(f"failed {progress.failed:,}")
        if progress.skipped:
            parts.append(f"skipped {progress.skipped:,}")
        if progress.queued > 0:
            parts.append(f"queued {progress.queued:,}")
        running = len(progress.running)
        names = ", ".join(node_name(*key) for key in progress.first_running(_SHOWN_RUNNING))
        more = f" (+{running - _SHOWN_RUNNING:,})" if running > _SHOWN_RUNNING else ""
        parts.append(f"running {running:,}: {names}{more}" if running and names else "running: -")
        return " | ".join(parts)

    def _forget_ended_loops(self) -> None:
        """Drops the loops of nested graphs whose node (the nestedAgent, the mapAgent of a row) is no longer running."""
        running = {(*path, node_id) for path, node_id in self.progress.running_nodes()}
        for path in list(self._loops):
            owner = path[:-1] if isinstance(path[-1], int) else path  # a map row's graph belongs to the map node
            if owner not in running:
                del self._loops[path]

    def _draw_status(self) -> None:
        if self._streaming is not None:
            return  # the token line is in the way; the status comes back after it
        status = self.status()[: shutil.get_terminal_size().columns - 1]
        if status != self._status:
            self.stream.write(_CLEAR_LINE + status)
            self.stream.flush()
            self._status = status
            self.redraws += 1

    def _clear_status(self) -> None:
        if self._status:
            self.stream.write(_CLEAR_LINE)
            self._status = ""

    def _slow_lines(self) -> None:
        for key, duration in self.progress.take_slow():
            if not _in_map_row(key[0]):
                self._line(f"done     {node_name(*key)}  {_duration(duration)}")

    # ----- events -----

    def _retried(self, event: NodeRetried) -> None:
        self._line(f"retry    {node_name(event.path, event.node_id)}  attempt failed: {_message(event.error)}")

    def _timed_out(self, event: NodeTimedOut) -> None:
        self._line(f"timeout  {node_name(event.path, event.node_id)}  {_message(event.error)}")

    def _failed(self, event: NodeFailed) -> None:
        self._line(f"FAILED   {node_name(event.path, event.node_id)}  {_message(event.error)}")

    def _asks(self, event: NodeInterrupted) -> None:
        self._line(f"asks     {node_name(event.path, event.node_id)}  {event.question}")

    def _loop(self, event: LoopIteration) -> None:
        if not event.index:
            return  # every graph has a first iteration; only a looping one has a second
        if event.path:
            self._loops[event.path] = event.index
        else:
            self.iterations = event.index + 1

    def _run_finished(self, event: RunFinished) -> None:
        if not event.path:
            self._slow_lines()
            self._end_streams()
            self._clear_status()
            self._paused = True

    def _tool_called(self, event: ToolCalled) -> None:
        self._line(f"tool     {node_name(event.path, event.node_id)}  -> {event.name}({_short(event.arguments)})")

    def _tool_returned(self, event: ToolReturned) -> None:
        outcome = f"error: {_short(event.error)}" if event.error else _short(event.content)
        self._line(f"tool     {node_name(event.path, event.node_id)}  <- {event.name}: {outcome}")

    def _agent_progress(self, event: AgentProgress) -> None:
        if isinstance(event.data, dict) and event.data.get("onStderr"):
            return  # the agent printed it on stderr itself, in full: once is enough
        self._line(f"progress {node_name(event.path, event.node_id)}  {_short(event.message)}")

    def _llm(self, event: LlmCallFinished) -> None:
        self._end_stream((event.path, event.node_id))  # the call's tokens are over
        usage = _usage(event.input_tokens, event.output_tokens)
        error = f" error: {_short(event.error)}" if event.error else ""
        self._line(f"llm      {node_name(event.path, event.node_id)}  {event.model or ''} ({usage}){error}")

    # ----- writing -----

    def _token(self, event: TokenDelta) -> None:
        key = (event.path, event.node_id)
        tokens = self._tokens.get(key)
        if tokens is None:
            tokens = self._tokens[key] = self.redactor.stream()
        self._write_tokens(key, tokens.feed(event.token))

    def _write_tokens(self, key: tuple[Any, ...], text: str) -> None:
        if not text:
            return
        if self._streaming != key:
            self._end_tokens()
            self._clear_status()
            self.stream.write(f"{node_name(*key)} > ")
            self._streaming = key
        self.stream.write(text)
        self.stream.flush()

    def _end_stream(self, key: tuple[Any, ...]) -> None:
        """The end of a node's tokens: what was held back of them, the start of no credential after all."""
        tokens = self._tokens.pop(key, None)
        if tokens is not None:
            self._write_tokens(key, tokens.end())

    def _end_streams(self) -> None:
        """The end of every node's tokens (the run's end), and of the line of tokens."""
        for key in list(self._tokens):
            self._end_stream(key)
        self._end_tokens()

    def _end_tokens(self) -> None:
        """Ends the line of tokens (what a node holds back of them stays with it, for its next tokens)."""
        if self._streaming is not None:
            self.stream.write("\n")
            self._streaming = None

    def _line(self, text: str) -> None:
        self._end_tokens()
        self._clear_status()
        self.stream.write(self.redactor.text(text) + "\n")
        self.stream.flush()
