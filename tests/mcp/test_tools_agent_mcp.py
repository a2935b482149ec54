"""toolsAgent with MCP servers as tool sources, the LLM scripted (tests/conftest.py), the servers real."""

from __future__ import annotations

import json

import pytest

import graphrt
from graphrt import ServiceError

pytestmark = pytest.mark.anyio


def chat(tools: list, text: str = "Go.") -> dict:
    return {"version": 0.5, "nodes": {"chat": {"agent": "toolsAgent", "isResult": True,
                                               "inputs": {"tools": tools, "userInput": {"text": text}}}}}


def tool_messages(request: dict) -> list[str]:
    return [message["content"] for message in request["messages"] if message["role"] == "tool"]


async def test_a_servers_tools_reach_the_llm_with_their_own_schemas_and_answer_it(reply, openai_server, kit):
    openai_server.script(reply.tool_calls(("tests--add", {"a": 2, "b": 40})), reply.text("It is 42."))
    results = await graphrt.arun(chat(["tests"]), config=kit.config(tests=kit.stdio()))
    sent = {tool["function"]["name"]: tool["function"] for tool in openai_server.requests[0]["tools"]}
    assert {"tests--echo", "tests--add", "tests--fail", "tests--die"} <= set(sent)
    assert sent["tests--add"]["parameters"]["required"] == ["a", "b"]
    assert sent["tests--add"]["description"] == "Adds two integers."
    assert tool_messages(openai_server.requests[1]) == ["42"]
    chat_result = results["chat"]
    assert chat_result["text"] == "It is 42."
    assert chat_result["messages"][2]["extra"] == {"agent": "tests", "arg": {"a": 2, "b": 40}, "func": "add"}
    assert chat_result["data"]["tests--add"]["response"]["content"] == [{"type": "text", "text": "42"}]


