"""Cassettes (graphrt/testing/cassette.py): a run's outside calls recorded once, replayed with no network and no
key, and a replay that stops, located, where the graph asks otherwise than its recording.

The LLM is the scripted server of tests/conftest.py, through the real OpenAI SDK; a replay runs with the SDK
pointed at a port where nothing listens, and without a key.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

import graphrt
from graphrt import AgentContext, AgentInfo
from graphrt.engine.journal import JournalMismatch
from graphrt.testing.cassette import Cassette, CassetteError

pytestmark = pytest.mark.anyio

ACT = {"type": "function", "function": {"name": "act", "parameters": {
    "type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}}


def tools_graph(text: str = "Do two effects.") -> dict[str, Any]:
    return {"version": 0.5, "nodes": {"agent": {"agent": "toolsAgent", "isResult": True, "inputs": {
        "tools": ["effectAgent--act"], "userInput": {"text": text}}}}}


class Effects:
    def __init__(self) -> None:
        self.done: list[int] = []

    async def act(self, ctx: AgentContext) -> Any:
        self.done.append(ctx.inputs["arg"]["n"])
        return {"content": f"effect {ctx.inputs['arg']['n']} done"}

    def agents(self) -> list[AgentInfo]:
        return [AgentInfo("effectAgent", self.act, tools=(ACT,), side_effects=True)]


@pytest.fixture
def effects() -> Effects:
    return Effects()


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No LLM server and no key: the SDK would reach a port where nothing listens, if anything asked it."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{port}/v1")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


@pytest.fixture
def recorded(tmp_path: Path, openai_server: Any, reply: Any, effects: Effects) -> dict[str, Any]:
    """A toolsAgent run recorded: two tool calls, then an answer."""
    openai_server.script(reply.tool_calls(("effectAgent--act", {"n": 1})),
                         reply.tool_calls(("effectAgent--act", {"n": 2})), reply.text("both done"))
    path = tmp_path / "effects.jsonl"
    with Cassette.record(path) as tape:
        results = graphrt.run(tools_graph(), agents=effects.agents(), journal=tape)
    assert effects.done == [1, 2]
    effects.done.clear()
    return {"path": path, "results": results, "asked": len(openai_server.requests)}


def test_a_recording_is_json_lines_one_call_a_line(recorded: dict[str, Any]) -> None:
    lines = [json.loads(line) for line in recorded["path"].read_text().splitlines()]
    assert lines[0] == {"cassette": 2, "graph": None, "nodes": ["agent"]}
    assert [(line["path"], line["index"], line["kind"], line["agent"]) for line in lines[1:]] == [
        ("agent/llm", 0, "llm", "openAIAgent"), ("agent/0/tool", 0, "tool", "effectAgent"),
        ("agent/llm", 1, "llm", "openAIAgent"), ("agent/0/tool", 1, "tool", "effectAgent"),
        ("agent/llm", 2, "llm", "openAIAgent")]
    assert lines[2]["request"]["inputs"]["arg"] == {"n": 1}
    assert lines[5]["result"]["value"]["text"] == "both done"  # what it adds to the call before (journal_shared)
    assert not recorded["path"].with_name("effects.jsonl.partial").exists()


def test_a_replay_gives_the_recorded_results_with_no_network_no_key_and_no_effect(recorded, offline, effects) -> None:
    tape = Cassette.replay(recorded["path"])
    results = graphrt.run(tools_graph(), agents=effects.agents(), journal=tape)
    assert results == recorded["results"]
    assert effects.done == []
    assert tape.tool_calls() == [("effectAgent--act", {"n": 1}), ("effectAgent--act", {"n": 2})]


def test_a_replay_stops_at_the_first_call_asked_otherwise_with_its_node_index_and_diff(recorded, offline,
                                                                                       effects) -> None:
    with pytest.raises(JournalMismatch) as mismatch:
        graphrt.run(tools_graph("Do three effects."), agents=effects.agents(),
                    journal=Cassette.replay(recorded["path"]))
    error = mismatch.value
    assert (error.node_id, error.nested, error.path, error.index) == ("agent", ("llm",), "agent/llm", 0)
    assert str(error).startswith(f"node 'agent' > 'llm': call 0 of agent/llm (openAIAgent) asks what the recording "
                                 f"in {recorded['path']} did not; record the run again\n--- journaled\n+++ asked now\n")
    assert '-    "content": "Do two effects.",' in error.diff and '+    "content": "Do three effects.",' in error.diff
    assert effects.done == []


def test_each_llm_line_keeps_only_what_its_request_adds_to_the_one_before(recorded: dict[str, Any]) -> None:
    """A toolsAgent asks each round with the whole conversation, and its LLM agent's result holds it again: its
    cassette keeps the user's message twice (the first request, the first result), not twice a round."""
    lines = [json.loads(line) for line in recorded["path"].read_text().splitlines()[1:]]
    llm = [line["request"] for line in lines if line["kind"] == "llm"]
    assert "digest" not in llm[0] and llm[0]["inputs"]["messages"][0]["content"] == "Do two effects."
    for index, request in enumerate(llm[1:], start=1):
        assert request["$graphrt"] == "shared" and request["base"] == index - 1 and len(request["digest"]) == 64
        assert request["shared"]["/inputs/messages"] == 2 * index - 1  # the user's, then 2 a round
        assert [message["role"] for message in request["value"]["inputs"]["messages"]] == ["assistant", "tool"]
    assert recorded["path"].read_text().count("Do two effects.") == 2


