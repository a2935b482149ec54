"""What a run spends (`Run.usage`), through the real SDKs against scripted servers: every provider's counts,
retries apart from what was kept, nested graphs and map rows rolled up, prices from the config, unknown never 0."""

from __future__ import annotations

from typing import Any

import pytest

import graphrt
from graphrt import AgentContext, AgentInfo
from graphrt.base.errors import UsageConfigError
from graphrt.observe.events import LlmCallFinished
from graphrt.observe.usage_ledger import UsageLedger
from graphrt.observe.trace import event_record

pytestmark = pytest.mark.anyio

PRICES = {"openai": {"scripted-model": {"input": 2.0, "output": 8.0, "cached_input": 0.5}}}


def _llm(**node: Any) -> dict[str, Any]:
    return {"agent": "openAIAgent", "inputs": {"prompt": "Capital of France?"}, "isResult": True, **node}


async def _run(graph: dict[str, Any], events: list[Any] | None = None, **options: Any) -> graphrt.Run:
    run = graphrt.Graph(graph, **options).start(subscribe=[events.append] if events is not None else [])
    try:
        await run
    except graphrt.GraphError:
        pass
    return run


async def test_a_run_counts_what_each_reply_said_with_its_cached_and_reasoning_parts(openai_server, reply):
    openai_server.script(reply.text("Paris.", usage={
        "prompt_tokens": 1000, "completion_tokens": 300, "total_tokens": 1300,
        "prompt_tokens_details": {"cached_tokens": 400}, "completion_tokens_details": {"reasoning_tokens": 120}}))
    run = await _run({"version": 0.5, "nodes": {"llm": _llm()}}, config={"prices": PRICES})
    usage = run.usage.to_dict()
    assert {key: usage[key] for key in ("llm_calls", "input_tokens", "output_tokens", "cached_tokens",
                                        "reasoning_tokens", "total_tokens", "calls_without_tokens")} == {
        "llm_calls": 1, "input_tokens": 1000, "output_tokens": 300, "cached_tokens": 400, "reasoning_tokens": 120,
        "total_tokens": 1300, "calls_without_tokens": 0}
    # 600 fresh input tokens at $2/M, 400 cached at $0.50/M, 300 output at $8/M
    assert usage["cost_usd"] == pytest.approx((600 * 2.0 + 400 * 0.5 + 300 * 8.0) / 1e6)
    assert list(usage["by_model"]) == ["openai:scripted-model"]
    assert usage["retried"]["calls"] == 0 and usage["used"]["calls"] == 1
    assert run.usage_by_node()["llm"]["total_tokens"] == 1300


async def test_an_attempt_asked_again_is_spent_apart_from_the_one_kept(openai_server, reply):
    openai_server.script(reply.error(500, "overloaded"), reply.text("Paris."))
    run = await _run({"version": 0.5, "nodes": {"llm": _llm(params={"retryDelay": 0.001})}})
    usage = run.usage.to_dict()
    assert usage["llm_calls"] == 2
    assert usage["used"]["calls"] == 1 and usage["used"]["total_tokens"] == 18
    assert usage["retried"]["calls"] == 1 and usage["retried"]["calls_without_tokens"] == 1
    assert usage["retried"]["total_tokens"] is None  # the failed attempt said nothing: unknown, not 0
    assert run.usage.summary().startswith("2 LLM calls (1 retried), 18 tokens (11 in, 7 out, 1 call did not say)")


