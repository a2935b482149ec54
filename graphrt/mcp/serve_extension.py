"""The MCP endpoint of `graphrt serve`: the served graphs as MCP tools, over streamable HTTP at /mcp.

An `Extension` of graphrt.serve: its route sits behind the server's own guard (API key,
body size), and its lifespan runs the SDK's session manager while the server runs. A tool
call is a run of the server's RunService like one started with POST /graphs/{name}/runs:
it waits in the same queue under the same limits (a full queue is a tool error saying so),
is saved as it goes, and shows in GET /runs and the viewer. The tools follow the served
folder as the catalog does (graphs that do not load are not offered). The MCP servers of
`--mcp-config` start once for the process: graphs called as MCP tools and runs started
through the HTTP API share them (the catalog hands them to every run it builds).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp.server  # noqa: F401 - the SDK, imported here: without it this module is an ImportError, and serve goes on
                   # without /mcp (GraphToolServer imports it only when built, past serve's guard)

from graphrt.base.defaults import HOST
from graphrt.base.errors import GraphError, RequestError
from graphrt.base.states import RunStatus
from graphrt.mcp.graph_tools import GraphTool, graph_tool
from graphrt.mcp.server import GraphToolServer
from graphrt.observe.events import Event

__all__ = ["McpExtension"]


def tool_name(graph_name: str) -> str:
    """A served graph's tool name: `team/review` is `team.review` (MCP tool names have no slash)."""
    return graph_name.replace("/", ".")


class McpExtension:
    """Serves a GraphCatalog's graphs (those that load) as MCP tools at /mcp, each call a run of the RunService."""

    def __init__(self, catalog: Any, *, mcp_config: Any = None, host: str = HOST, path: str = "/mcp") -> None:
        self.catalog = catalog
        self.service: Any = None  # the RunService, while the server runs
        self._graph_of: dict[str, str] = {}  # tool name -> graph name
        self._made: dict[tuple[str, str], GraphTool] = {}  # (graph name, digest) -> its tool, made once per version
        self.server = GraphToolServer(self._tools, mcp_config=mcp_config, agents=catalog.registry, runner=self._run)
        self.endpoint = self.server.http_endpoint(host=host)
        self.path = path

    def _tools(self) -> list[GraphTool]:
        """A tool per graph the folder holds now that loads."""
        self.catalog.refresh()
        tools, made = [], {}
        for name, served in sorted(self.catalog.graphs.items()):
            if served.error is not None:
                continue
            key = (name, served.digest)
            try:
                tool = self._made.get(key) or graph_tool(served.path, tool_name(name))
            except GraphError:
                continue  # changed into a broken file since the catalog read it
            made[key] = tool
            tools.append(tool)
        self._made = made
        self._graph_of = {tool_name(name): name for name, _ in made}
        return tools

    async def _run(self, tool: GraphTool, arguments: dict[str, Any], on_event: Callable[[Event], Any]
                   ) -> dict[str, Any]:
        """Runs the tool's graph as a run of the service, and waits for it (cancelled with the call)."""
        if self.service is None:
            raise GraphError("the server is not serving")
        name = self._graph_of.get(tool.name, tool.name)
        try:
            run = await self.service.submit(name, arguments)
        except RequestError as refused:  # a full queue (429), a graph gone since the listing (404)
            raise GraphError(f"the server refused the run: {refused}") from None
        run.watch(on_event)  # its progress, while this server runs it (not one the store's queue gives another)
        try:
            run = await self.service.settled(run)
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True):
                if run.status not in RunStatus.ENDED:
                    await self.service.cancel(run.id)
            raise
        if run.status == RunStatus.FINISHED:
            return run.results or {}
        if run.status == RunStatus.INTERRUPTED:
            raise GraphError(f"run {run.id} asks {run.question!r}: answer it with POST /runs/{run.id}/resume")
        raise GraphError(f"run {run.id} {run.status}" + (f": {run.error}" if run.error else ""))

    def routes(self, service: Any) -> Sequence[Any]:
        from starlette.routing import Route

        return [Route(self.path, endpoint=self.endpoint.app)]

    @asynccontextmanager
    async def lifespan(self, service: Any) -> AsyncIterator[None]:
        async with self.endpoint.lifespan():
            self.catalog.services = self.server.services  # runs started through the API share the MCP servers
            self.service = service
            try:
                yield
            finally:
                self.service = None
                self.catalog.services = None
