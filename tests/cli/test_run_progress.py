"""`graphrt run`: validation first, live progress on a terminal, only results when piped or quiet."""

from __future__ import annotations

import io
import re
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from graphrt.base.errors import AgentError, NodeTimeoutError
from graphrt.base.states import NodeState
from graphrt.cli import main
from graphrt.cli.watch import ProgressDisplay
from graphrt.engine.graph import Graph
from graphrt.observe.events import (
    AgentProgress,
    LoopIteration,
    NodeCompleted,
    NodeFailed,
    NodeRetried,
    NodeStarted,
    NodeTimedOut,
    RunFinished,
    RunStarted,
    TokenDelta,
    ToolCalled,
    ToolReturned,
)
from graphrt.observe.progress import RunProgress


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def visible(text: str) -> list[str]:
    """What a terminal shows at the end: each line as left by its last carriage return and erase."""
    return [line.rsplit("\r\x1b[K", 1)[-1] for line in text.split("\n")]


class Ticks:
    """The display's ticker, ticking only when the test says so.

    It stands in for the event the ticker thread waits on between redraws (`ProgressDisplay._stop`):
    `wait()` returns False for each tick the test gives, True once the display closes.
    """

    def __init__(self, display: ProgressDisplay) -> None:
        self._changed = threading.Condition()
        self._given = 0  # ticks given and not yet taken
        self._waiting = False  # the ticker is between ticks
        self._stopped = False
        display._stop = self  # type: ignore[assignment]

    def wait(self, timeout: float | None = None) -> bool:
        with self._changed:
            self._waiting = True
            self._changed.notify_all()
            self._changed.wait_for(lambda: self._given or self._stopped)
            self._waiting = False
            if self._stopped:
                return True
            self._given -= 1
            return False

    def set(self) -> None:
        with self._changed:
            self._stopped = True
            self._changed.notify_all()

    def tick(self) -> None:
        """One tick; returns once the ticker has done it and waits for the next."""
        with self._changed:
            self._given += 1
            self._changed.notify_all()
            assert self._changed.wait_for(lambda: not self._given and self._waiting, timeout=30), "the ticker is stuck"


