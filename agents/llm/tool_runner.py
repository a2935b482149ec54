"""Running an LLM's tool calls: the granted tools of a node, and one call after another against them.

toolsAgent and the ReAct graph's act step share it. A call is checked against its tool's schema,
runs the tool's agent as a one-node nested graph (so filters, timeouts and events apply to it as to
any node), or an MCP server's tool through mcpToolsCallAgent, and comes back as the content the
LLM reads next; unknown tools, bad arguments and the tool's own failures become that content, so the
LLM can correct itself. A server that cannot start, dies or hangs (a ServiceError) fails the node instead.
"""

from __future__ import annotations

import logging

import json
from dataclasses import dataclass, field
from typing import Any

from graphrt.base.limits import cut, shown
from graphrt.authoring.agent_info import AgentContext
from graphrt.authoring.tool_calls import split_tool_name, tool_call_inputs
from graphrt.base.errors import (AgentError, BudgetExceeded, GraphError, GraphInterrupted, JournalError, ServiceError,
                                 ToolCallError, caused_by)
from graphrt.base.jsvalue import UNDEFINED, is_null, is_truthy, to_json_compatible
from graphrt.observe.events import ToolCalled, ToolReturned

from .toolbox import Tool, Toolbox

__all__ = ["ToolOutcome", "ToolSession", "granted_toolbox", "run_one_node"]

log = logging.getLogger("graphrt.tools")


@dataclass
class ToolOutcome:
    """What one tool call produced: the tool message's content, and the agent's result when it succeeded."""

    content: str
    result: Any = UNDEFINED
    error: str | None = None


@dataclass
class ToolSession:
    """Tool calls of one node (a toolsAgent call, a ReAct step): granted tools, agent state, what the tools returned.

    `state` is each tool agent's last returned `data`, handed back on its next call (a ReAct graph
    keeps it between its steps); `data` the last result per tool name; `environment` every call's `data`.
    """

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

    async def call(self, call: dict[str, Any], raw_arguments: Any, order: int | None = None) -> ToolOutcome:
        """Checks and runs one tool call; every failure becomes content for the LLM, but the run's own: a service
        that is gone, a question for a person, the journal's (JournalError). `order`: the call's place among calls
        made at once (a toolsAgent turn's), which tells them apart in the run's journal."""
        ctx = self.ctx
        name = str(call.get("name") or "")
        if ctx.meter is not None:  # counted in the run's usage (and checked against its budget) before it runs
            ctx.meter.tool_call(ctx.path, ctx.node_id)
        ctx.emit(ToolCalled, tool_call_id=call["id"], name=name, arguments=raw_arguments)
        try:
            tool, arguments = self.toolbox.check(name, raw_arguments)
            result = await self._run(tool, arguments, call, order)
            outcome = self._record(tool, result)
        except Exception as error:  # noqa: BLE001 - the LLM reads the failure and may retry
            service = _service_failure(error)
            if service is not None:  # not the tool's failure: its server is gone
                raise ServiceError(service.message, service=service.service) from error
            stopped = caused_by(error, BudgetExceeded)
            if stopped is not None:  # a budget stopped the tool's own calls: the node stops, it reads nothing
                raise stopped from None
            stop = _run_stop(error)
            if stop is not None:  # not the tool's failure: the run stops (asks, or its journal cannot go on)
                raise stop from None
            message = _failure(error, name)
            outcome = ToolOutcome(f"Error: {message}", error=message)
        ctx.emit(ToolReturned, tool_call_id=call["id"], name=name, content=outcome.content, error=outcome.error)
        return outcome

    async def _run(self, tool: Tool, arguments: dict[str, Any], call: dict[str, Any], order: int | None) -> Any:
        """Runs the tool's agent as a one-node graph with GraphAI's `{arg, func, tool_call, data}`, journaled as a
        tool call."""
        if tool.mcp:
            results = await run_one_node(self.ctx, "tool", "mcpToolsCallAgent",
                                          {"tools": {"name": tool.name, "arguments": arguments}}, journal="tool",
                                          order=order)
            return _mcp_result(results.get("tool"))
        tool_call = {"id": call["id"], "name": tool.name, "arguments": arguments}
        inputs = tool_call_inputs(tool_call, self.data_for(tool.agent))
        results = await run_one_node(self.ctx, "tool", tool.agent, inputs, journal="tool", order=order)
        return results.get("tool", UNDEFINED)

    def _record(self, tool: Tool, result: Any) -> ToolOutcome:
        """Keeps a successful result (data, environment, agent state); a result with `error` is a failure."""
        if isinstance(result, dict) and is_truthy(result.get("error")):
            return ToolOutcome(_content(result), error=str(result["error"]))
        self.data[tool.name] = result  # GraphAI's: the last result per tool name
        if isinstance(result, dict) and "data" in result and result["data"] is not UNDEFINED:
            self.state[tool.agent] = result["data"]
            self.environment.setdefault(tool.name, []).append(result["data"])
        return ToolOutcome(_content(result), result)


