"""anthropicAgent: one reply from Anthropic's messages API through the official `anthropic` SDK, GraphAI's way.

Inputs and params are GraphAI's (`model`, `system`, `prompt`, `messages`, `tools`,
`tool_choice`, `max_tokens`, `temperature`, `response_format`, `stream`), with its
defaults (claude-sonnet-4-5, 8192 tokens); so is the request:
OpenAI-style tools become Anthropic's, an assistant's `tool_calls` become `tool_use`
blocks and tool messages `tool_result` blocks, the system prompt (or a leading
system message) goes in `system`. The result is GraphAI's: the Message's own fields
(`id`, `content`, `stop_reason`, ...), `choices: [{message}]`, `text` (the first
block's), `tool`, `tool_calls` (`arguments` is the tool's input), `message` (OpenAI's
shape), `messages`, `usage` with OpenAI's counts beside Anthropic's, and
`responseFormat` when `response_format` asked for JSON.

Beyond GraphAI: `temperature` is sent only when the node sets one (GraphAI sends 0.7; the
SDK of today has no temperature argument, so it goes in the body as it is); `messages` ends with the reply, as every other GraphAI LLM agent's
does (GraphAI's anthropicAgent leaves it out); OpenAI's `tool_choice` spellings
("auto", "required", "none", `{type: function, function: {name}}`) are translated, so
toolsAgent can drive it; a reply that is not a Message, or a stream that ends before
`message_stop`, is an error, never a reply. Requests go through the one retry loop
(graphrt_agents.llm.retries), the SDK's own retries off, as every LLM agent's: `maxRetries`,
`retryDelay`, each attempt reported. Needs `pip install 'graphrt[anthropic]'`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo
from graphrt.base.jsvalue import is_null, is_truthy

from graphrt_agents.llm.chat import ChatResult, conversation, system_prompt
from graphrt_agents.llm.provider import (
    GRAPHAI_LLM_INFO, Failure, LLMRequestError, LlmCall, MalformedReplyError, Provider, chat_inputs, chat_params,
    describe_transport, llm_options, openai_usage, parse_json_reply, retry_after, server_message, tool_call_arguments,
    worth_retrying,
)
from graphrt_agents.llm.retries import ask
from graphrt_agents.llm.settings import RetryPolicy, ServerSettings

if TYPE_CHECKING:
    import anthropic

__all__ = ["AGENTS", "anthropic_agent", "ANTHROPIC", "AnthropicProvider"]


class AnthropicProvider(Provider):
    """Anthropic's API through the `anthropic` SDK: how its exceptions read."""

    def read(self, error: Exception) -> Failure | None:
        """Timeouts and failed connections are worth another attempt, and so are the statuses the SDK would
        retry (408, 409, 429, 5xx, or as `x-should-retry` says); every other failure is said as it is."""
        import anthropic

        if isinstance(error, anthropic.APITimeoutError):
            return Failure("timed out", transient=True)
        if isinstance(error, anthropic.APIConnectionError):
            return Failure(f"could not connect ({error.__cause__ or error})", transient=True)
        if isinstance(error, anthropic.APIStatusError):
            headers = error.response.headers
            return Failure(f"HTTP {error.status_code}: {server_message(error.body, error.message)}",
                           worth_retrying(error.status_code, headers), retry_after(headers))
        # A lost reply; else e.g. the connection dropped in the middle of a stream.
        return super().read(error) or Failure(describe_transport(error))


ANTHROPIC = AnthropicProvider(
    agent="anthropicAgent", system="anthropic", host="api.anthropic.com", default_model="claude-sonnet-4-5",
    keys=("ANTHROPIC_API_KEY",), base_urls=("ANTHROPIC_BASE_URL",), models=("ANTHROPIC_MODEL",),
)
_DEFAULT_MAX_TOKENS = 8192


# --- request ---------------------------------------------------------------------------


def _with_response_format(system: Any, response_format: Any) -> Any:
    """GraphAI's system_with_response_format: asks for the JSON object, the system prompt as its description."""
    if not is_truthy(response_format):
        return system
    lines = ["Please return the following json object for the specified content.",
             json.dumps(response_format, indent=2, ensure_ascii=False)]
    if is_truthy(system):
        lines += ["", "<description>", system if isinstance(system, str) else "\n".join(map(str, system)), "</description>"]
    return "\n".join(lines)


