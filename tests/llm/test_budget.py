"""Budgets: a run (or a node) stops before a call that would pass what it may spend, and keeps what it has."""

from __future__ import annotations

from typing import Any

import pytest

import graphrt
from graphrt import AgentContext, AgentInfo
from graphrt.base.budget import Budget
from graphrt.base.errors import BudgetExceeded, UsageConfigError

pytestmark = pytest.mark.anyio


def _llm(prompt: str = ":previous.text", **node: Any) -> dict[str, Any]:
    return {"agent": "openAIAgent", "inputs": {"prompt": prompt}, "isResult": True, **node}


CHAIN = {"version": 0.5, "nodes": {
    "a": _llm("Say a word."),
    "b": _llm(":a.text"),
    "c": _llm(":b.text"),
}}


async def _run(graph: dict[str, Any], **options: Any) -> tuple[graphrt.Run, BaseException | None]:
    graph_options = {key: options.pop(key) for key in ("agents", "config") if key in options}
    run = graphrt.Graph(graph, **graph_options).start(**options)
    try:
        await run
    except graphrt.GraphError as error:
        return run, error
    return run, None


async def test_a_run_stops_before_the_call_that_would_pass_its_tokens_and_keeps_what_it_has(openai_server, reply):
    openai_server.script(reply.text("one"), reply.text("two"), reply.text("three"))
    run, error = await _run(CHAIN, budget={"tokens": 40})
    assert isinstance(error, BudgetExceeded)
    assert (error.limit, error.allowed, error.spent, error.budget_node, error.at) == ("tokens", 40, 36, None, "c")
    assert str(error) == ("node 'c': budget exceeded: the run may spend 40 tokens and has spent 36; the call needs "
                          f"about {error.need:,} more; stopped before a call of node 'c'")
    assert len(openai_server.requests) == 2  # the third call was never made
    assert {key: value["text"] for key, value in run.results().items()} == {"a": "one", "b": "two"}
    assert run.usage.tokens == 36
    assert run.states()["c"] == "failed"


async def test_llm_calls_count_each_attempt(openai_server, reply):
    openai_server.script(reply.error(500), reply.text("one"), reply.text("two"))
    run, error = await _run(CHAIN, budget="llm_calls=2", )
    assert isinstance(error, BudgetExceeded) and error.limit == "llm_calls" and error.at == "b"
    assert len(openai_server.requests) == 2 and run.results()["a"]["text"] == "one"


async def test_calls_at_once_cannot_pass_a_budget_together(openai_server, reply):
    openai_server.script(reply.text("one"), reply.text("two"))
    graph = {"version": 0.5, "nodes": {"x": _llm("first"), "y": _llm("second")}}
    run, error = await _run(graph, budget=Budget.parse("llm_calls=1"))
    assert isinstance(error, BudgetExceeded)
    assert len(openai_server.requests) == 1 and len(run.results()) == 1


async def test_a_nodes_budget_stops_that_node_and_the_run_goes_on(openai_server, reply):
    openai_server.script(reply.text("draft"), reply.text("elsewhere"))
    graph = {"version": 0.5, "nodes": {
        "ask": {"agent": "nestedAgent", "isResult": True, "graph": {"nodes": {
            "draft": _llm("Draft it."), "polish": _llm(":draft.text")}}},
        "other": {**_llm("Something else."), "inputs": {"prompt": "Something else."}},
    }}
    run, error = await _run(graph, budget={"nodes": {"ask": {"llm_calls": 1}}})
    assert isinstance(error, BudgetExceeded) and (error.budget_node, error.at) == ("ask", "ask/polish")
    assert str(error) == ("node 'ask' > 'polish': budget exceeded: node 'ask' may spend 1 LLM calls and has spent 1; "
                          "stopped before a call of node 'ask/polish'")
    assert list(run.results()) == ["other"]
    assert len(openai_server.requests) == 2  # the node's second call was refused, the other node's was made


async def test_a_cost_budget_refuses_a_call_whose_model_has_no_price(openai_server, reply):
    openai_server.script(reply.text("one"))
    run, error = await _run({"version": 0.5, "nodes": {"a": _llm("hi")}}, budget={"cost": 1},
                            config={"prices": {"openai": {"o3": {"input": 2, "output": 8}}}})
    assert isinstance(error, BudgetExceeded) and error.limit == "cost"
    assert "the cost of openai:gpt-4o is unknown (no price for it in the config's prices)" in str(error)
    assert openai_server.requests == []