def test_a_replay_that_differs_in_a_later_round_shows_the_whole_request_s_diff(recorded, offline, effects) -> None:
    """The cassette's tool result edited: the LLM call after it asks otherwise, and its diff is of whole requests,
    the line that changed among the messages the line did not repeat."""
    path = recorded["path"]
    lines = path.read_text().splitlines(keepends=True)
    tool = json.loads(lines[2])
    tool["result"]["content"] = "effect 1 failed"
    lines[2] = json.dumps(tool) + "\n"
    path.write_text("".join(lines))
    with pytest.raises(JournalMismatch) as mismatch:
        graphrt.run(tools_graph(), agents=effects.agents(), journal=Cassette.replay(path))
    error = mismatch.value
    assert (error.path, error.index) == ("agent/llm", 1)
    assert '-    "content": "effect 1 done",' in error.diff and '+    "content": "effect 1 failed",' in error.diff
    assert "digest" not in error.diff and "shared" not in error.diff
    assert effects.done == []


def test_a_call_the_recording_does_not_hold_stops_the_replay(recorded, offline, effects) -> None:
    path = recorded["path"]
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:-1]))  # the last answer left out
    with pytest.raises(JournalMismatch) as mismatch:
        graphrt.run(tools_graph(), agents=effects.agents(), journal=Cassette.replay(path))
    assert str(mismatch.value).startswith(
        f"node 'agent' > 'llm': call 2 of agent/llm (openAIAgent) was not recorded in {path} (it holds calls 0, 1 "
        "there); the graph asks what its recording did not: record the run again\n")


def test_a_cassette_cut_short_names_its_line(recorded, offline, effects) -> None:
    path = recorded["path"]
    path.write_text(path.read_text()[:-40])
    with pytest.raises(CassetteError) as damaged:
        graphrt.run(tools_graph(), agents=effects.agents(), journal=Cassette.replay(path))
    assert str(damaged.value).startswith(f"{path}:6: not JSON: ")
    assert str(damaged.value).endswith(" (cut short: the recording was stopped while it wrote it; record the run "
                                       "again)")


@pytest.mark.parametrize("text, said", [
    ("", ":1: not JSON: Expecting value: line 1 column 1 (char 0)"),
    ('{"nodes": []}\n', ':1: not a graphrt cassette (its first line says what it is: {"cassette": 2, "graph": ..., '
                        '"nodes": [...]})'),
    ('{"cassette": 9}\n', ":1: a cassette of version 9, newer than this graphrt reads (2)"),
    ('{"cassette": 1}\n[1, 2]\n', ":2: not a call (an object with path, index, kind, agent, request, result)"),
    ('{"cassette": 1}\n{"path": "agent/llm", "index": 0}\n', ":2: not a call (missing 'kind', 'agent', 'request', "
                                                              "'result')"),
])
def test_a_file_that_is_not_a_cassette_is_refused_naming_the_line(tmp_path, offline, effects, text, said) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(text)
    with pytest.raises(CassetteError) as refused:
        graphrt.run(tools_graph(), agents=effects.agents(), journal=Cassette.replay(path))
    assert str(refused.value) == f"{path}{said}"


def test_a_cassette_of_another_graph_is_refused(recorded, offline, effects) -> None:
    other = {"version": 0.5, "nodes": {"chat": tools_graph()["nodes"]["agent"]}}
    with pytest.raises(CassetteError) as refused:
        graphrt.run(other, agents=effects.agents(), journal=Cassette.replay(recorded["path"]))
    assert str(refused.value) == (f"{recorded['path']} was recorded by nodes agent: this graph has no node 'agent'; "
                                  "replay the recording of this graph, or record it")


def test_an_agent_that_fails_on_its_replayed_result_is_a_located_error(recorded, offline, effects) -> None:
    path = recorded["path"]
    lines = path.read_text().splitlines()
    first = json.loads(lines[1])
    lines[1] = json.dumps({**first, "result": "not a chat result"})
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(graphrt.AgentError) as failed:
        graphrt.run(tools_graph(), agents=effects.agents(), journal=Cassette.replay(path))
    assert str(failed.value) == ("node 'agent': TypeError: toolsAgent: openAIAgent returned str, not a chat result "
                                 "(agent toolsAgent)")


def test_a_recording_holds_no_credential_the_run_knows(tmp_path, openai_server, reply, effects,
                                                       openai_api_key) -> None:
    openai_server.script(reply.text(f"the key is {openai_api_key}"))
    path = tmp_path / "key.jsonl"
    with Cassette.record(path) as tape:
        graphrt.run(tools_graph(), agents=effects.agents(), journal=tape)
    text = path.read_text()
    assert openai_api_key not in text and "the key is REDACTED" in text


