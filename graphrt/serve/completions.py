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
SDKs raise, so a failed run never reads as a reply. `GET /v1/models` lists the
graphs that take `messages`. Errors have OpenAI's shape: `{"error": {"message", "type", "code"}}`.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
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
from graphrt.serve.runs import RunService, ServedRun
from graphrt.serve.security import BodyTooLarge

__all__ = ["MESSAGES_INPUT", "CompletionRefused", "completion_routes", "reply_text"]

MESSAGES_INPUT = "messages"  # the static node a chat graph takes the conversation in
_TOKEN_BUFFER = 10_000  # tokens waiting for a slow reader; more are dropped (the end of the stream sends the rest)
_SETTLE_POLL_SECONDS = 0.2  # how soon a stream without tokens sees that its run ended


class CompletionRefused(RequestError):
    """A chat completion request refused: answered in OpenAI's error shape, with `.kind` (its `type`) and `.code`."""

    def __init__(self, status: int, message: str, kind: str = "invalid_request_error", code: str | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message, status=status, headers=headers)
        self.kind, self.code = kind, code

    def response(self, service: RunService) -> JSONAnswer:
        """The answer, its message as clients see errors (service.shown: it may quote the model named, a key)."""
        return JSONAnswer({"error": {"message": service.shown(str(self)), "type": self.kind, "param": None,
                                     "code": self.code}}, status_code=self.status, headers=self.headers)


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


def _usage(results: dict[str, Any] | None) -> dict[str, int]:
    usage = next(iter(results.values()), None) if results else None
    usage = usage.get("usage") if isinstance(usage, dict) else None
    counts = {key: int(usage.get(key) or 0) for key in ("prompt_tokens", "completion_tokens")} \
        if isinstance(usage, dict) else {"prompt_tokens": 0, "completion_tokens": 0}
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
        raise CompletionRefused(400, "'messages' must be a list of message objects")
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
        return StreamingResponse(_stream(run, body["model"], bool((body.get("stream_options") or {}).get("include_usage"))),
                                 media_type="text/event-stream", headers={**headers, "Cache-Control": "no-cache"})
    await run.settled()
    try:
        text = _outcome(run)
    except CompletionRefused as refused:
        return refused.response(service)
    return JSONAnswer({
        "id": _completion_id(run), "object": "chat.completion", "created": int(run.created_at), "model": body["model"],
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": _usage(run.results),
    }, headers=headers)


def _reply_node(run: ServedRun) -> str | None:
    results = run.graph.description.get("results", [])
    return results[0] if len(results) == 1 else None


def _stream(run: ServedRun, model: str, include_usage: bool) -> AsyncIterator[str]:
    """The run as chat.completion.chunk events: its reply node's tokens as they come, then the rest.

    Its tokens are watched from now on (the run may start before the response does).
    """
    send, receive = anyio.create_memory_object_stream[str](_TOKEN_BUFFER)
    reply_node = _reply_node(run)

    def on_event(event: Event) -> None:
        if isinstance(event, TokenDelta) and not event.path and event.node_id == reply_node:
            try:
                send.send_nowait(event.token)
            except anyio.WouldBlock:
                pass  # a reader this far behind gets the rest from the reply at the end

    run.watchers.append(on_event)
    return _chunks(run, model, include_usage, send, receive)


async def _chunks(run: ServedRun, model: str, include_usage: bool, send: Any, receive: Any) -> AsyncIterator[str]:
    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
        return "data: " + json.dumps({
            "id": _completion_id(run), "object": "chat.completion.chunk", "created": int(run.created_at),
            "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}) + "\n\n"

    streamed = ""
    yield chunk({"role": "assistant", "content": ""})
    with send, receive:  # no task group in a generator (a reader that leaves closes it from another task)
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
            for token in tokens:
                streamed += token
                yield chunk({"content": token})
            if settled and not tokens:
                break
    try:
        text = _outcome(run)
    except CompletionRefused as refused:
        yield "data: " + json.dumps({"error": {"message": str(refused), "type": refused.kind, "code": refused.code}}) + "\n\n"
        return
    if text.startswith(streamed) and len(text) > len(streamed):
        yield chunk({"content": text[len(streamed):]})
    yield chunk({}, "stop")
    if include_usage:
        yield "data: " + json.dumps({"id": _completion_id(run), "object": "chat.completion.chunk",
                                     "created": int(run.created_at), "model": model, "choices": [],
                                     "usage": _usage(run.results)}) + "\n\n"
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
