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

import json
from dataclasses import dataclass, field
from typing import Any

import anyio

from graphrt.authoring.plugins import default_registry
from graphrt.authoring.functions import inputs_error
from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.authoring.tool_calls import split_tool_name, tool_call_inputs
from graphrt.base.errors import GraphError, ServiceError, ToolCallError
from graphrt.base.jsvalue import UNDEFINED, defined, is_null, is_truthy, to_json_compatible
from graphrt.base.schema import violations
from graphrt.observe.events import ToolCalled, ToolReturned

from .toolbox import Tool, Toolbox

__all__ = ["AGENTS", "tools_agent"]

_DEFAULT_MAX_ROUNDS = 8

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
        "maxRounds": {"type": ["integer", "null"], "minimum": 1, "description": f"LLM calls at most (default {_DEFAULT_MAX_ROUNDS})"},
        "tool_choice": {"type": ["string", "object", "array", "null"],
                        "description": "the first round's tool_choice; an array gives each round's in turn (a tool "
                                       "name stands for that function), and rounds after it choose freely"},
        "llmModel": {"type": ["string", "null"]},
        "stream": {"type": ["boolean", "null"]},
        "llmParams": {"type": ["object", "null"], "description": "params of the LLM node"},
    },
}
"""What toolsAgent reads, from its inputs or its params (inputs win): checked before the first LLM call."""


@dataclass
class _Outcome:
    """What one tool call produced: the tool message's content, and the agent's result when it succeeded."""

    content: str
    result: Any = UNDEFINED
    error: str | None = None


@dataclass
class _Session:
    """The state of one toolsAgent call: granted tools, agent state, what the tools returned."""

    ctx: AgentContext
    toolbox: Toolbox
    passthrough: dict[str, Any]
    state: dict[str, Any] = field(default_factory=dict)
    data: dict[str, Any] = field(default_factory=dict)
    environment: dict[str, list[Any]] = field(default_factory=dict)

    def data_for(self, agent: str) -> Any:
        """The `data` a tool agent receives: its own last returned data, else `passthrough[agent]`."""
        if agent in self.state:
            return self.state[agent]
        value = self.passthrough.get(agent)
        return value if not is_null(value) else {}

    async def call(self, call: dict[str, Any], raw_arguments: Any) -> _Outcome:
        """Checks and runs one tool call; every failure becomes content for the LLM."""
        ctx = self.ctx
        name = str(call.get("name") or "")
        ctx.emit(ToolCalled, tool_call_id=call["id"], name=name, arguments=raw_arguments)
        try:
            tool, arguments = self.toolbox.check(name, raw_arguments)
            result = await self._run(tool, arguments, call)
            outcome = self._record(tool, result)
        except Exception as error:  # noqa: BLE001 - the LLM reads the failure and may retry
            service = _service_failure(error)
            if service is not None:  # not the tool's failure: its server is gone
                raise ServiceError(service.message, service=service.service) from error
            message = _failure(error, name)
            outcome = _Outcome(f"Error: {message}", error=message)
        ctx.emit(ToolReturned, tool_call_id=call["id"], name=name, content=outcome.content, error=outcome.error)
        return outcome

    async def _run(self, tool: Tool, arguments: dict[str, Any], call: dict[str, Any]) -> Any:
        """Runs the tool's agent as a one-node graph with GraphAI's `{arg, func, tool_call, data}`."""
        if tool.mcp:
            results = await _run_one_node(self.ctx, "tool", "mcpToolsCallAgent",
                                          {"tools": {"name": tool.name, "arguments": arguments}})
            return _mcp_result(results.get("tool"))
        tool_call = {"id": call["id"], "name": tool.name, "arguments": arguments}
        inputs = tool_call_inputs(tool_call, self.data_for(tool.agent))
        results = await _run_one_node(self.ctx, "tool", tool.agent, inputs)
        return results.get("tool", UNDEFINED)

    def _record(self, tool: Tool, result: Any) -> _Outcome:
        """Keeps a successful result (data, environment, agent state); a result with `error` is a failure."""
        if isinstance(result, dict) and is_truthy(result.get("error")):
            return _Outcome(_content(result), error=str(result["error"]))
        self.data[tool.name] = result  # GraphAI's: the last result per tool name
        if isinstance(result, dict) and "data" in result and result["data"] is not UNDEFINED:
            self.state[tool.agent] = result["data"]
            self.environment.setdefault(tool.name, []).append(result["data"])
        return _Outcome(_content(result), result)