async def test_mcp_tools_sit_beside_registered_agents(reply, openai_server, kit):
    async def shout(ctx):
        return {"content": str(ctx.inputs["arg"]["text"]).upper()}

    schema = {"type": "function", "function": {"name": "shout", "parameters": {
        "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}}
    agent = graphrt.AgentInfo(name="shoutAgent", func=shout, tools=(schema,))
    openai_server.script(reply.tool_calls(("shoutAgent--shout", {"text": "hi"}), ("tests--echo", {"text": "hi"})),
                         reply.text("Done."))
    await graphrt.arun(chat(["shoutAgent", "tests--echo"]), agents=[agent], config=kit.config(tests=kit.stdio()))
    assert sorted(tool["function"]["name"] for tool in openai_server.requests[0]["tools"]) == ["shoutAgent--shout", "tests--echo"]
    assert tool_messages(openai_server.requests[1]) == ["HI", "echo: hi"]


async def test_bad_arguments_are_checked_before_the_call_and_told_to_the_llm(reply, openai_server, kit):
    openai_server.script(
        reply.tool_calls(("tests--add", {"a": "two", "b": 2})),
        reply.tool_calls(("tests--add", "{not json")),
        reply.text("Sorry."),
    )
    results = await graphrt.arun(chat(["tests--add", "tests--whoami"]), config=kit.config(tests=kit.stdio()))
    first, second = tool_messages(openai_server.requests[1])[0], tool_messages(openai_server.requests[2])[-1]
    assert first.startswith("Error: invalid arguments for tests--add") and "a:" in first
    assert "not valid JSON" in second
    assert results["chat"]["text"] == "Sorry."
    assert "tests--add" not in results["chat"]["data"]


async def test_a_tools_error_goes_back_to_the_llm(reply, openai_server, kit):
    openai_server.script(reply.tool_calls(("tests--fail", {"reason": "quota exceeded"})), reply.text("It failed."))
    results = await graphrt.arun(chat(["tests"]), config=kit.config(tests=kit.stdio()))
    [message] = tool_messages(openai_server.requests[1])
    assert message == "Error executing tool fail: quota exceeded"  # the server's own words, isError
    assert results["chat"]["finished"] is True


async def test_the_llm_cannot_call_a_tool_the_node_did_not_grant(reply, openai_server, kit):
    openai_server.script(reply.tool_calls(("tests--whoami", {})), reply.text("Ok."))
    results = await graphrt.arun(chat(["tests--echo"]), config=kit.config(tests=kit.stdio()))
    [message] = tool_messages(openai_server.requests[1])
    assert message == "Error: unknown tool 'tests--whoami'; the tools you can call are: tests--echo"
    assert [tool["function"]["name"] for tool in openai_server.requests[0]["tools"]] == ["tests--echo"]
    assert results["chat"]["data"] == {}


async def test_a_tool_the_server_does_not_have(openai_server, kit):
    with pytest.raises(graphrt.GraphError, match=r"MCP server 'tests' has no tool 'nope' \(its tools: echo, add"):
        await graphrt.arun(chat(["tests--nope"]), config=kit.config(tests=kit.stdio()))
    assert openai_server.requests == []


async def test_a_server_that_dies_during_a_tool_call_fails_the_node(reply, openai_server, kit):
    openai_server.script(reply.tool_calls(("tests--die", {})), reply.text("never asked"))
    with pytest.raises(ServiceError) as caught:
        await graphrt.arun(chat(["tests"]), config=kit.config(tests=kit.stdio()))
    assert "node 'chat'" in str(caught.value) and "MCP server 'tests' closed the connection" in str(caught.value)
    assert len(openai_server.requests) == 1


async def test_a_server_that_cannot_start_fails_the_node_before_the_llm_is_asked(openai_server, kit):
    with pytest.raises(ServiceError, match=r"node 'chat'.*MCP server 'bad' failed to start.*TEST_TOKEN"):
        await graphrt.arun(chat(["bad"]), config=kit.config(bad=kit.stdio("broken")))
    assert openai_server.requests == []


async def test_the_file_server_reads_only_inside_its_folder(reply, openai_server, kit, tmp_path):
    root = tmp_path / "notes"
    root.mkdir()
    (root / "plan.txt").write_text("Ship on Friday.\n")
    (tmp_path / "private.txt").write_text("secret")
    files = {"command": "python", "args": ["-m", "graphrt.mcp.file_server", str(root)]}
    openai_server.script(
        reply.tool_calls(("files--list_files", {}), ("files--read_file", {"path": "plan.txt"}),
                         ("files--read_file", {"path": "../private.txt"})),
        reply.text("Friday."),
    )
    await graphrt.arun(chat(["files"]), config=kit.config(files=files))
    listing, plan, escape = tool_messages(openai_server.requests[1])
    assert listing == "plan.txt" and plan == "Ship on Friday.\n"
    assert escape.endswith("'../private.txt' is outside the folder this server reads")
    assert "secret" not in json.dumps(openai_server.requests[1])


async def test_a_journaled_tool_call_carries_its_idempotency_key_in_meta(reply, openai_server, kit, tmp_path):
    from graphrt.durable import arun_checkpointed

    openai_server.script(reply.tool_calls(("tests--meta", {})), reply.text("Seen."))
    graph = graphrt.Graph(chat(["tests--meta"]), config=kit.config(tests=kit.stdio()))
    await arun_checkpointed(graph, tmp_path / "runs.db", run_id="r1")
    sent = json.loads(tool_messages(openai_server.requests[1])[0])
    assert list(sent) == ["io.graphrt/idempotency-key"] and len(sent["io.graphrt/idempotency-key"]) == 32

    openai_server.script(reply.tool_calls(("tests--meta", {})), reply.text("Seen."))
    await graphrt.arun(chat(["tests--meta"]), config=kit.config(tests=kit.stdio()))  # no journal: no key
    assert tool_messages(openai_server.requests[3]) == ["{}"]


async def test_a_replay_lists_the_servers_tools_from_its_cassette_and_starts_no_server(reply, openai_server, kit,
                                                                                         tmp_path):
    """The tools offered to the LLM are an outside call too: replayed, the server is never started (here it cannot
    start), and the LLM is not asked."""
    from graphrt.testing.cassette import Cassette

    openai_server.script(reply.tool_calls(("tests--add", {"a": 2, "b": 40})), reply.text("It is 42."))
    path = tmp_path / "mcp.jsonl"
    with Cassette.record(path) as tape:
        recorded = await graphrt.arun(chat(["tests"]), config=kit.config(tests=kit.stdio()), journal=tape)
    asked = len(openai_server.requests)

    replayed = await graphrt.arun(chat(["tests"]), config=kit.config(tests=kit.stdio("broken")),
                                  journal=Cassette.replay(path))
    assert replayed == recorded
    assert len(openai_server.requests) == asked