async def run_one_node(ctx: AgentContext, node_id: str, agent: str, inputs: dict[str, Any], *,
                       journal: str | None = None, order: int | None = None, **node: Any) -> dict[str, Any]:
    """Runs `agent` as the one computed node of a nested graph, its inputs as static nodes.

    Running it as a node, not as a call, lets filters, timeouts and events apply to it. With `journal` (a kind:
    "llm", "tool"), the call is journaled as one of that kind, whatever its agent (graphrt/engine/journal.py);
    `order` tells apart calls made at once by the same node (a turn's tool calls), whichever starts first.

    Returns:
        The nested graph's results: `node_id`'s result, when it has one.
    """
    nodes: dict[str, Any] = {key: {"value": value} for key, value in inputs.items()}
    nodes[node_id] = {"agent": agent, "inputs": {key: f":{key}" for key in inputs}, **node, "isResult": True}
    return await ctx.run_graph({"version": 0.5, "nodes": nodes}, journal=journal, map_index=order)


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


def _run_stop(error: BaseException) -> GraphError | None:
    """What stops the run behind a failed tool call, if that is why it failed: a question for a person
    (GraphInterrupted), or the journal's error (JournalError)."""
    return caused_by(error, (GraphInterrupted, JournalError))


def _service_failure(error: BaseException) -> ServiceError | None:
    """The ServiceError behind a failed tool call, if that is why it failed."""
    return caused_by(error, ServiceError)


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
    # An error of graphrt's own kinds wraps what the tool raised; an error class of the tool's own speaks for itself.
    wrapper = isinstance(error, GraphError) and type(error).__module__ == GraphError.__module__
    cause = error.__cause__ if wrapper and isinstance(error.__cause__, Exception) else error
    detail = cause.message if isinstance(cause, GraphError) else str(cause)
    return f"tool '{name}' failed: {type(cause).__name__}: {detail}"


async def granted_toolbox(ctx: AgentContext, spec: list[Any], registry: Any) -> Toolbox:
    """The node's granted tools: registered agents' and schemas as given, MCP servers' from the servers.

    Raises:
        AgentError: an entry names nothing known, or both an agent and an MCP server.
        McpServerError: a granted MCP server cannot start or list its tools.
    """
    servers = _mcp_servers(ctx) if spec else {}
    local, remote = [], []
    for entry in spec:
        function = entry.get("function") if isinstance(entry, dict) else None
        name = entry if isinstance(entry, str) else function.get("name") if isinstance(function, dict) else None
        prefix = split_tool_name(name)[0] if isinstance(name, str) else None
        if prefix in servers and prefix in registry:
            raise AgentError(f"toolsAgent: '{prefix}' names both a registered agent and an MCP server; "
                             f"rename the server in the MCP config", agent_id=ctx.agent_id)
        (remote if prefix in servers else local).append(name if prefix in servers else entry)
    toolbox = Toolbox.from_spec(local, registry)
    if remote:
        listed = await _listed_mcp_tools(ctx, list(dict.fromkeys(split_tool_name(grant)[0] for grant in remote)))
        for grant in remote:
            server, tool = split_tool_name(grant)
            offered = listed[server]
            chosen = [item for item in offered if tool is None or item.name == tool]
            if not chosen:
                known = cut(", ".join(item.name for item in offered) or "none")
                raise AgentError(f"toolsAgent: MCP server '{server}' has no tool {shown(tool)} (its tools: {known})",
                                 agent_id=ctx.agent_id)
            left_out = toolbox.add_mcp_tools(chosen)
            if left_out and tool is not None:  # the one tool granted by name cannot be offered
                raise AgentError(f"toolsAgent: MCP tool {server}--{shown(tool)} cannot be offered to an LLM: "
                                 f"{left_out[0]}", agent_id=ctx.agent_id)
            if left_out:
                log.warning("toolsAgent: %d tool(s) of MCP server '%s' left out: %s", len(left_out), server,
                            cut("; ".join(left_out)))
    return toolbox


async def _listed_mcp_tools(ctx: AgentContext, servers: list[str]) -> dict[str, list[Any]]:
    """Each server's tools (graphrt.mcp.client.McpTool), listed by mcpToolsListAgent as a node of its own: an outside
    call the run journals, so a resumed or replayed run takes the listing from its journal and starts no server."""
    from graphrt.mcp.client import McpTool

    listed: dict[str, list[Any]] = {}
    for server in servers:
        try:
            results = await run_one_node(ctx, "mcp", "mcpToolsListAgent", {}, params={"services": [server]})
        except GraphError as error:
            service = _service_failure(error)
            if service is not None:  # the server cannot start or answer: the node fails with that, as itself
                raise ServiceError(service.message, service=service.service) from error
            raise
        listing = results.get("mcp")
        tools = listing.get("tools") if isinstance(listing, dict) else None
        listed[server] = [McpTool(server, split_tool_name(entry["name"])[1] or "", str(entry.get("description") or ""),
                                  dict(entry.get("inputSchema") or {}))
                          for entry in tools or () if isinstance(entry, dict) and isinstance(entry.get("name"), str)]
    return listed


def _mcp_servers(ctx: AgentContext) -> dict[str, Any]:
    """The run's MCP servers by name; none when the run has no MCP config."""
    if ctx.services is None or not ctx.services.config.get("mcp"):
        return {}
    from graphrt.mcp.client import configured_servers

    return configured_servers(ctx.services)
