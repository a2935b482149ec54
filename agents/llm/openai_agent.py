"""openAIAgent: one chat completion from any OpenAI-compatible server, GraphAI's way.

Inputs and params are GraphAI's (`prompt`, `system`, `messages`, `tools`,
`tool_choice`, `response_format`, `max_tokens`, `temperature`, `stop`, `stream`,
`model`), plus `grammar` (a GBNF grammar for llama.cpp's `grammar` field), and so is the result:
`{text, tool, tool_calls, message, messages, usage}` with the response's own fields beside them
(chat.py's ChatResult). Requests go through the official `openai` SDK; 429s, 5xx answers, timeouts,
dropped connections and replies that are no reply (a stream cut short, no content and no tool call)
are retried with exponential backoff a bounded number of times, and fail with an error that says so:
a lost reply never comes back as a result.

A grammar goes only where it is known to be accepted: the embedded model, or a server the node's
params or config (or GRAPHRT_ACCEPTS_GRAMMAR=1) say is a llama.cpp server (`acceptsGrammar: true`).
Elsewhere it is left out, and a server that refuses a request because of it (HTTP 400 or 422) is
asked again without it, for the rest of the process.
"""

from __future__ import annotations

import json
import os
import random
import ssl
import uuid
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import anyio

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.errors import AgentError
from graphrt.base.jsvalue import UNDEFINED, defined, is_null, is_truthy
from graphrt.observe.events import LlmCallFinished, LlmCallStarted

from .local_model import ensure_server as _ensure_local_server
from .chat import ChatResult, conversation
from .mock import openai_mock_agent
from .settings import DEFAULT_OPENAI_MODEL, ServerSettings, resolve_server, retry_count

if TYPE_CHECKING:
    import openai

__all__ = ["AGENTS", "openai_agent", "LLMRequestError"]

_MESSAGE_KEYS = ("role", "content", "name", "tool_calls", "tool_call_id")
_OPTIONAL_BODY_KEYS = ("tools", "tool_choice", "response_format", "temperature", "top_p", "stop", "seed")
_GRAMMAR_ENV = "GRAPHRT_ACCEPTS_GRAMMAR"
_GRAMMAR_REFUSED_STATUSES = (400, 422)
_grammar_refused: set[str] = set()  # base URLs of servers that refused a request for its grammar
_DEFAULT_TIMEOUT = 300.0
_DEFAULT_RETRIES = 3
_DEFAULT_RETRY_DELAY = 0.5
_MAX_RETRY_DELAY = 20.0


class LLMRequestError(AgentError):
    """Raised when the server refuses a request, or keeps failing after every retry."""


# --- request ---------------------------------------------------------------------------


def _outgoing(message: Any) -> Any:
    """A message as the API accepts it: known keys only, `content: ""` on tool-call messages.

    Some servers (llama.cpp among them) reject an assistant message whose
    content is null, and GraphAI's tool messages carry an `extra` key.
    """
    if not isinstance(message, dict):
        return message
    sent = {key: message[key] for key in _MESSAGE_KEYS if key in message and message[key] is not UNDEFINED}
    if sent.get("tool_calls"):
        sent["tool_calls"] = [_outgoing_tool_call(call) for call in sent["tool_calls"]]
        if is_null(sent.get("content")):
            sent["content"] = ""
    else:
        sent.pop("tool_calls", None)
    if sent.get("role") == "tool" and not isinstance(sent.get("content"), str):
        sent["content"] = json.dumps(sent.get("content"), ensure_ascii=False)
    return sent


def _outgoing_tool_call(call: Any) -> Any:
    if not isinstance(call, dict) or not isinstance(call.get("function"), dict):
        return call
    function = dict(call["function"])
    if not isinstance(function.get("arguments"), str):
        function["arguments"] = json.dumps(function.get("arguments") or {}, ensure_ascii=False)
    return {"id": call.get("id"), "type": call.get("type") or "function", "function": function}