def test_a_recording_cut_short_leaves_the_cassette_as_it_was(tmp_path, openai_server, reply, effects) -> None:
    path = tmp_path / "kept.jsonl"
    path.write_text("the recording of before\n")
    openai_server.script(reply.text("hello"))
    tape = Cassette.record(path)
    graphrt.run(tools_graph(), agents=effects.agents(), journal=tape)  # never closed: as if the process died
    assert path.read_text() == "the recording of before\n"
    partial = path.with_name("kept.jsonl.partial").read_text().splitlines()
    assert len(partial) == 2 and json.loads(partial[1])["result"]["text"] == "hello"
    tape.close()
    assert json.loads(path.read_text().splitlines()[1])["result"]["text"] == "hello"


def test_a_cassette_holds_one_run(recorded, offline, effects) -> None:
    tape = Cassette.replay(recorded["path"])
    graphrt.run(tools_graph(), agents=effects.agents(), journal=tape)
    with pytest.raises(CassetteError, match="has been used by a run already: a cassette holds one run$"):
        graphrt.run(tools_graph(), agents=effects.agents(), journal=tape)


def test_the_cassette_fixture_records_a_run_once_and_replays_it_after(cassette, tmp_path, openai_server, reply,
                                                                     effects, monkeypatch) -> None:
    monkeypatch.delenv("GRAPHRT_RECORD", raising=False)
    path = tmp_path / "cassettes" / "effects.jsonl"
    openai_server.script(reply.tool_calls(("effectAgent--act", {"n": 1})), reply.text("done"))
    first = cassette(path)
    assert not first.replays  # nothing recorded yet: it records
    recorded = graphrt.run(tools_graph(), agents=effects.agents(), journal=first)
    first.close()

    again = cassette(path)
    assert again.replays
    assert graphrt.run(tools_graph(), agents=effects.agents(), journal=again) == recorded
    assert again.tool_calls() == [("effectAgent--act", {"n": 1})]
    assert effects.done == [1] and len(openai_server.requests) == 2
    monkeypatch.setenv("GRAPHRT_RECORD", "1")
    assert not cassette(path).replays  # told to record it again


def test_graphs_react_yaml_replays_offline_to_its_recorded_answer(tmp_path, openai_server, reply,
                                                                  monkeypatch) -> None:
    react = Path(__file__).parents[2] / "graphs" / "react.yaml"
    corpus = str(Path(__file__).parents[1] / "llm" / "data" / "wiki_corpus.json")
    openai_server.script(
        reply.text("Thought: I should read about the tower.\nAction: search[Eiffel Tower]"),
        reply.text("Thought: Who was the engineer?\nAction: lookup[engineer]"),
        reply.text("Thought: The page says so.\nAction: finish[Gustave Eiffel's company]"))
    question = {"question": "Who designed the Eiffel Tower?"}
    path = tmp_path / "react.jsonl"
    with Cassette.record(path) as tape:
        recorded = graphrt.run(react, config={"wikiAgent": {"corpus": corpus}}, inject=question,
                               journal=tape)
    assert recorded["answer"] == "Gustave Eiffel's company"
    assert tape.tool_calls() == [("wikiAgent--search", {"entity": "Eiffel Tower"}),
                                 ("wikiAgent--lookup", {"term": "engineer"})]

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{probe.getsockname()[1]}/v1")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    replay = Cassette.replay(path)
    replayed = graphrt.run(react, config={"wikiAgent": {"corpus": "/nonexistent/corpus.json"}},
                           inject=question, journal=replay)
    assert replayed == recorded and len(openai_server.requests) == 3


def test_a_replayed_streamed_reply_streams_its_text_again(tmp_path, openai_server, reply, offline_later) -> None:
    """The viewer and the CLI show a replayed streamed reply as they showed it when it was recorded."""
    from graphrt.observe.events import TokenDelta

    graph = {"version": 0.5, "nodes": {"llm": {"agent": "openAIAgent", "isResult": True,
                                                "inputs": {"prompt": "Say hi."}, "params": {"stream": True}}}}
    openai_server.script(reply.text("Hello from the recording."))
    path = tmp_path / "stream.jsonl"
    recorded: list[Any] = []
    with Cassette.record(path) as tape:
        results = graphrt.run(graph, journal=tape, subscribe=[recorded.append])
    assert "".join(event.token for event in recorded if isinstance(event, TokenDelta)) == "Hello from the recording."

    offline_later()
    replayed: list[Any] = []
    assert graphrt.run(graph, journal=Cassette.replay(path), subscribe=[replayed.append]) == results
    tokens = [event for event in replayed if isinstance(event, TokenDelta)]
    assert [(event.node_id, event.token) for event in tokens] == [("llm", "Hello from the recording.")]


@pytest.fixture
def offline_later(monkeypatch: pytest.MonkeyPatch) -> Any:
    """What makes the rest of a test offline (as `offline`), once it has recorded."""

    def go() -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{port}/v1")
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)

    return go
