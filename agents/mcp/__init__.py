"""MCP agents: mcpToolsListAgent and mcpToolsCallAgent, with GraphAI's names, inputs and results.

The servers come from the run's config (`graphrt run --mcp-config mcp.json`, or
`config={"mcp": {"mcpServers": ...}}`), not from the graph; see graphrt.mcp. They need
the `mcp` extra (`pip install 'graphrt[mcp]'`), imported only when a node calls them.
toolsAgent grants MCP tools too (agents/llm/tools_agent.py).
"""

from __future__ import annotations

from typing import Any

__all__ = ["AGENTS"]


def __getattr__(name: str) -> Any:
    if name == "AGENTS":  # this package's agents, imported on first use (see graphrt_agents.INDEX)
        from graphrt_agents import agents_under

        return agents_under(__name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
