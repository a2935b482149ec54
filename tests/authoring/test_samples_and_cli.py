"""Samples as tests: graphrt test-agents, graphrt agents, --agents MODULE, graphrt.testing."""

from __future__ import annotations

import re

import json
import textwrap
from pathlib import Path

import pytest

import graphrt
from graphrt.cli.main import main
from graphrt.testing import assert_samples_pass, parametrize_samples, sample_cases
from graphrt.testing.samples import sample_graph

from ..conftest import NEEDS


@graphrt.agent(samples=[
    {"inputs": {"a": 2, "b": 3}, "params": {}, "result": 5},
    {"inputs": {"a": 2}, "params": {"b": 10}, "result": 12},
])
def add(a: int, b: int = 1) -> int:
    """Adds two numbers.

    Args:
        a: the first.
        b: the second.
    """
    return a + b


@graphrt.agent(samples=[{"inputs": {"a": 1}, "params": {}, "result": 3}])
def wrong(a: int) -> int:
    """Claims a wrong sample."""
    return a


@pytest.fixture
def agent_file(tmp_path: Path) -> Path:
    path = tmp_path / "my_agents.py"
    path.write_text(textwrap.dedent('''
        import graphrt

        @graphrt.agent(samples=[{"inputs": {"text": "hi"}, "params": {}, "result": "HI"}])
        def shout(text: str) -> str:
            """Upper-cases a text.

            Args:
                text: what to shout.
            """
            return text.upper()

        @graphrt.agent(samples=[{"inputs": {"text": "hi"}, "params": {}, "result": "hi!"}])
        def mumble(text: str) -> str:
            """Lower-cases a text."""
            print("mumbling", text)
            return text.lower()
    '''))
    return path


def cli(*argv: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ----- samples -----


def test_a_sample_runs_as_a_one_node_graph_with_literal_inputs() -> None:
    sample = graphrt.Sample(inputs={"text": ":not_a_reference ${x}", "a.b": 1}, params={"p": 1}, result=None)
    info = graphrt.as_agent(add)
    assert sample_graph(info, sample) == {"version": 0.5, "nodes": {
        "sampleInputs": {"value": {"text": ":not_a_reference ${x}", "a.b": 1}},
        "test": {"agent": "add", "params": {"p": 1}, "isResult": True,
                 "inputs": {"text": ":sampleInputs.text", "a.b": 1}},
    }}


def _agents_but_the_browsers() -> list[str]:
    """Every built-in agent that can run, less those of graphrt[browser] (puppeteerAgent): their samples open pages
    in Chromium, and where it is missing their own tests (tests/agents/net/test_puppeteer.py) skip saying so."""
    from graphrt.authoring.plugins import default_registry

    registry = default_registry()
    return [name for name in registry.names() if not registry.why_unavailable(name)
            and ((pack := registry.pack_of(name)) is None or pack.extra != "browser")]


def test_every_built_in_agent_passes_its_samples(capsys) -> None:
    names = _agents_but_the_browsers() if NEEDS["chromium"].absent() else []
    code, out, _ = cli("test-agents", *names, capsys=capsys)
    assert re.fullmatch(r"test-agents: \d+ passed, 0 failed(, \d+ agents skipped \(not installed\))?", out.splitlines()[-1])
    assert code == 0 and "FAIL" not in out


def test_graph_agents_run_their_samples_graph(capsys) -> None:
    code, out, _ = cli("test-agents", "nestedAgent", "mapAgent", "-v", capsys=capsys)
    assert code == 0
    assert "ok   nestedAgent[0]" in out and "ok   mapAgent[0]" in out


def test_test_agents_reports_each_failing_sample_and_exits_1(agent_file: Path, capsys) -> None:
    code, out, _ = cli("test-agents", "shout", "mumble", "--agents", str(agent_file), capsys=capsys)
    assert code == 1
    assert out == 'FAIL mumble[0]: expected "hi!", got "hi"\ntest-agents: 1 passed, 1 failed\n'


def test_test_agents_shows_what_a_failing_agent_printed_with_v(agent_file: Path, capsys) -> None:
    _, out, _ = cli("test-agents", "shout", "mumble", "-v", "--agents", str(agent_file), capsys=capsys)
    assert out == ('ok   shout[0]\nFAIL mumble[0]: expected "hi!", got "hi"\n  | mumbling hi\n'
                   "test-agents: 1 passed, 1 failed\n")


def test_an_unknown_agent_name_is_an_error(capsys) -> None:
    code, _, err = cli("test-agents", "noSuchAgent", capsys=capsys)
    assert (code, err) == (1, "graphrt: no agent named noSuchAgent (see: graphrt agents)\n")


# ----- graphrt agents -----


def test_agents_lists_every_agent_with_its_summary(agent_file: Path, capsys) -> None:
    code, out, _ = cli("agents", "--agents", str(agent_file), capsys=capsys)
    lines = out.splitlines()
    assert code == 0
    assert any(line.split() == ["copyAgent", "vanilla", "Returns", "namedInputs"] for line in lines)
    assert any(line.split()[:4] == ["shout", "-", "Upper-cases", "a"] for line in lines)


def test_agents_json_gives_the_function_info_with_graphais_keys(agent_file: Path, capsys) -> None:
    code, out, _ = cli("agents", "shout", "--json", "--agents", str(agent_file), capsys=capsys)
    assert code == 0
    assert json.loads(out) == [{
        "name": "shout",
        "description": "Upper-cases a text.",
        "category": [], "author": "", "repository": "", "source": "", "package": "", "license": "",
        "inputs": {"type": "object", "properties": {"text": {"type": "string", "description": "what to shout."}},
                   "required": ["text"]},
        "output": {"type": "string"},
        "tools": [{"type": "function", "function": {
            "name": "shout", "description": "Upper-cases a text.",
            "parameters": {"type": "object", "properties": {"text": {"type": "string", "description": "what to shout."}},
                           "required": ["text"], "additionalProperties": False}}}],
        "samples": [{"inputs": {"text": "hi"}, "params": {}, "result": "HI"}],
        "environmentVariables": [], "stream": False, "hasGraphData": False, "pack": None,
    }]


def test_agents_with_a_name_describes_it_in_full(capsys) -> None:
    _, out, _ = cli("agents", "copyAgent", capsys=capsys)
    assert out.startswith("copyAgent\n=========\nReturns namedInputs\n\npack: vanilla\ncategory: data\n")
    assert "\nsamples: " in out


def test_run_takes_agents_from_a_module_file(agent_file: Path, tmp_path: Path, capsys) -> None:
    graph = tmp_path / "g.yaml"
    graph.write_text("version: 0.5\nnodes:\n  s:\n    agent: shout\n    inputs: {text: hey}\n    isResult: true\n")
    code, out, _ = cli("run", str(graph), "-q", "--agents", str(agent_file), capsys=capsys)
    assert (code, json.loads(out)) == (0, {"s": "HEY"})


# ----- graphrt.testing -----


@parametrize_samples(add)
def test_parametrize_samples_gives_one_case_per_sample(sample_case) -> None:
    sample_case.check()


def test_sample_cases_are_named_by_agent_and_index() -> None:
    assert [case.id for case in sample_cases(add)] == ["add[0]", "add[1]"]


def test_assert_samples_pass_lists_every_failure() -> None:
    assert_samples_pass(add)
    with pytest.raises(AssertionError) as caught:
        assert_samples_pass(add, wrong, graphrt.as_agent(add, name="bare", samples=()))
    assert str(caught.value) == "agent samples failed:\n  bare: has no samples\n  wrong[0]: expected 3, got 1"
