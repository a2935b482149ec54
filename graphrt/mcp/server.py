"""Graphs served as MCP tools, over stdio or streamable HTTP.

`GraphToolServer` is the core: it lists the graph tools (graph_tools.py) and runs one per
`tools/call`, turning the run's events into MCP progress notifications (a node completed,
an agent's own progress) when the client asked for progress. A failed run or bad arguments
come back as a tool result with `isError`, naming the node. Graphs that use MCP servers
themselves share one set of connections for the server's whole life (`mcp_config`).

What a client reads passes the one redaction policy (graphrt.base.secrets): a tool's
errors and results, as graphrt serve's answers do (the listing leaves secrets out where
it is made, graphrt.graphdata.inputs). Arguments are checked against base/limits before
the graph sees them, and an error quotes at most a few hundred characters of a value.

- `serve_stdio()`: for MCP clients that start a command (`graphrt mcp DIR_OR_FILES`).
- `http_endpoint()`: an ASGI app and the lifespan it needs, to mount in a Starlette app
  (`graphrt serve` mounts it at /mcp); `http_app()` is it as a whole app for
  `graphrt mcp --http`, behind graphrt serve's guards (Host and Origin, the key when one is given, the body
  limit).
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, AsyncIterator, Awaitable, Callable

import anyio

from graphrt.authoring.services import RunServices
from graphrt.base.errors import GraphError, InputLimitError
from graphrt.base.jsvalue import to_json_compatible
from graphrt.base.defaults import HOST
from graphrt.base.limits import MAX_BODY, check_value, cut, shown
from graphrt.base.secrets import Redactor
from graphrt.mcp.graph_tools import GraphTool, result_text
from graphrt.observe.events import AgentProgress, Event, NodeCompleted

__all__ = ["GraphToolServer", "HttpEndpoint", "ToolRunner"]

_PROGRESS_BUFFER = 256  # progress notifications waiting to be sent; more are dropped, never block the run


ToolRunner = Callable[[GraphTool, dict[str, Any], Callable[[Event], Any]], Awaitable[dict[str, Any]]]
"""How a tool call runs its graph: (tool, arguments, on_event) -> results; raises GraphError when it fails."""


class GraphToolServer:
    """The MCP server of a set of graph tools.

    Args:
        tools: the tools, or a callable that gives them as they are now (graphrt serve's follow its folder).
        runner: how a call runs its graph (graphrt serve's go through its RunService); by default here, at once.
    """

    def __init__(self, tools: list[GraphTool] | Callable[[], list[GraphTool]], *, mcp_config: Any = None,
                 agents: Any = None, name: str = "graphrt", runner: ToolRunner | None = None) -> None:
        self._tools = tools
        self.mcp_config = mcp_config
        self.agents = agents
        self.name = name
        self.runner = runner or self._run_here
        self._redactor = Redactor()
        self._services: RunServices | None = None
        self._lowlevel = self._build()

    @property
    def tools(self) -> dict[str, GraphTool]:
        """The tools by name, as they are now."""
        tools = self._tools() if callable(self._tools) else self._tools
        return {tool.name: tool for tool in tools}

    async def _run_here(self, tool: GraphTool, arguments: dict[str, Any], on_event: Callable[[Event], Any]
                        ) -> dict[str, Any]:
        return await tool.run(arguments, services=self._services, agents=self.agents, on_event=on_event)

    @property
    def services(self) -> RunServices | None:
        """The MCP servers the graphs use, while this server runs (None before and after)."""
        return self._services

    @property
    def lowlevel(self) -> Any:
        """The SDK's `mcp.server.Server`."""
        return self._lowlevel

    @asynccontextmanager
    async def _lifespan(self, _server: Any) -> AsyncIterator[dict[str, Any]]:
        """The MCP servers the graphs use: started on first use, stopped when this server stops."""
        async with RunServices({"mcp": self.mcp_config} if self.mcp_config else {}) as services:
            self._services = services
            try:
                yield {}
            finally:
                self._services = None

    def _build(self) -> Any:
        from mcp.server import Server

        async def list_tools(ctx: Any, params: Any) -> Any:
            return self._list_tools()

        async def call_tool(ctx: Any, params: Any) -> Any:
            return await self._call_tool(params.name, params.arguments or {}, ctx.session.report_progress,
                                         _client_left(ctx))

        return Server(self.name, version="0.1.0", lifespan=self._lifespan,
                      instructions="Each tool runs a graphrt graph file; its arguments are the graph's inputs.",
                      on_list_tools=list_tools, on_call_tool=call_tool)

    def _list_tools(self) -> Any:
        import mcp_types as types

        return types.ListToolsResult(tools=[
            types.Tool(name=tool.name, description=tool.description, input_schema=tool.input_schema)
            for tool in self.tools.values()
        ])

    async def _call_tool(self, name: str, arguments: dict[str, Any],
                         report_progress: Callable[[float, float | None, str | None], Any],
                         left: anyio.Event | None = None) -> Any:
        import mcp_types as types

        tools = self.tools
        tool = tools.get(name)
        if tool is None:
            return _error(f"unknown tool {shown(name)}; the tools are: {', '.join(tools) or 'none'}")
        try:
            check_value(arguments, "the arguments")
        except InputLimitError as error:
            return _error(f"{tool.name}: {error}")
        redactor = self._redactor.knowing(tool.credentials)
        progress = _ProgressRelay(report_progress, redactor)
        failure: GraphError | None = None
        with anyio.CancelScope() as call:  # cancelled when the client leaves (`left`): no one waits for the run
            async with anyio.create_task_group() as group:
                group.start_soon(progress.forward)
                watch = anyio.CancelScope()
                if left is not None:
                    group.start_soon(_cancel_when_set, left, call, watch)
                try:
                    tool.check(arguments)
                    results = await self.runner(tool, arguments, progress.on_event)
                except GraphError as error:
                    failure = error
                finally:
                    progress.close()
                    watch.cancel()
        if call.cancelled_caught:
            return _error(f"{tool.name}: cancelled, as its client left before the run ended")
        if failure is not None:
            return _error(f"{tool.name}: {redactor.text(cut(_without_folder(str(failure), tool)))}")
        results = redactor.value(to_json_compatible(results))
        return types.CallToolResult(content=[types.TextContent(text=result_text(results))],
                                    structured_content=results)

    async def serve_stdio(self) -> None:
        """Serves MCP over this process's stdin/stdout until the client closes them."""
        from graphrt.mcp.stdio import checked_stdio

        async with checked_stdio() as (read_stream, write_stream):
            await self._lowlevel.run(read_stream, write_stream, self._lowlevel.create_initialization_options())

    def http_endpoint(self, *, host: str = HOST) -> "HttpEndpoint":
        """The streamable-HTTP endpoint: an ASGI app and the lifespan to run around it."""
        app = self._lowlevel.streamable_http_app(streamable_http_path="/", host=host)
        return HttpEndpoint(app=_LeaveWatch(app.routes[0].endpoint), lifespan=self._lowlevel.session_manager.run)

    def http_app(self, *, path: str = "/mcp", host: str = HOST, key: str | None = None,
                 max_body: int = MAX_BODY) -> Any:
        """A whole Starlette app serving the endpoint at `path`, behind graphrt serve's own guards: the Host and
        Origin checks (serve/origin.py: the SDK's let in any localhost port's page and a Host like
        `127.0.0.1:80.evil.example`), the key (`Authorization: Bearer KEY` or `X-API-Key`, when one is given) and
        the body limit (serve/security.py: a body read whole first, so a client that leaves half way calls nothing;
        the SDK's own read logged a traceback)."""
        from starlette.applications import Starlette
        from starlette.routing import Route

        from graphrt.serve.origin import OriginGuard, OriginPolicy
        from graphrt.serve.security import Guard

        endpoint = self.http_endpoint(host=host)

        @asynccontextmanager
        async def lifespan(_app: Any) -> AsyncIterator[None]:
            async with endpoint.lifespan():
                yield

        app = Starlette(routes=[Route(path, endpoint=endpoint.app)], lifespan=lifespan)
        return OriginGuard(Guard(app, api_key=key, max_body=max_body), OriginPolicy.of(host))


@dataclass(frozen=True)
class HttpEndpoint:
    """The MCP streamable-HTTP endpoint: mount `app` (ASGI) at a path and run `lifespan()` around the host app."""

    app: Any
    lifespan: Callable[[], Any]


_LEFT = "graphrt.client_left"
"""The key, in a request's ASGI scope, of the event set when its client leaves before the answer is sent."""


class _LeaveWatch:
    """An ASGI app in front of the SDK's endpoint that notes when a POST's client leaves before its answer ends.

    The SDK runs a tools/call apart from the HTTP request that carried it: when the
    client goes (its connection closed, the process killed) the graph went on running
    with no one to answer. The event this puts in the request's scope is set then;
    the call, which sees the request in its context, cancels its run (`_client_left`).
    """

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or scope.get("method") != "POST":
            await self.inner(scope, receive, send)
            return
        left, answered = anyio.Event(), False

        async def watched_receive() -> Any:
            message = await receive()
            if message.get("type") == "http.disconnect" and not answered:
                left.set()
            return message

        async def watched_send(message: Any) -> None:
            nonlocal answered
            if message.get("type") == "http.response.body" and not message.get("more_body", False):
                answered = True
            await send(message)

        await self.inner({**scope, _LEFT: left}, watched_receive, watched_send)


def _client_left(ctx: Any) -> anyio.Event | None:
    """The event set when the HTTP client of this call leaves (None over stdio)."""
    request = getattr(ctx, "request", None)
    scope = getattr(request, "scope", None)
    return scope.get(_LEFT) if isinstance(scope, dict) else None


async def _cancel_when_set(event: anyio.Event, call: anyio.CancelScope, watch: anyio.CancelScope) -> None:
    with watch:
        await event.wait()
        call.cancel()


def _without_folder(text: str, tool: GraphTool) -> str:
    """An error's text naming the tool's file as `name.yaml`, not by the server's path to it."""
    for folder in {str(tool.path.resolve().parent), str(tool.path.parent)}:
        if folder not in ("", "."):
            text = text.replace(f"{folder}/", "")
    return text


def _error(message: str) -> Any:
    import mcp_types as types

    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)


class _ProgressRelay:
    """Run events (called synchronously by the run) to MCP progress notifications (sent by a task)."""

    def __init__(self, report: Callable[[float, float | None, str | None], Any], redactor: Redactor) -> None:
        self._report = report
        self._redactor = redactor  # an agent's progress may quote what it was given: the run's credentials hidden
        self._send, self._receive = anyio.create_memory_object_stream[tuple[float, str]](_PROGRESS_BUFFER)
        self._completed = 0

    def on_event(self, event: Event) -> None:
        if isinstance(event, NodeCompleted):
            self._completed += 1
            where = "/".join(str(part) for part in (*event.path, event.node_id))
            self._queue(float(self._completed), f"node '{where}' completed")
        elif isinstance(event, AgentProgress):
            self._queue(float(self._completed), self._redactor.text(f"node '{event.node_id}': {event.message}"))

    def _queue(self, progress: float, message: str) -> None:
        try:
            self._send.send_nowait((progress, message))
        except (anyio.WouldBlock, anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass

    def close(self) -> None:
        self._send.close()

    async def forward(self) -> None:
        async with self._receive:
            async for progress, message in self._receive:
                await self._report(progress, None, message)
