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
with the server's own input schemas, and each call goes through mcpToolsCallAgent. A tool's
error comes back to the LLM as any tool's does; a server that cannot start, dies or hangs
(a ServiceError) fails the node instead.
"""

from __future__ import annotations

from typing import Any

import anyio

from graphrt.authoring.plugins import default_registry
from graphrt.authoring.functions import inputs_error
from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.authoring.tool_calls import split_tool_name
from graphrt.base.errors import ServiceError
from graphrt.base.jsvalue import UNDEFINED, defined, is_null, is_truthy
from graphrt.base.schema import violations

from .tool_runner import ToolOutcome, ToolSession, granted_toolbox, run_one_node

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


def _tool_calls(reply: dict[str, Any], round_index: int) -> list[tuple[dict[str, Any], Any]]:
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


def _tool_message(call: dict[str, Any], outcome: ToolOutcome, tool_name: str) -> dict[str, Any]:
    agent, func = split_tool_name(tool_name)
    arguments = call.get("arguments")
    return {
        "role": "tool",
        "tool_call_id": call["id"],
        "content": outcome.content,
        "extra": {"agent": agent, "arg": arguments if arguments is not UNDEFINED else None, "func": func},
    }


async def _ask(ctx: AgentContext, llm_agent: str, conversation: list[Any], tools: list[Any], options: dict[str, Any],
               tool_choice: Any) -> dict[str, Any]:
    """One LLM call, as a one-node nested graph."""
    params = dict(options.get("llmParams") or {})
    if is_truthy(options.get("llmModel")):
        params["model"] = options["llmModel"]
    if "stream" in options:
        params["stream"] = options["stream"]
    values = {"messages": conversation, "tools": tools}
    if not is_null(tool_choice):
        values["tool_choice"] = tool_choice
    results = await run_one_node(ctx, "llm", llm_agent, values, params=params)
    reply = results.get("llm")
    if not isinstance(reply, dict):
        raise TypeError(f"toolsAgent: {llm_agent} returned {type(reply).__name__}, not a chat result")
    return reply


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


def _options(ctx: AgentContext) -> dict[str, Any]:
    """Params and inputs merged (inputs win), checked against OPTIONS_SCHEMA.

    Raises:
        AgentError: naming the field (`inputs.maxRounds` or `params.maxRounds`) of every violation.
    """
    inputs = defined(ctx.inputs)
    options = {**ctx.params, **inputs}
    found = violations(OPTIONS_SCHEMA, options)
    if found:
        raise inputs_error(found, ctx.agent_id, from_params=set(ctx.params) - set(inputs))
    return options


def _messages(messages: Any) -> list[Any]:
    """The history the conversation starts from: a string is one user message, not one message per character."""
    if isinstance(messages, str):
        return [{"role": "user", "content": messages}]
    return list(messages or [])


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
    options = _options(ctx)
    registry = ctx.nesting.registry if ctx.nesting is not None else default_registry()
    toolbox = await granted_toolbox(ctx, list(options.get("tools") or []), registry)
    passthrough = options.get("passthrough") if isinstance(options.get("passthrough"), dict) else {}
    session = ToolSession(ctx, toolbox, passthrough)
    llm_agent = str(options.get("llmAgent") or "openAIAgent")
    max_rounds = int(options.get("maxRounds") or _DEFAULT_MAX_ROUNDS)

    history = _messages(options.get("messages"))
    user_input = options.get("userInput") if isinstance(options.get("userInput"), dict) else {}
    if isinstance(user_input.get("message"), dict):
        history.append(user_input["message"])
    elif is_truthy(user_input.get("text")):
        history.append({"role": "user", "content": user_input["text"]})
    system = options.get("system")
    prefix = [{"role": "system", "content": system}] if is_truthy(system) else []

    text, finished, model, rounds = None, False, None, 0
    for round_index in range(max_rounds):
        rounds = round_index + 1
        tool_choice = _round_choice(options.get("tool_choice"), round_index)
        reply = await _ask(ctx, llm_agent, prefix + history, toolbox.schemas(), options, tool_choice)
        calls = _tool_calls(reply, round_index)
        model = reply.get("model", model)
        if isinstance(reply.get("message"), dict):
            history.append(reply["message"])
        if not calls:
            text, finished = reply.get("text"), True
            break
        outcomes: list[ToolOutcome | None] = [None] * len(calls)
        broken: list[ServiceError] = []

        async def run(index: int, call: dict[str, Any], raw: Any) -> None:
            try:
                outcomes[index] = await session.call(call, raw)
            except ServiceError as error:
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
    checks_inputs=True,  # _options checks them
)

AGENTS: list[AgentInfo] = [tools_agent_info]
