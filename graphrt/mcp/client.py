"""MCP servers' tools and resources in graphs: connections shared by a run, tool lists, tool calls, resource lists
and reads.

A server starts when a node first needs it, in the run's services (graphrt.authoring.services),
and stays up for the rest of the run, nested graphs included; it is closed when the run ends.
Everything that can go wrong with the server itself (it cannot start, exits, or does not
answer) is a `McpServerError` (a ServiceError) that names the server; the node adds its own
name. Waits end before the node's own timeout, so that the error says which server hung.
A tool's own failure (`isError`, or the server rejecting the call) is a `McpToolError`, for
toolsAgent to hand back to the LLM; a server refusing a resource read (an unknown URI) is one too.
Results come back as MCP spells them (camelCase JSON), as GraphAI's MCP agents return them.
"""

from __future__ import annotations

import logging
import math
import os
import tempfile
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any, AsyncIterator, Awaitable, Callable, TypeVar

import anyio

from graphrt.authoring.agent_info import AgentContext
from graphrt.authoring.services import RunServices, ServiceFailed
from graphrt.authoring.tool_calls import SEPARATOR
from graphrt.base.errors import GraphError, ServiceError
from graphrt.base.secrets import MASK, hide_credentials
from graphrt.mcp.config import McpConfigError, ServerConfig, parse_servers
from graphrt.mcp.supervision import Restarts, restarts_of

__all__ = [
    "McpServerError", "McpToolError", "McpTool", "ServerConnection", "connect", "configured_servers",
    "server_connection", "list_tools", "call_tool", "list_resources", "read_resource",
]

_T = TypeVar("_T")
_STDERR_TAIL_LINES = 5
_PAGE_LIMIT = 100  # tools/list and resources/list pages read at most: a server that pages forever cannot hang a node


class _NotJsonRpc(logging.Filter):
    """Drops the SDK's traceback for each stdout line of a server that is not JSON-RPC (a banner, a log line):
    the line is skipped as MCP clients skip it, and the user's stderr is not a traceback per line."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.getMessage().startswith("Failed to parse JSONRPC message"):
            return True
        return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)


_NOT_JSON_RPC = _NotJsonRpc()


def unsaid(config: ServerConfig, text: str) -> str:
    """`text` with each value of the server's `env` and `headers` (of 8 characters or more: shorter ones, `1`
    or `true`, would blank ordinary words) and every credential replaced by REDACTED: a server that prints
    its token on stderr does not get it into the user's errors."""
    for value in sorted({*config.env.values(), *config.headers.values()}, key=len, reverse=True):
        if len(value) >= 8 and value in text:
            text = text.replace(value, MASK)
    return hide_credentials(text)


class McpServerError(ServiceError):
    """An MCP server failed to start, ended mid-run, or did not answer in time."""

    def __init__(self, server: str, problem: str, **context: Any) -> None:
        super().__init__(f"MCP server '{server}' {problem}", service=server, **context)


class McpToolError(GraphError):
    """An MCP tool failed: its result has `isError`, or the server refused the call."""


@dataclass(frozen=True)
class McpTool:
    """One tool of one server, named for the LLM as `server--tool`."""

    server: str
    name: str
    description: str
    input_schema: dict[str, Any]

    @property
    def full_name(self) -> str:
        return f"{self.server}{SEPARATOR}{self.name}"

    def listing(self) -> dict[str, Any]:
        """GraphAI's mcpToolsListAgent entry: `{name: server--tool, description, inputSchema}`."""
        return {"name": self.full_name, "description": self.description, "inputSchema": self.input_schema}

    def function_schema(self) -> dict[str, Any]:
        """The OpenAI tool schema: the server's own input schema as the parameters."""
        return {"type": "function", "function": {"name": self.full_name, "description": self.description,
                                                 "parameters": self.input_schema}}


def _split_tool(full_name: str) -> tuple[str, str]:
    """`server--tool` as (server, tool); the tool's own name may contain `--`."""
    server, separator, tool = str(full_name).partition(SEPARATOR)
    if not separator or not server or not tool:
        raise McpToolError(f"'{full_name}' is not an MCP tool name of the form server{SEPARATOR}tool")
    return server, tool


def _time_left(own_limit: float) -> float:
    """`own_limit`, cut short so that it ends just before the caller's deadline (a node's timeout)."""
    remaining = anyio.current_effective_deadline() - anyio.current_time()
    if math.isinf(remaining):
        return own_limit
    return max(0.0, min(own_limit, remaining - min(1.0, remaining * 0.2)))


