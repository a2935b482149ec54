"""openAIAgent's reply: one chat completion read whole, or streamed token by token, and checked to be a reply.

A reply is text or tool calls. A body that is not a chat completion, a stream that ends before its
finish_reason (llama-cpp-python's server ends one so when another request interrupts it) and a
message with no text and no tool call are each a MalformedReplyError, which the retry loop asks
again: a lost reply never comes back as a result.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from .errors import MalformedReplyError
from .provider import LlmCall

if TYPE_CHECKING:
    import openai

__all__ = ["complete", "complete_streaming", "reply_usage"]


def _message_of(completion: Any) -> dict[str, Any] | None:
    """The first choice's message as GraphAI keeps it: role, content and tool_calls (if any)."""
    if not completion.choices:
        return None
    raw = completion.choices[0].message
    message: dict[str, Any] = {"role": raw.role, "content": raw.content}
    if raw.tool_calls:
        message["tool_calls"] = [call.model_dump(exclude_none=True) for call in raw.tool_calls]
    return message


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


async def complete(client: "openai.AsyncOpenAI", body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Asks for the whole reply: the response's fields, and its message."""
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


async def complete_streaming(client: "openai.AsyncOpenAI", body: dict[str, Any],
                             call: LlmCall) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Streams the reply: text tokens go to the event stream as they come (`call.token`), tool calls are assembled."""
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
                    call.token(delta.content)
                for part in delta.tool_calls or []:
                    assembled = calls.setdefault(part.index, {"id": "", "type": "function",
                                                              "function": {"name": "", "arguments": ""}})
                    assembled["id"] = part.id or assembled["id"]
                    if part.function is not None:
                        assembled["function"]["name"] = assembled["function"]["name"] or part.function.name or ""
                        assembled["function"]["arguments"] += part.function.arguments or ""
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


def reply_usage(usage: Any) -> dict[str, Any]:
    """An OpenAI-compatible reply's `usage` as `LlmCall.finished` takes it: the prompt (cached tokens included,
    as OpenAI counts them), the completion (reasoning included), and the cached and reasoning parts when given."""
    usage = usage if isinstance(usage, dict) else {}
    prompt = usage.get("prompt_tokens_details")
    completion = usage.get("completion_tokens_details")
    return {"input_tokens": usage.get("prompt_tokens"), "output_tokens": usage.get("completion_tokens"),
            "cached_tokens": prompt.get("cached_tokens") if isinstance(prompt, dict) else None,
            "reasoning_tokens": completion.get("reasoning_tokens") if isinstance(completion, dict) else None}