def _tool_use(call: Any) -> dict[str, Any]:
    """An OpenAI tool call as Anthropic's tool_use block (arguments that are not JSON become {})."""
    name, arguments = tool_call_arguments(call)
    return {"type": "tool_use", "id": call.get("id") if isinstance(call, dict) else None, "name": name, "input": arguments}


def _tool_result(message: dict[str, Any]) -> dict[str, Any]:
    content = message.get("content")
    return {"type": "tool_result", "tool_use_id": message.get("tool_call_id"),
            "content": content if isinstance(content, (str, list)) else json.dumps(content, ensure_ascii=False)}


def _anthropic_messages(messages: list[Any]) -> list[Any]:
    """GraphAI's convOpenAIToolsToAnthropicToolMessage: tool calls and results in Anthropic's blocks, tool results
    of one turn in one user message; only the keys Anthropic accepts (`role`, `content`)."""
    sent: list[Any] = []
    for message in messages:
        if not isinstance(message, dict):
            sent.append(message)
        elif message.get("role") == "assistant" and message.get("tool_calls"):
            text = {"type": "text", "text": message.get("content") or "run tools"}
            sent.append({"role": "assistant", "content": [text, *map(_tool_use, message["tool_calls"])]})
        elif message.get("role") == "tool":
            last = sent[-1] if sent else None
            if isinstance(last, dict) and last.get("role") == "user" and isinstance(last.get("content"), list) \
                    and last["content"] and last["content"][0].get("type") == "tool_result":
                last["content"].append(_tool_result(message))
            else:
                sent.append({"role": "user", "content": [_tool_result(message)]})
        else:
            sent.append({key: message[key] for key in ("role", "content") if key in message})
    return sent


def _tools(tools: Any) -> list[dict[str, Any]] | None:
    """OpenAI function tools as Anthropic's `{name, description, input_schema}`."""
    if not isinstance(tools, list) or not tools:
        return None
    converted = []
    for tool in tools:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict):
            schema = function.get("parameters") or {"type": "object", "properties": {}}
            converted.append({key: value for key, value in (("name", function.get("name")),
                              ("description", function.get("description")), ("input_schema", schema)) if value is not None})
        elif isinstance(tool, dict):
            converted.append(tool)  # already Anthropic's shape
    return converted


def _tool_choice(choice: Any) -> Any:
    """OpenAI's tool_choice spellings in Anthropic's; Anthropic's own pass through."""
    if isinstance(choice, str):
        return {"auto": {"type": "auto"}, "required": {"type": "any"}, "any": {"type": "any"},
                "none": {"type": "none"}}.get(choice, {"type": "tool", "name": choice})
    if isinstance(choice, dict) and choice.get("type") == "function":
        return {"type": "tool", "name": (choice.get("function") or {}).get("name")}
    return choice


def _request(options: dict[str, Any], ctx: AgentContext, model: str) -> tuple[dict[str, Any], list[Any]]:
    """The messages.create arguments, and the conversation the result reports."""
    options = {**options, "system": _with_response_format(options.get("system"), options.get("response_format"))}
    system = system_prompt(options, ctx)
    messages = conversation({**options, "images": None, "message": None}, ctx)
    if system:
        messages.pop(0)  # the node's system prompt goes in `system`, not in the conversation
    elif messages and isinstance(messages[0], dict) and messages[0].get("role") == "system":
        system = messages[0].get("content") or ""  # GraphAI: else a leading system message of the history
    body: dict[str, Any] = {
        "model": model,
        "messages": _anthropic_messages([m for m in messages if not (isinstance(m, dict) and m.get("role") == "system")]),
        "max_tokens": int(options["max_tokens"]) if not is_null(options.get("max_tokens")) else _DEFAULT_MAX_TOKENS,
    }
    if not is_null(options.get("temperature")):
        # The SDK (2.x) has no `temperature` argument any more; the API still reads it from the body. GraphAI's
        # default of 0.7 is not sent: the current SDK's models take their own.
        body["extra_body"] = {"temperature": options["temperature"]}
    if system:
        body["system"] = system
    tools = _tools(options.get("tools"))
    if tools:
        body["tools"] = tools
        if not is_null(options.get("tool_choice")):
            body["tool_choice"] = _tool_choice(options["tool_choice"])
    return body, messages


