"""openAIFetchAgent: one chat completion, as GraphAI's browser-side agent asks it.

GraphAI's openAIFetchAgent (@graphai/openai_fetch_agent) posts to `{baseURL}/chat/completions`
with `fetch`, for browsers: it reads no environment variable (`apiKey` must be in params or
config, which wins over params; `baseURL` defaults to OpenAI's API), always sends `temperature`
(default 0.7), `stream` and `max_completion_tokens` (from `max_tokens` too), takes `model` from
params alone (default gpt-4o), and sends `images[0]` bare for gpt-4-vision-preview. Its result is
the completion's fields with `text`, `tool` (the first tool call, arguments parsed), `message`
and `messages` (with the reply). graphrt asks through the `openai` SDK as an `OpenAIProvider`, so
the request goes through the one retry loop and its reply, whole or streamed, is read and checked
as openAIAgent's (openai_reply.py): a lost reply never comes back as a result.
"""

from __future__ import annotations

from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.jsvalue import defined, is_null, is_truthy

from .chat import ChatResult, conversation
from .errors import LLMRequestError
from .openai_provider import OpenAIProvider
from .openai_reply import complete, complete_streaming, reply_usage
from .provider import GRAPHAI_LLM_INFO, LlmCall
from .retries import ask
from .settings import DEFAULT_OPENAI_MODEL, RetryPolicy, ServerSettings, first_text

__all__ = ["AGENTS", "FETCH", "openai_fetch_agent"]

OPENAI_V1 = "https://api.openai.com/v1"  # GraphAI's default baseURL for this agent
FETCH = OpenAIProvider(agent="openAIFetchAgent", system="openai", host="api.openai.com/v1",
                       default_model=DEFAULT_OPENAI_MODEL)
"""openAIFetchAgent's provider: it names no environment variable, as GraphAI's reads none."""
_DEFAULT_TEMPERATURE = 0.7
_VISION_PREVIEW = "gpt-4-vision-preview"  # GraphAI sends this model its image URL bare


def _messages(options: dict[str, Any], ctx: AgentContext) -> list[Any]:
    """GraphAI's: the system prompt, `messages`, the prompt, then `images[0]` (no `message` input)."""
    messages = conversation({key: value for key, value in options.items() if key not in ("message", "images")}, ctx)
    images = options.get("images")
    if isinstance(images, list) and images:
        image = images[0] if ctx.params.get("model") == _VISION_PREVIEW else {"url": images[0], "detail": "high"}
        messages.append({"role": "user", "content": [{"type": "image_url", "image_url": image}]})
    return messages


def _body(options: dict[str, Any], model: str, messages: list[Any], stream: bool) -> dict[str, Any]:
    """GraphAI's request: undefined fields left out, temperature always, max_completion_tokens from max_tokens too."""
    body: dict[str, Any] = {"model": model, "messages": messages}
    for key in ("tools", "tool_choice", "response_format"):
        if not is_null(options.get(key)):
            body[key] = options[key]
    limit = options.get("max_completion_tokens")
    limit = options.get("max_tokens") if is_null(limit) else limit
    if not is_null(limit):
        body["max_completion_tokens"] = limit
    temperature = options.get("temperature")
    body["temperature"] = _DEFAULT_TEMPERATURE if is_null(temperature) else temperature
    if not stream:
        body["stream"] = False  # GraphAI's `stream: !!stream`; a stream is asked for by complete_streaming
    return body


def fetch_result(message: dict[str, Any] | None, messages: list[Any], response: dict[str, Any]) -> dict[str, Any]:
    """GraphAI's result: the response's fields, `text`, `tool` (absent without one), `message` and `messages`."""
    result = ChatResult(message, messages, response).to_result()
    del result["tool_calls"]  # GraphAI's openAIFetchAgent gives the first tool call only
    return result


