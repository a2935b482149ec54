"""Agent filters: order, scope, filter params, nested graphs, and the built-in filters."""

from __future__ import annotations

from typing import Any

import pytest

import graphrt
from graphrt import AgentContext, AgentFilter, AgentInfo, RegistrationError
from graphrt.authoring.filters import Next
from graphrt.observe.events import TokenDelta

GRAPH = {
    "version": 0.5,
    "nodes": {
        "a": {"agent": "copyAgent", "inputs": {"v": 1}, "params": {"namedKey": "v"}},
        "b": {"agent": "echoAgent", "params": {"filterParams": True}, "filterParams": {"mine": "node"}, "isResult": True},
    },
}


def recorder(name: str, calls: list[str]):
    async def record(ctx: AgentContext, next: Next) -> Any:
        calls.append(f"{name}>{ctx.node_id}")
        result = await next(ctx)
        calls.append(f"{name}<{ctx.node_id}")
        return result

    record.__name__ = name
    return record


def test_filters_wrap_each_call_in_the_order_given() -> None:
    calls: list[str] = []
    graph = {"version": 0.5, "nodes": {"a": {"agent": "copyAgent", "inputs": {"v": 1}, "isResult": True}}}
    graphrt.run(graph, filters=[recorder("outer", calls), recorder("inner", calls)])
    assert calls == ["outer>a", "inner>a", "inner<a", "outer<a"]


def test_a_filter_scoped_by_agent_or_node_applies_only_there() -> None:
    calls: list[str] = []
    graphrt.run(GRAPH, filters=[
        AgentFilter(recorder("by_agent", calls), agent_ids=["echoAgent"]),
        AgentFilter(recorder("by_node", calls), node_ids=["a"]),
        AgentFilter(recorder("empty", calls), agent_ids=[]),  # an empty list names nothing, as in GraphAI
    ])
    assert sorted(calls) == ["by_agent<b", "by_agent>b", "by_node<a", "by_node>a"]


def test_filter_params_are_defaults_that_the_nodes_own_override() -> None:
    async def passthrough(ctx: AgentContext, next: Next) -> Any:
        return await next(ctx)

    filters = [AgentFilter(passthrough, filter_params={"mine": "filter", "extra": 1})]
    assert graphrt.run(GRAPH, filters=filters) == {"b": {"mine": "node", "extra": 1}}


def test_a_filter_can_change_the_context_and_the_result() -> None:
    async def shout(ctx: AgentContext, next: Next) -> Any:
        ctx.inputs = {**ctx.inputs, "v": "hi"}
        return str(await next(ctx)).upper()

    graph = {"version": 0.5, "nodes": {"a": {"agent": "copyAgent", "inputs": {"v": 1}, "params": {"namedKey": "v"},
                                             "isResult": True}}}
    assert graphrt.run(graph, filters=[shout]) == {"a": "HI"}


def test_a_filter_may_call_next_more_than_once() -> None:
    attempts: list[int] = []

    async def flaky(ctx: AgentContext) -> str:
        attempts.append(1)
        if len(attempts) < 3:
            raise ConnectionError("try again")
        return "ok"

    async def retry(ctx: AgentContext, next: Next) -> Any:
        for _ in range(5):
            try:
                return await next(ctx)
            except ConnectionError:
                continue
        raise RuntimeError("gave up")

    graph = {"version": 0.5, "nodes": {"a": {"agent": "flaky", "isResult": True}}}
    assert graphrt.run(graph, agents=[AgentInfo(name="flaky", func=flaky)], filters=[retry]) == {"a": "ok"}
    assert len(attempts) == 3


def test_nested_graphs_run_with_their_parents_filters() -> None:
    calls: list[str] = []
    graph = {"version": 0.5, "nodes": {
        "outer": {"agent": "nestedAgent", "inputs": {"x": 1}, "isResult": True, "graph": {
            "version": 0.5, "nodes": {"inner": {"agent": "copyAgent", "inputs": {"v": ":x"}, "isResult": True}}}},
    }}
    graphrt.run(graph, filters=[AgentFilter(recorder("f", calls), agent_ids=["copyAgent"])])
    assert calls == ["f>inner", "f<inner"]


def test_the_filter_sees_the_agent_info() -> None:
    seen: list[str | None] = []

    async def look(ctx: AgentContext, next: Next) -> Any:
        seen.append(ctx.agent_info.name if ctx.agent_info else None)
        return await next(ctx)

    graphrt.run(GRAPH, filters=[look])
    assert sorted(seen) == ["copyAgent", "echoAgent"]


def test_a_sync_filter_is_refused() -> None:
    def not_async(ctx, next):
        return next(ctx)

    with pytest.raises(RegistrationError) as caught:
        AgentFilter(not_async)
    assert str(caught.value) == "agent filter 'not_async' must be an async function: async def f(ctx, next)"


# ----- cache -----


def counting_agent(cache_type: str | None, calls: list[Any]) -> AgentInfo:
    async def count(ctx: AgentContext) -> dict:
        calls.append(ctx.inputs)
        if "cache" in ctx.filter_params:
            cache = ctx.filter_params["cache"]
            key = cache.key(ctx)
            if cache.get(key) is not None:
                return cache.get(key)
            cache.set(key, {"n": len(calls)})
        return {"n": len(calls)}

    return AgentInfo(name="count", func=count, cache_type=cache_type)


