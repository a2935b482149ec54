"""toolsSequentialAgent: an LLM calls the node's tools once, and answers each tool's result in turn, GraphAI's way.

As GraphAI's (@graphai/tools_agent's tools_agent-sequential.ts): the LLM is asked once with the
tools, and `messages` gains the user's turn (`userInput.text`) and its reply. Without a tool call
that is all. Otherwise each tool call runs in turn (its agent gets `{arg, func, tool_call}`), and
after each one the history gains the tool message, `{role: "tool", tool_call_id, name, content,
extra: {agent, arg, func, data}}`, and the LLM, asked without tools, answers it. The result is
`{messages}`.

It reads toolsAgent's options (`llmAgent`, default openAIAgent; `tools`; `messages`; `userInput`;
`system`; `passthrough`; `llmModel`, `stream`, `llmParams`), from inputs or params, and grants and
runs tools as toolsAgent does (tool_runner.py): agent names and MCP servers as well as schemas,
each call checked against its schema, each tool a one-node nested graph.

Where graphrt differs from GraphAI:
- A reply with two or more tool calls is kept as one assistant message per call, each just before
  its tool message (the first with the reply's text). GraphAI's history keeps the one message
  and puts an LLM answer between its tool messages, which OpenAI's API refuses (a tool message
  must follow the assistant message that called it, and that message's every call must be
  answered first), so its second call fails with the first parallel tool calls. With one call
  the history is GraphAI's.
- An unknown tool, arguments that break the schema and a tool's failure become the tool
  message's content, which the LLM answers (GraphAI's node fails); a tool's `content` that is
  not text is sent as JSON.
- `messages` may be absent or a string, and `llmAgent` absent, as toolsAgent takes them (GraphAI's
  fails without them); a tool agent also gets `data` (`passthrough[agent]`, or `{}`).
- GraphAI's function info names it toolsAgent, a copy of toolsAgent's; here it is
  toolsSequentialAgent, the name its package exports it under.
"""

from __future__ import annotations

from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.authoring.plugins import default_registry
from graphrt.authoring.tool_calls import split_tool_name
from graphrt.base.jsvalue import UNDEFINED

from .llm_turn import ask_llm, checked_options, opening, reply_tool_calls
from .tool_runner import ToolOutcome, ToolSession, granted_toolbox
from .tools_agent import OPTIONS_SCHEMA as TOOLS_AGENT_OPTIONS

__all__ = ["AGENTS", "tools_sequential_agent"]

_READ = ("llmAgent", "tools", "messages", "userInput", "system", "passthrough", "llmModel", "stream", "llmParams")
OPTIONS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {key: TOOLS_AGENT_OPTIONS["properties"][key] for key in _READ},
}
"""What toolsSequentialAgent reads, from its inputs or its params (inputs win): toolsAgent's, less its rounds."""


def _assistant_turns(message: Any, count: int) -> list[Any]:
    """The reply as the history keeps it: the message itself, or with `count` (two or more) tool calls one message
    per call, the reply's text on the first, so that each call's answer can follow its own message."""
    raw_calls = message.get("tool_calls") if isinstance(message, dict) else None
    if count < 2 or not isinstance(raw_calls, list) or len(raw_calls) != count:
        return [message]
    return [{**message, "content": message.get("content") if index == 0 else None, "tool_calls": [raw]}
            for index, raw in enumerate(raw_calls)]


def _tool_message(call: dict[str, Any], outcome: ToolOutcome) -> dict[str, Any]:
    """GraphAI's tool message: the call it answers, the tool's content, and in `extra` the call and the tool's data."""
    name = str(call.get("name") or "")
    agent, func = split_tool_name(name)
    arguments = call.get("arguments")
    extra: dict[str, Any] = {"agent": agent, "arg": arguments if arguments is not UNDEFINED else None, "func": func}
    if isinstance(outcome.result, dict) and outcome.result.get("data", UNDEFINED) is not UNDEFINED:
        extra["data"] = outcome.result["data"]
    return {"role": "tool", "tool_call_id": call["id"], "name": name, "content": outcome.content, "extra": extra}