def _body(options: dict[str, Any], server: ServerSettings, model: str, messages: list[Any]) -> dict[str, Any]:
    """The chat completion request: only what the node set, so every server accepts it."""
    body: dict[str, Any] = {"model": model, "messages": [_outgoing(message) for message in messages]}
    for key in _OPTIONAL_BODY_KEYS:
        value = options.get(key)
        if not is_null(value):
            body[key] = value
    if not body.get("tools"):
        body.pop("tools", None)
        body.pop("tool_choice", None)
    if "temperature" not in body and model.startswith("gpt-4"):
        body["temperature"] = 0.7  # GraphAI's default for gpt-4 models (reasoning models take none)
    grammar = _grammar_to_send(options, server)
    if grammar is not None:
        body["extra_body"] = {"grammar": grammar}
    limit = options.get("max_completion_tokens", options.get("max_tokens"))
    if not is_null(limit):
        # OpenAI's newer models want max_completion_tokens; other servers know max_tokens.
        body["max_completion_tokens" if server.is_openai else "max_tokens"] = limit
    return body


def _grammar_to_send(options: dict[str, Any], server: ServerSettings) -> str | None:
    """The node's GBNF grammar, when this server is known to accept llama.cpp's `grammar` field.

    llama.cpp's servers (and llama-cpp-python's) hold the reply to the grammar. Others have no such
    field: OpenAI refuses the request, and some servers would ignore it or apply it differently, so
    it goes only to the embedded model and to servers the user says are llama.cpp servers.
    """
    grammar = options.get("grammar")
    if not isinstance(grammar, str) or not grammar.strip() or server.is_openai:
        return None
    if server.base_url in _grammar_refused:
        return None
    opted_in = options.get("acceptsGrammar")
    if is_null(opted_in):
        opted_in = os.environ.get(_GRAMMAR_ENV, "").strip().lower() in ("1", "true", "yes")
    return grammar if server.embedded or is_truthy(opted_in) else None


def _refused_grammar(error: Exception, body: dict[str, Any]) -> bool:
    """True when the server refused a request that carried a grammar, as one refuses a field it does not know."""
    status = getattr(error, "status_code", None)
    return "grammar" in (body.get("extra_body") or {}) and status in _GRAMMAR_REFUSED_STATUSES


def _without_grammar(body: dict[str, Any]) -> dict[str, Any]:
    extra = {key: value for key, value in (body.get("extra_body") or {}).items() if key != "grammar"}
    trimmed = {key: value for key, value in body.items() if key != "extra_body"}
    return {**trimmed, "extra_body": extra} if extra else trimmed


# --- response --------------------------------------------------------------------------


def _message_of(completion: Any) -> dict[str, Any] | None:
    """The first choice's message as GraphAI keeps it: role, content and tool_calls (if any)."""
    if not completion.choices:
        return None
    raw = completion.choices[0].message
    message: dict[str, Any] = {"role": raw.role, "content": raw.content}
    if raw.tool_calls:
        message["tool_calls"] = [call.model_dump(exclude_none=True) for call in raw.tool_calls]
    return message


class MalformedReplyError(LLMRequestError):
    """Raised when a server answers, but not with a whole reply (not the API's shape, a stream cut short,
    no text and no tool call); every LLM agent raises it, and retries it. A lost reply never looks like one."""


def _check_reply(message: dict[str, Any] | None, finish_reason: Any) -> None:
    """A reply is text or tool calls; anything else is no reply, and is said to be one.

    Raises:
        MalformedReplyError: no content and no tool call (an empty reply, or `content: null`).
    """
    if message is None:
        raise MalformedReplyError("the reply has no choices")
    if not message.get("content") and not message.get("tool_calls"):
        said = "content null" if message.get("content") is None else "empty content"
        raise MalformedReplyError(f"the reply has no text and no tool call ({said}, finish_reason {finish_reason})")