async def openai_fetch_agent(ctx: AgentContext) -> dict[str, Any]:
    """Asks an OpenAI-compatible server for one chat completion, GraphAI's browser-side way.

    Args:
        ctx: inputs over params `prompt`, `system`, `messages`, `images`, `tools`,
            `tool_choice`, `max_tokens`, `max_completion_tokens`, `temperature`,
            `response_format`; params `model`; config over params `apiKey` (required),
            `baseURL` and `stream`; `timeout`, `maxRetries` and `retryDelay` as openAIAgent's.

    Returns:
        The completion's fields plus `text`, `tool`, `message` and `messages`.

    Raises:
        LLMRequestError: no apiKey, or the server refused the request or failed on every attempt.
    """
    options = {**ctx.params, **defined(ctx.inputs)}
    settings = {**ctx.params, **ctx.config}  # GraphAI's: config over params for apiKey, baseURL, stream
    api_key = first_text(settings.get("apiKey"))
    if api_key is None:
        raise LLMRequestError("openAIFetchAgent: no API key: give apiKey in params or config (it reads no "
                              "environment variable, as GraphAI's, which runs in browsers)",
                              agent_id="openAIFetchAgent")
    model = first_text(ctx.params.get("model")) or DEFAULT_OPENAI_MODEL
    server = ServerSettings(first_text(settings.get("baseURL")) or OPENAI_V1, api_key, model)
    stream = is_truthy(settings.get("stream"))
    messages = _messages(options, ctx)
    body = _body(options, model, messages, stream)
    policy = RetryPolicy.of(settings)
    async with FETCH.client(server, policy.timeout) as client:

        async def attempt(call: LlmCall) -> tuple[dict[str, Any], dict[str, Any] | None]:
            response, message = await (complete_streaming(client, body, call) if stream else complete(client, body))
            choices = response.get("choices") or [{}]
            call.finished(model=response.get("model"), finish_reason=choices[0].get("finish_reason"),
                          **reply_usage(response.get("usage")))
            return response, message

        response, message = await ask(ctx, FETCH, server, model, policy, attempt, prompt=messages,
                                      max_tokens=body.get("max_tokens", body.get("max_completion_tokens")))
    return fetch_result(message, messages, response)


async def openai_fetch_mock_agent(ctx: AgentContext) -> dict[str, Any]:
    """Answers as openAIFetchAgent would, without a server: the prompt, repeated (as GraphAI's mock's sample)."""
    messages = _messages({**ctx.params, **defined(ctx.inputs)}, ctx)
    said = [message.get("content") for message in messages
            if isinstance(message, dict) and message.get("role") == "user"]
    message = {"role": "assistant", "content": said[-1] if said and isinstance(said[-1], str) else ""}
    response = {"object": "chat.completion", "model": "mock",
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
    return fetch_result(message, messages, response)


_SAMPLE_TEXT = "this is response result"  # GraphAI's sample input
_TEXT_OR_LIST = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}
_REQUEST = {
    "system": _TEXT_OR_LIST,
    "prompt": {**_TEXT_OR_LIST, "description": "query string"},
    "messages": {"anyOf": [{"type": "string"}, {"type": "object"}, {"type": "array"}], "description": "chat messages"},
    "images": {"type": "array", "items": {"type": "string"}, "description": "the first is sent, as an image URL"},
    "tools": {"type": "array"},
    "tool_choice": {"anyOf": [{"type": "string"}, {"type": "object"}]},
    "max_tokens": {"type": "number", "description": "sent as max_completion_tokens"},
    "max_completion_tokens": {"type": "number"},
    "temperature": {"type": "number", "description": f"default {_DEFAULT_TEMPERATURE}"},
    "response_format": {"type": "object"},
}

openai_fetch_agent_info = AgentInfo(
    name="openAIFetchAgent",
    func=openai_fetch_agent,
    mock=openai_fetch_mock_agent,
    description="OpenAI Fetch Agent: a chat completion from OpenAI or an OpenAI-compatible server, with the key "
                "given in params or config (GraphAI's agent for browsers)",
    inputs={"type": "object", "properties": _REQUEST},
    params={"type": "object", "properties": {
        **_REQUEST,
        "model": {"type": "string", "description": f"default {DEFAULT_OPENAI_MODEL}"},
        "apiKey": {"type": "string", "description": "required (no environment variable is read)"},
        "baseURL": {"type": "string", "description": f"default {OPENAI_V1}"},
        "stream": {"type": "boolean"},
        "timeout": {"type": "number", "description": "seconds per attempt"},
        "maxRetries": {"type": "integer"},
        "retryDelay": {"type": "number"},
    }},
    output={"type": "object", "properties": {
        "id": {"type": "string"}, "object": {"type": "string"}, "created": {"type": "integer"},
        "model": {"type": "string"}, "choices": {"type": "array"}, "usage": {"type": "object"},
        "text": {"type": ["string", "null"]}, "tool": {"type": "object"},
        "message": {"type": ["object", "null"]}, "messages": {"type": "array"},
    }},
    samples=(
        Sample(
            inputs={"prompt": _SAMPLE_TEXT},
            params={},
            result={
                "object": "chat.completion",
                "model": "mock",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": _SAMPLE_TEXT},
                             "finish_reason": "stop"}],
                "text": _SAMPLE_TEXT,
                "message": {"role": "assistant", "content": _SAMPLE_TEXT},
                "messages": [{"role": "user", "content": _SAMPLE_TEXT}, {"role": "assistant", "content": _SAMPLE_TEXT}],
            },
            description="run with the mock (no server): it repeats the prompt",
        ),
    ),
    source="https://github.com/receptron/graphai/blob/main/llm_agents/openai_fetch_agent/src/openai_fetch_agent.ts",
    package="@graphai/openai_fetch_agent",
    **GRAPHAI_LLM_INFO,
)

AGENTS: list[AgentInfo] = [openai_fetch_agent_info]
