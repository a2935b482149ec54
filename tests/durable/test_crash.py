"""A run killed mid-way (SIGKILL) or stopped with Ctrl-C (SIGINT) resumes to the results of an uninterrupted run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

AGENTS = str(Path(__file__).with_name("crash_agents.py"))

GRAPH = """\
version: 0.5
loop:
  count: 3
nodes:
  seen:
    value: []
    update: :collect.array
    isResult: true
  left:
    agent: logAgent
    inputs: {i: "@loop", side: left}
  right:
    agent: logAgent
    inputs: {i: "@loop", side: right}
  after_left:
    agent: logAgent
    inputs: {i: "@loop", left: ":left.side"}
  gate:
    agent: gateAgent
    inputs: {i: "@loop", l: ":after_left.left", r: ":right.side"}
  collect:
    agent: pushAgent
    inputs: {array: ":seen", item: ":gate.i"}
"""


def _graphrt(*args: str, env: dict[str, str]) -> subprocess.Popen:
    command = [sys.executable, "-c", "import sys; from graphrt.cli import main; sys.exit(main())", *args]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


@pytest.fixture
def crash(tmp_path: Path) -> dict:
    graph = tmp_path / "crash.yaml"
    graph.write_text(GRAPH)
    block = tmp_path / "block"
    block.touch()
    env = {**os.environ, "GRAPHRT_CRASH_LOG": str(tmp_path / "calls.log"), "GRAPHRT_CRASH_BLOCK": str(block)}
    return {"graph": str(graph), "db": str(tmp_path / "runs.db"), "log": tmp_path / "calls.log", "block": block,
            "env": env, "tmp": tmp_path}


def _uninterrupted(crash: dict) -> dict:
    env = {**crash["env"], "GRAPHRT_CRASH_LOG": str(crash["tmp"] / "plain.log"), "GRAPHRT_CRASH_BLOCK": ""}
    out, err = _graphrt("run", crash["graph"], "--agents", AGENTS, "-q", env=env).communicate()
    assert err == ""
    return json.loads(out)


def _start_and_wait_until_blocked(crash: dict) -> subprocess.Popen:
    process = _graphrt("run", crash["graph"], "--agents", AGENTS, "--checkpoint", crash["db"], "--run-id", "crash",
                       env=crash["env"])
    line = process.stdout.readline()
    assert line == "blocked\n", process.communicate()
    return process


def _resume(crash: dict) -> tuple[int, str, str]:
    crash["block"].unlink()
    process = _graphrt("resume", crash["db"], "--agents", AGENTS, env=crash["env"])
    out, err = process.communicate()
    return process.returncode, out, err


def test_a_killed_run_resumes_to_the_results_of_an_uninterrupted_run(crash: dict) -> None:
    process = _start_and_wait_until_blocked(crash)
    process.kill()
    process.communicate()

    code, out, err = _resume(crash)

    assert (code, err) == (0, "")
    assert json.loads(out) == _uninterrupted(crash) == {"seen": [0, 1, 2]}


def test_after_a_kill_no_completed_node_runs_twice(crash: dict) -> None:
    process = _start_and_wait_until_blocked(crash)
    process.kill()
    process.communicate()

    _resume(crash)

    calls = Counter(crash["log"].read_text().splitlines())
    assert {call: count for call, count in calls.items() if count > 1} == {"gate@1": 2}  # it was running when killed
    assert sum(calls.values()) == 13


def test_ctrl_c_saves_the_run_exits_130_and_says_how_to_resume(crash: dict) -> None:
    process = _start_and_wait_until_blocked(crash)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate()

    assert process.returncode == 130
    assert err.splitlines()[-1] == (f"graphrt: stopped; the run is saved. Continue it with: "
                                    f"graphrt resume {crash['db']} --run-id crash")


def test_a_run_stopped_with_ctrl_c_resumes_to_the_same_results(crash: dict) -> None:
    process = _start_and_wait_until_blocked(crash)
    process.send_signal(signal.SIGINT)
    process.communicate()

    code, out, _ = _resume(crash)

    assert (code, json.loads(out)) == (0, {"seen": [0, 1, 2]})
    assert Counter(crash["log"].read_text().splitlines())["left@1"] == 1
