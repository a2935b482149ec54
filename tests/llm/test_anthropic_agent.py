"""anthropicAgent through the real `anthropic` SDK against a scripted server speaking Anthropic's messages API."""

from __future__ import annotations

import pytest

from graphrt.base.errors import AgentError
from graphrt.observe.events import AgentProgress, LlmCallFinished, LlmCallStarted, TokenDelta

from .scripted_providers import Cut, Garbage

pytestmark = [pytest.mark.anyio, pytest.mark.needs("anthropic")]


def _graph(**node):
    return {"version": 0.5, "nodes": {"llm": {"agent": "anthropicAgent", "isResult": True, **node}}}


async def test_a_prompt_gets_graphais_result(anthropic_api, reply, run_graph):
    anthropic_api.script(reply.text("Paris."))
    results = await run_graph(_graph(inputs={"prompt": "Capital of France?"}, params={"system": "Be brief."}))
    result = results["llm"]
    assert result["text"] == "Paris."
    assert result["message"] == {"role": "assistant", "content": "Paris."}
    assert result["messages"] == [{"role": "user", "content": "Capital of France?"}, result["message"]]
    assert result["choices"] == [{"message": result["message"]}]
    assert result["content"] == [{"type": "text", "text": "Paris."}]
    assert result["usage"]["prompt_tokens"] == 11 and result["usage"]["input_tokens"] == 11
    assert result["tool_calls"] == []
    sent = anthropic_api.requests[0]
    assert sent.path == "/v1/messages"
    assert sent.body["system"] == "Be brief."
    assert sent.body["messages"] == [{"role": "user", "content": "Capital of France?"}]
    assert sent.body["model"] == "claude-sonnet-4-5" and sent.body["max_tokens"] == 8192
    assert "temperature" not in sent.body
    assert "sk-ant-test-secret" in (sent.headers.get("x-api-key", ""), sent.headers.get("authorization", "").removeprefix("Bearer "))


async def test_streaming_sends_each_text_delta_to_the_event_stream(anthropic_api, reply, run_graph, events):
    anthropic_api.script(reply.text("Hello there"))
    results = await run_graph(_graph(inputs={"prompt": "hi"}, params={"stream": True}))
    assert [event.token for event in events if isinstance(event, TokenDelta)] == ["Hel", "lo ", "the", "re"]
    assert results["llm"]["text"] == "Hello there"
    assert results["llm"]["usage"]["output_tokens"] == 7 and results["llm"]["stop_reason"] == "end_turn"
    assert anthropic_api.requests[0].body["stream"] is True


@pytest.mark.parametrize("stream", [False, True])
async def test_tool_use_comes_back_as_openai_tool_calls(anthropic_api, reply, run_graph, stream):
    anthropic_api.script(reply.tool_calls(("weather--get", {"city": "Paris"}), ("weather--get", {"city": "Oslo"}),
                                          content="Let me look."))
    tools = [{"type": "function", "function": {"name": "weather--get", "description": "Weather",
                                               "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]
    results = await run_graph(_graph(inputs={"prompt": "weather?", "tools": tools, "tool_choice": "required"},
                                     params={"stream": stream}))
    result = results["llm"]
    assert result["tool_calls"] == [{"id": "toolu_1_0", "name": "weather--get", "arguments": {"city": "Paris"}},
                                    {"id": "toolu_1_1", "name": "weather--get", "arguments": {"city": "Oslo"}}]
    assert result["tool"] == result["tool_calls"][0]
    assert result["message"]["tool_calls"][0] == {
        "id": "toolu_1_0", "type": "function", "function": {"name": "weather--get", "arguments": '{"city": "Paris"}'}}
    sent = anthropic_api.requests[0].body
    assert sent["tools"] == [{"name": "weather--get", "description": "Weather",
                              "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}]
    assert sent["tool_choice"] == {"type": "any"}


async def test_tool_history_is_sent_as_tool_use_and_tool_result_blocks(anthropic_api, reply, run_graph):
    anthropic_api.script(reply.text("Fine in both."))
    history = [
        {"role": "system", "content": "You forecast."},
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "w--get", "arguments": '{"city": "Paris"}'}},
            {"id": "b", "type": "function", "function": {"name": "w--get", "arguments": "not json"}}]},
        {"role": "tool", "tool_call_id": "a", "content": "sunny", "extra": {"agent": "w"}},
        {"role": "tool", "tool_call_id": "b", "content": "rain"},
    ]
    await run_graph(_graph(inputs={"messages": history}))
    sent = anthropic_api.requests[0].body
    assert sent["system"] == "You forecast."
    assert sent["messages"] == [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": [
            {"type": "text", "text": "run tools"},
            {"type": "tool_use", "id": "a", "name": "w--get", "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "b", "name": "w--get", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": "sunny"},
                                     {"type": "tool_result", "tool_use_id": "b", "content": "rain"}]},
    ]