class ServerConnection:
    """A connected server: its SDK client, its tools (listed once), and what it wrote to stderr.

    `alive` turns false once the connection ended (a stdio server exited): the next call starts the
    server again (supervision.py).
    """

    def __init__(self, config: ServerConfig, client: Any, stderr: Any, ended: anyio.Event | None = None,
                 restarts: Restarts | None = None, watch: Any = None) -> None:
        self.config = config
        self._watch = watch  # an HTTP server's WatchedTransport: why its last request failed (http_watch.py)
        self.client = client
        self._stderr = stderr
        self._ended = ended
        self._restarts = restarts
        self._closed = False
        self._tools: list[McpTool] | None = None
        self._lock = anyio.Lock()

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def alive(self) -> bool:
        """False once the connection has ended: the server exited, or a request found it gone."""
        return not self._closed and not (self._ended is not None and self._ended.is_set())

    def _stderr_size(self) -> int:
        try:
            return os.fstat(self._stderr.fileno()).st_size if self._stderr is not None else 0
        except (OSError, ValueError):
            return 0

    def stderr_tail(self, since: int = 0) -> str:
        """The server's last lines on stderr (stdio servers) written after byte `since`, to explain a failure."""
        if self._stderr is None:
            return ""
        try:
            self._stderr.seek(since)
            lines = [line.rstrip() for line in self._stderr.read().splitlines() if line.strip()]
        except (OSError, ValueError):
            return ""
        return self.unsaid(" | ".join(lines[-_STDERR_TAIL_LINES:])[-600:])

    def unsaid(self, text: str) -> str:
        """`text` without this server's env and header values (a token it printed), as every error says it."""
        return unsaid(self.config, text)

    async def _request(self, what: str, send: Callable[[], Awaitable[_T]]) -> _T:
        """One request, within the server's timeout and the caller's deadline; transport failures named
        with what the server wrote to stderr during this request (not what an earlier one left there)."""
        from mcp.shared.exceptions import MCPError
        from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

        limit = _time_left(self.config.timeout)
        since = self._stderr_size()
        try:
            with anyio.fail_after(limit):
                answer = await send()
        except TimeoutError:
            raise McpServerError(self.name, f"did not answer {what} within {limit:g} s") from None
        except MCPError as error:
            if error.code == CONNECTION_CLOSED:
                raise self._gone(what, since) from error
            if error.code == REQUEST_TIMEOUT:
                raise McpServerError(self.name, f"did not answer {what} within {self.config.timeout:g} s") from error
            raise McpToolError(f"MCP server '{self.name}' refused {what}: {self.unsaid(str(error))}") from error
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream, OSError) as error:
            raise self._gone(what, since) from error
        if self._restarts is not None:
            self._restarts.answered()
        return answer

    def _gone(self, what: str, since: int) -> McpServerError:
        if self.config.url is not None:
            why = self._watch.problem if self._watch is not None and self._watch.problem else "its connection closed"
            problem = f"at {hide_credentials(self.config.url)} went away during {what}: {why}"
            self.note_death(problem)
            return McpServerError(self.name, problem)
        tail = self.stderr_tail(since)
        problem = f"closed the connection during {what} (did it exit?)" + (f"; its stderr: {tail}" if tail else "")
        self.note_death(problem)
        return McpServerError(self.name, problem)

    def note_death(self, problem: str) -> None:
        """The connection has ended: counted once toward the server's restarts (supervision.py)."""
        self._closed = True
        if self._restarts is not None:
            self._restarts.failed(problem, self)

    async def tools(self) -> list[McpTool]:
        """The server's tools, listed once per connection (every page)."""
        async with self._lock:
            if self._tools is None:
                tools: list[McpTool] = []
                cursor: str | None = None
                for _ in range(_PAGE_LIMIT):
                    page = await self._request("tools/list", partial(self.client.list_tools, cursor=cursor))
                    tools += [McpTool(self.name, tool.name, tool.description or "", dict(tool.input_schema))
                              for tool in page.tools]
                    cursor = page.next_cursor
                    if not cursor:
                        break
                self._tools = tools
        return list(self._tools)

    @property
    def has_resources(self) -> bool:
        """Whether the server said it offers resources (its `resources` capability) when the session opened."""
        return self.client.server_capabilities.resources is not None

    async def resources(self) -> list[dict[str, Any]]:
        """The server's resources (every page), as MCP spells them: `{uri, name, mimeType, ...}`; listed on each call,
        since a server's resources change (`notifications/resources/list_changed`); none without the capability."""
        if not self.has_resources:
            return []
        listed: list[dict[str, Any]] = []
        cursor: str | None = None
        for _ in range(_PAGE_LIMIT):
            page = await self._request("resources/list", partial(self.client.list_resources, cursor=cursor))
            listed += [_mcp_json(resource) for resource in page.resources]
            cursor = page.next_cursor
            if not cursor:
                break
        return listed

    async def read_resource(self, uri: str) -> dict[str, Any]:
        """One resource's ReadResourceResult as MCP spells it: `{contents: [{uri, mimeType, text | blob}]}`."""
        result = await self._request(f"resources/read '{uri}'", partial(self.client.read_resource, uri))
        return _mcp_json(result)

    async def call(self, tool: str, arguments: dict[str, Any],
                   on_progress: Callable[[float, float | None, str | None], Awaitable[None]] | None = None,
                   meta: dict[str, Any] | None = None) -> dict[str, Any]:
        """Calls a tool; returns its CallToolResult as MCP spells it (`content`, `structuredContent`, `isError`).
        `meta` goes with the request as its `_meta`."""
        result = await self._request(f"tools/call '{tool}'", partial(
            self.client.call_tool, tool, arguments, progress_callback=on_progress, meta=meta))
        data = _mcp_json(result)
        if not data.get("isError"):
            data.pop("isError", None)
        return data


