"""MCP agents: mcpToolsListAgent and mcpToolsCallAgent, with GraphAI's names, inputs and results.

The servers come from the run's config (`graphrt run --mcp-config mcp.json`, or
`config={"mcp": {"mcpServers": ...}}`), not from the graph; see graphrt.mcp. They need
the `mcp` extra (`pip install 'graphrt[mcp]'`), imported only when a node calls them.
toolsAgent grants MCP tools too (agents/llm/tools_agent.py).
"""

from __future__ import annotations

from .agents import AGENTS

__all__ = ["AGENTS"]
