"""openAIFetchAgent through the real `openai` SDK against the scripted chat completions server: GraphAI's
browser-side request (a key only from params or config, temperature always, stream sent) and result."""

from __future__ import annotations

from typing import Any

import pytest

from graphrt import UNDEFINED, AgentError
from graphrt.observe.events import TokenDelta

pytestmark = pytest.mark.anyio

KEY = "sk-fetch-node-key"


def fetch_node(server: Any, inputs: dict[str, Any], **params: Any) -> dict[str, Any]:
    node = {"agent": "openAIFetchAgent", "inputs": inputs, "params": {"apiKey": KEY, "baseURL": server.url, **params},
            "isResult": True}
    return {"version": 0.5, "nodes": {"llm": node}}


async def test_a_prompt_gets_graphai_s_fetch_result(openai_server, reply, run_graph):
    openai_server.script(reply.text("Hello!"))
    results = await run_graph(fetch_node(openai_server, {"prompt": "Say hello", "system": "Be brief."}))
    llm = results["llm"]
    assert llm["text"] == "Hello!"
    assert llm["message"] == {"role": "assistant", "content": "Hello!"}
    assert llm["messages"] == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say hello"},
                               {"role": "assistant", "content": "Hello!"}]
    assert llm["choices"][0]["message"]["content"] == "Hello!" and llm["usage"]["total_tokens"] == 18
    assert "tool_calls" not in llm and llm.get("tool", UNDEFINED) is UNDEFINED
    assert openai_server.requests == [{"model": "gpt-4o", "messages": llm["messages"][:2], "temperature": 0.7,
                                       "stream": False}]
    assert openai_server.headers[0]["authorization"] == f"Bearer {KEY}"


async def test_max_tokens_goes_as_max_completion_tokens_and_the_temperature_as_given(openai_server, reply, run_graph):
    openai_server.script(reply.text("ok"))
    await run_graph(fetch_node(openai_server, {"prompt": "x", "max_tokens": 12, "temperature": 0}, model="o3-mini"))
    sent = openai_server.requests[0]
    assert sent["model"] == "o3-mini" and sent["max_completion_tokens"] == 12 and sent["temperature"] == 0
    assert "max_tokens" not in sent


async def test_the_model_comes_from_params_alone_as_in_graphai(openai_server, reply, run_graph):
    openai_server.script(reply.text("ok"))
    await run_graph(fetch_node(openai_server, {"prompt": "x", "model": "from-inputs"}))
    assert openai_server.requests[0]["model"] == "gpt-4o"


async def test_the_key_is_only_taken_from_params_or_config(openai_server, run_graph):
    graph = fetch_node(openai_server, {"prompt": "x"})
    del graph["nodes"]["llm"]["params"]["apiKey"]  # OPENAI_API_KEY is set, and not read
    with pytest.raises(AgentError) as caught:
        await run_graph(graph)
    assert caught.value.message == ("openAIFetchAgent: no API key: give apiKey in params or config (it reads no "
                                    "environment variable, as GraphAI's, which runs in browsers)")
    assert openai_server.requests == []


async def test_config_wins_over_params_for_the_key_as_in_graphai(openai_server, reply, run_graph):
    openai_server.script(reply.text("ok"))
    await run_graph(fetch_node(openai_server, {"prompt": "x"}), config={"openAIFetchAgent": {"apiKey": "sk-config"}})
    assert openai_server.headers[0]["authorization"] == "Bearer sk-config"


async def test_streaming_sends_each_token_and_returns_the_same_result(openai_server, reply, run_graph, events):
    openai_server.script(reply.text("Streaming works."))
    results = await run_graph(fetch_node(openai_server, {"prompt": "x"}, stream=True))
    tokens = [event.token for event in events if isinstance(event, TokenDelta)]
    assert "".join(tokens) == "Streaming works." and len(tokens) > 1
    assert results["llm"]["text"] == "Streaming works."
    assert results["llm"]["messages"][-1] == {"role": "assistant", "content": "Streaming works."}
    assert openai_server.requests[0]["stream"] is True


async def test_the_first_tool_call_is_the_tool(openai_server, reply, run_graph):
    openai_server.script(reply.tool_calls(("lookup", {"q": "Paris"}), ("lookup", {"q": "Rome"})))
    tools = [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}]
    results = await run_graph(fetch_node(openai_server, {"prompt": "x", "tools": tools}))
    assert results["llm"]["tool"] == {"id": "call_1_0", "name": "lookup", "arguments": {"q": "Paris"}}
    assert results["llm"]["text"] is None
    assert openai_server.requests[0]["tools"] == tools


@pytest.mark.parametrize("model, image", [("gpt-4o", {"url": "https://example.org/a.png", "detail": "high"}),
                                          ("gpt-4-vision-preview", "https://example.org/a.png")])
async def test_the_first_image_is_sent_as_graphai_sends_it_to_the_model(openai_server, reply, run_graph, model, image):
    openai_server.script(reply.text("a cat"))
    await run_graph(fetch_node(openai_server, {"prompt": "what is it?", "images": ["https://example.org/a.png"]},
                               model=model))
    assert openai_server.requests[0]["messages"][-1] == {"role": "user",
                                                         "content": [{"type": "image_url", "image_url": image}]}


async def test_a_failure_worth_retrying_is_asked_again_and_a_refusal_is_said(openai_server, reply, run_graph):
    openai_server.script(reply.error(503, "busy"), reply.text("ok"), reply.error(401, "bad key"))
    results = await run_graph(fetch_node(openai_server, {"prompt": "x"}, retryDelay=0))
    assert results["llm"]["text"] == "ok"
    with pytest.raises(AgentError) as caught:
        await run_graph(fetch_node(openai_server, {"prompt": "x"}))
    assert caught.value.message == f"openAIFetchAgent: {openai_server.url} HTTP 401: bad key"
