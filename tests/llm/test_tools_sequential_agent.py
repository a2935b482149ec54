"""toolsSequentialAgent with openAIAgent against the scripted server: one LLM call with the tools, then each tool call
in turn, each answered by the LLM without tools; every request a conversation OpenAI's API accepts."""

from __future__ import annotations

from typing import Any

import pytest

import graphrt
from graphrt.observe.events import ToolReturned

from .test_tools_agent import WeatherTools

pytestmark = pytest.mark.anyio


def sequential_node(**inputs: Any) -> dict[str, Any]:
    node_inputs = {"tools": ["weatherAgent"], "messages": [], "userInput": {"text": "What is the weather?"}, **inputs}
    return {"version": 0.5, "nodes": {"chat": {"agent": "toolsSequentialAgent", "inputs": node_inputs,
                                               "isResult": True}}}


@pytest.fixture
def weather() -> WeatherTools:
    return WeatherTools()


def protocol_errors(messages: list[dict[str, Any]]) -> list[str]:
    """What OpenAI's chat API refuses in `messages`: a tool message that does not answer a call of the assistant
    message before it (tool messages between), and an assistant message's call left unanswered before the next
    message that is not a tool message."""
    errors, open_calls = [], set()
    for index, message in enumerate(messages):
        if message["role"] == "tool":
            if message["tool_call_id"] not in open_calls:
                errors.append(f"message {index} answers no open call")
            open_calls.discard(message["tool_call_id"])
            continue
        if open_calls:
            errors.append(f"message {index} comes before calls {sorted(open_calls)} are answered")
        open_calls = {call["id"] for call in message.get("tool_calls") or []}
    return errors


async def test_a_text_answer_is_the_whole_conversation(reply, openai_server, run_graph, weather):
    openai_server.script(reply.text("Ask me about a city."))
    history = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]
    results = await run_graph(sequential_node(messages=history), agents=weather.agents())
    assert results["chat"] == {"messages": [
        *history,
        {"role": "user", "content": "What is the weather?"},
        {"role": "assistant", "content": "Ask me about a city."},
    ]}
    [request] = openai_server.requests
    assert [tool["function"]["name"] for tool in request["tools"]] == ["weatherAgent--get"]
    assert request["messages"] == results["chat"]["messages"][:3]


async def test_the_llm_answers_the_tool_s_result_without_tools(reply, openai_server, run_graph, weather):
    openai_server.script(reply.tool_calls(("weatherAgent--get", {"city": "Paris"})), reply.text("Fine in Paris."))
    results = await run_graph(sequential_node(), agents=weather.agents())
    assert results["chat"] == {"messages": [
        {"role": "user", "content": "What is the weather?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1_0", "type": "function",
             "function": {"name": "weatherAgent--get", "arguments": '{"city": "Paris"}'}}]},
        {"role": "tool", "tool_call_id": "call_1_0", "name": "weatherAgent--get", "content": "Weather in Paris: fine",
         "extra": {"agent": "weatherAgent", "arg": {"city": "Paris"}, "func": "get",
                   "data": {"city": "Paris", "seen": ["Paris"]}}},
        {"role": "assistant", "content": "Fine in Paris."},
    ]}
    assert weather.calls == [{"func": "get", "arg": {"city": "Paris"}, "data": {},
                              "tool_call": {"id": "call_1_0", "name": "weatherAgent--get",
                                            "arguments": {"city": "Paris"}}}]
    first, second = openai_server.requests
    assert "tools" in first and "tools" not in second
    assert second["messages"][-1] == {"role": "tool", "tool_call_id": "call_1_0", "name": "weatherAgent--get",
                                      "content": "Weather in Paris: fine"}


async def test_parallel_calls_run_in_turn_each_answered_before_the_next(reply, openai_server, run_graph, weather):
    openai_server.script(
        reply.tool_calls(("weatherAgent--get", {"city": "Paris"}), ("weatherAgent--get", {"city": "Rome"}),
                         content="Let me look."),
        reply.text("Paris is fine."), reply.text("Rome is fine too."))
    results = await run_graph(sequential_node(), agents=weather.agents())
    messages = results["chat"]["messages"]
    assert [(message["role"], message.get("content")) for message in messages] == [
        ("user", "What is the weather?"), ("assistant", "Let me look."), ("tool", "Weather in Paris: fine"),
        ("assistant", "Paris is fine."), ("assistant", None), ("tool", "Weather in Rome: fine"),
        ("assistant", "Rome is fine too.")]
    assert [[call["id"] for call in messages[index]["tool_calls"]] for index in (1, 4)] == [["call_1_0"], ["call_1_1"]]
    # the second tool ran after the first answer, with the data the first call returned
    assert [call["arg"]["city"] for call in weather.calls] == ["Paris", "Rome"]
    assert weather.calls[1]["data"] == {"city": "Paris", "seen": ["Paris"]}
    requests = openai_server.requests
    assert [len(request["messages"]) for request in requests] == [1, 3, 6]
    assert [protocol_errors(request["messages"]) for request in requests] == [[], [], []]
    assert protocol_errors(messages) == []


