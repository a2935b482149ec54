"""An OpenAI-compatible endpoint: any OpenAI client or chat UI talks to a served graph as if to a model.

    client = openai.OpenAI(base_url="http://127.0.0.1:8000/v1", api_key=KEY)
    client.chat.completions.create(model="chat", messages=[{"role": "user", "content": "Hi"}])

`POST /v1/chat/completions` runs the graph named by `model`, with the request's
`messages` injected into its static node `messages`, as a run of the RunService like
any other (queue, limits, saved, in /runs and the viewer). The reply is the graph's
one result: a string, or an LLM agent's result (its `text`). With `"stream": true`
the answer comes as `chat.completion.chunk` events: the reply node's streamed tokens
as they come (TokenDelta), then whatever of the reply they did not cover, then
`[DONE]`; a run that fails ends the stream with an `error` event, which OpenAI's
SDKs raise, so a failed run never reads as a reply. A client that leaves mid-stream
stops watching the run (the run goes on, its events all logged). `GET /v1/models`
lists the graphs that take `messages`. Errors have OpenAI's shape,
`{"error": {"message", "type", "param", "code"}}`: the endpoint's own, and the
guard's refusals of its requests (`guard_error`: a wrong key, a body over the limit).
"""

from __future__ import annotations

import json
import math
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from graphrt.base.errors import GraphError, InputLimitError, RequestError
from graphrt.base.limits import parse_json
from graphrt.base.states import RunStatus
from graphrt.observe.events import Event, TokenDelta
from graphrt.serve.json_answer import JSONAnswer
from graphrt.serve.runs import RunService
from graphrt.serve.security import BodyTooLarge
from graphrt.serve.served_run import ServedRun

__all__ = ["COMPLETIONS_PREFIX", "MESSAGES_INPUT", "CompletionRefused", "completion_routes", "error_body",
           "guard_error", "reply_text"]

COMPLETIONS_PREFIX = "/v1/"  # the paths of the OpenAI-compatible API: their errors have OpenAI's shape
MESSAGES_INPUT = "messages"  # the static node a chat graph takes the conversation in
_TOKEN_BUFFER = 10_000  # tokens waiting for a slow reader; more are dropped (the end of the stream sends the rest)
_SETTLE_POLL_SECONDS = 0.2  # how soon a stream without tokens sees that its run ended


_GUARD_CODES = {401: "invalid_api_key", 408: "request_timeout", 413: "request_too_large"}
"""OpenAI's codes for what serve/security.py's guard refuses before a route sees the request."""


def error_body(message: str, kind: str = "invalid_request_error", param: str | None = None,
               code: str | None = None) -> dict[str, Any]:
    """An error as OpenAI's API answers it, which its SDKs read: `{"error": {"message", "type", "param", "code"}}`."""
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


def guard_error(status: int, message: str) -> dict[str, Any]:
    """The body of the guard's refusal (a wrong key, a body over the limit) of a request to this API."""
    return error_body(message, code=_GUARD_CODES.get(status))


class CompletionRefused(RequestError):
    """A chat completion request refused: answered in OpenAI's error shape, with `.kind` (its `type`), `.param`
    (the field at fault) and `.code`."""

    def __init__(self, status: int, message: str, kind: str = "invalid_request_error", code: str | None = None,
                 headers: dict[str, str] | None = None, param: str | None = None) -> None:
        super().__init__(message, status=status, headers=headers)
        self.kind, self.code, self.param = kind, code, param

    def body(self, message: str) -> dict[str, Any]:
        """Its error in OpenAI's shape, saying `message`."""
        return error_body(message, self.kind, self.param, self.code)

    def response(self, service: RunService) -> JSONAnswer:
        """The answer, its message as clients see errors (service.shown: it may quote the model named, a key)."""
        return JSONAnswer(self.body(service.shown(str(self))), status_code=self.status, headers=self.headers)


def _service(request: Request) -> RunService:
    return request.app.state.service


def reply_text(results: dict[str, Any]) -> str:
    """The text of a chat graph's reply: its one result, a string or an LLM agent's `{text, message, ...}`.

    Raises:
        GraphError: the graph gave no result, or several (a chat graph has one).
    """
    if len(results) != 1:
        names = ", ".join(results) or "none"
        raise GraphError(f"a chat graph has one result (isResult) to reply with; this one gave: {names}")
    (value,) = results.values()
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        if isinstance(value.get("text"), str):
            return value["text"]
        message = value.get("message")
        if isinstance(message, dict) and isinstance(message.get("content"), str):
            return message["content"]
    return json.dumps(value, ensure_ascii=False)