# --- response --------------------------------------------------------------------------


def _checked(message: Any) -> dict[str, Any]:
    """The Message as a dict; a reply that is not one (a proxy's page, other JSON) is a lost reply."""
    fields = message.model_dump(mode="json", exclude_none=True) if hasattr(message, "model_dump") else message
    if not isinstance(fields, dict) or fields.get("type") != "message" or not isinstance(fields.get("content"), list):
        raise MalformedReplyError(f"the reply is not a message: {str(fields)[:80]!r}")
    return fields


def _openai_message(response: dict[str, Any]) -> dict[str, Any]:
    """GraphAI's anthoropicTool2OpenAITool: the text blocks joined, tool_use blocks as OpenAI tool calls."""
    blocks = [block for block in response["content"] if isinstance(block, dict)]
    text = " ".join(str(block.get("text") or "") for block in blocks if block.get("type") == "text")
    message: dict[str, Any] = {"role": response.get("role") or "assistant", "content": text}
    calls = [{"id": block.get("id"), "type": "function",
              "function": {"name": block.get("name"), "arguments": json.dumps(block.get("input") or {}, ensure_ascii=False)}}
             for block in blocks if block.get("type") == "tool_use"]
    if calls:
        message["tool_calls"] = calls
    return message


def _result(response: dict[str, Any], messages: list[Any], wants_json: bool) -> dict[str, Any]:
    message = _openai_message(response)
    usage = response.get("usage") or {}
    usage = {**usage, **openai_usage(usage.get("input_tokens"), usage.get("output_tokens"))}
    result = ChatResult(message, messages, {**response, "choices": [{"message": message}], "usage": usage}).to_result()
    first = response["content"][0] if response["content"] else {}
    result["text"] = first.get("text") if isinstance(first, dict) and first.get("type") == "text" else None
    if wants_json:
        result["responseFormat"] = parse_json_reply(result["text"])
    return result


async def _create(client: "anthropic.AsyncAnthropic", body: dict[str, Any]) -> dict[str, Any]:
    try:
        return _checked(await client.messages.create(**body))
    except json.JSONDecodeError as error:
        raise MalformedReplyError(f"the reply is not valid JSON ({error})") from None


async def _stream(client: "anthropic.AsyncAnthropic", body: dict[str, Any], call: LlmCall) -> dict[str, Any]:
    """Streams the reply: text deltas go to the event stream as they come; blocks are assembled as GraphAI does."""
    response: dict[str, Any] | None = None
    partial: dict[int, str] = {}
    stopped = False
    stream = await client.messages.create(**body, stream=True)
    async with stream:
        async for event in stream:
            kind = getattr(event, "type", None)
            if kind == "message_start":
                response = event.message.model_dump(mode="json", exclude_none=True)
                response["content"] = []
            elif kind == "content_block_start" and response is not None:
                response["content"].append(event.content_block.model_dump(mode="json", exclude_none=True))
                partial[event.index] = ""
            elif kind == "content_block_delta":
                delta = event.delta
                if delta.type == "text_delta":
                    partial[event.index] = partial.get(event.index, "") + delta.text
                    if delta.text:
                        call.token(delta.text)
                elif delta.type == "input_json_delta":
                    partial[event.index] = partial.get(event.index, "") + delta.partial_json
            elif kind == "message_delta" and response is not None:
                response.update(event.delta.model_dump(mode="json", exclude_none=True))
                response["usage"] = {**response.get("usage", {}), **event.usage.model_dump(mode="json", exclude_none=True)}
            elif kind == "message_stop":
                stopped = True
    if response is None or not stopped:
        raise MalformedReplyError("the stream ended before the message was complete (no message_stop)")
    for index, text in partial.items():
        block = response["content"][index] if index < len(response["content"]) else {}
        if block.get("type") == "text":
            block["text"] = text
        elif block.get("type") == "tool_use":
            try:
                block["input"] = json.loads(text) if text.strip() else block.get("input") or {}
            except ValueError:
                raise MalformedReplyError(f"tool_use block {index}'s input is not JSON: {text[:80]!r}") from None
    return _checked(response)