async def test_response_format_asks_for_json_and_parses_a_fenced_reply(anthropic_api, reply, run_graph):
    anthropic_api.script(reply.text('Here:\n```json\n{"city": "Paris"}\n```'))
    results = await run_graph(_graph(inputs={"prompt": "x", "system": "Extract the city.",
                                             "response_format": {"city": "string"}}))
    assert results["llm"]["responseFormat"] == {"city": "Paris"}
    system = anthropic_api.requests[0].body["system"]
    assert system.startswith("Please return the following json object for the specified content.\n{\n")
    assert system.endswith("<description>\nExtract the city.\n</description>")


async def test_temperature_and_max_tokens_set_by_the_node_are_sent(anthropic_api, reply, run_graph):
    anthropic_api.script(reply.text("ok"))
    await run_graph(_graph(inputs={"prompt": "x"}, params={"temperature": 0.2, "max_tokens": 50, "model": "claude-x"}))
    sent = anthropic_api.requests[0].body
    assert (sent["temperature"], sent["max_tokens"], sent["model"]) == (0.2, 50, "claude-x")


async def test_client_errors_fail_at_once_with_the_servers_words(anthropic_api, reply, run_graph):
    anthropic_api.script(reply.error(400, "max_tokens: must be positive"), reply.text("unused"))
    with pytest.raises(AgentError) as caught:
        await run_graph(_graph(inputs={"prompt": "x"}))
    assert str(caught.value) == (f"node 'llm': anthropicAgent: {anthropic_api.url} HTTP 400: "
                                 "max_tokens: must be positive (agent anthropicAgent)")
    assert len(anthropic_api.requests) == 1


async def test_server_errors_are_retried_a_bounded_number_of_times(anthropic_api, reply, run_graph):
    anthropic_api.script(*[reply.error(529, "Overloaded", retry_after_ms="1") for _ in range(3)], reply.text("never"))
    with pytest.raises(AgentError) as caught:
        await run_graph(_graph(inputs={"prompt": "x"}, params={"maxRetries": 2}))
    assert caught.value.message == f"anthropicAgent: {anthropic_api.url} HTTP 529: Overloaded after 3 attempts"
    assert len(anthropic_api.requests) == 3


async def test_a_429_is_retried_and_then_succeeds(anthropic_api, reply, run_graph):
    anthropic_api.script(reply.error(429, "slow down", retry_after_ms="1"), reply.text("done"))
    results = await run_graph(_graph(inputs={"prompt": "x"}))
    assert results["llm"]["text"] == "done"


@pytest.mark.parametrize("garbage", [Garbage(), Garbage(b'{"hello": "world"}', "application/json"),
                                     Garbage(b'{"type": "message", "content": [', "application/json")])
async def test_a_reply_that_is_not_a_message_is_an_error_never_a_reply(anthropic_api, run_graph, garbage):
    anthropic_api.script(garbage)
    with pytest.raises(AgentError) as caught:
        await run_graph(_graph(inputs={"prompt": "x"}, params={"maxRetries": 0}))
    assert caught.value.message.startswith(f"anthropicAgent: {anthropic_api.url} the reply is not ")


async def test_a_stream_that_dies_before_message_stop_is_an_error(anthropic_api, reply, run_graph):
    anthropic_api.script(Cut(reply.text("Hello there, how are you"), after=4))
    with pytest.raises(AgentError) as caught:
        await run_graph(_graph(inputs={"prompt": "x"}, params={"stream": True, "maxRetries": 0}))
    assert caught.value.message == (f"anthropicAgent: {anthropic_api.url} the stream ended before the "
                                           "message was complete (no message_stop)")


