"""mcpToolsListAgent and mcpToolsCallAgent (GraphAI's @graphai/mcp_agent)."""

from __future__ import annotations

import json
from typing import Any

from graphrt.authoring.tool_calls import llm_offer
from graphrt.authoring.agent_info import AgentContext, AgentInfo
from graphrt.base.errors import AgentError

__all__ = ["AGENTS", "mcp_tools_list_agent", "mcp_tools_call_agent"]

_ABOUT = {
    "category": ("protocol",),
    "author": "isamu arimoto (GraphAI), graphrt",
    "repository": "https://github.com/receptron/graphai-agents",
    "package": "@graphai/mcp_agent",
    "license": "MIT",
}


def _client() -> Any:
    try:
        from graphrt.mcp import client
    except ImportError as error:  # the `mcp` extra is missing
        raise AgentError("MCP agents need the MCP SDK: pip install 'graphrt[mcp]'") from error
    return client


async def mcp_tools_list_agent(ctx: AgentContext) -> dict[str, Any]:
    """Lists the tools of the run's MCP servers, named `server--tool`.

    Args:
        ctx: params `services`: the servers to list (default: every configured server).
            GraphAI's `mcpClientsKey` is accepted and not needed: the run owns the clients.

    Returns:
        `tools`: `{name, description, inputSchema}` per tool, as GraphAI lists them; `llmTools`:
        the same as OpenAI tool schemas for an LLM agent's `tools` (the input schema as
        `parameters`, which OpenAI reads, where GraphAI passes `inputSchema` on).
    """
    services = ctx.params.get("services") or []
    if isinstance(services, str):
        services = [services]
    tools = await _client().list_tools(ctx, [str(name) for name in services])
    offered, _ = llm_offer([tool.function_schema() for tool in tools])  # what an LLM API takes; `tools`: all of them
    return {"tools": [tool.listing() for tool in tools], "llmTools": offered}


def _call_of(value: Any) -> tuple[str, Any]:
    """`{name, arguments}` (an LLM's tool call, as openAIAgent's `tool` gives it); arguments may be JSON text."""
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        raise AgentError("mcpToolsCallAgent: inputs.tools must be {name: 'server--tool', arguments: {...}}",
                         field="inputs.tools")
    arguments = value.get("arguments") or {}
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError as error:
            raise AgentError(f"mcpToolsCallAgent: the arguments of {value['name']} are not JSON: {error}",
                             field="inputs.tools.arguments") from error
    if not isinstance(arguments, dict):
        raise AgentError(f"mcpToolsCallAgent: the arguments of {value['name']} must be an object",
                         field="inputs.tools.arguments")
    return value["name"], arguments


async def mcp_tools_call_agent(ctx: AgentContext) -> dict[str, Any]:
    """Calls one MCP tool, `server--tool`, with its arguments.

    Args:
        ctx: inputs `tools`: `{name: "server--tool", arguments: {...}}`.

    Returns:
        `response`: the tool's result as MCP spells it (`content`, and `structuredContent` and
        `isError: true` when the server sends them). A result with `isError` does not fail the node.
    """
    name, arguments = _call_of(ctx.inputs.get("tools"))
    return {"response": await _client().call_tool(ctx, name, arguments)}


_TOOL_SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "description": {"type": "string"}, "inputSchema": {"type": "object"}},
}

AGENTS: list[AgentInfo] = [
    AgentInfo(
        name="mcpToolsListAgent",
        func=mcp_tools_list_agent,
        description="Model Context Protocol Tools/List Agent: the tools of the run's MCP servers, named server--tool",
        params={"type": "object", "properties": {
            "services": {"type": "array", "items": {"type": "string"}, "description": "servers to list (default: all)"},
            "mcpClientsKey": {"type": "string", "description": "GraphAI's config key for its clients; not needed"},
        }},
        output={"type": "object", "properties": {
            "tools": {"type": "array", "items": _TOOL_SCHEMA},
            "llmTools": {"type": "array", "items": {"type": "object"}},
        }},
        source="https://github.com/receptron/graphai-agents/blob/main/protocol/mcp-agent/src/mcp_tools_list_agent.ts",
        outside=True,  # asks the servers: journaled, so a replay needs none
        **_ABOUT,
    ),
    AgentInfo(
        name="mcpToolsCallAgent",
        func=mcp_tools_call_agent,
        description="Model Context Protocol Tools/Call Agent: calls server--tool with its arguments",
        inputs={"type": "object", "properties": {"tools": {"type": "object", "properties": {
            "name": {"type": "string", "description": "server--tool"},
            "arguments": {"anyOf": [{"type": "object"}, {"type": "string"}]},
        }, "required": ["name"]}}, "required": ["tools"]},
        output={"type": "object", "properties": {"response": {"type": "object", "properties": {
            "content": {"type": "array"}, "structuredContent": {}, "isError": {"type": "boolean"},
        }}}},
        source="https://github.com/receptron/graphai-agents/blob/main/protocol/mcp-agent/src/mcp_tools_call_agent.ts",
        # MCP's defaults for a tool that says nothing of itself (its annotations, which are hints graphrt does not
        # trust): it may change the world, and calling it twice may do so twice. Each call is journaled and carries
        # its idempotency key in `_meta`.
        outside=True,
        side_effects=True,
        **_ABOUT,
    ),
]
