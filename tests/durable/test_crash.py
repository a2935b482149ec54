"""A run killed mid-way (SIGKILL) or stopped with Ctrl-C (SIGINT) resumes to the results of an uninterrupted run."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from ..commands import GRAPHRT

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
    inputs: {i: "@loop", left: ":left.side", token: tok-ABCDEFGH12345, lib: sk-abcdefghijklmnopqrstuvwx}
  gate:
    agent: gateAgent
    inputs: {i: "@loop", l: ":after_left.left", r: ":right.side", nextPageToken: ":after_left.token", key: ":after_left.lib"}
  collect:
    agent: pushAgent
    inputs: {array: ":seen", item: "${:gate.i} ${:gate.nextPageToken} ${:gate.key}"}
"""


# Values under secret-sounding keys, and text that looks like a key, come back as they were: a checkpoint holds data.
SEEN = {"seen": [f"{i} tok-ABCDEFGH12345 sk-abcdefghijklmnopqrstuvwx" for i in range(3)]}


def _graphrt(*args: str, env: dict[str, str]) -> subprocess.Popen:
    command = [*GRAPHRT, *args]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _setup(folder: Path) -> dict:
    graph = folder / "crash.yaml"
    graph.write_text(GRAPH)
    block = folder / "block"
    block.touch()
    env = {**os.environ, "GRAPHRT_CRASH_LOG": str(folder / "calls.log"), "GRAPHRT_CRASH_BLOCK": str(block)}
    return {"graph": str(graph), "db": str(folder / "runs.db"), "log": folder / "calls.log", "block": block,
            "env": env, "tmp": folder}


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


def _resume(crash: dict) -> dict:
    crash["block"].unlink()
    process = _graphrt("resume", "--checkpoint", crash["db"], "--agents", AGENTS, env=crash["env"])
    out, err = process.communicate()
    return {"code": process.returncode, "out": out, "err": err,
            "calls": Counter(crash["log"].read_text().splitlines())}


@pytest.fixture(scope="module")
def killed(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A run killed with SIGKILL while a node of its second iteration runs, then resumed."""
    crash = _setup(tmp_path_factory.mktemp("killed"))
    process = _start_and_wait_until_blocked(crash)
    process.kill()
    process.communicate()
    return {**_resume(crash), "plain": _uninterrupted(crash)}


@pytest.fixture(scope="module")
def stopped(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A run stopped with SIGINT (Ctrl-C) at the same point, then resumed by the command it printed.

    While it runs, a resume of it from another process is refused.
    """
    crash = _setup(tmp_path_factory.mktemp("stopped"))
    process = _start_and_wait_until_blocked(crash)
    taken = _graphrt("resume", "--checkpoint", crash["db"], "--run-id", "crash", "--agents", AGENTS, env=crash["env"])
    _, taken_err = taken.communicate()
    process.send_signal(signal.SIGINT)
    _, err = process.communicate()
    crash["block"].unlink()
    hinted = shlex.split(err.splitlines()[-1].split("Continue it with: ", 1)[-1])
    assert hinted[:2] == ["graphrt", "resume"], err
    resumed = _graphrt(*hinted[1:], env=crash["env"])
    out, resumed_err = resumed.communicate()
    return {"stop_code": process.returncode, "stop_err": err, "db": crash["db"], "taken_code": taken.returncode,
            "taken_err": taken_err, "code": resumed.returncode, "out": out, "err": resumed_err,
            "calls": Counter(crash["log"].read_text().splitlines())}


def test_a_killed_run_resumes_to_the_results_of_an_uninterrupted_run(killed: dict) -> None:
    assert (killed["code"], killed["err"]) == (0, "")
    assert json.loads(killed["out"]) == killed["plain"] == SEEN


def test_after_a_kill_no_completed_node_runs_twice(killed: dict) -> None:
    calls = killed["calls"]

    assert {call: count for call, count in calls.items() if count > 1} == {"gate@1": 2}  # it was running when killed
    assert sum(calls.values()) == 13


def test_ctrl_c_saves_the_run_exits_130_and_says_how_to_resume_with_the_agents_it_needs(stopped: dict) -> None:
    assert stopped["stop_code"] == 130
    assert stopped["stop_err"].splitlines()[-1] == (f"graphrt: stopped; the run is saved. Continue it with: "
                                                    f"graphrt resume --checkpoint {stopped['db']} --run-id crash "
                                                    f"--agents {AGENTS}")


def test_a_run_stopped_with_ctrl_c_resumes_to_the_same_results_with_the_command_it_printed(stopped: dict) -> None:
    assert (stopped["code"], stopped["err"], json.loads(stopped["out"])) == (0, "", SEEN)


def test_a_resume_of_a_run_running_elsewhere_is_refused_without_suggesting_a_resume(stopped: dict) -> None:
    assert stopped["taken_code"] == 1
    assert stopped["taken_err"] == (f"graphrt: run 'crash' in {stopped['db']} is running elsewhere (another process or "
                                    "task resumed it); wait for it to finish or stop it, then resume\n")
    assert {call: count for call, count in stopped["calls"].items() if count > 1} == {"gate@1": 2}