async def test_a_cost_budget_counts_the_prices(openai_server, reply):
    openai_server.script(reply.text("one"), reply.text("two"))
    prices = {"openai": {"*": {"input": 1000, "output": 1000}}}  # $0.001 a token: 18 tokens are $0.018
    run, error = await _run(CHAIN, budget={"cost": 0.02}, config={"prices": prices})
    assert isinstance(error, BudgetExceeded) and error.limit == "cost" and error.at == "b"
    assert str(error).startswith("node 'b': budget exceeded: the run may spend $0.02 USD and has spent $0.018;")
    assert len(openai_server.requests) == 1


async def test_a_tool_call_past_the_budget_is_refused_and_stops_the_node(openai_server, reply):
    calls = []

    async def weather(ctx: AgentContext) -> dict[str, Any]:
        calls.append(ctx.inputs["arg"])
        return {"content": "sunny"}

    schema = {"type": "function", "function": {"name": "get", "parameters": {"type": "object", "properties": {}}}}
    openai_server.script(reply.tool_calls(("weatherAgent--get", {"at": 1}), ("weatherAgent--get", {"at": 2})),
                         reply.text("It is sunny."))
    graph = {"version": 0.5, "nodes": {"chat": {"agent": "toolsAgent", "isResult": True, "inputs": {
        "tools": ["weatherAgent"], "userInput": {"text": "Weather?"}}}}}
    run, error = await _run(graph, budget="tool_calls=1",
                            agents=[AgentInfo(name="weatherAgent", func=weather, tools=(schema,))])
    assert isinstance(error, BudgetExceeded) and error.limit == "tool_calls"
    assert calls == [{"at": 1}] and len(openai_server.requests) == 1  # no second tool call, no reply read back
    assert run.usage.tool_calls == 1


async def test_a_node_stopped_by_the_budget_is_not_run_again_for_its_retry(openai_server, reply):
    openai_server.script(reply.text("one"), reply.text("two"))
    graph = {"version": 0.5, "nodes": {"a": _llm("hi", retry=3), "b": _llm(":a.text", retry=3)}}
    run, error = await _run(graph, budget={"llm_calls": 1})
    assert isinstance(error, BudgetExceeded) and error.at == "b"
    assert len(openai_server.requests) == 1


async def test_a_seconds_budget_is_checked_before_each_call(openai_server, reply):
    openai_server.script(reply.text("one"))
    run, error = await _run({"version": 0.5, "nodes": {"a": _llm("hi")}}, budget={"seconds": 1e-9})
    assert isinstance(error, BudgetExceeded) and error.limit == "seconds"
    assert openai_server.requests == []


async def test_the_configs_budget_applies_and_a_runs_own_goes_over_it(openai_server, reply):
    openai_server.script(reply.text("one"), reply.text("two"), reply.text("three"))
    _, error = await _run(CHAIN, config={"budget": {"llm_calls": 1}})
    assert isinstance(error, BudgetExceeded) and error.at == "b"
    openai_server.reset()
    openai_server.script(reply.text("one"), reply.text("two"), reply.text("three"))
    run, error = await _run(CHAIN, config={"budget": {"llm_calls": 1}}, budget={"llm_calls": 5})
    assert error is None and len(run.results()) == 3


@pytest.mark.parametrize("given, said", [
    ({"tokens": 0}, "budget.tokens: must be a number above 0, got 0"),
    ({"tokens": 1.5}, "budget.tokens: must be a whole number above 0, got 1.5"),
    ({"cost": "cheap"}, "budget.cost: must be a number above 0, got 'cheap'"),
    ({"dollars": 3}, "budget: unknown unit 'dollars' (units: tokens, cost, llm_calls, tool_calls, seconds)"),
    ("tokens", "budget: 'tokens' is not UNIT=LIMIT (units: tokens, cost, llm_calls, tool_calls, seconds; "
               "NODE.UNIT=LIMIT for a node's)"),
    ({"nodes": {"react": {"tokens": -1}}}, "budget.nodes.react.tokens: must be a number above 0, got -1"),
])
def test_a_budget_that_cannot_be_used_is_one_line(given, said):
    with pytest.raises(UsageConfigError) as caught:
        graphrt.Graph(CHAIN).start(budget=given)
    assert str(caught.value) == said


async def test_a_failure_whose_causes_come_round_to_themselves_fails_the_run_as_it_is():
    def looping(ctx: AgentContext) -> None:
        first, second = ValueError("first"), ValueError("second")
        first.__cause__, second.__cause__ = second, first
        raise first

    run, error = await _run({"version": 0.5, "nodes": {"a": {"agent": "loopingAgent", "isResult": True}}},
                            agents=[AgentInfo(name="loopingAgent", func=looping)])
    assert not isinstance(error, BudgetExceeded) and "first" in str(error)
