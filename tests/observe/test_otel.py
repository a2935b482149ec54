"""OpenTelemetry spans for runs, nodes, LLM calls and tool calls, checked with the SDK's in-memory exporter."""

from __future__ import annotations

import pytest

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

import graphrt
from graphrt.authoring.agent_info import AgentContext, AgentInfo
from graphrt.observe.events import (
    LlmCallFinished,
    LlmCallStarted,
    ToolCalled,
    ToolReturned,
)
from graphrt.observe.otel import OpenTelemetrySpans

pytestmark = pytest.mark.needs("otel")


async def _chat(ctx: AgentContext) -> dict:
    ctx.emit(LlmCallStarted, call_id="c1", model="tiny", system="openai")
    ctx.emit(ToolCalled, tool_call_id="t1", name="search", arguments={"q": "tower"})
    ctx.emit(ToolReturned, tool_call_id="t1", name="search", content="", error="no such page")
    ctx.emit(LlmCallFinished, call_id="c1", model="tiny-1", input_tokens=12, output_tokens=3, finish_reason="stop")
    return {"text": "Paris"}


def _flaky(ctx: AgentContext) -> str:
    if ctx.retry_count == 0:
        raise ValueError("first attempt fails")
    return "ok"


AGENTS = [AgentInfo("chat", _chat), AgentInfo("flaky", _flaky)]


@pytest.fixture
def exporter() -> InMemorySpanExporter:
    return InMemorySpanExporter()


def spans_of(graph_data: dict | str, exporter: InMemorySpanExporter) -> dict:
    """The finished spans by name; node spans as `node <id> #<attempt>`."""
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    graph = graphrt.Graph(graph_data, agents=AGENTS)
    try:
        graph.run(subscribe=[OpenTelemetrySpans(provider)])
    except graphrt.GraphError:
        pass
    return {span.name + (f" #{span.attributes.get('graphrt.node.attempt')}" if span.name.startswith("node") else ""): span
            for span in exporter.get_finished_spans()}


def test_a_run_is_a_span_with_a_span_per_node_attempt_and_llm_call(exporter) -> None:
    spans = spans_of({"nodes": {"ask": {"agent": "chat", "isResult": True},
                                "again": {"agent": "flaky", "retry": 1, "isResult": True}}}, exporter)

    assert sorted(spans) == ["chat tiny", "execute_tool search", "graphrt.run", "node again #1", "node again #2",
                             "node ask #1"]
    run, ask, chat, tool = spans["graphrt.run"], spans["node ask #1"], spans["chat tiny"], spans["execute_tool search"]
    assert ask.parent.span_id == run.context.span_id
    assert chat.parent.span_id == ask.context.span_id
    assert tool.parent.span_id == ask.context.span_id
    assert {key: chat.attributes[key] for key in chat.attributes} == {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "tiny",
        "gen_ai.system": "openai",
        "gen_ai.response.model": "tiny-1",
        "gen_ai.usage.input_tokens": 12,
        "gen_ai.usage.output_tokens": 3,
        "gen_ai.response.finish_reasons": ("stop",),
    }
    assert (tool.status.status_code, tool.status.description) == (StatusCode.ERROR, "no such page")
    first, second = spans["node again #1"], spans["node again #2"]
    assert (first.status.status_code, first.attributes["graphrt.node.will_retry"]) == (StatusCode.ERROR, True)
    assert second.status.status_code == StatusCode.OK
    assert run.status.status_code == StatusCode.OK
    assert run.start_time <= ask.start_time <= chat.start_time <= chat.end_time <= ask.end_time <= run.end_time


def test_nested_nodes_are_children_of_the_node_that_runs_them(exporter) -> None:
    sentences = spans_of("graphs/fruit_map.yaml", exporter)["node sentences #1"]

    children = [span for span in exporter.get_finished_spans() if span.name == "node sentence"]
    assert sorted(span.attributes["graphrt.node.path"] for span in children) == ["sentences/0", "sentences/1", "sentences/2"]
    assert {span.parent.span_id for span in children} == {sentences.context.span_id}


def test_a_failed_run_marks_its_span_and_the_failed_node(exporter) -> None:
    spans = spans_of({"nodes": {"bad": {"agent": "flaky", "isResult": True}}}, exporter)

    assert spans["node bad #1"].status.description == "ValueError: first attempt fails"
    assert spans["graphrt.run"].status.status_code == StatusCode.ERROR
    assert [event.name for event in spans["node bad #1"].events] == ["exception"]


async def _asks(ctx: AgentContext) -> dict:
    return {"text": ctx.ask("Your name?")}


def test_a_node_that_asks_a_question_ends_its_span_without_an_error(exporter) -> None:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    graph = graphrt.Graph({"nodes": {"name": {"agent": "asks", "isResult": True}}}, agents=[AgentInfo("asks", _asks)])
    with pytest.raises(graphrt.GraphInterrupted):
        graph.run(subscribe=[OpenTelemetrySpans(provider)])

    node = next(span for span in exporter.get_finished_spans() if span.name == "node name")
    assert node.attributes["graphrt.node.interrupted"] is True
    assert node.status.status_code != StatusCode.ERROR
    assert [(event.name, event.attributes["graphrt.question"]) for event in node.events] == [
        ("question asked", "Your name?")]


def test_llm_spans_and_the_run_span_carry_what_was_spent_with_the_genai_names(exporter, openai_server, reply) -> None:
    openai_server.script(reply.text("Paris.", usage={"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120,
                                                     "prompt_tokens_details": {"cached_tokens": 40},
                                                     "completion_tokens_details": {"reasoning_tokens": 5}}))
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    graph = graphrt.Graph({"nodes": {"ask": {"agent": "openAIAgent", "inputs": {"prompt": "hi"}, "isResult": True}}},
                          config={"prices": {"openai": {"*": {"input": 1, "output": 1}}}})
    graph.run(subscribe=[OpenTelemetrySpans(provider)])
    spans = {span.name: span for span in exporter.get_finished_spans()}
    chat, run = spans["chat gpt-4o"], spans["graphrt.run"]
    assert {key: chat.attributes[key] for key in (
        "gen_ai.provider.name", "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens",
        "gen_ai.usage.cache_read.input_tokens", "gen_ai.usage.reasoning.output_tokens")} == {
        "gen_ai.provider.name": "openai", "gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 20,
        "gen_ai.usage.cache_read.input_tokens": 40, "gen_ai.usage.reasoning.output_tokens": 5}
    assert chat.attributes["graphrt.usage.cost_usd"] == pytest.approx(120 / 1e6)
    assert (run.attributes["gen_ai.usage.input_tokens"], run.attributes["graphrt.usage.llm_calls"]) == (100, 1)