async def _run_one_node(ctx: AgentContext, node_id: str, agent: str, inputs: dict[str, Any], **node: Any) -> dict[str, Any]:
    """Runs `agent` as the one computed node of a nested graph, its inputs as static nodes.

    Running it as a node, not as a call, lets filters, timeouts and events apply to it.

    Returns:
        The nested graph's results: `node_id`'s result, when it has one.
    """
    nodes: dict[str, Any] = {key: {"value": value} for key, value in inputs.items()}
    nodes[node_id] = {"agent": agent, "inputs": {key: f":{key}" for key in inputs}, **node, "isResult": True}
    return await ctx.run_graph({"version": 0.5, "nodes": nodes})


def _mcp_result(result: Any) -> dict[str, Any]:
    """mcpToolsCallAgent's `{response}` as a tool result: the text of its content; `isError` makes it a failure."""
    response = result.get("response") if isinstance(result, dict) else None
    response = response if isinstance(response, dict) else {}
    parts = []
    for block in response.get("content") or []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        elif block.get("type") == "resource" and isinstance(block.get("resource"), dict) and "text" in block["resource"]:
            parts.append(str(block["resource"]["text"]))
        else:
            summary = {key: value for key, value in block.items() if key not in ("data", "blob")}
            parts.append(json.dumps(summary, ensure_ascii=False, default=str))
    if not parts and "structuredContent" in response:
        parts.append(json.dumps(response["structuredContent"], ensure_ascii=False, default=str))
    content = "\n".join(parts)
    outcome: dict[str, Any] = {"content": content, "response": response}
    if response.get("isError"):
        outcome["error"] = content or "the tool reported an error"
    return outcome


def _service_failure(error: BaseException) -> ServiceError | None:
    """The ServiceError behind a failed tool call, if that is why it failed."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, ServiceError):
            return seen
        seen = seen.__cause__
    return None


def _content(result: Any) -> str:
    """The text a tool result gives the LLM: its `content`, else the result as JSON."""
    content = result.get("content", UNDEFINED) if isinstance(result, dict) else result
    if isinstance(content, str):
        return content
    if content is UNDEFINED:
        content = result
    return json.dumps(to_json_compatible(content), ensure_ascii=False, default=str)


def _failure(error: Exception, name: str) -> str:
    """What the LLM is told about a failed call: a ToolCallError's own text, else what the tool raised."""
    seen: Exception | None = error
    while seen is not None:
        if isinstance(seen, ToolCallError):
            return seen.message
        seen = seen.__cause__ if isinstance(seen.__cause__, Exception) else None
    cause = error.__cause__ if isinstance(error, GraphError) and isinstance(error.__cause__, Exception) else error
    detail = cause.message if isinstance(cause, GraphError) else str(cause)
    return f"tool '{name}' failed: {type(cause).__name__}: {detail}"


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


def _tool_message(call: dict[str, Any], outcome: _Outcome, tool_name: str) -> dict[str, Any]:
    agent, func = split_tool_name(tool_name)
    arguments = call.get("arguments")
    return {
        "role": "tool",
        "tool_call_id": call["id"],
        "content": outcome.content,
        "extra": {"agent": agent, "arg": arguments if arguments is not UNDEFINED else None, "func": func},
    }