class Clock:
    """A clock that moves only when told to."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_run_refuses_a_graph_that_validate_rejects_naming_every_error(in_tmp, capsys) -> None:
    Path("bad.yaml").write_text(textwrap.dedent("""\
        version: 0.5
        nodes:
          answer:
            agent: stringTemplateAgnet
          rows:
            agent: mapAgent
            inputs: {rows: [1, 2]}
            graph:
              nodes:
                inner: {agent: copyAgent, inputs: {v: ":rwo"}, isResult: true}
            isResult: true
    """))

    assert main(["run", "bad.yaml"]) == 1

    assert capsys.readouterr() == ("", (
        # the warnings come too, before the errors
        "graphrt: bad.yaml:3:3: warning: node 'answer': nothing uses this node's result: no node refers to it and it is "
        "not isResult\n"
        "graphrt: bad.yaml:4:5: node 'answer', field 'agent': unknown agent 'stringTemplateAgnet' "
        "(did you mean stringTemplateAgent, templateAgent, stringSplitterAgent?)\n"
        "  ... and 1 more:\n"
        "  bad.yaml:10:44: node 'rows' > 'inner', field 'inputs.v': unknown node 'rwo' (did you mean row?)\n"
    ))


def test_warnings_do_not_stop_a_run_and_are_shown_before_it(in_tmp, capsys) -> None:
    Path("warn.yaml").write_text(textwrap.dedent("""\
        version: 0.5
        nodes:
          a: {value: 1}
          b: {agent: copyAgent, inputs: {a: ":a"}}
          c: {agent: copyAgent, inputs: {a: ":a"}, isResult: true}
    """))

    assert main(["run", "warn.yaml"]) == 0

    assert capsys.readouterr() == ('{\n  "c": {\n    "a": 1\n  }\n}\n', (
        "graphrt: warn.yaml:4:3: warning: node 'b': nothing uses this node's result: "
        "no node refers to it and it is not isResult\n"
    ))


def test_piped_output_has_only_the_results(capsys) -> None:
    assert main(["run", "graphs/hello.yaml"]) == 0
    assert capsys.readouterr() == ('{\n  "greeting": "Hello, World!"\n}\n', "")


def test_a_terminal_ends_with_one_summary_line_and_lists_no_fast_node(monkeypatch, capsys) -> None:
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)

    assert main(["run", "graphs/accumulate.yaml"]) == 0

    [summary, end] = visible(terminal.getvalue())
    assert re.fullmatch(r"finished 6 nodes in \S+ (ms|s) \(3 loop iterations\); slowest: (shift|push) \S+ (ms|s)", summary)
    assert end == ""
    assert capsys.readouterr().out.startswith('{\n  "list": [')


def test_quiet_shows_nothing_on_a_terminal_either(monkeypatch, capsys) -> None:
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)

    assert main(["run", "--quiet", "graphs/accumulate.yaml"]) == 0

    assert terminal.getvalue() == ""


class Engine:
    """Counts into a RunProgress as GraphRun does, on a clock the test moves."""

    def __init__(self, progress: RunProgress, clock: Clock) -> None:
        self.progress = progress
        self.clock = clock

    def start(self, node_id: str, path: tuple = ()) -> tuple:
        self.progress.queued += 1
        return self.progress.start(path, node_id)

    def complete(self, node_id: str, seconds: float, path: tuple = ()) -> None:
        key = self.start(node_id, path)
        self.clock.now += seconds
        self.progress.end(key, completed=True)

    def fail(self, node_id: str, path: tuple = ()) -> None:
        key = self.start(node_id, path)
        self.progress.failed += 1
        self.progress.end(key, completed=False)


def test_the_display_streams_tokens_reports_trouble_and_slow_nodes_and_counts_the_rest() -> None:
    terminal = FakeTerminal()
    clock = Clock()
    display = ProgressDisplay(terminal, RunProgress(clock=clock), clock=clock)
    engine = Engine(display.progress, clock)
    timeout = NodeTimeoutError("timed out after 10 ms", node_id="slow", field="timeout")
    display(RunStarted(run_id="r"))
    display(LoopIteration(run_id="r", index=0))
    llm = engine.start("llm")
    for event in [
        TokenDelta(run_id="r", node_id="llm", token="Hel"),
        TokenDelta(run_id="r", node_id="llm", token="lo"),
        ToolCalled(run_id="r", node_id="llm", tool_call_id="1", name="search", arguments={"q": "Eiffel"}),
        ToolReturned(run_id="r", node_id="llm", tool_call_id="1", name="search", content="a tower"),
        NodeRetried(run_id="r", node_id="flaky", state=NodeState.EXECUTING, error=AgentError("boom", node_id="flaky"),
                    timed_out=False, will_retry=True),
        NodeTimedOut(run_id="r", node_id="slow", state=NodeState.TIMED_OUT, error=timeout, timed_out=True,
                     will_retry=False),
        NodeFailed(run_id="r", path=("map", 2), node_id="inner", state=NodeState.FAILED, error=AgentError("bad row"),
                   timed_out=False, will_retry=False),
        AgentProgress(run_id="r", node_id="crawl", message="page 2 of 3"),
    ]:
        display(event)
    engine.fail("slow")
    engine.fail("inner", ("map", 2))
    display.progress.skipped += 1
    engine.complete("act", 0.002, ("react",))
    engine.complete("inner", 0.5, ("map", 1))
    clock.now += 1.25
    display.progress.end(llm, completed=True)
    display(RunFinished(run_id="r"))
    display.close()

    assert visible(terminal.getvalue()) == [
        "llm > Hello",
        "tool     llm  -> search({'q': 'Eiffel'})",
        "tool     llm  <- search: a tower",
        "retry    flaky  attempt failed: boom",
        "timeout  slow  timed out after 10 ms",
        "FAILED   map[2] > inner  bad row",
        "progress crawl  page 2 of 3",
        "done     llm  1.75 s",
        "finished 3 nodes in 1.75 s (2 failed, 1 skipped); slowest: llm 1.75 s",
        "",
    ]


CHAIN = {"version": 0.5, "nodes": {
    "n0": {"value": {"v": 0}},
    **{f"n{i}": {"agent": "copyAgent", "inputs": {"v": f":n{i - 1}.v"}} for i in range(1, 5000)},
    "end": {"agent": "copyAgent", "inputs": {"v": ":n4999.v"}, "isResult": True},
}}


def test_the_display_takes_no_event_per_node_and_redraws_only_when_it_ticks(monkeypatch) -> None:
    calls: list[type] = []
    take = ProgressDisplay.__call__
    monkeypatch.setattr(ProgressDisplay, "__call__", lambda self, event: (calls.append(type(event)), take(self, event)))
    terminal = FakeTerminal()
    graph = Graph(CHAIN)
    display = ProgressDisplay(terminal, rate=20)
    Ticks(display)  # it never ticks during the run

    assert graph.run(**display.run_options) == {"end": {"v": 0}}
    display.close()

    assert calls == [RunStarted, LoopIteration, RunFinished]  # not two events for each of the 5,000 nodes
    assert display.redraws == 0  # a redraw comes with a tick, however many nodes end in between
    [summary, end] = visible(terminal.getvalue())
    assert re.fullmatch(r"finished 5,000 nodes in \S+ (ms|s); slowest: \S+ \S+ (ms|s)", summary) and end == ""


def test_a_display_beside_another_subscriber_leaves_its_events_as_they_were() -> None:
    events: list = []
    graph = Graph(CHAIN)
    display = ProgressDisplay(FakeTerminal())

    graph.run(subscribe=[events.append, display], progress=display.progress)
    display.close()

    assert sum(isinstance(event, NodeStarted) for event in events) == 5000
    assert sum(isinstance(event, NodeCompleted) for event in events) == 5000
    assert display.progress.done == 5000


def test_the_status_summarises_running_nodes_and_nested_loops_instead_of_listing_them() -> None:
    clock = Clock()
    display = ProgressDisplay(FakeTerminal(), RunProgress(clock=clock), clock=clock)
    engine = Engine(display.progress, clock)
    display(LoopIteration(run_id="r", index=0))
    display(LoopIteration(run_id="r", index=4))
    react = engine.start("react")
    engine.start("map")
    for i in range(1000):
        engine.start("inner", ("map", i))
    display.progress.queued += 7
    for i in range(3):
        display(LoopIteration(run_id="r", path=("react", i), index=2))
    display.progress.end((("map", 0), "inner"), completed=True)
    display.progress.skipped += 1
    clock.now = 1.5

    assert display.status() == ("1.50 s | loop 5 | react[0] loop 3 | react[1] loop 3 | done 1 | skipped 1 | queued 7 | "
                                "running 1,001: react, map, map[1] > inner, map[2] > inner (+997)")
    display.progress.end(react, completed=True)
    assert "react" not in display.status()
    display.close()


def test_the_status_pauses_when_the_run_ends_so_a_prompt_after_it_stays_clean() -> None:
    terminal = FakeTerminal()
    display = ProgressDisplay(terminal, rate=50)
    ticks = Ticks(display)
    display(RunStarted(run_id="r"))
    display.progress.start((), "ask")
    ticks.tick()
    assert "running 1: ask" in terminal.getvalue()
    display(RunFinished(run_id="r"))
    shown = terminal.getvalue()
    ticks.tick()

    assert shown.endswith("\r\x1b[K") and terminal.getvalue() == shown
    display(RunStarted(run_id="r"))
    ticks.tick()
    assert terminal.getvalue() != shown
    display.close()


def test_a_slow_node_gets_a_line_but_not_inside_map_rows() -> None:
    terminal = FakeTerminal()
    clock = Clock()
    display = ProgressDisplay(terminal, RunProgress(slow_after=0.5, clock=clock), clock=clock)
    engine = Engine(display.progress, clock)
    display(RunStarted(run_id="r"))
    engine.complete("fast", 0.1)
    engine.complete("llm", 0.5)
    engine.complete("inner", 3.0, ("map", 3))
    engine.complete("think", 0.75, ("react",))
    display.close()

    lines = visible(terminal.getvalue())
    assert lines[:2] == ["done     llm  500 ms", "done     react > think  750 ms"]
    assert lines[2].endswith("slowest: map[3] > inner 3.00 s") and lines[3:] == [""]


def test_a_closed_display_that_saw_no_event_writes_nothing() -> None:
    terminal = FakeTerminal()
    ProgressDisplay(terminal).close()
    assert terminal.getvalue() == ""


def test_tokens_of_nodes_streaming_at_once_hide_a_known_key_cut_between_them() -> None:
    from graphrt.base.secrets import Redactor

    terminal = FakeTerminal()
    display = ProgressDisplay(terminal, redactor=Redactor(environ={}, known=["cfg-key-7d1e9a0b55c2f3"]))
    display(RunStarted(run_id="r"))
    for node_id, token in [("a", "the key cfg-"), ("b", "hello"), ("a", "key-7d1e9a0b55c2f3 is"), ("b", " there"),
                           ("a", " c")]:
        display(TokenDelta(run_id="r", node_id=node_id, token=token))
    display(RunFinished(run_id="r"))
    display.close()

    assert visible(terminal.getvalue())[:5] == ["a > the key ", "b > hello", "a > REDACTED is", "b >  there", "a >  c"]
    assert "cfg-" not in terminal.getvalue()