# --- the agent -------------------------------------------------------------------------


def _sdk() -> Any:
    """The `anthropic` SDK, imported on first use; without graphrt[anthropic], an error that says so."""
    try:
        import anthropic
    except ImportError:
        raise LLMRequestError("anthropicAgent needs pip install 'graphrt[anthropic]' (no module anthropic)") from None
    return anthropic


async def anthropic_agent(ctx: AgentContext) -> dict[str, Any]:
    """Asks Anthropic's messages API for one reply.

    Args:
        ctx: inputs and params as GraphAI's anthropicAgent (inputs win); `apiKey` (else
            ANTHROPIC_API_KEY), `baseURL` (else ANTHROPIC_BASE_URL, else Anthropic's API) and
            `model` (else ANTHROPIC_MODEL, else claude-sonnet-4-5) in params or config;
            `timeout` (seconds per attempt), `maxRetries` (on 408, 409, 429, 5xx, timeouts,
            failed connections and lost replies) and `retryDelay` as openAIAgent's.

    Returns:
        The Message's fields plus GraphAI's `choices`, `text`, `tool`, `tool_calls`,
        `message`, `messages` (with the reply), `usage` (and `responseFormat`).

    Raises:
        LLMRequestError: no key, the API refused the request, failed on every attempt,
            or answered something that is not a whole message.
    """
    anthropic = _sdk()
    options = llm_options(ctx)
    server: ServerSettings = ANTHROPIC.server(options)
    body, messages = _request(options, ctx, server.model or "")
    stream = is_truthy(options.get("stream")) or is_truthy(options.get("dataStream"))
    policy = RetryPolicy.of(options)
    client = anthropic.AsyncAnthropic(api_key=server.api_key, base_url=server.base_url, max_retries=0,
                                      timeout=policy.timeout)

    async def attempt(call: LlmCall) -> dict[str, Any]:
        response = await (_stream(client, body, call) if stream else _create(client, body))
        call.finished(model=response.get("model"), finish_reason=response.get("stop_reason"),
                      **reply_usage(response.get("usage")))
        return response

    async with client:
        response = await ask(ctx, ANTHROPIC, server, body["model"], policy, attempt,
                             prompt={key: body.get(key) for key in ("system", "messages", "tools")},
                             max_tokens=body.get("max_tokens"))
    return _result(response, messages, wants_json=is_truthy(options.get("response_format")))


def reply_usage(usage: Any) -> dict[str, Any]:
    """A Message's `usage` as `LlmCall.finished` takes it. Anthropic's `input_tokens` leaves out the prompt's
    cached part (read from the cache, and written to it): added back, so that the input is the whole prompt as
    other providers count it, and `cached_tokens` the part read from the cache. Its `output_tokens` already
    counts thinking."""
    usage = usage if isinstance(usage, dict) else {}
    fresh = usage.get("input_tokens")
    read = usage.get("cache_read_input_tokens")
    written = usage.get("cache_creation_input_tokens")
    whole = None
    if isinstance(fresh, int):
        whole = fresh + sum(part for part in (read, written) if isinstance(part, int))
    return {"input_tokens": whole, "output_tokens": usage.get("output_tokens"),
            "cached_tokens": read if isinstance(read, int) else None}


anthropic_agent_info = AgentInfo(
    name="anthropicAgent",
    func=anthropic_agent,
    description="Anthropic Agent: a reply from Claude through Anthropic's messages API",
    inputs=chat_inputs(response_format={"type": "object", "description": "a JSON object the reply should fill"}),
    params=chat_params(),
    output={"type": "object"},
    source="https://github.com/receptron/graphai/blob/main/llm_agents/anthropic_agent/src/anthropic_agent.ts",
    package="@graphai/anthropic_agent",
    environment_variables=("ANTHROPIC_API_KEY",),
    **GRAPHAI_LLM_INFO,
)

AGENTS: list[AgentInfo] = [anthropic_agent_info]
