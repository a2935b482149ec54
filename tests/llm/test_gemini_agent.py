"""geminiAgent through the real `google-genai` SDK against a scripted server speaking Gemini's generateContent."""

from __future__ import annotations

import pytest

from graphrt.base.errors import AgentError
from graphrt.observe.events import AgentProgress, LlmCallFinished, LlmCallStarted, TokenDelta

from .scripted_providers import Cut, Garbage

pytestmark = [pytest.mark.anyio, pytest.mark.needs("gemini")]

WEATHER = {"type": "function", "function": {"name": "w--get", "description": "Weather",
                                            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}


def _graph(**node):
    return {"version": 0.5, "nodes": {"llm": {"agent": "geminiAgent", "isResult": True, **node}}}


async def test_a_prompt_gets_graphais_result(gemini_api, reply, run_graph):
    gemini_api.script(reply.text("Paris."))
    results = await run_graph(_graph(inputs={"prompt": "Capital of France?"}, params={"system": "Be brief."}))
    result = results["llm"]
    assert result["text"] == "Paris."
    assert result["message"] == {"role": "assistant", "content": "Paris."}
    assert result["messages"] == [{"role": "system", "content": "Be brief."},
                                  {"role": "user", "content": "Capital of France?"}, result["message"]]
    assert result["choices"] == [{"message": result["message"]}]
    assert result["candidates"][0]["content"]["parts"] == [{"text": "Paris."}]
    assert result["usage"] == {"promptTokenCount": 11, "candidatesTokenCount": 7, "totalTokenCount": 18,
                               "prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
    assert result["modelVersion"] == "scripted-model" and result["tool_calls"] == []
    assert "sdkHttpResponse" not in result
    sent = gemini_api.requests[0]
    assert sent.path.endswith("/models/gemini-2.5-flash:generateContent")
    assert sent.headers["x-goog-api-key"] == "AIza-test-secret"
    assert sent.body["contents"] == [{"role": "user", "parts": [{"text": "System Message: Be brief."}]},
                                     {"role": "user", "parts": [{"text": "Capital of France?"}]}]
    assert sent.body["safetySettings"] == [{"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "threshold": "BLOCK_ONLY_HIGH"}]


async def test_the_history_is_sent_with_gemini_roles(gemini_api, reply, run_graph):
    gemini_api.script(reply.text("ok"))
    history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    await run_graph(_graph(inputs={"messages": history, "prompt": "again"},
                           params={"temperature": 0.1, "max_tokens": 20, "model": "gemini-x"}))
    sent = gemini_api.requests[0]
    assert sent.body["contents"] == [{"role": "user", "parts": [{"text": "hi"}]},
                                     {"role": "model", "parts": [{"text": "hello"}]},
                                     {"role": "user", "parts": [{"text": "again"}]}]
    assert sent.body["generationConfig"] == {"temperature": 0.1, "maxOutputTokens": 20}
    assert "gemini-x:generateContent" in sent.path


async def test_nothing_to_send_returns_an_empty_list_without_a_request(gemini_api, run_graph, monkeypatch):
    monkeypatch.delenv("GOOGLE_GENAI_API_KEY")
    results = await run_graph(_graph(inputs={}))
    assert results["llm"] == [] and gemini_api.requests == []


async def test_streaming_sends_each_chunk_to_the_event_stream(gemini_api, reply, run_graph, events):
    gemini_api.script(reply.text("Hello there"))
    results = await run_graph(_graph(inputs={"prompt": "hi"}, params={"stream": True}))
    assert [event.token for event in events if isinstance(event, TokenDelta)] == ["Hel", "lo ", "the", "re"]
    assert results["llm"]["text"] == "Hello there"
    assert results["llm"]["usage"]["total_tokens"] == 18
    assert gemini_api.requests[0].path.endswith(":streamGenerateContent")


@pytest.mark.parametrize("stream", [False, True])
async def test_function_calls_come_back_as_tool_calls(gemini_api, reply, run_graph, stream):
    gemini_api.script(reply.tool_calls(("w--get", {"city": "Paris"}), ("w--get", {"city": "Oslo"})))
    results = await run_graph(_graph(inputs={"prompt": "weather?", "tools": [WEATHER], "tool_choice": "any"},
                                     params={"stream": stream}))
    result = results["llm"]
    assert result["tool_calls"] == [{"id": "call_0", "name": "w--get", "arguments": {"city": "Paris"}},
                                    {"id": "call_1", "name": "w--get", "arguments": {"city": "Oslo"}}]
    assert result["tool"] == result["tool_calls"][0] and result["text"] is None
    sent = gemini_api.requests[0].body
    declared = {"name": "w--get", "description": "Weather",  # the SDK writes the schema in Gemini's own terms
                "parameters": {"type": "OBJECT", "properties": {"city": {"type": "STRING"}}}}
    assert sent["tools"] == [{"functionDeclarations": [declared]}]
    assert sent["toolConfig"] == {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["w--get"]}}


async def test_tool_history_is_sent_as_function_call_and_response_parts(gemini_api, reply, run_graph):
    gemini_api.script(reply.text("Fine in both."))
    history = [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "w--get", "arguments": '{"city": "Paris"}'}},
            {"id": "b", "type": "function", "function": {"name": "w--get", "arguments": '{"city": "Oslo"}'}}]},
        {"role": "tool", "tool_call_id": "a", "content": "sunny"},
        {"role": "tool", "tool_call_id": "b", "content": "rain"},
    ]
    await run_graph(_graph(inputs={"messages": history, "tools": [WEATHER]}))
    assert gemini_api.requests[0].body["contents"] == [
        {"role": "user", "parts": [{"text": "weather?"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "w--get", "args": {"city": "Paris"}}},
                                    {"functionCall": {"name": "w--get", "args": {"city": "Oslo"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "w--get", "response": {"content": "sunny"}}},
                                   {"functionResponse": {"name": "w--get", "response": {"content": "rain"}}}]},
    ]