async def _complete(client: "openai.AsyncOpenAI", body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    try:
        completion = await client.chat.completions.create(**body)
    except json.JSONDecodeError as error:  # a body cut short
        raise MalformedReplyError(f"the reply is not valid JSON ({error})") from None
    if not getattr(completion, "choices", None):  # text/html from a proxy, or JSON without choices
        raise MalformedReplyError(f"the reply is not a chat completion: {str(completion)[:80]!r}")
    response = completion.model_dump(exclude_none=True)
    message = _message_of(completion)
    _check_reply(message, completion.choices[0].finish_reason)
    return response, message


async def _complete_streaming(
    client: "openai.AsyncOpenAI", body: dict[str, Any], ctx: AgentContext, streamed: list[str]
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Streams the reply: text tokens go to the event stream as they come, tool calls are assembled."""
    text: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    response: dict[str, Any] = {"object": "chat.completion"}
    role, finish_reason = "assistant", None
    options = {"include_usage": True} if body.get("stream_options") is None else body["stream_options"]
    stream = await client.chat.completions.create(**body, stream=True, stream_options=options)
    async with stream:
        async for chunk in stream:
            response.update(id=chunk.id, created=chunk.created, model=chunk.model)
            if chunk.usage is not None:
                response["usage"] = chunk.usage.model_dump(exclude_none=True)
            for choice in chunk.choices:
                if choice.index != 0:
                    continue
                delta = choice.delta
                role = delta.role or role
                finish_reason = choice.finish_reason or finish_reason
                if delta.content:
                    text.append(delta.content)
                    streamed.append(delta.content)
                    ctx.stream_token(delta.content)
                for part in delta.tool_calls or []:
                    call = calls.setdefault(part.index, {"id": "", "type": "function", "function": {"name": "", "arguments": ""}})
                    call["id"] = part.id or call["id"]
                    if part.function is not None:
                        call["function"]["name"] = call["function"]["name"] or part.function.name or ""
                        call["function"]["arguments"] += part.function.arguments or ""
    message: dict[str, Any] = {"role": role, "content": "".join(text) if text else None}
    if calls:
        message["tool_calls"] = [calls[index] for index in sorted(calls)]
    if finish_reason is None:
        # llama-cpp-python's server ends a stream so when another request interrupts it: what came is not the reply.
        raise MalformedReplyError(f"the stream ended before the reply did (no finish_reason, after "
                                  f"{len(''.join(text))} characters)")
    _check_reply(message, finish_reason)
    response["choices"] = [{"index": 0, "message": message, "finish_reason": finish_reason}]
    return response, message


# --- retries ---------------------------------------------------------------------------


def _is_retryable(error: Exception) -> bool:
    import openai

    if isinstance(error, (openai.APIConnectionError, MalformedReplyError)):  # includes APITimeoutError
        return True
    status = getattr(error, "status_code", None)
    return isinstance(status, int) and (status in (408, 409, 429) or status >= 500)


def _retry_delay(error: Exception, attempt: int, base: float) -> float:
    """The server's Retry-After when it sends one, else exponential backoff with jitter."""
    response = getattr(error, "response", None)
    header = response.headers.get("retry-after") if response is not None else None
    try:
        if header is not None:
            return min(max(float(header), 0.0), _MAX_RETRY_DELAY)
    except ValueError:
        pass
    return min(base * 2**attempt * (1 + random.random() / 4), _MAX_RETRY_DELAY)


def _describe(error: Exception, server: ServerSettings) -> str:
    import openai

    where = server.base_url or "api.openai.com"
    status = getattr(error, "status_code", None)
    if isinstance(error, openai.APITimeoutError):
        what = "timed out"
    elif isinstance(error, openai.APIConnectionError):
        what = f"could not connect ({error.__cause__ or error})"
    else:
        what = f"HTTP {status}: {_server_message(error)}" if status else str(error)
    return server.redact(f"{where} {what}")


def _server_message(error: Exception) -> str:
    """The server's own words from an error body (`{"error": {"message"}}` or `{"message"}`)."""
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        inner = body.get("error") if isinstance(body.get("error"), dict) else body
        if isinstance(inner.get("message"), str):
            return inner["message"]
    return str(getattr(error, "message", None) or error)


# --- the agent -------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _ssl_context() -> ssl.SSLContext:
    """One TLS context for every client: building one costs far more than the rest of a client."""
    import httpx

    return httpx.create_ssl_context()


async def _attempt(client: "openai.AsyncOpenAI", body: dict[str, Any], ctx: AgentContext, stream: bool,
                   streamed: list[str], server: ServerSettings) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """One request, reported as LlmCallStarted and LlmCallFinished events (with usage, or the error)."""
    call_id = uuid.uuid4().hex[:16]
    ctx.emit(LlmCallStarted, call_id=call_id, model=body["model"], system="openai")
    try:
        if stream:
            response, message = await _complete_streaming(client, body, ctx, streamed)
        else:
            response, message = await _complete(client, body)
    except BaseException as error:
        text = _describe(error, server) if isinstance(error, Exception) else "cancelled"
        ctx.emit(LlmCallFinished, call_id=call_id, model=body["model"], error=text)
        raise
    usage = response.get("usage") or {}
    choices = response.get("choices") or [{}]
    ctx.emit(LlmCallFinished, call_id=call_id, model=response.get("model"), input_tokens=usage.get("prompt_tokens"),
             output_tokens=usage.get("completion_tokens"), finish_reason=choices[0].get("finish_reason"))
    return response, message


async def _server_for(options: dict[str, Any], ctx: AgentContext) -> ServerSettings:
    server = resolve_server(options)
    if server.is_configured:
        return server.with_model(server.model or DEFAULT_OPENAI_MODEL)
    embedded = await _ensure_local_server(ctx)
    return embedded.with_model(server.model)


async def openai_agent(ctx: AgentContext) -> dict[str, Any]:
    """Asks an OpenAI-compatible server for one chat completion.

    Args:
        ctx: inputs and params as GraphAI's openAIAgent (inputs win); config or params
            `baseURL`, `apiKey`, `model` choose the server, else OPENAI_BASE_URL,
            OPENAI_API_KEY and OPENAI_MODEL, else the embedded local model. Params
            `timeout` (seconds per attempt), `maxRetries` and `retryDelay` tune retries.

    Returns:
        The response's fields plus `text`, `tool`, `tool_calls` (arguments parsed),
        `message`, `messages` (history with the reply) and `usage`.

    Raises:
        LLMRequestError: the server refused the request, or failed on every attempt.
    """
    import openai  # imported on first use: it takes a while, and most graphs use no LLM

    options = {**ctx.config, **ctx.params, **defined(ctx.inputs)}
    server = await _server_for(options, ctx)
    messages = conversation(options, ctx)
    body = _body(options, server, server.model or DEFAULT_OPENAI_MODEL, messages)
    stream = is_truthy(options.get("stream")) or is_truthy(options.get("dataStream"))
    retries = retry_count(options, _DEFAULT_RETRIES)
    delay = float(options.get("retryDelay", _DEFAULT_RETRY_DELAY))
    timeout = float(options.get("timeout") or _DEFAULT_TIMEOUT)
    http_client = openai.DefaultAsyncHttpxClient(verify=_ssl_context())
    async with openai.AsyncOpenAI(
        base_url=server.base_url, api_key=server.client_key(), max_retries=0, timeout=timeout, http_client=http_client
    ) as client:
        attempt = 0
        while True:
            streamed: list[str] = []
            try:
                response, message = await _attempt(client, body, ctx, stream, streamed, server)
                break
            except (openai.APIError, MalformedReplyError) as error:
                if _refused_grammar(error, body):  # not a failure of the request: ask again without the grammar
                    _grammar_refused.add(str(server.base_url))
                    body = _without_grammar(body)
                    ctx.progress(f"the server refused the grammar ({_describe(error, server)}); asking without it",
                                 {"grammar": False})
                    continue
                if not _is_retryable(error) or attempt >= retries:
                    tries = f" after {attempt + 1} attempts" if attempt else ""
                    agent = ctx.agent_id or "openAIAgent"
                    raise LLMRequestError(f"{agent}: {_describe(error, server)}{tries}", agent_id=agent) from None
                # Tokens that streamed from a failed attempt are void: its LlmCallFinished carries the error.
                void = f" (the {len(streamed)} tokens streamed are void)" if streamed else ""
                wait = _retry_delay(error, attempt, delay)
                ctx.progress(f"retrying in {wait:.1f}s: {_describe(error, server)}{void}", {"attempt": attempt + 1})
                await anyio.sleep(wait)
                attempt += 1
    return ChatResult(message, messages, response, wants_json=not is_null(options.get("response_format"))).to_result()


_ROLE_ARRAY = {"anyOf": [{"type": "string"}, {"type": "array"}]}

openai_agent_info = AgentInfo(
    name="openAIAgent",
    func=openai_agent,
    runs_local=True,  # holds a pooled HTTP client to the LLM server and streams tokens to the driver
    description="Chat completion from OpenAI or any OpenAI-compatible server (Ollama, vLLM, llama.cpp); "
    "the embedded local model when none is configured",
    inputs={
        "type": "object",
        "properties": {
            "model": {"type": "string"},
            "system": _ROLE_ARRAY,
            "prompt": {**_ROLE_ARRAY, "description": "query string"},
            "messages": {"anyOf": [{"type": "string"}, {"type": "object"}, {"type": "array"}],
                         "description": "chat messages"},
            "message": {"type": "object", "description": "one message to send instead of prompt"},
            "tools": {"type": "array"},
            "tool_choice": {"anyOf": [{"type": "string"}, {"type": "object"}]},
            "response_format": {"type": "object"},
            "grammar": {"type": "string", "description": "a GBNF grammar the reply must follow, sent to the "
                        "embedded model and to servers said to accept it (acceptsGrammar)"},
            "stop": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
            "max_tokens": {"type": "number"},
            "max_completion_tokens": {"type": "number"},
            "temperature": {"type": "number"},
            "stream": {"type": "boolean"},
            "images": {"type": "array", "items": {"type": "string"}},
        },
    },
    params={
        "type": "object",
        "properties": {
            "baseURL": {"type": "string"},
            "apiKey": {"type": "string"},
            "model": {"type": "string"},
            "stream": {"type": "boolean"},
            "timeout": {"type": "number", "description": "seconds per attempt (default 300)"},
            "maxRetries": {"type": "integer", "description": "retries on 429, 5xx, timeouts (default 3)"},
            "retryDelay": {"type": "number", "description": "first backoff in seconds (default 0.5)"},
            "acceptsGrammar": {"type": "boolean", "description": "the server is a llama.cpp server that takes a "
                               "`grammar` (default: only the embedded model; GRAPHRT_ACCEPTS_GRAMMAR=1 for all)"},
        },
    },
    output={
        "type": "object",
        "properties": {
            "text": {"type": ["string", "null"]},
            "tool": {"type": "object"},
            "tool_calls": {"type": "array"},
            "message": {"type": ["object", "null"]},
            "messages": {"type": "array"},
            "usage": {"type": "object"},
            "model": {"type": "string"},
        },
    },
    mock=openai_mock_agent,
    samples=(
        Sample(
            inputs={"prompt": "this is response result"},
            params={},
            result={
                "model": "mock",
                "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
                "text": "this is response result",
                "tool_calls": [],
                "message": {"role": "assistant", "content": "this is response result"},
                "messages": [
                    {"role": "user", "content": "this is response result"},
                    {"role": "assistant", "content": "this is response result"},
                ],
            },
            description="run with the mock (no server): it repeats the prompt",
        ),
    ),
    category=("llm",),
    author="Receptron team (GraphAI), graphrt",
    repository="https://github.com/receptron/graphai",
    source="https://github.com/receptron/graphai/blob/main/llm_agents/openai_agent/src/openai_agent.ts",
    package="@graphai/openai_agent",
    license="MIT",
    environment_variables=("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL", _GRAMMAR_ENV, "GRAPHRT_LOCAL_MODEL"),
    stream=True,
)

AGENTS: list[AgentInfo] = [openai_agent_info]