def _mcp_json(model: Any) -> dict[str, Any]:
    """An SDK result as MCP's JSON spells it, without the SDK's own bookkeeping (`resultType`)."""
    data = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    data.pop("resultType", None)
    return data


@asynccontextmanager
async def _watched(transport: Any, ended: anyio.Event) -> AsyncIterator[Any]:
    """The transport, with `ended` set once the server's side of it ends (a stdio server exited)."""
    async with transport as (read_stream, write_stream):
        relay_send, relay_receive = anyio.create_memory_object_stream[Any](0)

        async def relay() -> None:
            try:
                async with relay_send:
                    async for message in read_stream:
                        await relay_send.send(message)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
                pass
            finally:
                ended.set()

        async with anyio.create_task_group() as group:
            group.start_soon(relay)
            try:
                yield relay_receive, write_stream
            finally:
                group.cancel_scope.cancel()


@asynccontextmanager
async def connect(config: ServerConfig, restarts: Restarts | None = None) -> AsyncIterator[ServerConnection]:
    """Starts (stdio) or reaches (streamable HTTP) one server and opens an MCP session with it."""
    from mcp import Client, StdioServerParameters
    from mcp.client.streamable_http import streamable_http_client
    from mcp_types import Implementation

    stderr = watch = None
    if config.url is not None:
        from graphrt.mcp.http_watch import watched_http_client

        http_client, watch = watched_http_client(config.headers)
        transport: Any = streamable_http_client(config.url, http_client=http_client)
    else:
        stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")
        parameters = StdioServerParameters(command=config.command or "", args=list(config.args),
                                           env=config.env or None, cwd=config.cwd)
        from mcp.client.stdio import stdio_client

        stdio_log = logging.getLogger("mcp.client.stdio")
        if _NOT_JSON_RPC not in stdio_log.filters:
            stdio_log.addFilter(_NOT_JSON_RPC)
        transport = stdio_client(parameters, errlog=stderr)
    ended = anyio.Event()
    client = Client(_watched(transport, ended), cache=None,
                    client_info=Implementation(name="graphrt", version="0.1.0"))
    try:
        async with AsyncExitStack() as stack:
            try:
                await stack.enter_async_context(client)
            except Exception as error:  # noqa: BLE001 - explained with what the server wrote to stderr
                if config.url is not None:
                    why = watch.problem if watch is not None and watch.problem else _describe_failure(error)
                    raise McpServerError(config.name, f"cannot be reached at {hide_credentials(config.url)}: "
                                                      f"{why}") from error
                connection = ServerConnection(config, client, stderr)
                tail = connection.stderr_tail()
                raise McpServerError(config.name, f"failed to start: {_describe_failure(error)}"
                                     + (f"; its stderr: {tail}" if tail else "")) from error
            yield ServerConnection(config, client, stderr, ended, restarts, watch)
    finally:
        if config.url is not None:
            await http_client.aclose()
        if stderr is not None:
            stderr.close()


def configured_servers(services: RunServices | None) -> dict[str, ServerConfig]:
    """The MCP servers of the run's config (`config["mcp"]`), by name."""
    if services is None:
        return {}
    return parse_servers(services.config.get("mcp"))


def _describe_failure(error: BaseException | None) -> str:
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    if error is None:
        return "ended"
    if isinstance(error, FileNotFoundError):
        return f"cannot run its command: {error.strerror or error} ({error.filename})"
    if isinstance(error, GraphError):
        return error.message
    return f"{type(error).__name__}: {error}"


