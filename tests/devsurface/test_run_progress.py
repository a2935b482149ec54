"""`graphrt run`: validation first, live progress on a terminal, only results when piped or quiet."""

from __future__ import annotations

import io
import re
import sys
import textwrap
import time
from pathlib import Path

import pytest

from graphrt.base.errors import AgentError, NodeTimeoutError
from graphrt.cli import main
from graphrt.cli.watch import ProgressDisplay
from graphrt.observe.events import (
    AgentProgress,
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
        "(did you mean stringTemplateAgent, stringSplitterAgent, stringUpdateTextAgent?)\n"
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


def test_the_display_streams_tokens_reports_trouble_and_slow_nodes_and_counts_the_rest() -> None:
    terminal = FakeTerminal()
    display = ProgressDisplay(terminal, clock=Clock())
    timeout = NodeTimeoutError("timed out after 10 ms", node_id="slow", field="timeout")
    events = [
        LoopIteration(run_id="r", index=0),
        NodeStarted(run_id="r", node_id="llm", agent_id="openAIAgent", attempt=1, inputs={}),
        TokenDelta(run_id="r", node_id="llm", token="Hel"),
        TokenDelta(run_id="r", node_id="llm", token="lo"),
        ToolCalled(run_id="r", node_id="llm", tool_call_id="1", name="search", arguments={"q": "Eiffel"}),
        ToolReturned(run_id="r", node_id="llm", tool_call_id="1", name="search", content="a tower"),
        NodeRetried(run_id="r", node_id="flaky", error=AgentError("boom", node_id="flaky"), timed_out=False, will_retry=True),
        NodeTimedOut(run_id="r", node_id="slow", error=timeout, timed_out=True, will_retry=False),
        NodeFailed(run_id="r", path=("map", 2), node_id="inner", error=AgentError("bad row"), timed_out=False, will_retry=False),
        NodeSkipped(run_id="r", node_id="maybe"),
        AgentProgress(run_id="r", node_id="crawl", message="page 2 of 3"),
        LoopIteration(run_id="r", path=("react",), index=1),
        NodeCompleted(run_id="r", path=("react",), node_id="act", result=1, duration=0.002),
        NodeCompleted(run_id="r", path=("map", 1), node_id="inner", result=1, duration=0.5),
        NodeCompleted(run_id="r", node_id="llm", result="Hello", duration=1.25),
        RunFinished(run_id="r"),
    ]
    for event in events:
        display(event)
    display.close()

    assert visible(terminal.getvalue()) == [
        "llm > Hello",
        "tool     llm  -> search({'q': 'Eiffel'})",
        "tool     llm  <- search: a tower",
        "retry    flaky  attempt failed: boom",
        "timeout  slow  timed out after 10 ms",
        "FAILED   map[2] > inner  bad row",
        "progress crawl  page 2 of 3",
        "done     llm  1.25 s",
        "finished 3 nodes in <0.1 ms (2 failed, 1 skipped); slowest: llm 1.25 s",
        "",
    ]


def node_events(count: int, path: tuple = ()) -> list:
    events = []
    for i in range(count):
        events.append(NodeStarted(run_id="r", path=path, node_id=f"n{i}", agent_id="copyAgent", attempt=1, inputs={}))
        events.append(NodeCompleted(run_id="r", path=path, node_id=f"n{i}", result=i, duration=0.001))
    return events


def test_the_status_line_is_redrawn_at_a_bounded_rate_not_per_event() -> None:
    terminal = FakeTerminal()
    display = ProgressDisplay(terminal, rate=20)
    started = time.monotonic()
    for event in node_events(20_000):
        display(event)
    time.sleep(0.3)  # the status catches up within one interval of the events stopping
    status = terminal.getvalue().rsplit("\r\x1b[K", 1)[-1]
    display.close()
    elapsed = time.monotonic() - started

    assert display.redraws <= elapsed * 20 + 1
    assert "done 20,000" in status and "running: -" in status
    assert visible(terminal.getvalue())[-2].startswith("finished 20,000 nodes in ")


def test_the_status_summarises_running_nodes_and_nested_loops_instead_of_listing_them() -> None:
    clock = Clock()
    display = ProgressDisplay(FakeTerminal(), clock=clock)
    display(LoopIteration(run_id="r", index=0))
    display(LoopIteration(run_id="r", index=4))
    for i in range(1000):
        display(NodeStarted(run_id="r", path=("map", i), node_id="inner", agent_id="a", attempt=1, inputs={}))
    for i in range(3):
        display(LoopIteration(run_id="r", path=("react", i), index=2))
    display(NodeCompleted(run_id="r", path=("map", 0), node_id="inner", result=0, duration=2.0))
    display(NodeSkipped(run_id="r", node_id="maybe"))
    clock.now = 1.5

    assert display.status() == ("1.50 s | loop 5 | react[0] loop 3 | react[1] loop 3 | done 1 | skipped 1 | "
                                "running 999: map[1] > inner, map[2] > inner, map[3] > inner, map[4] > inner (+995)")
    display(NodeCompleted(run_id="r", node_id="react", result=0, duration=0.1))
    assert "react" not in display.status()
    display.close()


def test_the_status_pauses_when_the_run_ends_so_a_prompt_after_it_stays_clean() -> None:
    terminal = FakeTerminal()
    display = ProgressDisplay(terminal, rate=50)
    display(NodeStarted(run_id="r", node_id="ask", agent_id="a", attempt=1, inputs={}))
    time.sleep(0.1)
    display(RunFinished(run_id="r"))
    shown = terminal.getvalue()
    time.sleep(0.1)

    assert shown.endswith("\r\x1b[K") and terminal.getvalue() == shown
    display(NodeStarted(run_id="r", node_id="ask", agent_id="a", attempt=2, inputs={}))
    time.sleep(0.1)
    assert terminal.getvalue() != shown
    display.close()


def test_a_slow_node_gets_a_line_but_not_inside_map_rows(monkeypatch) -> None:
    terminal = FakeTerminal()
    display = ProgressDisplay(terminal, slow=0.5)
    for event in [
        NodeCompleted(run_id="r", node_id="fast", result=1, duration=0.1),
        NodeCompleted(run_id="r", node_id="llm", result=1, duration=0.5),
        NodeCompleted(run_id="r", path=("map", 3), node_id="inner", result=1, duration=3.0),
        NodeCompleted(run_id="r", path=("react",), node_id="think", result=1, duration=0.75),
    ]:
        display(event)
    display.close()

    lines = visible(terminal.getvalue())
    assert lines[:2] == ["done     llm  500 ms", "done     react > think  750 ms"]
    assert lines[2].endswith("slowest: map[3] > inner 3.00 s") and lines[3:] == [""]


def test_a_closed_display_that_saw_no_event_writes_nothing() -> None:
    terminal = FakeTerminal()
    ProgressDisplay(terminal).close()
    assert terminal.getvalue() == ""