async def test_response_format_asks_for_json_output(gemini_api, reply, run_graph):
    gemini_api.script(reply.text('{"city": "Paris"}'))
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    await run_graph(_graph(inputs={"prompt": "x", "response_format": {"type": "json_schema", "json_schema": {"schema": schema}}}))
    config = gemini_api.requests[0].body["generationConfig"]
    assert config["responseMimeType"] == "application/json" and config["responseJsonSchema"] == schema


async def test_client_errors_fail_at_once_with_the_servers_words(gemini_api, reply, run_graph):
    gemini_api.script(reply.error(400, "Invalid JSON payload received."), reply.text("unused"))
    with pytest.raises(AgentError) as caught:
        await run_graph(_graph(inputs={"prompt": "x"}))
    assert str(caught.value) == (f"node 'llm': geminiAgent: {gemini_api.url} HTTP 400: "
                                 "Invalid JSON payload received. (agent geminiAgent)")
    assert len(gemini_api.requests) == 1


async def test_server_errors_are_retried_a_bounded_number_of_times(gemini_api, reply, run_graph):
    gemini_api.script(*[reply.error(503, "The model is overloaded.") for _ in range(3)], reply.text("never"))
    with pytest.raises(AgentError) as caught:
        await run_graph(_graph(inputs={"prompt": "x"}, params={"maxRetries": 2, "retryDelay": 0.01}))
    assert caught.value.message == (f"geminiAgent: {gemini_api.url} HTTP 503: The model is overloaded. "
                                           "after 3 attempts")
    assert len(gemini_api.requests) == 3


async def test_a_429_is_retried_and_then_succeeds(gemini_api, reply, run_graph):
    gemini_api.script(reply.error(429, "quota"), reply.text("done"))
    results = await run_graph(_graph(inputs={"prompt": "x"}, params={"retryDelay": 0.01}))
    assert results["llm"]["text"] == "done"


@pytest.mark.parametrize("garbage", [Garbage(), Garbage(b'{"hello": "world"}', "application/json"),
                                     Garbage(b'{"candidates": [', "application/json")])
async def test_a_reply_that_is_not_a_response_is_an_error_never_a_reply(gemini_api, run_graph, garbage):
    gemini_api.script(garbage)
    with pytest.raises(AgentError) as caught:
        await run_graph(_graph(inputs={"prompt": "x"}, params={"maxRetries": 0}))
    assert caught.value.message.startswith(f"geminiAgent: {gemini_api.url} ")