def twice(inputs_b: int = 1) -> dict:
    return {"version": 0.5, "nodes": {
        "a": {"agent": "count", "inputs": {"x": 1}, "isResult": True},
        "b": {"agent": "count", "inputs": {"x": inputs_b}, "isResult": True, "params": {}},
    }}


def test_the_cache_filter_calls_a_pure_agent_once_per_agent_inputs_and_params() -> None:
    calls: list[Any] = []
    store: dict[str, Any] = {}
    agents = [counting_agent("pureAgent", calls)]
    first = graphrt.run(twice(), agents=agents, filters=[graphrt.cache_filter(store)])
    second = graphrt.run(twice(inputs_b=2), agents=agents, filters=[graphrt.cache_filter(store)])
    assert first == {"a": {"n": 1}, "b": {"n": 1}}
    assert second == {"a": {"n": 1}, "b": {"n": 2}}
    assert len(calls) == 2 and len(store) == 2


def test_the_cache_filter_leaves_undeclared_agents_alone_unless_asked() -> None:
    calls: list[Any] = []
    agents = [counting_agent(None, calls)]
    assert graphrt.run(twice(), agents=agents, filters=[graphrt.cache_filter()]) == {"a": {"n": 1}, "b": {"n": 2}}
    calls.clear()
    assert graphrt.run(twice(), agents=agents, filters=[graphrt.cache_filter(cache_undeclared=True)]) == {
        "a": {"n": 1}, "b": {"n": 1}}


def test_an_impure_agent_gets_the_cache_to_use_itself() -> None:
    calls: list[Any] = []
    result = graphrt.run(twice(), agents=[counting_agent("impureAgent", calls)], filters=[graphrt.cache_filter()])
    assert result == {"a": {"n": 1}, "b": {"n": 1}}
    assert len(calls) == 2  # called every time; it chose to answer from the cache


def test_a_cached_result_is_a_copy() -> None:
    calls: list[Any] = []
    store: dict[str, Any] = {}
    agents = [counting_agent("pureAgent", calls)]
    graphrt.run(twice(), agents=agents, filters=[graphrt.cache_filter(store)])["a"]["n"] = 99
    assert graphrt.run(twice(), agents=agents, filters=[graphrt.cache_filter(store)])["a"] == {"n": 1}


# ----- input validation -----


def test_the_input_validation_filter_checks_hand_written_agents() -> None:
    async def upper(ctx: AgentContext) -> str:
        return ctx.inputs["text"].upper()

    info = AgentInfo(name="upper", func=upper, inputs={
        "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
    graph = {"version": 0.5, "nodes": {"u": {"agent": "upper", "inputs": {"text": 7}, "isResult": True}}}
    with pytest.raises(graphrt.AgentError) as caught:
        graphrt.run(graph, agents=[info], filters=[graphrt.input_validation_filter()])
    assert str(caught.value) == "node 'u', field 'inputs.text': 7 is not of type 'string' (agent upper)"


def test_the_input_validation_filter_leaves_the_check_to_an_agent_that_checks_its_inputs() -> None:
    async def lenient(ctx: AgentContext) -> str:
        return f"took {ctx.inputs['text']!r}"

    info = AgentInfo(name="lenient", func=lenient, checks_inputs=True, inputs={
        "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
    graph = {"version": 0.5, "nodes": {"seven": {"value": 7},
                                       "u": {"agent": "lenient", "inputs": {"text": ":seven"}, "isResult": True}}}
    assert graphrt.run(graph, agents=[info], filters=[graphrt.input_validation_filter()]) == {"u": "took 7"}


def test_the_built_in_agents_pass_the_input_validation_filter() -> None:
    graph = {"version": 0.5, "nodes": {
        "t": {"agent": "stringTemplateAgent", "inputs": {"name": "Ada"}, "params": {"template": "Hi ${name}"}},
        "c": {"agent": "copyAgent", "inputs": {"v": ":t"}, "params": {"namedKey": "v"}, "isResult": True},
    }}
    assert graphrt.run(graph, filters=[graphrt.input_validation_filter()]) == {"c": "Hi Ada"}


# ----- streaming -----


def test_the_stream_filter_turns_stream_callbacks_into_token_events() -> None:
    graph = graphrt.Graph({"version": 0.5, "nodes": {
        "s": {"agent": "streamMockAgent", "params": {"message": "hey", "sleep": 1}, "isResult": True}}},
        filters=[graphrt.stream_filter()])
    tokens: list[str] = []
    assert graph.run(subscribe=[lambda event: tokens.append(event.token) if isinstance(event, TokenDelta) else None]) == {"s": {"message": "hey"}}
    assert tokens == ["h", "e", "y"]


def test_the_stream_filter_takes_a_callback_like_graphais_generator() -> None:
    received: list[tuple[str, str]] = []
    graph = {"version": 0.5, "nodes": {"s": {"agent": "streamMockAgent", "params": {"message": "ok", "sleep": 1},
                                             "isResult": True}}}
    graphrt.run(graph, filters=[graphrt.stream_filter(lambda ctx, data: received.append((ctx.node_id, data)))])
    assert received == [("s", "o"), ("s", "k")]