def test_graphai_s_history_for_two_calls_is_one_openai_refuses() -> None:
    # what GraphAI's toolsSequentialAgent sends for two calls, which the split above avoids; protocol_errors sees it
    calls = [{"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}},
             {"id": "b", "type": "function", "function": {"name": "f", "arguments": "{}"}}]
    graphai = [{"role": "user", "content": "q"}, {"role": "assistant", "content": None, "tool_calls": calls},
               {"role": "tool", "tool_call_id": "a", "content": "1"}]
    assert protocol_errors(graphai) == []  # the request after the first tool: ...
    assert protocol_errors([*graphai, {"role": "assistant", "content": "one"},
                            {"role": "tool", "tool_call_id": "b", "content": "2"}]) == [
        "message 3 comes before calls ['b'] are answered", "message 4 answers no open call"]


async def test_a_tool_s_failure_is_the_tool_message_the_llm_answers(reply, openai_server, run_graph, weather, events):
    openai_server.script(reply.tool_calls(("failingAgent--run", {})), reply.text("The disk is full."))
    results = await run_graph(sequential_node(tools=["failingAgent"]), agents=weather.agents())
    tool = results["chat"]["messages"][2]
    assert tool["content"] == "Error: tool 'failingAgent--run' failed: ValueError: disk full"
    assert tool["extra"] == {"agent": "failingAgent", "arg": {}, "func": "run"}  # no data: the tool returned none
    assert results["chat"]["messages"][-1] == {"role": "assistant", "content": "The disk is full."}
    assert [(event.name, event.error) for event in events if isinstance(event, ToolReturned)] == [
        ("failingAgent--run", "tool 'failingAgent--run' failed: ValueError: disk full")]


async def test_the_system_prompt_and_the_llm_params_go_to_every_call(reply, openai_server, run_graph, weather):
    openai_server.script(reply.tool_calls(("weatherAgent--get", {"city": "Oslo"})), reply.text("Cold."))
    results = await run_graph(sequential_node(system="You report weather.", llmModel="small-model",
                                              llmParams={"temperature": 0.5}), agents=weather.agents())
    for request in openai_server.requests:
        assert request["messages"][0] == {"role": "system", "content": "You report weather."}
        assert (request["model"], request["temperature"]) == ("small-model", 0.5)
    assert results["chat"]["messages"][0] == {"role": "user", "content": "What is the weather?"}


async def test_passthrough_is_the_data_of_a_tool_agent_s_first_call(reply, openai_server, run_graph, weather):
    openai_server.script(reply.tool_calls(("weatherAgent--get", {"city": "Oslo"})), reply.text("Cold."))
    await run_graph(sequential_node(passthrough={"weatherAgent": {"seen": ["Rome"]}}), agents=weather.agents())
    assert weather.calls[0]["data"] == {"seen": ["Rome"]}


async def test_options_of_the_wrong_type_are_a_validation_error_naming_the_field(run_graph, weather, openai_server):
    with pytest.raises(graphrt.GraphValidationError) as caught:
        await run_graph(sequential_node(tools="weatherAgent"), agents=weather.agents())
    [issue] = caught.value.issues
    assert (issue.node_id, issue.field) == ("chat", "inputs.tools")
    assert openai_server.requests == []


async def test_a_reference_to_options_of_the_wrong_type_fails_the_node_before_any_llm_call(run_graph, weather,
                                                                                          openai_server):
    graph = sequential_node(messages=":history")
    graph["nodes"]["history"] = {"value": 42}
    with pytest.raises(graphrt.GraphError) as caught:
        await run_graph(graph, agents=weather.agents())
    assert (caught.value.node_id, caught.value.field) == ("chat", "inputs.messages")
    assert "42 is not of type 'array', 'string', 'null'" in str(caught.value)
    assert openai_server.requests == []
