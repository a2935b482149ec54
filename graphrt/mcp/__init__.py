"""MCP both ways (needs the `mcp` extra: pip install 'graphrt[mcp]').

- Client: MCP servers' tools in graphs. A run's servers come from its config, in the
  `mcpServers` shape (config.py); they start on first use and are shared by the whole run
  (client.py). mcpToolsListAgent, mcpToolsCallAgent and toolsAgent use them. A server that died
  or failed to start is started again by the next call, with backoff (supervision.py).
- Server: graphs as MCP tools, over stdio (`graphrt mcp`) or streamable HTTP (server.py),
  each graph's injectable inputs as the tool's input schema (graph_tools.py).
"""