async def _toolbox(ctx: AgentContext, spec: list[Any], registry: Any) -> Toolbox:
    """The node's granted tools: registered agents' and schemas as given, MCP servers' from the servers.

    Raises:
        ValueError: an entry names nothing known, or both an agent and an MCP server.
        McpServerError: a granted MCP server cannot start or list its tools.
    """
    servers = _mcp_servers(ctx) if spec else {}
    local, remote = [], []
    for entry in spec:
        function = entry.get("function") if isinstance(entry, dict) else None
        name = entry if isinstance(entry, str) else function.get("name") if isinstance(function, dict) else None
        prefix = split_tool_name(name)[0] if isinstance(name, str) else None
        if prefix in servers and prefix in registry:
            raise ValueError(f"toolsAgent: '{prefix}' names both a registered agent and an MCP server; "
                             f"rename the server in the MCP config")
        (remote if prefix in servers else local).append(name if prefix in servers else entry)
    toolbox = Toolbox.from_spec(local, registry)
    if remote:
        from graphrt.mcp.client import server_connection

        for grant in remote:
            server, tool = split_tool_name(grant)
            offered = await (await server_connection(ctx, server)).tools()
            chosen = [item for item in offered if tool is None or item.name == tool]
            if not chosen:
                known = ", ".join(item.name for item in offered) or "none"
                raise ValueError(f"toolsAgent: MCP server '{server}' has no tool '{tool}' (its tools: {known})")
            toolbox.add_mcp_tools(chosen)
    return toolbox


def _mcp_servers(ctx: AgentContext) -> dict[str, Any]:
    """The run's MCP servers by name; none when the run has no MCP config."""
    if ctx.services is None or not ctx.services.config.get("mcp"):
        return {}
    from graphrt.mcp.client import configured_servers

    return configured_servers(ctx.services)


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
    results = await _run_one_node(ctx, "llm", llm_agent, values, params=params)
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
    toolbox = await _toolbox(ctx, list(options.get("tools") or []), registry)
    passthrough = options.get("passthrough") if isinstance(options.get("passthrough"), dict) else {}
    session = _Session(ctx, toolbox, passthrough)
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

    text, finished, model = None, False, None
    for round_index in range(max_rounds):
        tool_choice = _round_choice(options.get("tool_choice"), round_index)
        reply = await _ask(ctx, llm_agent, prefix + history, toolbox.schemas(), options, tool_choice)
        calls = _tool_calls(reply, round_index)
        model = reply.get("model", model)
        if isinstance(reply.get("message"), dict):
            history.append(reply["message"])
        if not calls:
            text, finished = reply.get("text"), True
            break
        outcomes: list[_Outcome | None] = [None] * len(calls)
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
        "model": model,
    }


_FINISH_TOOL = {"type": "function", "function": {"name": "wikiAgent--finish", "description": "Finishes the task with the final answer.", "parameters": {"type": "object", "properties": {"answer": {"type": "string", "description": "the answer to the question"}}, "required": ["answer"]}}}

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
            "model": {"type": ["string", "null"]},
        },
    },
    samples=(
        Sample(
            inputs={"tools": [_FINISH_TOOL], "userInput": {"text": "Gustave Eiffel"}},
            params={},
            result={
                "messages": [
                    {"role": "user", "content": "Gustave Eiffel"},
                    {"role": "assistant", "content": "", "tool_calls": [
                        {"id": "call_0", "type": "function",
                         "function": {"name": "wikiAgent--finish", "arguments": '{"answer": "Gustave Eiffel"}'}},
                    ]},
                    {"role": "tool", "tool_call_id": "call_0", "content": "Gustave Eiffel",
                     "extra": {"agent": "wikiAgent", "arg": {"answer": "Gustave Eiffel"}, "func": "finish"}},
                    {"role": "assistant", "content": "Gustave Eiffel"},
                ],
                "data": {"wikiAgent--finish": {"content": "Gustave Eiffel", "data": {"answer": "Gustave Eiffel"}}},
                "environment": {"wikiAgent--finish": [{"answer": "Gustave Eiffel"}]},
                "text": "Gustave Eiffel",
                "finished": True,
                "model": "mock",
            },
            description="with openAIAgent's mock, which calls each tool once and then answers with the result",
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