def _count(value: Any) -> int:
    """A token count as OpenAI's usage gives it, a whole number from 0; what is not a count (text, a list, NaN,
    a negative number) counts 0, as a reply without usage does."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return max(0, value)
    if isinstance(value, float) and math.isfinite(value):
        return max(0, int(value))
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 18:
        return int(value)
    return 0


def _usage(run: ServedRun) -> dict[str, Any]:
    """What the run spent in OpenAI's shape: every LLM call of the graph, nested ones included (graphrt's own
    `cost_usd` and `llm_calls` beside); a count no reply said is null, never 0. A run that made no LLM call
    through graphrt's agents answers with its reply's own `usage`, when its agent gives one."""
    spent = run.usage
    if spent.get("llm_calls"):
        shown: dict[str, Any] = {"prompt_tokens": spent["input_tokens"], "completion_tokens": spent["output_tokens"],
                                 "total_tokens": spent["total_tokens"]}
        if spent.get("cached_tokens") is not None:
            shown["prompt_tokens_details"] = {"cached_tokens": spent["cached_tokens"]}
        if spent.get("reasoning_tokens") is not None:
            shown["completion_tokens_details"] = {"reasoning_tokens": spent["reasoning_tokens"]}
        return {**shown, "cost_usd": spent["cost_usd"], "llm_calls": spent["llm_calls"]}
    return _reply_usage(run.results)


def _reply_usage(results: dict[str, Any] | None) -> dict[str, int]:
    """The reply's `usage` (an agent's result may have one), in OpenAI's shape; 0s when it gives none."""
    usage = next(iter(results.values()), None) if results else None
    usage = usage.get("usage") if isinstance(usage, dict) else None
    if not isinstance(usage, dict):
        usage = {}
    counts = {key: _count(usage.get(key)) for key in ("prompt_tokens", "completion_tokens")}
    return {**counts, "total_tokens": counts["prompt_tokens"] + counts["completion_tokens"]}


async def _body(request: Request) -> dict[str, Any]:
    try:
        raw = await request.body()
    except BodyTooLarge:
        raise CompletionRefused(413, "the request body is too large") from None
    try:
        body = parse_json(raw or b"{}", "the request body")  # depth, digits, Unicode: base/limits
    except InputLimitError as error:
        raise CompletionRefused(400, str(error)) from None
    if not isinstance(body, dict):
        raise CompletionRefused(400, "the request body must be a JSON object")
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise CompletionRefused(400, "'model' must name a served graph (GET /v1/models lists them)")
    messages = body.get("messages")
    if not isinstance(messages, list) or not all(isinstance(message, dict) for message in messages):
        raise CompletionRefused(400, "'messages' must be a list of message objects", param="messages")
    if body.get("stream_options") is not None and not isinstance(body["stream_options"], dict):
        raise CompletionRefused(400, "'stream_options' must be an object, such as {\"include_usage\": true}",
                                param="stream_options")
    return body


async def _start(service: RunService, model: str, messages: list[dict[str, Any]]) -> ServedRun:
    served = service.catalog.get(model)
    if served is None:
        raise CompletionRefused(404, f"no graph named {model!r} (GET /v1/models lists the chat graphs)", code="model_not_found")
    if served.error is None and MESSAGES_INPUT not in served.description.get("inputs", {}):
        raise CompletionRefused(400, f"graph {model!r} takes no {MESSAGES_INPUT!r} input, so it cannot chat", code="model_not_chat")
    try:
        return await service.submit(model, {MESSAGES_INPUT: messages})
    except RequestError as refused:
        kind = "rate_limit_error" if refused.status == 429 else "invalid_request_error"
        raise CompletionRefused(refused.status, str(refused), kind, headers=refused.headers) from None
    except GraphError as error:
        raise CompletionRefused(400, service.shown(str(error))) from None


def _outcome(run: ServedRun) -> str:
    """The reply of a settled run.

    Raises:
        CompletionRefused: the run did not finish (failed, cancelled, or asks a question), or gave no single reply.
    """
    if run.status == RunStatus.INTERRUPTED:
        raise CompletionRefused(409, f"run {run.id} asks {run.question!r}: answer it with POST /runs/{run.id}/resume",
                       code="run_interrupted")
    if run.status != RunStatus.FINISHED:
        raise CompletionRefused(500, f"run {run.id} {run.status}" + (f": {run.error}" if run.error else ""),
                       "server_error", code=f"run_{run.status}")
    try:
        return reply_text(run.results or {})
    except GraphError as error:
        raise CompletionRefused(500, f"run {run.id}: {error}", "server_error", code="no_reply") from None


def _completion_id(run: ServedRun) -> str:
    return f"chatcmpl-{run.id}"


async def chat_completions(request: Request) -> Response:
    service = _service(request)
    try:
        body = await _body(request)
        run = await _start(service, body["model"], body["messages"])
    except CompletionRefused as refused:
        return refused.response(service)
    headers = {"X-Graphrt-Run": f"/runs/{run.id}"}
    if body.get("stream"):
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        return StreamingResponse(_stream(service, run, body["model"], include_usage),
                                 media_type="text/event-stream", headers={**headers, "Cache-Control": "no-cache"})
    run = await service.settled(run)  # wherever it runs: another server may, from the store's queue
    try:
        text = _outcome(run)
    except CompletionRefused as refused:
        return refused.response(service)
    return JSONAnswer({
        "id": _completion_id(run), "object": "chat.completion", "created": int(run.created_at), "model": body["model"],
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": _usage(run),
    }, headers=headers)


