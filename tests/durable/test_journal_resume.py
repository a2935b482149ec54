"""A run's outside calls are journaled: a toolsAgent run killed with SIGKILL in the middle of its loop
resumes from where it stopped, and no tool's effect happens twice.

The LLM is the scripted OpenAI-compatible server of tests/conftest.py, reached through the real SDK by the
`graphrt` commands this test starts; it answers from the conversation it is sent (act on effect n+1 until
four are done), so it answers a resumed run as it would have answered the run that was killed.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ..commands import GRAPHRT
from ..waiting import wait_until
from .journal_agents import effects_graph

AGENTS = str(Path(__file__).with_name("journal_agents.py"))

GRAPH = effects_graph("Do four effects, one at a time.")


def _acting_llm(reply: Any, hold_third: dict[str, bool]) -> Any:
    """An LLM that asks for effect n+1 while fewer than four are done, then answers; the third request is held
    (never answered) while `hold_third["on"]`."""

    def respond(body: dict[str, Any]) -> Any:
        done = sum(1 for message in body["messages"] if message.get("role") == "tool")
        answer = reply.tool_calls(("effectAgent--act", {"n": done + 1})) if done < 4 else reply.text("all done")
        return reply.held(answer) if done == 2 and hold_third["on"] else answer

    return respond


def _graphrt(*args: str, env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen([*GRAPHRT, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def test_a_tools_agent_killed_during_its_third_llm_call_resumes_without_repeating_an_effect(
        tmp_path: Path, openai_server: Any, reply: Any) -> None:
    graph = tmp_path / "effects.yaml"
    graph.write_text(GRAPH)
    effects = tmp_path / "effects.log"
    env = {**os.environ, "GRAPHRT_EFFECTS": str(effects)}
    hold = {"on": True}
    openai_server.respond(_acting_llm(reply, hold))
    db = str(tmp_path / "runs.db")

    run = _graphrt("run", str(graph), "--agents", AGENTS, "--checkpoint", db, "--run-id", "effects", "-q", env=env)
    try:
        wait_until(lambda: len(openai_server.requests) == 3, "the run's third LLM call")
    finally:
        run.kill()
        run.communicate()
    assert effects.read_text().split() == ["1", "2"]

    hold["on"] = False
    resumed = _graphrt("resume", "--checkpoint", db, "--run-id", "effects", "--agents", AGENTS, "-q", env=env)
    out, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    assert effects.read_text().split() == ["1", "2", "3", "4"]
    # The resumed run asked the LLM only what the killed one had no answer to: its third call, and two more.
    assert len(openai_server.requests) == 3 + 3
    chat = json.loads(out)["agent"]
    assert chat["text"] == "all done" and chat["finished"] is True
    assert [message["content"] for message in chat["messages"] if message["role"] == "tool"] == [
        "effect 1 done", "effect 2 done", "effect 3 done", "effect 4 done"]


@pytest.fixture
def killed_in_effect_3(tmp_path: Path, openai_server: Any, reply: Any) -> dict[str, Any]:
    """A run killed with SIGKILL in the middle of its third tool call, whose effect was done and whose result was
    not returned."""
    graph = tmp_path / "effects.yaml"
    graph.write_text(GRAPH)
    effects = tmp_path / "effects.log"
    env = {**os.environ, "GRAPHRT_EFFECTS": str(effects), "GRAPHRT_EFFECT_HANG": "3"}
    openai_server.respond(_acting_llm(reply, {"on": False}))
    db = str(tmp_path / "runs.db")
    run = _graphrt("run", str(graph), "--agents", AGENTS, "--checkpoint", db, "--run-id", "effects", env=env)
    try:
        assert run.stdout.readline() == "acting 3\n"  # what agents print goes to stdout without -q
    finally:
        run.kill()
        run.communicate()
    assert effects.read_text().split() == ["1", "2", "3"]
    return {"db": db, "effects": effects, "env": {**env, "GRAPHRT_EFFECT_HANG": ""}, "graph": graph}


def _resume(killed: dict[str, Any], *more: str) -> tuple[int, str, str]:
    resumed = _graphrt("resume", "--checkpoint", killed["db"], "--run-id", "effects", "--agents", AGENTS, "-q", *more,
                       env=killed["env"])
    out, err = resumed.communicate(timeout=120)
    return resumed.returncode, out, err


def test_a_tool_call_killed_in_the_middle_is_asked_about_and_not_made_again_when_it_happened(
        killed_in_effect_3: dict[str, Any]) -> None:
    code, out, err = _resume(killed_in_effect_3)
    assert code == 3, err  # waiting for an answer
    assert "waiting for an answer: Did call 2 of agent/0/tool (effectAgent), asked " in err
    assert '"arg":{"n":3}' in err
    assert killed_in_effect_3["effects"].read_text().split() == ["1", "2", "3"]

    code, out, err = _resume(killed_in_effect_3, "--answer", "yes")
    assert code == 0, err
    assert killed_in_effect_3["effects"].read_text().split() == ["1", "2", "3", "4"]
    assert json.loads(out)["agent"]["text"] == "all done"


def test_a_tool_call_killed_in_the_middle_is_made_again_when_it_did_not_happen(
        killed_in_effect_3: dict[str, Any]) -> None:
    assert _resume(killed_in_effect_3)[0] == 3
    code, out, err = _resume(killed_in_effect_3, "--answer", "no")
    assert code == 0, err
    assert killed_in_effect_3["effects"].read_text().split() == ["1", "2", "3", "3", "4"]


def test_a_tool_call_killed_in_the_middle_fails_the_resume_when_told_to(killed_in_effect_3: dict[str, Any]) -> None:
    code, out, err = _resume(killed_in_effect_3, "--uncertain", "fail")
    assert code == 1 and out == ""
    assert err.startswith(f"graphrt: {killed_in_effect_3['graph']}:3:3: node 'agent' > 'tool': call 2 of agent/0/tool "
                          "(effectAgent) started before the run stopped, and no result of it was kept"), err
    assert killed_in_effect_3["effects"].read_text().split() == ["1", "2", "3"]