async def tools_sequential_agent(ctx: AgentContext) -> dict[str, Any]:
    """Asks the LLM once with the node's tools, then runs each tool call in turn and has the LLM answer each result.

    Args:
        ctx: inputs (or params) `llmAgent` (default openAIAgent), `tools` (schemas named `agentName--func`, agent
            names, MCP servers or their tools), `messages` (a string is one user message), `userInput` (`{text}` or
            `{message}`), `system`, `passthrough` (per agent, the `data` its calls get), `llmModel`, `stream`,
            `llmParams` (params of the LLM nodes).

    Returns:
        `{messages}`: the history with the user's turn, the LLM's reply, and per tool call its tool message and the
        LLM's answer to it.
    """
    options = checked_options(ctx, OPTIONS_SCHEMA)
    registry = ctx.nesting.registry if ctx.nesting is not None else default_registry()
    toolbox = await granted_toolbox(ctx, list(options.get("tools") or []), registry)
    passthrough = options.get("passthrough") if isinstance(options.get("passthrough"), dict) else {}
    session = ToolSession(ctx, toolbox, passthrough)
    llm_agent = str(options.get("llmAgent") or "openAIAgent")
    prefix, history = opening(options)

    reply = await ask_llm(ctx, llm_agent, prefix + history, toolbox.schemas(), options)
    calls = reply_tool_calls(reply, 0)
    turns = _assistant_turns(reply.get("message", UNDEFINED), len(calls))
    if not calls:
        history.extend(turns)  # as GraphAI's pushAgent `items`: even a reply without a message
        return {"messages": history}
    for index, (call, raw) in enumerate(calls):
        if index < len(turns):
            history.append(turns[index])
        history.append(_tool_message(call, await session.call(call, raw)))
        answer = await ask_llm(ctx, llm_agent, prefix + history, None, options)
        if answer.get("message", UNDEFINED) is not UNDEFINED:  # as GraphAI's pushAgent `item`
            history.append(answer["message"])
    return {"messages": history}


_NO_PAGE = "There is no page to look in yet: search for one first, as in search[Eiffel]."
_LOOKUP_TOOL = {"type": "function", "function": {
    "name": "wikiAgent--lookup", "description": "Returns the next sentence containing a term in the page found by "
    "the last search.", "parameters": {"type": "object", "properties": {"term": {"type": "string"}},
                                       "required": ["term"]}}}

tools_sequential_agent_info = AgentInfo(
    name="toolsSequentialAgent",
    func=tools_sequential_agent,
    description="Lets an LLM call the node's granted agents as tools once, answering each tool's result in turn",
    inputs=OPTIONS_SCHEMA,
    params=OPTIONS_SCHEMA,
    output={"type": "object", "properties": {"messages": {"type": "array"}}},
    samples=(
        Sample(
            inputs={"tools": [_LOOKUP_TOOL], "messages": [], "userInput": {"text": "Eiffel"}},
            params={},
            result={"messages": [
                {"role": "user", "content": "Eiffel"},
                {"role": "assistant", "content": "", "tool_calls": [
                    {"id": "call_0", "type": "function",
                     "function": {"name": "wikiAgent--lookup", "arguments": '{"term": "Eiffel"}'}},
                ]},
                {"role": "tool", "tool_call_id": "call_0", "name": "wikiAgent--lookup", "content": _NO_PAGE,
                 "extra": {"agent": "wikiAgent", "arg": {"term": "Eiffel"}, "func": "lookup", "data": {}}},
                {"role": "assistant", "content": _NO_PAGE},
            ]},
            description="with openAIAgent's mock, which calls each tool once and then answers with the result "
                        "(here the wiki's own advice: a lookup needs a page)",
        ),
    ),
    category=("llm",),
    author="Receptron team (GraphAI), graphrt",
    repository="https://github.com/receptron/graphai",
    source="https://github.com/receptron/graphai/blob/main/llm_agents/tools_agent/src/tools_agent-sequential.ts",
    package="@graphai/tools_agent",
    license="MIT",
    has_graph_data=True,
    checks_inputs=True,  # checked_options checks them
)

AGENTS: list[AgentInfo] = [tools_sequential_agent_info]
