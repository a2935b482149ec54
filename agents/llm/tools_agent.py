"""toolsAgent: an LLM that calls the node's granted agents as tools until it answers.

GraphAI's inputs and result: `llmAgent`, `tools`, `messages`, `userInput.text`
(plus `system` and `passthrough`) in; `{messages, data}` out, and beside them
`environment`: per tool name, the `data` of every call, in order.

Beyond GraphAI's single round: the system prompt and the whole history go to
every LLM call; the loop runs until the LLM answers without tool calls (at most
`maxRounds` rounds); the tool calls of one turn run concurrently; unknown tools,
arguments that are not JSON or break the schema, and tool failures become tool
messages the LLM can correct itself from. Each tool runs as a one-node nested
graph, so filters, timeouts and events apply to it as to any node.

MCP servers are tool sources beside registered agents: `tools` may name a server of the
run's MCP config (all its tools) or one of its tools (`server--tool`); the LLM sees them
with the server's own input schemas (listed by mcpToolsListAgent, as a node: journaled, so a
replay starts no server), and each call goes through mcpToolsCallAgent. A tool's
error comes back to the LLM as any tool's does; a server that cannot start, dies or hangs
(a ServiceError) fails the node instead.
"""

from __future__ import annotations

from typing import Any

import anyio

from graphrt.authoring.plugins import default_registry
from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.authoring.tool_calls import split_tool_name
from graphrt.base.errors import GraphError, GraphInterrupted, JournalError, ServiceError
from graphrt.base.jsvalue import UNDEFINED

from .llm_turn import ask_llm, checked_options, opening, reply_tool_calls
from .tool_runner import ToolOutcome, ToolSession, granted_toolbox

__all__ = ["AGENTS", "tools_agent"]

_DEFAULT_MAX_ROUNDS = 8
_MAX_ROUNDS = 1_000  # LLM calls a node may ask for: past it, an LLM that always calls a tool never lets it end

OPTIONS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "llmAgent": {"type": ["string", "null"], "description": "the LLM agent (default openAIAgent)"},
        "tools": {"type": ["array", "null"], "description": "function schemas named agentName--func, agent names, "
                  "MCP server names (all their tools) or MCP tools named server--tool"},
        "messages": {"type": ["array", "string", "null"],
                     "description": "the conversation so far; a string is one user message"},
        "userInput": {"type": ["object", "null"],
                      "properties": {"text": {"type": ["string", "null"]}, "message": {"type": ["object", "null"]}}},
        "system": {"type": ["string", "null"]},
        "passthrough": {"type": ["object", "null"], "description": "per agent name, the data its first call gets"},
        "maxRounds": {"type": ["integer", "null"], "minimum": 1, "maximum": _MAX_ROUNDS, "description": f"LLM calls at most (default {_DEFAULT_MAX_ROUNDS})"},
        "tool_choice": {"type": ["string", "object", "array", "null"],
                        "description": "the first round's tool_choice; an array gives each round's in turn (a tool "
                                       "name stands for that function), and rounds after it choose freely"},
        "llmModel": {"type": ["string", "null"]},
        "stream": {"type": ["boolean", "null"]},
        "llmParams": {"type": ["object", "null"], "description": "params of the LLM node"},
    },
}
"""What toolsAgent reads, from its inputs or its params (inputs win): checked before the first LLM call."""


def _tool_message(call: dict[str, Any], outcome: ToolOutcome, tool_name: str) -> dict[str, Any]:
    agent, func = split_tool_name(tool_name)
    arguments = call.get("arguments")
    return {
        "role": "tool",
        "tool_call_id": call["id"],
        "content": outcome.content,
        "extra": {"agent": agent, "arg": arguments if arguments is not UNDEFINED else None, "func": func},
    }


def _round_choice(choice: Any, round_index: int) -> Any:
    """The tool_choice of one round: a single choice forces the first round only (so the loop can end); an array
    gives each round's in turn. A tool name (`wikiAgent--search`) stands for that function.

    Some servers (llama-cpp-python's) make a tool call only when tool_choice names the tool: a graph that knows
    which tool each step needs names it round by round.
    """
    if isinstance(choice, list):
        choice = choice[round_index] if round_index < len(choice) else None
    elif round_index > 0:
        return None
    if isinstance(choice, str) and choice not in ("auto", "none", "required"):
        return {"type": "function", "function": {"name": choice}}
    return choice