async def server_connection(ctx: AgentContext, server: str) -> ServerConnection:
    """The run's connection to `server`, started on first use.

    Raises:
        McpConfigError: no such server is configured for this run.
        McpServerError: the server could not start, or did not within its timeout (or the node's).
    """
    services = ctx.services
    servers = configured_servers(services)
    config = servers.get(server)
    if config is None or services is None:
        known = ", ".join(servers) or "none"
        raise McpConfigError(f"no MCP server '{server}' is configured for this run (configured: {known}); "
                             f"give servers with --mcp-config or config={{'mcp': {{'mcpServers': ...}}}}")
    key = ("mcp", server)
    restarts = restarts_of(services, server)
    for _ in range(2):  # the connection held, then (if it died since) a new one
        wait = restarts.wait_left()
        if wait > 0:  # it failed just now, and more than once in a row: not started again yet
            again = "tried again" if config.url is not None else "started again"  # an HTTP server is not ours to start
            raise McpServerError(server, f"{restarts.problem}; after {restarts.failures} failures in a row it is "
                                 f"{again} in {wait:.1f} s")
        limit = _time_left(config.startup_timeout)
        try:
            with anyio.fail_after(limit):
                connection = await services.open(key, partial(connect, config, restarts))
        except TimeoutError:
            raise McpServerError(server, f"did not start within {limit:g} s") from None
        except ServiceFailed as failed:
            cause = failed.__cause__
            if isinstance(cause, McpServerError):
                problem = cause.message.removeprefix(f"MCP server '{server}' ")
            else:
                problem = f"failed to start: {_describe_failure(cause)}"
            restarts.failed(problem, cause)  # once per failed start, however many callers waited for it
            services.forget(key)  # a later call starts it again, after the backoff
            raise McpServerError(server, problem) from cause
        if connection.alive:
            return connection
        connection.note_death("exited")  # since its last call: started again below, unless it keeps failing
        services.forget(key)
    raise McpServerError(server, "exited again as soon as it started")


async def list_tools(ctx: AgentContext, servers: list[str] | None = None) -> list[McpTool]:
    """The tools of the given servers (all configured servers when None or empty), in config order."""
    names = list(servers) if servers else list(configured_servers(ctx.services))
    tools: list[McpTool] = []
    for name in names:
        tools += await (await server_connection(ctx, name)).tools()
    return tools


IDEMPOTENCY_META = "io.graphrt/idempotency-key"
"""The `_meta` key of a tool call that carries its idempotency key (`ctx.idempotency_key`), when the run journals it:
the same whenever the run makes that call again, so a server may answer a repeated call without acting twice."""


async def call_tool(ctx: AgentContext, full_name: str, arguments: Any) -> dict[str, Any]:
    """Calls `server--tool` with `arguments`; MCP's progress notifications become the node's progress events, and a
    journaled call's idempotency key goes in its `_meta` (IDEMPOTENCY_META).

    Raises:
        McpServerError: the server is not usable (see server_connection), or died or hung during the call.
        McpToolError: the server refused the call (e.g. an unknown tool or bad arguments).
    """
    server, tool = _split_tool(full_name)
    connection = await server_connection(ctx, server)

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        ctx.progress(message or f"{full_name}: {progress:g}" + (f"/{total:g}" if total else ""),
                     {"tool": full_name, "progress": progress, "total": total})

    meta = {IDEMPOTENCY_META: ctx.idempotency_key} if ctx.idempotency_key else None
    return await connection.call(tool, dict(arguments or {}), on_progress, meta)


async def list_resources(ctx: AgentContext, servers: list[str] | None = None) -> dict[str, list[dict[str, Any]]]:
    """The resources of the given servers (all configured servers when None or empty), by server, in config order;
    a server that offers no resources (no `resources` capability) is left out, as GraphAI's list leaves it out.

    Raises:
        McpServerError: a server is not usable (see server_connection), or died or hung while listing.
        McpToolError: a server that offers resources refused to list them.
    """
    names = list(servers) if servers else list(configured_servers(ctx.services))
    listed: dict[str, list[dict[str, Any]]] = {}
    for name in names:
        connection = await server_connection(ctx, name)
        if connection.has_resources:
            listed[name] = await connection.resources()
    return listed


async def read_resource(ctx: AgentContext, server: str, uri: str) -> dict[str, Any]:
    """Reads the resource `uri` of `server`: `{contents: [...]}`, as MCP's resources/read answers.

    Raises:
        McpServerError: the server is not usable (see server_connection), or died or hung during the read.
        McpToolError: the server has no resources, or refused the read (e.g. an unknown URI).
    """
    connection = await server_connection(ctx, server)
    if not connection.has_resources:
        raise McpToolError(f"MCP server '{server}' offers no resources (it has no resources capability)")
    return await connection.read_resource(uri)
