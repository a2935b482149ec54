"""The tools one toolsAgent node grants its LLM, and the checks a tool call passes before it runs.

Tools are OpenAI function schemas named `agentName--func` (GraphAI's naming; a
schema named just `agentName` is an agent that is one function), or agent names
whose schemas come from their function info (`AgentInfo.tools`), which the LLM
then sees as `agentName--func` (`agentName--func` alone grants that one function), or MCP servers' tools (`server--tool`, or a server's
name for all its tools), whose schemas are the servers' own (see `add_mcp_tools`). A call is checked
against the granted schemas, as `graphrt.authoring.tool_calls` defines: unknown names,
arguments that are not a JSON object, and arguments that break the schema raise
`ToolCallError`, whose text goes back to the LLM so that it can correct itself.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable

from graphrt.authoring.agent_info import AgentLookup
from graphrt.authoring.tool_calls import (
    MAX_LLM_TOOLS,
    llm_offer,
    SEPARATOR,
    check_arguments,
    read_arguments,
    split_tool_name,
)
from graphrt.base.errors import AgentError, ToolCallError

__all__ = ["Tool", "Toolbox"]


@dataclass(frozen=True)
class Tool:
    """One granted function: its full name, the agent that runs it (and the function in it), its schema."""

    name: str
    agent: str
    func: str | None
    schema: dict[str, Any]
    mcp: bool = False  # an MCP server's tool: `agent` is the server, `func` the server's name for the tool

    @property
    def parameters(self) -> dict[str, Any]:
        return self.schema.get("function", {}).get("parameters") or {"type": "object", "properties": {}}


def _named(schema: dict[str, Any], agent: str) -> dict[str, Any]:
    """`schema` named `agent--func`, as GraphAI names every tool (a one-function agent's `add` is `add--add`)."""
    function = dict(schema.get("function") or {})
    name = str(function.get("name", ""))
    if SEPARATOR not in name:
        function["name"] = f"{agent}{SEPARATOR}{name}"
    return {**schema, "type": schema.get("type", "function"), "function": function}


class Toolbox:
    """The tools granted to one node, by full name."""

    def __init__(self, tools: dict[str, Tool]) -> None:
        self.tools = tools

    @classmethod
    def from_spec(cls, spec: Iterable[Any], registry: AgentLookup) -> "Toolbox":
        """Builds the toolbox from a node's `tools` input.

        Raises:
            AgentError: an entry is neither a tool schema nor a registered agent with tools.
        """
        tools: dict[str, Tool] = {}
        for entry in spec:
            for schema in cls._schemas(entry, registry):
                name = schema["function"]["name"]
                agent, func = split_tool_name(name)
                tools[name] = Tool(name, agent, func, schema)
        return cls(tools)

    @staticmethod
    def _schemas(entry: Any, registry: AgentLookup) -> list[dict[str, Any]]:
        if isinstance(entry, str):
            agent, func = split_tool_name(entry)
            info = registry.get(agent)
            if info is None:
                known = ", ".join(info.name for info in registry if info.tools) or "none"
                raise AgentError(f"toolsAgent: unknown tool agent '{agent}' (agents with tools: {known})",
                                 agent_id="toolsAgent")
            if not info.tools:
                raise AgentError(f"toolsAgent: agent '{agent}' declares no tools in its function info",
                                 agent_id="toolsAgent")
            schemas = [_named(schema, agent) for schema in info.tools]
            if func is None:
                return schemas
            chosen = [schema for schema in schemas if schema["function"]["name"] == entry]
            if not chosen:
                offered = ", ".join(schema["function"]["name"] for schema in schemas)
                raise AgentError(f"toolsAgent: agent '{agent}' has no function '{func}' (its tools: {offered})",
                                 agent_id="toolsAgent")
            return chosen
        function = entry.get("function") if isinstance(entry, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(name, str) or not name:
            raise AgentError(f"toolsAgent: a tool must be an agent name or a function schema named "
                             f"'agentName--func', got {json.dumps(entry, default=str)[:120]}", agent_id="toolsAgent")
        return [_named(entry, split_tool_name(name)[0])]

    def add_mcp_tools(self, tools: Iterable[Any]) -> list[str]:
        """Grants MCP tools (graphrt.mcp.client.McpTool), each with its server's own input schema; returns those
        left out: a name no LLM API takes (`../../etc/passwd`, a NUL, 10,000 characters), past MAX_LLM_TOOLS."""
        tools = list(tools)
        offered, left_out = llm_offer([tool.function_schema() for tool in tools])
        room = MAX_LLM_TOOLS - len(self.tools)
        by_name = {tool.full_name: tool for tool in tools}
        for schema in offered[:max(0, room)]:
            tool = by_name[schema["function"]["name"]]
            self.tools[tool.full_name] = Tool(tool.full_name, tool.server, tool.name, schema, mcp=True)
        return left_out + [f"{schema['function']['name']!r}: over {MAX_LLM_TOOLS} tools" for schema in offered[max(0, room):]]

    def schemas(self) -> list[dict[str, Any]]:
        """The schemas to send to the LLM."""
        return [tool.schema for tool in self.tools.values()]

    def check(self, name: str, raw_arguments: Any) -> tuple[Tool, dict[str, Any]]:
        """The granted tool and its parsed, schema-checked arguments.

        Raises:
            ToolCallError: unknown tool, arguments that are not a JSON object, or a schema violation.
        """
        tool = self.tools.get(name)
        if tool is None:
            granted = ", ".join(self.tools) or "none"
            raise ToolCallError(f"unknown tool '{name}'; the tools you can call are: {granted}")
        arguments = read_arguments(raw_arguments, name)
        check_arguments(tool.parameters, arguments, name)
        return tool, arguments
