"""openAIAgent's mock: an LLM that needs no server, for samples and offline tests.

Like pydantic-ai's TestModel, it is deterministic and exercises tools: after
the user's message it calls every offered tool once, each required argument
filled from the user's text (numbers 0, booleans false); once the tools have
answered, it replies with what they returned. Without tools it repeats the
prompt, as GraphAI's openAIMockAgent does. Its result is a ChatResult, as any LLM agent's.
"""

from __future__ import annotations

import json
from typing import Any

from graphrt.authoring.agent_info import AgentContext
from graphrt.base.jsvalue import defined, is_null

from .chat import ChatResult, conversation

__all__ = ["openai_mock_agent"]

MOCK_MODEL = "mock"
_EMPTY_BY_TYPE = {"number": 0, "integer": 0, "boolean": False, "array": [], "object": {}, "null": None}


def _last_user_turn(messages: list[Any]) -> int:
    for index in range(len(messages) - 1, -1, -1):
        if isinstance(messages[index], dict) and messages[index].get("role") == "user":
            return index
    return -1


def _text(message: Any) -> str:
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)


def _arguments(schema: dict[str, Any], user_text: str) -> dict[str, Any]:
    """A value for each required parameter: the user's text for strings, an empty value otherwise."""
    parameters = schema.get("parameters") or {}
    properties = parameters.get("properties") or {}
    return {
        name: user_text if properties.get(name, {}).get("type", "string") == "string"
        else _EMPTY_BY_TYPE.get(properties[name].get("type"), None)
        for name in parameters.get("required") or []
    }


def _tool_calls(tools: list[Any], user_text: str) -> list[dict[str, Any]]:
    calls = []
    for index, tool in enumerate(tools):
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and function.get("name"):
            arguments = json.dumps(_arguments(function, user_text), ensure_ascii=False)
            calls.append({"id": f"call_{index}", "type": "function",
                          "function": {"name": function["name"], "arguments": arguments}})
    return calls


async def openai_mock_agent(ctx: AgentContext) -> dict[str, Any]:
    """Answers as openAIAgent would, without a server: tool calls first, then their results as text."""
    options = {**ctx.params, **defined(ctx.inputs)}
    messages = conversation(options, ctx)
    turn = _last_user_turn(messages)
    user_text = _text(messages[turn]) if turn >= 0 else ""
    tool_replies = [message for message in messages[turn + 1:] if isinstance(message, dict) and message.get("role") == "tool"]
    tools = options.get("tools") if isinstance(options.get("tools"), list) else []
    calls = _tool_calls(tools, user_text) if not tool_replies else []
    if calls:
        message: dict[str, Any] = {"role": "assistant", "content": "", "tool_calls": calls}
    else:
        content = "\n".join(_text(reply) for reply in tool_replies) if tool_replies else user_text
        message = {"role": "assistant", "content": content}
    usage = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
    wants_json = not is_null(options.get("response_format"))
    return ChatResult(message, messages, {"model": MOCK_MODEL, "usage": usage}, wants_json=wants_json).to_result()