async def test_a_body_cut_short_is_an_error(anthropic_api, reply, run_graph):
    anthropic_api.script(Cut(reply.text("Hello there")))
    with pytest.raises(AgentError) as caught:
        await run_graph(_graph(inputs={"prompt": "x"}, params={"maxRetries": 0}))
    assert caught.value.message.startswith(f"anthropicAgent: {anthropic_api.url} ")


async def test_the_api_key_never_appears_in_an_error_or_an_event(anthropic_api, reply, run_graph, events):
    anthropic_api.script(reply.error(401, "invalid x-api-key: sk-ant-test-secret"))
    with pytest.raises(AgentError) as caught:
        await run_graph(_graph(inputs={"prompt": "x"}))
    assert "sk-ant-test-secret" not in str(caught.value) and "invalid x-api-key: REDACTED" in str(caught.value)
    assert "sk-ant-test-secret" not in repr(events)
    finished = [event for event in events if isinstance(event, LlmCallFinished)]
    assert finished and "REDACTED" in finished[0].error


async def test_without_a_key_the_error_says_what_to_set(anthropic_api, run_graph, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    with pytest.raises(AgentError) as caught:
        await run_graph(_graph(inputs={"prompt": "x"}))
    assert caught.value.message == ("anthropicAgent: no API key: set ANTHROPIC_API_KEY, "
                                           "or give apiKey in params or config")
    assert anthropic_api.requests == []


async def test_each_request_is_reported_with_its_usage(anthropic_api, reply, run_graph, events):
    anthropic_api.script(reply.text("ok"))
    await run_graph(_graph(inputs={"prompt": "x"}))
    finished = [event for event in events if isinstance(event, LlmCallFinished)]
    assert [(e.model, e.input_tokens, e.output_tokens, e.finish_reason) for e in finished] == [
        ("scripted-model", 11, 7, "end_turn")]


async def test_without_the_extra_the_error_says_what_to_install(anthropic_api, run_graph, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "anthropic", None)  # as if graphrt[anthropic] were not installed
    with pytest.raises(AgentError) as caught:
        await run_graph(_graph(inputs={"prompt": "x"}))
    assert caught.value.message == "anthropicAgent needs pip install 'graphrt[anthropic]' (no module anthropic)"


async def test_each_attempt_is_reported_and_each_retry_waits_retry_delay(anthropic_api, reply, run_graph, events):
    anthropic_api.script(reply.error(503, "busy"), reply.text("done"))
    results = await run_graph(_graph(inputs={"prompt": "x"}, params={"retryDelay": 0}))
    assert results["llm"]["text"] == "done"
    said = [(type(event).__name__, getattr(event, "error", None) or getattr(event, "message", None))
            for event in events if isinstance(event, (LlmCallStarted, LlmCallFinished, AgentProgress))]
    assert said == [("LlmCallStarted", None), ("LlmCallFinished", f"{anthropic_api.url} HTTP 503: busy"),
                    ("AgentProgress", f"retrying in 0.0s: {anthropic_api.url} HTTP 503: busy"),
                    ("LlmCallStarted", None), ("LlmCallFinished", None)]


async def test_a_reply_that_is_not_a_message_is_asked_again(anthropic_api, reply, run_graph):
    anthropic_api.script(Garbage(), reply.text("a whole reply"))
    results = await run_graph(_graph(inputs={"prompt": "x"}, params={"retryDelay": 0}))
    assert results["llm"]["text"] == "a whole reply"
    assert len(anthropic_api.requests) == 2


async def test_a_failure_the_server_says_not_to_retry_fails_at_once(anthropic_api, reply, run_graph):
    anthropic_api.script(reply.error(503, "down for good", x_should_retry="false"), reply.text("unused"))
    with pytest.raises(AgentError) as caught:
        await run_graph(_graph(inputs={"prompt": "x"}, params={"retryDelay": 0}))
    assert caught.value.message == f"anthropicAgent: {anthropic_api.url} HTTP 503: down for good"
    assert len(anthropic_api.requests) == 1
