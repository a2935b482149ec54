"""Trace files: every event of a run as JSON Lines, errors as text, secrets redacted."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

import graphrt
from graphrt.authoring.agent_info import AgentContext, AgentInfo
from graphrt.cli import main
from graphrt.base.states import NodeState
from graphrt.observe.events import NodeStarted
from graphrt.base.secrets import Redactor
from graphrt.observe.trace import TraceWriter, event_record


def _boom(ctx: AgentContext) -> None:
    raise ValueError("boom")


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_the_trace_holds_every_event_of_the_run(tmp_path: Path, capsys) -> None:
    trace = tmp_path / "run.jsonl"

    assert main(["run", "graphs/hello.yaml", "--trace", str(trace)]) == 0

    records = read(trace)
    assert [(r["type"], r.get("node_id")) for r in records] == [
        ("RunStarted", None),
        ("LoopIteration", None),
        ("NodeQueued", "greeting"),
        ("NodeStarted", "greeting"),
        ("NodeCompleted", "greeting"),
        ("RunFinished", None),
    ]
    started, completed = records[3], records[4]
    assert (started["agent_id"], started["attempt"], started["inputs"], started["path"]) == (
        "stringTemplateAgent", 1, {"name": "World"}, [])
    assert completed["result"] == "Hello, World!"
    assert isinstance(completed["duration"], float)
    assert len({r["run_id"] for r in records}) == 1


def test_errors_are_written_as_text() -> None:
    out = io.StringIO()
    graph = graphrt.Graph({"nodes": {"b": {"agent": "boom", "isResult": True}}}, agents=[AgentInfo("boom", _boom)])

    with pytest.raises(graphrt.AgentError):
        graph.run(subscribe=[TraceWriter(out)])

    records = [json.loads(line) for line in out.getvalue().splitlines()]
    failed = next(r for r in records if r["type"] == "NodeFailed")
    finished = records[-1]
    assert (failed["error"], failed["timed_out"], failed["will_retry"]) == (
        "AgentError: node 'b': ValueError: boom (agent boom)", False, False)
    assert finished == {**finished, "type": "RunFinished", "error": "AgentError: node 'b': ValueError: boom (agent boom)"}


def test_secrets_never_reach_the_trace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setenv("WEATHER_SERVICE_TOKEN", "tok-3f9a8b7c6d")
    graph = tmp_path / "secret.yaml"
    graph.write_text(json.dumps({
        "version": 0.5,
        "nodes": {
            "call": {
                "agent": "copyAgent",
                "inputs": {
                    "apiKey": "sk-abcdefghijklmnopqrstuvwx",
                    "headers": {"Authorization": "Bearer eyJhbGciOi.payload", "Accept": "text/plain"},
                    "note": "token tok-3f9a8b7c6d, key sk-abcdefghijklmnopqrstuvwx",
                    "max_tokens": 5,
                },
                "isResult": True,
            }
        },
    }))
    trace = tmp_path / "run.jsonl"

    assert main(["run", str(graph), "--trace", str(trace)]) == 0

    started = next(r for r in read(trace) if r["type"] == "NodeStarted")
    assert started["inputs"] == {
        "apiKey": "REDACTED",
        "headers": {"Authorization": "REDACTED", "Accept": "text/plain"},
        "note": "token REDACTED, key REDACTED",
        "max_tokens": 5,
    }
    text = trace.read_text()
    assert "tok-3f9a8b7c6d" not in text and "sk-abc" not in text and "eyJhbGciOi" not in text


def test_bearer_tokens_in_free_text_are_redacted() -> None:
    redactor = Redactor(environ={})
    assert redactor.text("401 for Authorization: Bearer abcdefgh12345 at /v1") == "401 for Authorization: Bearer REDACTED at /v1"


def test_values_json_cannot_hold_are_written_as_their_repr() -> None:
    event = NodeStarted(run_id="r", node_id="n", state=NodeState.EXECUTING, agent_id="a", attempt=1,
                         inputs={"blob": b"\x00", "nan": float("nan")})
    record = event_record(event, Redactor(environ={}))
    assert record["inputs"] == {"blob": "b'\\x00'", "nan": None}
    json.dumps(record)


KEY = "cfg-key-7d1e9a0b55c2f3"
LEAKY_GRAPH = f"""\
version: 0.5
nodes:
  quote:
    agent: quotingAgent
    params:
      apiKey: {KEY}
    isResult: true
"""


async def _quoting(ctx: AgentContext) -> str:
    """An LLM that quotes a key it was given, its tokens cut inside it."""
    for piece in ["the key cfg-", "key-7d1e9a", "0b55c2f3 is", " here"]:
        ctx.stream_token(piece)
    return "quoted"


def test_a_key_cut_across_streamed_tokens_is_not_in_the_trace(tmp_path: Path) -> None:
    """Each TokenDelta was redacted alone: `cfg-` and `key-7d1e9a` went into the trace whole, and so the key."""
    trace = tmp_path / "run.jsonl"
    graph = graphrt.Graph(LEAKY_GRAPH, agents=[AgentInfo(name="quotingAgent", func=_quoting)])
    with TraceWriter(trace, redactor=Redactor(environ={}, known=[KEY])) as writer:
        graph.run(subscribe=(writer,))
    tokens = [record["token"] for record in read(trace) if record["type"] == "TokenDelta"]
    text = "".join(tokens)
    assert text == "the key REDACTED is here" and "7d1e9a" not in trace.read_text()
    kinds = [record["type"] for record in read(trace)]
    assert kinds.index("NodeCompleted") > max(index for index, kind in enumerate(kinds) if kind == "TokenDelta")
