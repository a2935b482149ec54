"""geminiAgent: one reply from Gemini's generateContent through Google's official `google-genai` SDK, GraphAI's way.

Inputs and params are GraphAI's (`model`, `system`, `prompt`, `messages`, `tools`,
`tool_choice`, `max_tokens`, `temperature`, `response_format`, `stream`), and so is the
request: the conversation's last message is the one sent, the earlier ones its
history, where `assistant` is Gemini's `model` and a system message a user message
"System Message: ..."; OpenAI-style tools become function declarations; `tool_choice`
is a function-calling mode (`auto`, `any`, `none`, `validated`); `response_format`
`{type: "schema" | "json_schema", json_schema: {schema}}` asks for JSON; dangerous
content is blocked only when its probability is high. The result is GraphAI's: the
response's own fields (`candidates`, `usageMetadata`, `modelVersion`, ...),
`choices: [{message}]`, `text`, `tool`, `tool_calls`, `message`, `messages` (with the
reply) and `usage` (Gemini's counts with OpenAI's names beside them). With no
prompt, system or messages at all the result is `[]`, as GraphAI's.

Geminis's endpoint is GraphAI's default: why not its OpenAI-compatible one? That one
takes no safety settings, no `any`/`validated` modes and no OpenAPI `schema`, and its
replies lack `candidates` and `usageMetadata`, which graphs read.

Beyond GraphAI: an assistant's `tool_calls` and tool messages in the history are sent as
Gemini's functionCall and functionResponse parts (GraphAI sends their text, which Gemini
refuses), so toolsAgent can drive it; each tool call gets the id Gemini gave it or
`call_N` (GraphAI's are all "dummy", which cannot pair a reply with its call); the
result names the model that answered (`model`); a reply that is not a
GenerateContentResponse, or a stream that ends before a finish reason, is an error,
never a reply. Requests go through the one retry loop (graphrt_agents.llm.retries), the SDK's
own retries off, as every LLM agent's. Needs `pip install 'graphrt[gemini]'`.
"""

from __future__ import annotations

import json
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.jsvalue import is_null, is_truthy

from graphrt_agents.llm.chat import ChatResult, conversation
from graphrt_agents.llm.provider import (
    GRAPHAI_LLM_INFO, Failure, LLMRequestError, LlmCall, MalformedReplyError, Provider, chat_inputs, chat_params,
    describe_transport, llm_options, openai_usage, server_message, tool_call_arguments,
)
from graphrt_agents.llm.retries import ask
from graphrt_agents.llm.settings import RetryPolicy, ServerSettings

if TYPE_CHECKING:
    from google import genai

__all__ = ["AGENTS", "GEMINI", "GeminiProvider", "gemini_agent"]

_RETRIED = (408, 429, 500, 502, 503, 504)  # the statuses Google's SDK retries by default


class GeminiProvider(Provider):
    """Gemini's API through the `google-genai` SDK: how its exceptions read."""

    def read(self, error: Exception) -> Failure | None:
        """The statuses Google's SDK would retry, and its client's timeouts and failed connections, are worth
        another attempt; every other failure is said as it is."""
        from google.genai import errors

        if isinstance(error, errors.APIError):
            return Failure(f"HTTP {error.code}: {server_message(error.details, error.message or error.status or '')}",
                           error.code in _RETRIED)
        name = type(error).__name__
        return super().read(error) or Failure(describe_transport(error), "Timeout" in name or "Connect" in name)


GEMINI = GeminiProvider(
    agent="geminiAgent", system="gemini", host="generativelanguage.googleapis.com", default_model="gemini-2.5-flash",
    keys=("GOOGLE_GENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"), base_urls=("GOOGLE_GEMINI_BASE_URL",),
    models=("GEMINI_MODEL",),
)
_MODES = {"auto": "AUTO", "any": "ANY", "none": "NONE", "validated": "VALIDATED"}


# --- request ---------------------------------------------------------------------------


