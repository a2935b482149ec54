"""One LLM turn of a tools agent: its options checked, the conversation it starts from, the LLM asked, its tool calls.

toolsAgent and toolsSequentialAgent share it. The LLM is asked as a one-node nested graph (as
each tool runs, `tool_runner.run_one_node`), so filters, timeouts and events apply to it as to
any node; its reply is any LLM agent's chat result (`graphrt_agents.llm.chat.ChatResult`).
"""

from __future__ import annotations

from typing import Any

from graphrt.authoring.agent_info import AgentContext
from graphrt.authoring.functions import inputs_error
from graphrt.base.jsvalue import defined, is_null, is_truthy
from graphrt.base.schema import violations

from .tool_runner import run_one_node

__all__ = ["checked_options", "opening", "ask_llm", "reply_tool_calls"]


def checked_options(ctx: AgentContext, schema: dict[str, Any]) -> dict[str, Any]:
    """Params and inputs merged (inputs win), checked against the agent's `schema`.

    Raises:
        AgentError: naming the field (`inputs.maxRounds` or `params.maxRounds`) of every violation.
    """
    inputs = defined(ctx.inputs)
    options = {**ctx.params, **inputs}
    found = violations(schema, options)
    if found:
        raise inputs_error(found, ctx.agent_id, from_params=set(ctx.params) - set(inputs))
    return options


def opening(options: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    """The system prefix sent before every call, and the history: `messages` (a string is one user message, not one
    message per character) with the user's turn, `userInput.message` or else `userInput.text`."""
    messages = options.get("messages")
    history = [{"role": "user", "content": messages}] if isinstance(messages, str) else list(messages or [])
    user_input = options.get("userInput") if isinstance(options.get("userInput"), dict) else {}
    if isinstance(user_input.get("message"), dict):
        history.append(user_input["message"])
    elif is_truthy(user_input.get("text")):
        history.append({"role": "user", "content": user_input["text"]})
    system = options.get("system")
    return ([{"role": "system", "content": system}] if is_truthy(system) else []), history


async def ask_llm(ctx: AgentContext, llm_agent: str, conversation: list[Any], tools: list[Any] | None,
                  options: dict[str, Any], tool_choice: Any = None) -> dict[str, Any]:
    """One LLM call, as a one-node nested graph, journaled as an LLM call whatever the agent: `llmParams` are its
    params, with `llmModel` as the model and `stream`; without `tools` (None) the LLM is offered none.

    Raises:
        TypeError: the LLM agent returned something other than a chat result.
    """
    params = dict(options.get("llmParams") or {})
    if is_truthy(options.get("llmModel")):
        params["model"] = options["llmModel"]
    if "stream" in options:
        params["stream"] = options["stream"]
    values: dict[str, Any] = {"messages": conversation}
    if tools is not None:
        values["tools"] = tools
    if not is_null(tool_choice):
        values["tool_choice"] = tool_choice
    results = await run_one_node(ctx, "llm", llm_agent, values, journal="llm", params=params)
    reply = results.get("llm")
    if not isinstance(reply, dict):
        raise TypeError(f"{ctx.agent_id}: {llm_agent} returned {type(reply).__name__}, not a chat result")
    return reply


def reply_tool_calls(reply: dict[str, Any], round_index: int) -> list[tuple[dict[str, Any], Any]]:
    """The reply's tool calls with their raw arguments (the JSON text when the LLM sent text).

    Calls without an id get one, in the message too, so each tool message answers its call.
    """
    message = reply.get("message") if isinstance(reply.get("message"), dict) else {}
    raw_calls = {call.get("id"): call for call in message.get("tool_calls") or [] if isinstance(call, dict)}
    calls = []
    for index, call in enumerate(reply.get("tool_calls") or []):
        call = dict(call)
        raw = raw_calls.get(call.get("id"), {}).get("function", {}).get("arguments", call.get("arguments"))
        if not call.get("id"):
            call["id"] = f"call_{round_index}_{index}"
            if index < len(message.get("tool_calls") or []):
                message["tool_calls"][index]["id"] = call["id"]
        calls.append((call, raw))
    return calls
