"""The chat-result shape of LLM agents, and the conversation they send: one place for every provider.

A graph reads an LLM node's result the same way whichever agent answered:
`:llm.text`, `:llm.message`, `:llm.tool_calls`, `:llm.usage`... That shape is
GraphAI's openAIAgent result, and `ChatResult` builds it. openAIAgent builds one
from the server's reply, its mock from a made-up reply, and an agent for
another provider builds one from its own API's answer; toolsAgent reads any of
them. `conversation` turns GraphAI's inputs (`system`, `messages`, `prompt`,
`message`, `images`, `mergeablePrompts`...) into the messages to send.

    from graphrt_agents.llm.chat import ChatResult, conversation

    async def my_llm_agent(ctx):
        messages = conversation({**ctx.params, **ctx.inputs}, ctx)
        reply = await my_api(messages)
        message = {"role": "assistant", "content": reply.text}
        return ChatResult(message, messages, {"model": reply.model, "usage": reply.usage}).to_result()
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from graphrt.authoring.agent_info import AgentContext
from graphrt.base.jsvalue import UNDEFINED, is_null, is_truthy

__all__ = ["ChatResult", "conversation", "system_prompt", "tool_calls_of", "user_prompt"]


@dataclass(frozen=True)
class ChatResult:
    """One chat completion, as an LLM agent returns it.

    Attributes:
        message: the reply, as the chat API spells it: `{role, content, tool_calls?}`, where each
            tool call is `{id, type, function: {name, arguments}}` and `arguments` is JSON text;
            None when the server gave no reply.
        messages: the conversation that was sent (without the reply).
        response: the response's own fields, kept in the result beside the shape's
            (`model`, `usage`, `id`, ...).
        wants_json: the request asked for a JSON reply (`response_format`): the result then
            has `responseFormat`, the reply parsed (None when it is not a JSON object or array).
    """

    message: dict[str, Any] | None
    messages: Sequence[Any] = ()
    response: Mapping[str, Any] = field(default_factory=dict)
    wants_json: bool = False

    @property
    def text(self) -> str | None:
        """The reply's text; None when it has none (e.g. only tool calls)."""
        content = self.message.get("content") if self.message else None
        return content or None

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        """The reply's tool calls as `{id, name, arguments}`, arguments parsed (see tool_calls_of)."""
        return tool_calls_of(self.message)

    def to_result(self) -> dict[str, Any]:
        """The node's result, GraphAI's: the response's fields, then `text`, `tool` (the first
        tool call, absent without one), `tool_calls`, `message`, `messages` (with the reply),
        `usage`, and `responseFormat` when `wants_json`."""
        calls = self.tool_calls
        message = self.message
        text = self.text
        result = {
            **self.response,
            "text": text,
            "tool": calls[0] if calls else UNDEFINED,
            "tool_calls": calls,
            "message": message,
            "messages": [*self.messages, message] if message else list(self.messages),
            "usage": self.response.get("usage", UNDEFINED),
        }
        if self.wants_json:
            try:
                parsed = json.loads(text) if text else None
            except ValueError:
                parsed = None
            result["responseFormat"] = parsed if isinstance(parsed, (dict, list)) else None
        return result


def tool_calls_of(message: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """A reply's tool calls as `{id, name, arguments}`; arguments that are not JSON are undefined (as GraphAI)."""
    return [
        {"id": call.get("id"), "name": (call.get("function") or {}).get("name", ""),
         "arguments": _parsed_arguments((call.get("function") or {}).get("arguments"))}
        for call in (message or {}).get("tool_calls") or []
    ]


def _parsed_arguments(raw: Any) -> Any:
    """A tool call's arguments as JSON, or undefined when they are not JSON (as GraphAI)."""
    if not isinstance(raw, str):
        return raw if raw is not None else UNDEFINED
    try:
        return json.loads(raw) if raw.strip() else {}
    except ValueError:
        return UNDEFINED


# --- the conversation sent --------------------------------------------------------------


def _flat(value: Any) -> str:
    """GraphAI's flatString: a list of strings joins with newlines; null is ""."""
    if isinstance(value, list):
        return "\n".join(str(item) for item in value if is_truthy(item))
    return "" if is_null(value) else str(value)


def _merged(inputs: Mapping[str, Any], params: Mapping[str, Any], key: str, base: Any) -> str:
    """GraphAI's getMergeValue: `mergeablePrompts`/`mergeableSystem` from inputs and params, else `base`."""
    from_inputs, from_params = inputs.get(key), params.get(key)
    if is_truthy(from_inputs) or is_truthy(from_params):
        return "\n".join(text for text in (_flat(from_inputs), _flat(from_params)) if text)
    return _flat(base)


def system_prompt(options: Mapping[str, Any], ctx: AgentContext) -> str:
    """The node's system prompt: `mergeableSystem` from inputs and params, else `system` ("" when none)."""
    return _merged(ctx.inputs, ctx.params, "mergeableSystem", options.get("system"))


def user_prompt(options: Mapping[str, Any], ctx: AgentContext) -> str:
    """The node's prompt: `mergeablePrompts` from inputs and params, else `prompt` ("" when none)."""
    return _merged(ctx.inputs, ctx.params, "mergeablePrompts", options.get("prompt"))


def conversation(options: Mapping[str, Any], ctx: AgentContext) -> list[Any]:
    """The messages to send: system prompt, history, then the prompt (or `message`) and images.

    `options` are the node's params and inputs merged (inputs win), as GraphAI's LLM agents read them.
    """
    system = system_prompt(options, ctx)
    history = options.get("messages")
    if isinstance(history, str):
        history = [{"role": "user", "content": history}]
    elif isinstance(history, dict):
        history = [history]
    messages: list[Any] = [{"role": "system", "content": system}] if system else []
    messages.extend(history if isinstance(history, list) else [])
    prompt = user_prompt(options, ctx)
    if isinstance(options.get("message"), dict):
        messages.append(options["message"])
    elif prompt:
        messages.append({"role": "user", "content": prompt})
    images = options.get("images")
    if isinstance(images, list) and images:
        image = {"url": images[0], "detail": "high"}
        messages.append({"role": "user", "content": [{"type": "image_url", "image_url": image}]})
    return messages
