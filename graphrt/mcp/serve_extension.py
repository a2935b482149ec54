"""The MCP endpoint of `graphrt serve`: the served graphs as MCP tools, over streamable HTTP at /mcp.

An `Extension` of graphrt.serve: its route sits behind the server's own guard (API key,
body size), and its lifespan runs the SDK's session manager while the server runs. The MCP
servers of `--mcp-config` start once for the process: graphs called as MCP tools and runs
started through the HTTP API share them (the catalog hands them to every run it builds).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import mcp.server  # noqa: F401 - the SDK, imported here: without it this module is an ImportError, and serve goes on
                   # without /mcp (GraphToolServer imports it only when built, past serve's guard)

from graphrt.mcp.graph_tools import graph_tool
from graphrt.mcp.server import GraphToolServer

__all__ = ["McpExtension"]


class McpExtension:
    """Serves a GraphCatalog's graphs (those that load) as MCP tools at /mcp."""

    def __init__(self, catalog: Any, *, mcp_config: Any = None, host: str = "127.0.0.1", path: str = "/mcp") -> None:
        self.catalog = catalog
        tools = [graph_tool(served.path, name.replace("/", "."))
                 for name, served in sorted(catalog.graphs.items()) if served.error is None]
        self.server = GraphToolServer(tools, mcp_config=mcp_config, agents=catalog.registry)
        self.endpoint = self.server.http_endpoint(host=host)
        self.path = path

    def routes(self, service: Any) -> Sequence[Any]:
        from starlette.routing import Route

        return [Route(self.path, endpoint=self.endpoint.app)]

    @asynccontextmanager
    async def lifespan(self, service: Any) -> AsyncIterator[None]:
        async with self.endpoint.lifespan():
            self.catalog.services = self.server.services  # runs started through the API share the MCP servers
            try:
                yield
            finally:
                self.catalog.services = None
