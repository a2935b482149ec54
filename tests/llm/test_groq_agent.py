"""groqAgent through the real `openai` SDK against the scripted server speaking Groq's (OpenAI's) chat completions."""

from __future__ import annotations

import pytest

from graphrt.base.errors import AgentError
from graphrt.observe.events import TokenDelta

pytestmark = pytest.mark.anyio


@pytest.fixture
def groq_api(openai_server, monkeypatch):
    """The scripted chat completions server as Groq's API, with a Groq key unlike the OpenAI one."""
    monkeypatch.setenv("GROQ_BASE_URL", openai_server.url)
    monkeypatch.setenv("GROQ_API_KEY", "gsk_test_secret")
    return openai_server


def _graph(**node):
    return {"version": 0.5, "nodes": {"llm": {"agent": "groqAgent", "isResult": True, **node}}}


async def test_a_prompt_gets_graphais_result_with_groqs_defaults(groq_api, reply, run_graph):
    groq_api.script(reply.text("Paris."))
    results = await run_graph(_graph(inputs={"prompt": "Capital of France?"},
                                     params={"model": "llama-3.1-8b-instant", "system": "Be brief.", "max_tokens": 30}))
    result = results["llm"]
    assert result["text"] == "Paris."
    assert result["messages"] == [{"role": "system", "content": "Be brief."},
                                  {"role": "user", "content": "Capital of France?"},
                                  {"role": "assistant", "content": "Paris."}]
    assert result["choices"][0]["message"]["content"] == "Paris."
    sent = groq_api.requests[0]
    assert sent["model"] == "llama-3.1-8b-instant"
    assert sent["temperature"] == 0.7 and sent["max_tokens"] == 30
    assert groq_api.headers[0]["authorization"] == "Bearer gsk_test_secret"


async def test_tools_get_tool_choice_auto(groq_api, reply, run_graph):
    groq_api.script(reply.tool_calls(("w--get", {"city": "Paris"})))
    tools = [{"type": "function", "function": {"name": "w--get", "parameters": {"type": "object", "properties": {}}}}]
    results = await run_graph(_graph(inputs={"prompt": "x", "tools": tools}, params={"model": "m", "stream": True}))
    assert results["llm"]["tool"] == {"id": "call_1_0", "name": "w--get", "arguments": {"city": "Paris"}}
    assert groq_api.requests[0]["tool_choice"] == "auto"


async def test_streaming_sends_each_token_to_the_event_stream(groq_api, reply, run_graph, events):
    groq_api.script(reply.text("Hello there"))
    await run_graph(_graph(inputs={"prompt": "hi"}, params={"model": "m", "stream": True}))
    assert "".join(event.token for event in events if isinstance(event, TokenDelta)) == "Hello there"


async def test_a_model_is_required_as_in_graphai(groq_api, run_graph):
    with pytest.raises(AgentError) as caught:
        await run_graph(_graph(inputs={"prompt": "x"}))
    assert caught.value.message == ("groqAgent: no model: give one in params.model "
                                           "(e.g. llama-3.1-8b-instant)")
    assert groq_api.requests == []


async def test_without_a_groq_key_the_error_says_what_to_set(groq_api, run_graph, monkeypatch):
    monkeypatch.delenv("GROQ_API_KEY")  # OPENAI_API_KEY is set: it is not Groq's
    with pytest.raises(AgentError) as caught:
        await run_graph(_graph(inputs={"prompt": "x"}, params={"model": "m"}))
    assert caught.value.message == "groqAgent: no API key: set GROQ_API_KEY, or give apiKey in params or config"


async def test_errors_name_groq_agent_and_hide_the_key(groq_api, reply, run_graph):
    groq_api.script(reply.error(401, "Invalid API Key gsk_test_secret"))
    with pytest.raises(AgentError) as caught:
        await run_graph(_graph(inputs={"prompt": "x"}, params={"model": "m"}))
    assert caught.value.message == f"groqAgent: {groq_api.url} HTTP 401: Invalid API Key REDACTED"
