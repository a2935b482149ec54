"""OpenTelemetry spans for graph runs: install with `pip install 'graphrt[otel]'`.

    from graphrt.observe.otel import OpenTelemetrySpans
    graph.run(subscribe=[OpenTelemetrySpans()])      # uses the global TracerProvider

A subscriber that turns a run's events into spans: `graphrt.run` for the run,
`node <id>` for each attempt of a node (a nested graph's nodes under the node
that runs it), `chat <model>` for each LLM call an agent reports
(LlmCallStarted/LlmCallFinished) and `execute_tool <name>` for each tool call,
with OpenTelemetry's GenAI attribute names. Loop iterations, skips and agent
progress are span events. Spans take their times from the events, so they are
right even though they are made outside the agents' tasks; for the same reason
spans that other libraries make inside an agent are not children of its node
span.
"""

from __future__ import annotations

import threading
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import Span, Status, StatusCode

from graphrt.base.errors import error_message
from graphrt.observe.events import (
    AgentProgress,
    Event,
    LlmCallFinished,
    LlmCallStarted,
    LoopIteration,
    NodeCompleted,
    NodeEvent,
    NodeFailed,
    NodeInterrupted,
    NodeSkipped,
    NodeStarted,
    NodeTimedOut,
    RunFinished,
    RunStarted,
    ToolCalled,
    ToolReturned,
)

__all__ = ["OpenTelemetrySpans"]

_TRACER_NAME = "graphrt"


def _ns(seconds: float) -> int:
    return int(seconds * 1_000_000_000)


def _owner(path: tuple[str | int, ...]) -> tuple[tuple[str | int, ...], str] | None:
    """The (path, node id) of the node that runs the graph at `path`; None at the top level."""
    if path and isinstance(path[-1], int):
        path = path[:-1]
    return (path[:-1], str(path[-1])) if path else None


def _path_text(path: tuple[str | int, ...]) -> str:
    return "/".join(str(step) for step in path)


def _fail(span: Span, error: Any, description: str | None = None) -> None:
    if isinstance(error, BaseException):
        span.record_exception(error)
    span.set_status(Status(StatusCode.ERROR, description or str(error)))


