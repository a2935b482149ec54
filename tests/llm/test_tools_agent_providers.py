"""toolsAgent with each provider's agent as its `llmAgent`: the tool loop runs on Anthropic's, Gemini's and Groq's
wire protocols through their real SDKs, against the scripted servers."""

from __future__ import annotations

from typing import Any

import pytest

from graphrt import AgentContext, AgentInfo

from ..conftest import need

pytestmark = pytest.mark.anyio

CITY_TOOL = {"type": "function", "function": {
    "name": "get", "description": "Current weather for a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}


async def _weather(ctx: AgentContext) -> dict[str, Any]:
    return {"content": f"Sunny in {ctx.inputs['arg']['city']}", "data": {"city": ctx.inputs["arg"]["city"]}}


WEATHER = AgentInfo(name="weatherAgent", func=_weather, tools=(CITY_TOOL,))


def _anthropic_tool_result(request: Any) -> Any:
    return request.body["messages"][-1]["content"][0]


def _gemini_tool_result(request: Any) -> Any:
    return request.body["contents"][-1]["parts"][0]


def _groq_tool_result(request: Any) -> Any:
    return request["messages"][-1]


PROVIDERS = {
    "anthropicAgent": ("anthropic_api", {}, _anthropic_tool_result,
                       lambda call_id: {"type": "tool_result", "tool_use_id": call_id, "content": "Sunny in Paris"}),
    "geminiAgent": ("gemini_api", {}, _gemini_tool_result,
                    lambda call_id: {"functionResponse": {"name": "weatherAgent--get",
                                                          "response": {"content": "Sunny in Paris"}}}),
    "groqAgent": ("openai_server", {"model": "llama-3.1-8b-instant"}, _groq_tool_result,
                  lambda call_id: {"role": "tool", "tool_call_id": call_id, "content": "Sunny in Paris"}),
}


@pytest.fixture(params=list(PROVIDERS))
def provider(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Any]:
    agent = request.param
    fixture = PROVIDERS[agent][0]
    if agent in ("anthropicAgent", "geminiAgent"):
        need(agent.removesuffix("Agent"))
    server = request.getfixturevalue(fixture)
    if agent == "groqAgent":
        monkeypatch.setenv("GROQ_BASE_URL", server.url)
        monkeypatch.setenv("GROQ_API_KEY", "gsk_test")
    return agent, server


@pytest.mark.parametrize("stream", [False, True])
async def test_tools_agent_calls_a_tool_and_answers_with_each_llm_agent(provider, reply, run_graph, stream):
    agent, server = provider
    _, _, tool_result, expected = PROVIDERS[agent]
    server.script(reply.tool_calls(("weatherAgent--get", {"city": "Paris"})), reply.text("It is sunny in Paris."))
    graph = {"version": 0.5, "nodes": {"chat": {"agent": "toolsAgent", "isResult": True, "inputs": {
        "llmAgent": agent, "tools": ["weatherAgent"], "system": "You forecast.", "stream": stream,
        "llmParams": PROVIDERS[agent][1], "userInput": {"text": "Weather in Paris?"}}}}}
    results = await run_graph(graph, agents=[WEATHER])
    chat = results["chat"]
    assert chat["text"] == "It is sunny in Paris." and chat["finished"] is True
    assert chat["data"] == {"weatherAgent--get": {"content": "Sunny in Paris", "data": {"city": "Paris"}}}
    call_id = chat["messages"][1]["tool_calls"][0]["id"]
    assert [message["role"] for message in chat["messages"]] == ["user", "assistant", "tool", "assistant"]
    assert chat["messages"][2]["tool_call_id"] == call_id
    assert len(server.requests) == 2
    assert tool_result(server.requests[1]) == expected(call_id)