async def test_a_node_run_again_for_its_retry_counts_its_first_attempt_as_retried_not_used(openai_server, reply):
    checked = []

    def flaky(ctx: AgentContext) -> str:
        checked.append(ctx.inputs["text"])
        if len(checked) == 1:
            raise ValueError("not what we wanted")
        return ctx.inputs["text"]

    openai_server.script(reply.text("first"), reply.text("second"))
    graph = {"version": 0.5, "nodes": {"ask": {"agent": "nestedAgent", "retry": 1, "isResult": True, "graph": {
        "nodes": {"llm": _llm(isResult=False),
                  "check": {"agent": "flakyAgent", "inputs": {"text": ":llm.text"}, "isResult": True}}}}}}
    run = await _run(graph, agents=[AgentInfo(name="flakyAgent", func=flaky)])
    assert run.results() == {"ask": {"check": "second"}}
    usage = run.usage.to_dict()
    assert usage["llm_calls"] == 2 and usage["total_tokens"] == 36  # both were paid for, each counted once
    assert usage["used"]["calls"] == 1 and usage["retried"]["calls"] == 1
    assert run.usage_by_node()["ask/llm"]["used"]["calls"] == 1


async def test_map_rows_and_nested_graphs_roll_up_to_their_node_and_the_run(openai_server, reply):
    openai_server.script(*(reply.text(f"answer {n}") for n in range(3)))
    graph = {"version": 0.5, "nodes": {
        "rows": {"value": ["a", "b", "c"]},
        "map": {"agent": "mapAgent", "inputs": {"rows": ":rows"}, "isResult": True,
                "graph": {"nodes": {"llm": {"agent": "openAIAgent", "inputs": {"prompt": ":row"}, "isResult": True}}}}}}
    run = await _run(graph)
    assert run.usage.llm_calls == 3 and run.usage.tokens == 54
    by_node = run.usage_by_node()
    assert by_node["map"]["llm_calls"] == 3
    assert [by_node[f"map/{row}/llm"]["total_tokens"] for row in range(3)] == [18, 18, 18]
    assert {key: value["llm_calls"] for key, value in run.usage_by_graph().items()} == {
        "map/0": 1, "map/1": 1, "map/2": 1}


async def test_a_reply_without_usage_is_unknown_never_zero(openai_server, reply):
    openai_server.script(reply.text("Paris.", no_usage=True))
    run = await _run({"version": 0.5, "nodes": {"llm": _llm()}}, config={"prices": PRICES})
    usage = run.usage.to_dict()
    assert usage["llm_calls"] == 1
    assert usage["input_tokens"] is None and usage["total_tokens"] is None and usage["cost_usd"] is None
    assert usage["calls_without_tokens"] == 1 and usage["calls_without_cost"] == 1
    assert "tokens unknown" in run.usage.summary()


async def test_a_model_without_a_price_has_an_unknown_cost_and_says_so(openai_server, reply):
    openai_server.script(reply.text("Paris."))
    run = await _run({"version": 0.5, "nodes": {"llm": _llm()}},
                     config={"prices": {"openai": {"o3": {"input": 2.5, "output": 10}}}})
    assert run.usage.cost_usd is None
    assert run.usage.summary() == "1 LLM call, 18 tokens (11 in, 7 out), cost unknown (no price for openai:scripted-model)"


async def test_a_provider_wide_price_covers_its_models(openai_server, reply):
    openai_server.script(reply.text("Paris."))
    run = await _run({"version": 0.5, "nodes": {"llm": _llm()}}, config={"prices": {"openai": {"*": {"input": 1, "output": 1}}}})
    assert run.usage.cost_usd == pytest.approx(18 / 1e6)


async def test_groq_through_openais_request_is_counted_as_groqs(openai_server, reply, monkeypatch):
    monkeypatch.setenv("GROQ_BASE_URL", openai_server.url)
    monkeypatch.setenv("GROQ_API_KEY", "gsk_test_secret")
    openai_server.script(reply.text("Paris."))
    run = await _run({"version": 0.5, "nodes": {"llm": {"agent": "groqAgent", "params": {"model": "llama-3.1-8b"},
                                                         "inputs": {"prompt": "hi"}, "isResult": True}}})
    assert list(run.usage.to_dict()["by_model"]) == ["groq:scripted-model"]


