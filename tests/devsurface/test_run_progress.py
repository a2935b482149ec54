"""`graphrt run`: validation first, live progress on a terminal, only results when piped or quiet."""

from __future__ import annotations

import io
import re
import sys
import textwrap
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


def without_times(lines: list[str]) -> list[str]:
    return [re.sub(r"<?\d+(\.\d+)? (ms|s)$", "<time>", line) for line in lines]


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


def test_a_terminal_shows_nodes_and_loop_iterations_as_they_happen(monkeypatch, capsys) -> None:
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)

    assert main(["run", "graphs/accumulate.yaml"]) == 0

    assert without_times(visible(terminal.getvalue())) == [
        "done     shift  <time>",
        "done     push  <time>",
        "loop     iteration 2",
        "done     shift  <time>",
        "done     push  <time>",
        "loop     iteration 3",
        "done     shift  <time>",
        "done     push  <time>",
        "",
    ]
    assert capsys.readouterr().out.startswith('{\n  "list": [')


def test_quiet_shows_nothing_on_a_terminal_either(monkeypatch, capsys) -> None:
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)

    assert main(["run", "--quiet", "graphs/accumulate.yaml"]) == 0

    assert terminal.getvalue() == ""


def test_the_display_streams_tokens_reports_trouble_and_lists_nested_nodes_but_not_map_rows() -> None:
    terminal = FakeTerminal()
    display = ProgressDisplay(terminal)
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
        "skipped  maybe",
        "progress crawl  page 2 of 3",
        "loop     react iteration 2",
        "done     react > act  2.0 ms",
        "done     llm  1.25 s",
        "",
    ]