async def test_a_stream_that_dies_before_its_finish_reason_is_an_error(gemini_api, reply, run_graph):
    gemini_api.script(Cut(reply.text("Hello there, how are you"), after=3))
    with pytest.raises(AgentError) as caught:
        await run_graph(_graph(inputs={"prompt": "x"}, params={"stream": True, "maxRetries": 0}))
    assert caught.value.message == (f"geminiAgent: {gemini_api.url} the stream ended before the reply "
                                           "was complete (no finishReason)")


async def test_the_api_key_never_appears_in_an_error_or_an_event(gemini_api, reply, run_graph, events):
    gemini_api.script(reply.error(400, "API key not valid: AIza-test-secret"))
    with pytest.raises(AgentError) as caught:
        await run_graph(_graph(inputs={"prompt": "x"}))
    assert "AIza-test-secret" not in str(caught.value) and "API key not valid: REDACTED" in str(caught.value)
    assert "AIza-test-secret" not in repr(events)


async def test_without_a_key_the_error_says_what_to_set(gemini_api, run_graph, monkeypatch):
    monkeypatch.delenv("GOOGLE_GENAI_API_KEY")
    with pytest.raises(AgentError) as caught:
        await run_graph(_graph(inputs={"prompt": "x"}))
    assert caught.value.message == ("geminiAgent: no API key: set GOOGLE_GENAI_API_KEY or GEMINI_API_KEY "
                                           "or GOOGLE_API_KEY, or give apiKey in params or config")


async def test_each_request_is_reported_with_its_usage(gemini_api, reply, run_graph, events):
    gemini_api.script(reply.text("ok"))
    await run_graph(_graph(inputs={"prompt": "x"}))
    finished = [event for event in events if isinstance(event, LlmCallFinished)]
    assert [(e.model, e.input_tokens, e.output_tokens, e.finish_reason) for e in finished] == [
        ("scripted-model", 11, 7, "STOP")]


async def test_without_the_extra_the_error_says_what_to_install(gemini_api, run_graph, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "google.genai", None)  # as if graphrt[gemini] were not installed
    with pytest.raises(AgentError) as caught:
        await run_graph(_graph(inputs={"prompt": "x"}))
    assert caught.value.message == "geminiAgent needs pip install 'graphrt[gemini]' (no module google.genai)"


async def test_each_attempt_is_reported_and_each_retry_said(gemini_api, reply, run_graph, events):
    gemini_api.script(reply.error(503, "The model is overloaded."), reply.text("done"))
    results = await run_graph(_graph(inputs={"prompt": "x"}, params={"retryDelay": 0}))
    assert results["llm"]["text"] == "done"
    said = [(type(event).__name__, getattr(event, "error", None) or getattr(event, "message", None))
            for event in events if isinstance(event, (LlmCallStarted, LlmCallFinished, AgentProgress))]
    overloaded = f"{gemini_api.url} HTTP 503: The model is overloaded."
    assert said == [("LlmCallStarted", None), ("LlmCallFinished", overloaded),
                    ("AgentProgress", f"retrying in 0.0s: {overloaded}"),
                    ("LlmCallStarted", None), ("LlmCallFinished", None)]


async def test_a_reply_that_is_not_a_response_is_asked_again(gemini_api, reply, run_graph):
    gemini_api.script(Garbage(b'{"hello": "world"}', "application/json"), reply.text("a whole reply"))
    results = await run_graph(_graph(inputs={"prompt": "x"}, params={"retryDelay": 0}))
    assert results["llm"]["text"] == "a whole reply"
    assert len(gemini_api.requests) == 2


async def test_a_status_google_does_not_retry_fails_at_once(gemini_api, reply, run_graph):
    gemini_api.script(reply.error(409, "conflict"), reply.text("unused"))
    with pytest.raises(AgentError) as caught:
        await run_graph(_graph(inputs={"prompt": "x"}, params={"retryDelay": 0}))
    assert caught.value.message == f"geminiAgent: {gemini_api.url} HTTP 409: conflict"
    assert len(gemini_api.requests) == 1
