"""`graphrt run --record FILE` and `--replay FILE`: a run recorded once, replayed with no network and no key."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path
from typing import Any

from ..commands import GRAPHRT
from ..durable.journal_agents import effects_graph

AGENTS = str(Path(__file__).parents[1] / "durable" / "journal_agents.py")

GRAPH = effects_graph("TEXT")


def _graphrt(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([*GRAPHRT, *args], capture_output=True, text=True, env=env, timeout=120)


def _nowhere() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}/v1"


def test_a_run_recorded_once_replays_offline_and_stops_where_the_graph_asks_otherwise(
        tmp_path: Path, openai_server: Any, reply: Any) -> None:
    graph = tmp_path / "effects.yaml"
    graph.write_text(GRAPH.replace("TEXT", "Do one effect."))
    effects = tmp_path / "effects.log"
    env = {**os.environ, "GRAPHRT_EFFECTS": str(effects)}
    tape = tmp_path / "effects.jsonl"
    openai_server.script(reply.tool_calls(("effectAgent--act", {"n": 1})), reply.text("one done"))

    recorded = _graphrt("run", str(graph), "--agents", AGENTS, "--record", str(tape), "-q", env=env)
    assert recorded.returncode == 0, recorded.stderr
    assert effects.read_text().split() == ["1"]
    assert json.loads(tape.read_text().splitlines()[0]) == {"cassette": 2, "graph": "effects.yaml", "nodes": ["agent"]}

    offline = {key: value for key, value in env.items() if key != "OPENAI_API_KEY"}
    offline["OPENAI_BASE_URL"] = _nowhere()
    replayed = _graphrt("run", str(graph), "--agents", AGENTS, "--replay", str(tape), "-q", env=offline)
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout) == json.loads(recorded.stdout)
    assert effects.read_text().split() == ["1"] and len(openai_server.requests) == 2  # nothing made again

    graph.write_text(GRAPH.replace("TEXT", "Do two effects."))
    changed = _graphrt("run", str(graph), "--agents", AGENTS, "--replay", str(tape), "-q", env=offline)
    assert changed.returncode == 1 and changed.stdout == ""
    said = changed.stderr.splitlines()
    assert said[0] == (f"graphrt: {graph}:3:3: node 'agent' > 'llm': call 0 of agent/llm (openAIAgent) asks what the "
                       f"recording in {tape} did not; record the run again")
    assert "-    \"content\": \"Do one effect.\"," in said and "+    \"content\": \"Do two effects.\"," in said


def test_record_and_replay_go_alone(tmp_path: Path) -> None:
    graph = tmp_path / "g.yaml"
    graph.write_text(GRAPH)
    both = _graphrt("run", str(graph), "--record", "a.jsonl", "--replay", "b.jsonl", env=dict(os.environ))
    assert both.returncode == 2 and "argument --replay: not allowed with argument --record" in both.stderr


def test_a_batch_records_each_row_and_replays_each_from_its_own(tmp_path: Path, openai_server: Any,
                                                                reply: Any) -> None:
    graph = tmp_path / "effects.yaml"
    graph.write_text(GRAPH.replace("TEXT", '":text"').replace("nodes:\n", "nodes:\n  text:\n    value: ''\n"))
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"id": "a", "text": "Say a."}\n{"id": "b", "text": "Say b."}\n')
    tape = tmp_path / "rows.jsonl.cassette"
    env = {**os.environ, "GRAPHRT_EFFECTS": str(tmp_path / "effects.log")}
    openai_server.respond(lambda body: reply.text("said " + body["messages"][-1]["content"]))

    recorded = _graphrt("batch", str(graph), str(rows), "--id-field", "id", "--no-checkpoint", "--agents", AGENTS,
                        "--record", str(tape), "-q", env=env)
    assert recorded.returncode == 0, recorded.stderr
    lines = [json.loads(line) for line in tape.read_text().splitlines()[1:]]
    assert sorted((line["run"], line["result"]["text"]) for line in lines) == [("a", "said Say a."),
                                                                              ("b", "said Say b.")]

    offline = {key: value for key, value in env.items() if key != "OPENAI_API_KEY"}
    offline["OPENAI_BASE_URL"] = _nowhere()
    replayed = _graphrt("batch", str(graph), str(rows), "--id-field", "id", "--no-checkpoint", "--agents", AGENTS,
                        "--replay", str(tape), "-q", env=offline)
    assert replayed.returncode == 0, replayed.stderr
    # The same outcomes; what a row spent is what its calls cost when made: a replay makes none, and spends nothing.
    made = [json.loads(line) for line in recorded.stdout.splitlines()]
    again = [json.loads(line) for line in replayed.stdout.splitlines()]
    assert [line["usage"]["llm_calls"] for line in made] == [1, 1] and all("usage" not in line for line in again)
    assert again == [{key: value for key, value in line.items() if key != "usage"} for line in made]
    assert len(openai_server.requests) == 2
    on_ray = _graphrt("batch", str(graph), str(rows), "--replay", str(tape), "--executor", "ray", env=offline)
    assert on_ray.returncode == 1
    assert on_ray.stderr.strip().endswith("--replay runs the rows in this process, where their calls are journaled: "
                                          "leave out --executor")
