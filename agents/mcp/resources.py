"""mcpResourcesAgent and mcpResourceAgent (GraphAI's @graphai/mcp_agent): MCP servers' resources, listed and read.

The servers are the run's (graphrt.mcp.client), as for the tool agents; GraphAI's
`mcpClientsKey` is accepted and not needed. GraphAI's agents have no working samples
(they need a server), and neither do these; tests/mcp runs them against a real server.
"""

from __future__ import annotations

from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo
from graphrt.base.errors import AgentError
from graphrt.base.jsvalue import UNDEFINED, is_null, is_truthy

from .agents import _ABOUT, _client

__all__ = ["AGENTS", "mcp_resources_agent", "mcp_resource_agent"]

_NO_SERVERS = ("no MCP servers are configured for this run (GraphAI: no mcpClients); give servers with --mcp-config "
               "or config={'mcp': {'mcpServers': ...}}")


def _some_servers(ctx: AgentContext, agent: str) -> Any:
    client = _client()
    if not client.configured_servers(ctx.services):
        raise AgentError(f"{agent}: {_NO_SERVERS}")
    return client


async def mcp_resources_agent(ctx: AgentContext) -> dict[str, Any]:
    """Lists the resources of every MCP server of the run: `{resources: {server: [{uri, name, mimeType, ...}]}}`.

    A server without resources (no `resources` capability) is left out, as GraphAI leaves out a server whose
    resources/list fails; any other failure fails the node (GraphAI prints it and leaves the server out).

    Raises:
        AgentError: the run has no MCP servers (GraphAI's "no mcpClients").
        McpServerError: a server could not start, or died or hung while listing.
    """
    client = _some_servers(ctx, "mcpResourcesAgent")
    return {"resources": await client.list_resources(ctx)}


def _either(ctx: AgentContext, key: str) -> Any:
    """`namedInputs[key] ?? params[key]`."""
    value = ctx.inputs.get(key, UNDEFINED)
    return ctx.params.get(key, UNDEFINED) if is_null(value) else value


async def mcp_resource_agent(ctx: AgentContext) -> dict[str, Any]:
    """Reads one resource: inputs (or params) `serviceName` and `params: {uri}`; returns `{content: {contents}}`,
    the server's ReadResourceResult as MCP spells it.

    Raises:
        AgentError: no MCP servers, no `params` or no `serviceName` (GraphAI's assertions), or `params` without a URI.
        McpToolError: the server has no resources, or refused the read (an unknown URI).
        McpServerError: the server could not start, or died or hung during the read.
    """
    client = _some_servers(ctx, "mcpResourceAgent")
    params = _either(ctx, "params")
    service = _either(ctx, "serviceName")
    if not is_truthy(params):
        raise AgentError("mcpResourceAgent: no params", field="inputs.params")
    if not is_truthy(service):
        raise AgentError("mcpResourceAgent: no serviceName", field="inputs.serviceName")
    if not isinstance(params, dict) or not isinstance(params.get("uri"), str) or not params["uri"]:
        raise AgentError("mcpResourceAgent: params must be resources/read's params, {uri: 'the resource URI'}",
                         field="inputs.params")
    return {"content": await client.read_resource(ctx, str(service), params["uri"])}


_RESOURCE = {"type": "object", "properties": {
    "uri": {"type": "string"}, "name": {"type": "string"}, "description": {"type": "string"},
    "mimeType": {"type": "string"},
}}

AGENTS: list[AgentInfo] = [
    AgentInfo(
        name="mcpResourcesAgent",
        func=mcp_resources_agent,
        description="Model Context Protocol Resources Agent: the resources of the run's MCP servers, by server",
        params={"type": "object", "properties": {
            "mcpClientsKey": {"type": "string", "description": "GraphAI's config key for its clients; not needed"},
        }},
        output={"type": "object", "properties": {"resources": {
            "type": "object", "additionalProperties": {"type": "array", "items": _RESOURCE},
            "description": "each server's resources, by server name"}}},
        source="https://github.com/receptron/graphai-agents/tree/main/protocol/mcp-agent/src/mcp_resources_agent.ts",
        **_ABOUT,
    ),
    AgentInfo(
        name="mcpResourceAgent",
        func=mcp_resource_agent,
        description="Model Context Protocol Resource Agent: reads one resource of one of the run's MCP servers",
        inputs={"type": "object", "properties": {
            "serviceName": {"type": "string", "description": "the server (as named in the run's MCP config)"},
            "params": {"type": "object", "properties": {"uri": {"type": "string"}}, "required": ["uri"],
                       "description": "resources/read's params: {uri}"},
        }},
        params={"type": "object", "properties": {
            "serviceName": {"type": "string", "description": "the server, when inputs do not say it"},
            "params": {"type": "object", "description": "resources/read's params, when inputs do not give them"},
            "mcpClientsKey": {"type": "string", "description": "GraphAI's config key for its clients; not needed"},
        }},
        output={"type": "object", "properties": {"content": {"type": "object", "properties": {"contents": {
            "type": "array", "items": {"type": "object", "properties": {
                "uri": {"type": "string"}, "mimeType": {"type": "string"}, "text": {"type": "string"},
                "blob": {"type": "string", "description": "base64"}}}}}}}},
        source="https://github.com/receptron/graphai-agents/tree/main/protocol/mcp-agent/src/mcp_resource_agent.ts",
        **_ABOUT,
    ),
]