async def test_the_events_say_what_the_run_counted(openai_server, reply):
    openai_server.script(reply.error(500), reply.text("Paris."))
    events: list[Any] = []
    run = await _run({"version": 0.5, "nodes": {"llm": _llm(params={"retryDelay": 0.001})}}, events,
                     config={"prices": PRICES})
    finished = [event for event in events if isinstance(event, LlmCallFinished)]
    assert [(event.provider, event.input_tokens, event.error is not None) for event in finished] == [
        ("openai", None, True), ("openai", 11, False)]
    assert finished[1].cost_usd == pytest.approx((11 * 2 + 7 * 8) / 1e6)
    ledger = UsageLedger()  # what graphrt serve rebuilds from the event log
    for event in events:
        ledger.take(event_record(event))
    assert ledger.run.to_dict() == {**run.usage.to_dict(), "seconds": 0.0}


async def test_tool_calls_an_llm_asked_for_are_counted(openai_server, reply):
    async def weather(ctx: AgentContext) -> dict[str, Any]:
        return {"content": "sunny"}

    schema = {"type": "function", "function": {"name": "get", "parameters": {"type": "object", "properties": {}}}}
    openai_server.script(reply.tool_calls(("weatherAgent--get", {})), reply.text("It is sunny."))
    graph = {"version": 0.5, "nodes": {"chat": {"agent": "toolsAgent", "isResult": True, "inputs": {
        "tools": ["weatherAgent"], "userInput": {"text": "Weather?"}}}}}
    run = await _run(graph, agents=[AgentInfo(name="weatherAgent", func=weather, tools=(schema,))])
    assert run.usage.tool_calls == 1 and run.usage.llm_calls == 2
    assert run.usage_by_node()["chat"]["tool_calls"] == 1


def test_a_price_that_is_not_a_number_is_one_line_naming_it():
    with pytest.raises(UsageConfigError) as caught:
        graphrt.Graph({"version": 0.5, "nodes": {"a": {"value": 1}}},
                      config={"prices": {"openai": {"gpt-4o": {"input": "cheap", "output": 1}}}})
    assert str(caught.value) == ("config: prices.openai.gpt-4o.input: must be a number from 0 "
                                 "(USD per million input tokens), got 'cheap'")


@pytest.mark.needs("anthropic")
async def test_anthropic_cache_reads_are_counted_in_the_prompt(anthropic_api, reply):
    anthropic_api.script(reply.text("Paris.", usage={"input_tokens": 50, "cache_read_input_tokens": 900,
                                                     "cache_creation_input_tokens": 50, "output_tokens": 20}))
    run = await _run({"version": 0.5, "nodes": {"llm": {"agent": "anthropicAgent", "inputs": {"prompt": "hi"},
                                                         "isResult": True}}})
    usage = run.usage.to_dict()
    assert (usage["input_tokens"], usage["cached_tokens"], usage["output_tokens"]) == (1000, 900, 20)
    assert list(usage["by_model"]) == ["anthropic:scripted-model"]


@pytest.mark.needs("gemini")
async def test_gemini_thoughts_are_counted_in_the_reply(gemini_api, reply):
    gemini_api.script(reply.text("Paris.", usage={"promptTokenCount": 100, "cachedContentTokenCount": 60,
                                                  "candidatesTokenCount": 30, "thoughtsTokenCount": 70}))
    run = await _run({"version": 0.5, "nodes": {"llm": {"agent": "geminiAgent", "inputs": {"prompt": "hi"},
                                                         "isResult": True}}})
    usage = run.usage.to_dict()
    assert (usage["input_tokens"], usage["cached_tokens"], usage["output_tokens"], usage["reasoning_tokens"]) == (
        100, 60, 100, 70)


async def test_embeddings_count_their_input_and_write_nothing(embeddings_api, reply):
    embeddings_api.script(reply.text(""))
    run = await _run({"version": 0.5, "nodes": {"e": {"agent": "stringEmbeddingsAgent", "isResult": True,
                                                       "inputs": {"array": ["a", "b"]}}}})
    usage = run.usage.to_dict()
    assert (usage["input_tokens"], usage["output_tokens"], usage["calls_without_tokens"]) == (5, 0, 0)