def _reply_node(run: ServedRun) -> str | None:
    results = run.graph.description.get("results", [])
    return results[0] if len(results) == 1 else None


def _stream(service: RunService, run: ServedRun, model: str, include_usage: bool) -> AsyncIterator[str]:
    """The run as chat.completion.chunk events: its reply node's tokens as they come, then the rest."""
    reply_node = _reply_node(run)
    tokens = _watched(run, reply_node) if service.runs_here(run) else _followed(service, run, reply_node)
    return _chunks(service, run, model, include_usage, tokens)


def _watched(run: ServedRun, reply_node: str | None) -> AsyncIterator[list[str]]:
    """The tokens of a run this server runs, in batches, until it settled: watched from now on (the run may start
    before the response does), until the stream ends or its reader leaves (its token stream is closed then: the
    watcher stops itself at the next token)."""
    send, receive = anyio.create_memory_object_stream[str](_TOKEN_BUFFER)

    def on_event(event: Event) -> None:
        if isinstance(event, TokenDelta) and not event.path and event.node_id == reply_node:
            try:
                send.send_nowait(event.token)
            except anyio.WouldBlock:
                pass  # a reader this far behind gets the rest from the reply at the end
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                unwatch()  # the reader left

    unwatch = run.watch(on_event)
    return _watched_batches(run, send, receive, unwatch)


async def _watched_batches(run: ServedRun, send: Any, receive: Any,
                           unwatch: Callable[[], None]) -> AsyncIterator[list[str]]:
    # No task group in a generator (a reader that leaves closes it from another task). However it ends (the
    # run settled, or its reader left: cancelled at a wait, or closed at a yield), it watches the run no more.
    with send, receive:
        try:
            while True:
                settled = run.status in RunStatus.SETTLED
                tokens = []
                with anyio.move_on_after(0 if settled else _SETTLE_POLL_SECONDS):
                    tokens.append(await receive.receive())
                while True:
                    try:
                        tokens.append(receive.receive_nowait())
                    except anyio.WouldBlock:
                        break
                if tokens:
                    yield tokens
                elif settled:
                    return
        finally:
            unwatch()


async def _followed(service: RunService, run: ServedRun, reply_node: str | None) -> AsyncIterator[list[str]]:
    """The tokens of a run another server runs (or that waits in the store's queue), in batches, as that server
    saves its events, until its log ends or it asks a question."""
    events = service.events_of(run)
    sent = 0
    while True:
        records, missed = await events.read(sent)
        sent += missed
        tokens = []
        for event_id, record in records:
            sent = event_id
            if record.get("type") == "TokenDelta" and not record.get("path") and record.get("node_id") == reply_node:
                tokens.append(str(record.get("token", "")))
            elif record.get("type") == "RunStatus" and record.get("status") == RunStatus.INTERRUPTED:
                if tokens:  # it asks a question: the stream ends with it (the end says so)
                    yield tokens
                return
        if tokens:
            yield tokens
        if events.closed and sent >= events.last_id:
            return
        await events.wait(sent, 1.0)


async def _chunks(service: RunService, run: ServedRun, model: str, include_usage: bool,
                  tokens: AsyncIterator[list[str]]) -> AsyncIterator[str]:
    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
        return "data: " + json.dumps({
            "id": _completion_id(run), "object": "chat.completion.chunk", "created": int(run.created_at),
            "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}) + "\n\n"

    streamed = ""
    try:
        yield chunk({"role": "assistant", "content": ""})
        async for batch in tokens:
            for token in batch:
                streamed += token
                yield chunk({"content": token})
    finally:
        await tokens.aclose()  # type: ignore[attr-defined] - an async generator's
    run = await service.settled(run)  # ended here already; read from the store if another server ran it
    try:
        text = _outcome(run)
    except CompletionRefused as refused:
        yield "data: " + json.dumps(refused.body(str(refused))) + "\n\n"
        return
    if text.startswith(streamed) and len(text) > len(streamed):
        yield chunk({"content": text[len(streamed):]})
    yield chunk({}, "stop")
    if include_usage:
        yield "data: " + json.dumps({"id": _completion_id(run), "object": "chat.completion.chunk",
                                     "created": int(run.created_at), "model": model, "choices": [],
                                     "usage": _usage(run)}) + "\n\n"
    yield "data: [DONE]\n\n"


async def list_models(request: Request) -> Response:
    """The chat graphs (those with a `messages` input), as OpenAI lists models."""
    catalog = _service(request).catalog
    catalog.refresh()
    models = [{"id": name, "object": "model", "created": 0, "owned_by": "graphrt"}
              for name, served in sorted(catalog.graphs.items())
              if served.error is None and MESSAGES_INPUT in served.description.get("inputs", {})]
    return JSONAnswer({"object": "list", "data": models})


def completion_routes() -> list[Route]:
    return [Route("/v1/chat/completions", chat_completions, methods=["POST"]),
            Route("/v1/models", list_models)]