class OpenTelemetrySpans:
    """A subscriber that reports runs, nodes, LLM calls and tool calls as OpenTelemetry spans.

    Args:
        tracer_provider: where spans go; the global provider if None.
    """

    def __init__(self, tracer_provider: trace.TracerProvider | None = None) -> None:
        self._tracer = trace.get_tracer(_TRACER_NAME, tracer_provider=tracer_provider)
        self._runs: dict[str, Span] = {}
        self._nodes: dict[tuple[Any, ...], Span] = {}
        self._calls: dict[tuple[Any, ...], Span] = {}
        self._lock = threading.Lock()

    def __call__(self, event: Event) -> None:
        with self._lock:
            self._handle(event)

    def _parent(self, event: Event) -> Span | None:
        owner = _owner(event.path)
        if owner is not None:
            span = self._nodes.get((event.run_id, *owner))
            if span is not None:
                return span
        return self._runs.get(event.run_id)

    def _start(self, name: str, event: Event, parent: Span | None, attributes: dict[str, Any]) -> Span:
        context = trace.set_span_in_context(parent) if parent is not None else None
        return self._tracer.start_span(name, context=context, start_time=_ns(event.time), attributes=attributes)

    def _node_span(self, event: Event) -> Span | None:
        return self._nodes.get((event.run_id, event.path, event.node_id)) if isinstance(event, NodeEvent) else None

    def _handle(self, event: Event) -> None:
        if isinstance(event, RunStarted) and not event.path:
            self._runs[event.run_id] = self._start("graphrt.run", event, None, {"graphrt.run_id": event.run_id})
        elif isinstance(event, RunFinished) and not event.path:
            self._finish_run(event)
        elif isinstance(event, NodeStarted):
            attributes = {
                "graphrt.node.id": event.node_id,
                "graphrt.node.attempt": event.attempt,
            }
            if event.agent_id:
                attributes["graphrt.agent.id"] = event.agent_id
            if event.path:
                attributes["graphrt.node.path"] = _path_text(event.path)
            span = self._start(f"node {event.node_id}", event, self._parent(event), attributes)
            self._nodes[(event.run_id, event.path, event.node_id)] = span
        elif isinstance(event, NodeCompleted):
            span = self._nodes.pop((event.run_id, event.path, event.node_id), None)
            if span is not None:
                span.set_status(Status(StatusCode.OK))
                span.end(end_time=_ns(event.time))
        elif isinstance(event, NodeInterrupted):  # a question for a person: the span ends, not as an error
            span = self._nodes.pop((event.run_id, event.path, event.node_id), None)
            if span is not None:
                span.set_attribute("graphrt.node.interrupted", True)
                span.add_event("question asked", {"graphrt.question": event.question}, timestamp=_ns(event.time))
                span.end(end_time=_ns(event.time))
        elif isinstance(event, NodeFailed):  # also NodeRetried and NodeTimedOut
            span = self._nodes.pop((event.run_id, event.path, event.node_id), None)
            if span is not None:
                span.set_attribute("graphrt.node.timed_out", isinstance(event, NodeTimedOut) or event.timed_out)
                span.set_attribute("graphrt.node.will_retry", event.will_retry)
                _fail(span, event.error, error_message(event.error))
                span.end(end_time=_ns(event.time))
        elif isinstance(event, NodeSkipped):
            parent = self._parent(event)
            if parent is not None:
                parent.add_event("node skipped", {"graphrt.node.id": event.node_id}, timestamp=_ns(event.time))
        elif isinstance(event, LoopIteration):
            parent = self._parent(event)
            if parent is not None:
                parent.add_event("loop iteration", {"graphrt.loop.index": event.index}, timestamp=_ns(event.time))
        elif isinstance(event, AgentProgress):
            span = self._node_span(event)
            if span is not None:
                span.add_event("progress", {"message": event.message}, timestamp=_ns(event.time))
        elif isinstance(event, LlmCallStarted):
            attributes = {"gen_ai.operation.name": "chat"}
            if event.model:
                attributes["gen_ai.request.model"] = event.model
            if event.system:
                attributes["gen_ai.system"] = event.system
            name = f"chat {event.model}" if event.model else "chat"
            key = (event.run_id, event.path, event.node_id, "llm", event.call_id)
            self._calls[key] = self._start(name, event, self._node_span(event) or self._parent(event), attributes)
        elif isinstance(event, LlmCallFinished):
            span = self._calls.pop((event.run_id, event.path, event.node_id, "llm", event.call_id), None)
            if span is not None:
                for name, value in (
                    ("gen_ai.response.model", event.model),
                    ("gen_ai.provider.name", event.provider),
                    ("gen_ai.usage.input_tokens", event.input_tokens),
                    ("gen_ai.usage.output_tokens", event.output_tokens),
                    ("gen_ai.usage.cache_read.input_tokens", event.cached_tokens),
                    ("gen_ai.usage.reasoning.output_tokens", event.reasoning_tokens),
                    ("graphrt.usage.cost_usd", event.cost_usd),
                    ("gen_ai.response.finish_reasons", [event.finish_reason] if event.finish_reason else None),
                ):
                    if value is not None:
                        span.set_attribute(name, value)
                if event.error:
                    _fail(span, event.error)
                span.end(end_time=_ns(event.time))
        elif isinstance(event, ToolCalled):
            attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": event.name,
                          "gen_ai.tool.call.id": event.tool_call_id}
            key = (event.run_id, event.path, event.node_id, "tool", event.tool_call_id)
            self._calls[key] = self._start(f"execute_tool {event.name}", event,
                                           self._node_span(event) or self._parent(event), attributes)
        elif isinstance(event, ToolReturned):
            span = self._calls.pop((event.run_id, event.path, event.node_id, "tool", event.tool_call_id), None)
            if span is not None:
                if event.error:
                    _fail(span, event.error)
                span.end(end_time=_ns(event.time))

    def _finish_run(self, event: RunFinished) -> None:
        end = _ns(event.time)
        # Anything still open was cancelled with the run (abort, or a failure elsewhere).
        for registry in (self._calls, self._nodes):
            for key in [key for key in registry if key[0] == event.run_id]:
                span = registry.pop(key)
                _fail(span, "cancelled: the run ended first")
                span.end(end_time=end)
        span = self._runs.pop(event.run_id, None)
        if span is None:
            return
        for name, value in _run_usage(event.usage):
            span.set_attribute(name, value)
        if event.error is not None:
            _fail(span, event.error, error_message(event.error))
        else:
            span.set_status(Status(StatusCode.OK))
        span.end(end_time=end)


def _run_usage(usage: Any) -> list[tuple[str, Any]]:
    """A run's usage as its span's attributes: the GenAI conventions' token counts (what is unknown left out,
    never 0) and graphrt's own (calls, cost, time waited)."""
    if not isinstance(usage, dict) or not usage.get("llm_calls") and not usage.get("tool_calls"):
        return []
    shown = (("gen_ai.usage.input_tokens", "input_tokens"), ("gen_ai.usage.output_tokens", "output_tokens"),
             ("gen_ai.usage.cache_read.input_tokens", "cached_tokens"),
             ("gen_ai.usage.reasoning.output_tokens", "reasoning_tokens"), ("graphrt.usage.llm_calls", "llm_calls"),
             ("graphrt.usage.retried_calls", None), ("graphrt.usage.tool_calls", "tool_calls"),
             ("graphrt.usage.cost_usd", "cost_usd"), ("graphrt.usage.waited_seconds", "waited_seconds"))
    attributes = []
    for name, key in shown:
        value = usage.get(key) if key is not None else (usage.get("retried") or {}).get("calls")
        if value is not None:
            attributes.append((name, value))
    return attributes