async def tools_agent(ctx: AgentContext) -> dict[str, Any]:
    """Lets an LLM call the node's tools, round after round, until it answers in text.

    Args:
        ctx: inputs (or params) `llmAgent` (default openAIAgent), `tools` (schemas named
            `agentName--func`, or agent names), `messages` (a string is one user message), `userInput` (`{text}` or
            `{message}`), `system`, `passthrough` (per agent, the `data` its first call
            gets), `maxRounds` (at least 1, default 8), `tool_choice` (first round only, so the loop can
            end; an array gives each round's in turn, for servers that call a tool only when it is named),
            `llmModel`, `stream`, `llmParams` (params of the LLM node).

    Returns:
        `messages` (the history with every new message), `data` (per tool name, the last
        result), `environment` (per tool name, every call's `data`), `text` (the final
        answer, or None), `finished` (False when `maxRounds` ran out) and `model` (the
        model that answered last, as the server named it).
    """
    options = checked_options(ctx, OPTIONS_SCHEMA)
    registry = ctx.nesting.registry if ctx.nesting is not None else default_registry()
    toolbox = await granted_toolbox(ctx, list(options.get("tools") or []), registry)
    passthrough = options.get("passthrough") if isinstance(options.get("passthrough"), dict) else {}
    session = ToolSession(ctx, toolbox, passthrough)
    llm_agent = str(options.get("llmAgent") or "openAIAgent")
    max_rounds = int(options.get("maxRounds") or _DEFAULT_MAX_ROUNDS)

    prefix, history = opening(options)
    text, finished, model, rounds = None, False, None, 0
    for round_index in range(max_rounds):
        rounds = round_index + 1
        tool_choice = _round_choice(options.get("tool_choice"), round_index)
        reply = await ask_llm(ctx, llm_agent, prefix + history, toolbox.schemas(), options, tool_choice)
        calls = reply_tool_calls(reply, round_index)
        model = reply.get("model", model)
        if isinstance(reply.get("message"), dict):
            history.append(reply["message"])
        if not calls:
            text, finished = reply.get("text"), True
            break
        outcomes: list[ToolOutcome | None] = [None] * len(calls)

        broken: list[GraphError] = []  # a service gone, a question, the journal's error: the node's, not the LLM's

        async def run(index: int, call: dict[str, Any], raw: Any) -> None:
            try:
                outcomes[index] = await session.call(call, raw, order=index)
            except (ServiceError, GraphInterrupted, JournalError) as error:
                broken.append(error)

        async with anyio.create_task_group() as group:
            for index, (call, raw) in enumerate(calls):
                group.start_soon(run, index, call, raw)
        if broken:
            raise broken[0]
        history.extend(_tool_message(call, outcome, str(call.get("name") or ""))
                       for (call, _), outcome in zip(calls, outcomes) if outcome is not None)
    return {
        "messages": history,
        "data": session.data,
        "environment": session.environment,
        "text": text,
        "finished": finished,
        "rounds": rounds,
        "model": model,
    }


_NO_PAGE = "There is no page to look in yet: search for one first, as in search[Eiffel]."
_LOOKUP_TOOL = {"type": "function", "function": {"name": "wikiAgent--lookup", "description": "Returns the next sentence containing a term in the page found by the last search.", "parameters": {"type": "object", "properties": {"term": {"type": "string"}}, "required": ["term"]}}}

tools_agent_info = AgentInfo(
    name="toolsAgent",
    func=tools_agent,
    description="Lets an LLM call the node's granted agents as tools, concurrently, until it answers",
    inputs=OPTIONS_SCHEMA,
    params=OPTIONS_SCHEMA,
    output={
        "type": "object",
        "properties": {
            "messages": {"type": "array"},
            "data": {"type": "object"},
            "environment": {"type": "object"},
            "text": {"type": ["string", "null"]},
            "finished": {"type": "boolean"},
            "rounds": {"type": "integer", "description": "LLM calls made"},
            "model": {"type": ["string", "null"]},
        },
    },
    samples=(
        Sample(
            inputs={"tools": [_LOOKUP_TOOL], "userInput": {"text": "Eiffel"}},
            params={},
            result={
                "messages": [
                    {"role": "user", "content": "Eiffel"},
                    {"role": "assistant", "content": "", "tool_calls": [
                        {"id": "call_0", "type": "function",
                         "function": {"name": "wikiAgent--lookup", "arguments": '{"term": "Eiffel"}'}},
                    ]},
                    {"role": "tool", "tool_call_id": "call_0", "content": _NO_PAGE,
                     "extra": {"agent": "wikiAgent", "arg": {"term": "Eiffel"}, "func": "lookup"}},
                    {"role": "assistant", "content": _NO_PAGE},
                ],
                "data": {"wikiAgent--lookup": {"content": _NO_PAGE, "data": {}}},
                "environment": {"wikiAgent--lookup": [{}]},
                "text": _NO_PAGE,
                "finished": True,
                "rounds": 2,
                "model": "mock",
            },
            description="with openAIAgent's mock, which calls each tool once and then answers with the result "
                        "(here the wiki's own advice: a lookup needs a page)",
        ),
    ),
    category=("llm",),
    author="Receptron team (GraphAI), graphrt",
    repository="https://github.com/receptron/graphai",
    source="https://github.com/receptron/graphai/blob/main/llm_agents/tools_agent/src/tools_agent.ts",
    package="@graphai/tools_agent",
    license="MIT",
    has_graph_data=True,
    checks_inputs=True,  # checked_options checks them
)

AGENTS: list[AgentInfo] = [tools_agent_info]