def _text(content: Any) -> str:
    """A message's content as text: strings as they are, OpenAI content parts' text joined, else JSON."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict) and "text" in part)
    return "" if content is None else json.dumps(content, ensure_ascii=False)


def _function_call(call: Any) -> dict[str, Any]:
    name, arguments = tool_call_arguments(call)
    return {"function_call": {"name": name, "args": arguments}}


def _content(message: Any, names: dict[str, str], role: str | None = None) -> dict[str, Any]:
    """One message as a Gemini Content (a dict the SDK reads); `names` maps tool call ids to their function."""
    if not isinstance(message, dict):
        return {"role": role or "user", "parts": [{"text": _text(message)}]}
    kind = message.get("role")
    if kind == "tool":
        name = names.get(str(message.get("tool_call_id")), str(message.get("name") or "tool"))
        response = {"name": name, "response": {"content": _text(message.get("content"))}}
        return {"role": "user", "parts": [{"function_response": response}]}
    parts: list[dict[str, Any]] = []
    text = _text(message.get("content"))
    if kind == "system":
        return {"role": role or "user", "parts": [{"text": "System Message: " + text}]}
    if text or not message.get("tool_calls"):
        parts.append({"text": text})
    for call in message.get("tool_calls") or []:
        names[str(call.get("id"))] = (call.get("function") or {}).get("name", "")
        parts.append(_function_call(call))
    return {"role": role or ("model" if kind == "assistant" else "user"), "parts": parts}


def _contents(messages: list[Any]) -> list[dict[str, Any]]:
    """The history as Gemini's contents, the last message sent as the user's (as GraphAI's chat.sendMessage does);
    function responses of one turn in one content."""
    names: dict[str, str] = {}
    contents: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        content = _content(message, names, "user" if index == len(messages) - 1 else None)
        previous = contents[-1] if contents else None
        if previous and "function_response" in content["parts"][0] and "function_response" in previous["parts"][-1]:
            previous["parts"].extend(content["parts"])
        else:
            contents.append(content)
    return contents


def _config(options: dict[str, Any], types: Any) -> Any:
    """GraphAI's GenerateContentConfig: tokens, temperature, safety, tools, the calling mode, JSON output."""
    config: dict[str, Any] = {
        "safety_settings": [{"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "threshold": "BLOCK_ONLY_HIGH"}],
    }
    if not is_null(options.get("max_tokens")):
        config["max_output_tokens"] = int(options["max_tokens"])
    if not is_null(options.get("temperature")):
        config["temperature"] = options["temperature"]
    tools = options.get("tools")
    if isinstance(tools, list) and tools:
        config["tools"] = [{"function_declarations": [tool.get("function", tool) for tool in tools if isinstance(tool, dict)]}]
        # Gemini calls the functions itself when given Python callables; given declarations it never does.
        config["automatic_function_calling"] = {"disable": True}
    mode = _MODES.get(options.get("tool_choice")) if isinstance(options.get("tool_choice"), str) else None
    if mode is None and isinstance(options.get("tool_choice"), dict):  # OpenAI's {type: function, function: {name}}
        name = (options["tool_choice"].get("function") or {}).get("name")
        mode, allowed = ("ANY", [name]) if name else (None, None)
    else:
        allowed = [tool["function"]["name"] for tool in tools or [] if isinstance(tool, dict) and "function" in tool]
    if mode is None and options.get("tool_choice") == "required":
        mode = "ANY"
    if mode is not None:
        calling: dict[str, Any] = {"mode": mode}
        if mode in ("ANY", "VALIDATED") and allowed:
            calling["allowed_function_names"] = allowed
        config["tool_config"] = {"function_calling_config": calling}
    response_format = options.get("response_format")
    if isinstance(response_format, dict):
        schema = (response_format.get("json_schema") or {}).get("schema")
        if response_format.get("type") == "schema":
            config.update(response_mime_type="application/json", response_schema=schema)
        elif response_format.get("type") == "json_schema":
            config.update(response_mime_type="application/json", response_json_schema=schema)
    return types.GenerateContentConfig(**config)


# --- response --------------------------------------------------------------------------


def _fields(response: Any) -> dict[str, Any]:
    """The response's fields as GraphAI spreads them (camelCase), without the HTTP headers."""
    fields = response.model_dump(mode="json", by_alias=True, exclude_none=True) if hasattr(response, "model_dump") else None
    if not isinstance(fields, dict):
        raise MalformedReplyError(f"the reply is not a GenerateContentResponse: {str(response)[:80]!r}")
    for key in ("sdkHttpResponse", "automaticFunctionCallingHistory"):
        fields.pop(key, None)
    if not isinstance(fields.get("candidates"), list) or not fields["candidates"]:
        blocked = (fields.get("promptFeedback") or {}).get("blockReason")
        if blocked:
            raise MalformedReplyError(f"the prompt was blocked ({blocked}): no reply")
        raise MalformedReplyError(f"the reply has no candidates: {json.dumps(fields)[:80]}")
    return fields


def _parts(fields: dict[str, Any]) -> list[dict[str, Any]]:
    content = fields["candidates"][0].get("content") or {}
    return [part for part in content.get("parts") or [] if isinstance(part, dict)]


def _reply(text: str | None, calls: list[dict[str, Any]]) -> dict[str, Any]:
    """GraphAI's message: the text, and each functionCall as an OpenAI tool call."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [
            {"id": call.get("id") or f"call_{index}", "type": "function",
             "function": {"name": call.get("name") or "", "arguments": json.dumps(call.get("args") or {}, ensure_ascii=False)}}
            for index, call in enumerate(calls)]
    return message


def _result(fields: dict[str, Any], text: str | None, calls: list[dict[str, Any]], messages: list[Any],
            model: str) -> dict[str, Any]:
    message = _reply(text, calls)
    usage = fields.get("usageMetadata")
    response = {"model": fields.get("modelVersion") or model, **fields, "choices": [{"message": message}]}
    if isinstance(usage, dict):
        response["usage"] = {**usage, **openai_usage(usage.get("promptTokenCount"), usage.get("candidatesTokenCount"))}
    return ChatResult(message, messages, response).to_result()


def _texts_and_calls(parts: list[dict[str, Any]]) -> tuple[list[str], list[dict[str, Any]]]:
    texts = [part["text"] for part in parts if isinstance(part.get("text"), str) and not part.get("thought")]
    calls = [part["functionCall"] for part in parts if isinstance(part.get("functionCall"), dict)]
    return texts, calls


async def _generate(client: "genai.Client", request: dict[str, Any]) -> tuple[dict[str, Any], str | None, list[Any]]:
    try:
        fields = _fields(await client.aio.models.generate_content(**request))
    except json.JSONDecodeError as error:
        raise MalformedReplyError(f"the reply is not valid JSON ({error})") from None
    texts, calls = _texts_and_calls(_parts(fields))
    return fields, "".join(texts) if texts else None, calls


async def _stream(client: "genai.Client", request: dict[str, Any],
                  call: LlmCall) -> tuple[dict[str, Any], str | None, list[Any]]:
    """Streams the reply: each chunk's text goes to the event stream; the result is the last chunk's fields with
    every chunk's text and function calls (as GraphAI's)."""
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    last: dict[str, Any] | None = None
    finished = False
    problem: MalformedReplyError | None = None
    async with aclosing(await client.aio.models.generate_content_stream(**request)) as stream:
        # A bad chunk does not stop the reading: the SDK's stream, closed early, fails as it is closed.
        async for chunk in stream:
            try:
                last = _fields(chunk)
            except MalformedReplyError as error:
                problem = problem or error
            if problem is not None:
                continue
            finished = finished or any(candidate.get("finishReason") for candidate in last["candidates"])
            chunk_texts, chunk_calls = _texts_and_calls(_parts(last))
            for piece in chunk_texts:
                if piece:
                    call.token(piece)
            texts += chunk_texts
            calls += chunk_calls
    if problem is not None:
        raise problem
    if last is None or not finished:
        raise MalformedReplyError("the stream ended before the reply was complete (no finishReason)")
    return last, "".join(texts) if texts else None, calls


# --- the agent -------------------------------------------------------------------------


def _client(server: ServerSettings, timeout: float) -> "genai.Client":
    """A client that asks once per call (the retry loop asks again), each attempt at most `timeout` seconds."""
    from google import genai
    from google.genai import types

    # One attempt: without retry options the SDK would still retry aiohttp's connection errors on its own.
    once = types.HttpRetryOptions(attempts=1)
    http = types.HttpOptions(base_url=server.base_url, timeout=int(timeout * 1000), retry_options=once)
    return genai.Client(api_key=server.api_key, http_options=http)


async def gemini_agent(ctx: AgentContext) -> Any:
    """Asks Gemini for one reply.

    Args:
        ctx: inputs and params as GraphAI's geminiAgent (inputs win); `apiKey` (else
            GOOGLE_GENAI_API_KEY, GEMINI_API_KEY or GOOGLE_API_KEY), `baseURL` (else
            GOOGLE_GEMINI_BASE_URL, else Google's API) and `model` (else GEMINI_MODEL, else
            gemini-2.5-flash) in params or config; `timeout` (seconds per attempt),
            `maxRetries` and `retryDelay` as openAIAgent's.

    Returns:
        The response's fields plus GraphAI's `choices`, `text`, `tool`, `tool_calls`,
        `message`, `messages` (with the reply) and `usage`; `[]` when there is nothing to send.

    Raises:
        LLMRequestError: no key, the API refused the request, failed on every attempt,
            or answered something that is not a whole reply.
    """
    options = llm_options(ctx)
    messages = conversation({**options, "images": None, "message": None}, ctx)
    if not messages:
        return []  # GraphAI's: nothing to send
    try:
        from google.genai import types  # imported on first use: graphrt[gemini] installs it
    except ImportError:
        raise LLMRequestError("geminiAgent needs pip install 'graphrt[gemini]' (no module google.genai)") from None

    server = GEMINI.server(options)
    policy = RetryPolicy.of(options)
    request = {"model": server.model, "contents": _contents(messages), "config": _config(options, types)}
    stream = is_truthy(options.get("stream")) or is_truthy(options.get("dataStream"))
    client = _client(server, policy.timeout)

    async def attempt(call: LlmCall) -> tuple[dict[str, Any], str | None, list[Any]]:
        fields, text, calls = await (_stream(client, request, call) if stream else _generate(client, request))
        call.finished(model=fields.get("modelVersion"), finish_reason=fields["candidates"][0].get("finishReason"),
                      **reply_usage(fields.get("usageMetadata")))
        return fields, text, calls

    try:
        fields, text, calls = await ask(ctx, GEMINI, server, server.model, policy, attempt, prompt=messages,
                                        max_tokens=options.get("max_tokens"))
    finally:
        await client.aio.aclose()
    return _result(fields, text, calls, messages, server.model or "")


def reply_usage(usage: Any) -> dict[str, Any]:
    """A reply's `usageMetadata` as `LlmCall.finished` takes it: the prompt (`promptTokenCount`, cached content
    included, `cachedContentTokenCount` that part), and the reply with its thoughts (`candidatesTokenCount`
    leaves out `thoughtsTokenCount`: added back, so that the output is all the reply's tokens as other providers
    count them, and `reasoning_tokens` the thoughts)."""
    usage = usage if isinstance(usage, dict) else {}
    written = usage.get("candidatesTokenCount")
    thoughts = usage.get("thoughtsTokenCount")
    output = None
    if isinstance(written, int) or isinstance(thoughts, int):
        output = (written if isinstance(written, int) else 0) + (thoughts if isinstance(thoughts, int) else 0)
    cached = usage.get("cachedContentTokenCount")
    return {"input_tokens": usage.get("promptTokenCount"), "output_tokens": output,
            "cached_tokens": cached if isinstance(cached, int) else None,
            "reasoning_tokens": thoughts if isinstance(thoughts, int) else None}


gemini_agent_info = AgentInfo(
    name="geminiAgent",
    func=gemini_agent,
    description="Gemini Agent: a reply from Google's Gemini through its generateContent API",
    inputs=chat_inputs(
        tool_choice={"anyOf": [{"type": "string"}, {"type": "object"}], "description": "auto (default), any, none or validated"},
        response_format={"type": "object", "description": "{type: schema | json_schema, json_schema: {schema}}"},
    ),
    params=chat_params(),
    output={"anyOf": [{"type": "object"}, {"type": "array", "maxItems": 0}]},
    samples=(
        Sample(inputs={}, params={}, result=[],
               description="with nothing to send it asks nothing and returns [] (as GraphAI's; needs no key)"),
    ),
    source="https://github.com/receptron/graphai/blob/main/llm_agents/gemini_agent/src/gemini_agent.ts",
    package="@graphai/gemini_agent",
    environment_variables=("GOOGLE_GENAI_API_KEY",),
    **GRAPHAI_LLM_INFO,
)

AGENTS: list[AgentInfo] = [gemini_agent_info]
