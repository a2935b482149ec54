"""The MCP server the tests talk to, written with the SDK: `python tool_server.py [MODE] [--http PORT]`.

Modes: `tools` (default) serves the tools and resources below; `toolsonly` the tools alone (a server
without the resources capability); `broken` writes to stderr and exits at once; `silent` reads its input and never answers (a server that hangs at start).
The tools record calls in a counter, so a test can see that one process served a run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

COUNTER = {"calls": 0}


def build(resources: bool = True) -> MCPServer:
    server = MCPServer("tests")
    if resources:
        add_resources(server)

    @server.tool()
    def echo(text: str) -> str:
        """Returns the text it is given."""
        COUNTER["calls"] += 1
        return f"echo: {text}"

    @server.tool()
    def add(a: int, b: int) -> str:
        """Adds two integers."""
        COUNTER["calls"] += 1
        return str(a + b)

    @server.tool()
    def whoami() -> str:
        """This server's process id and how many calls it has served."""
        COUNTER["calls"] += 1
        return f"{os.getpid()} {COUNTER['calls']}"

    @server.tool()
    def meta(ctx: Context) -> str:
        """The `_meta` of this call's request, as JSON (graphrt's keys: io.graphrt/...)."""
        COUNTER["calls"] += 1
        sent = ctx.request_context.meta or {}
        return json.dumps({key: value for key, value in dict(sent).items() if key.startswith("io.graphrt/")})

    @server.tool()
    def fail(reason: str = "it broke") -> str:
        """Always fails (a tool error, reported with isError)."""
        raise ToolError(reason)

    @server.tool()
    def die() -> str:
        """Ends the server process in the middle of the call."""
        sys.stderr.write("tool_server: dying on purpose\n")
        sys.stderr.flush()
        os._exit(3)

    @server.tool()
    def note(text: str) -> str:
        """Writes `text` to stderr and answers."""
        sys.stderr.write(f"{text}\n")
        sys.stderr.flush()
        return "noted"

    @server.tool()
    def vanish() -> str:
        """Ends the server process in the middle of the call, saying nothing."""
        os._exit(4)

    @server.tool()
    async def hang() -> str:
        """Never answers."""
        await anyio.sleep(3600)
        return "never"

    @server.tool()
    async def count(steps: int, ctx: Context) -> str:
        """Counts to `steps`, reporting progress at each step."""
        for step in range(1, steps + 1):
            await ctx.report_progress(step, steps, f"step {step}")
            await anyio.sleep(0.01)  # work between steps; no test depends on its length
        return f"counted to {steps}"

    return server


def add_resources(server: MCPServer) -> None:
    """A text resource, a binary one, and a template of resources by name."""

    @server.resource("notes://readme", name="readme", description="How to use the notes.", mime_type="text/plain")
    def readme() -> str:
        return "Read me first."

    @server.resource("notes://logo", name="logo", mime_type="image/png")
    def logo() -> bytes:
        return b"\x89PNG\r\n\x1a\n"

    @server.resource("notes://by-name/{name}", name="note", mime_type="text/plain")
    def note(name: str) -> str:
        return f"the note called {name}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", nargs="?", default="tools", choices=["tools", "toolsonly", "broken", "silent", "banner",
                                                                     "hostile"])
    parser.add_argument("--http", type=int)
    args = parser.parse_args()
    if args.mode == "broken":
        sys.stderr.write("tool_server: missing setting TEST_TOKEN\n")
        sys.exit(2)
    if args.mode == "silent":
        for _ in sys.stdin:
            pass
        time.sleep(3600)
    if args.mode == "banner":  # a server that greets on stdout before it speaks MCP there, as some do
        print("tool_server v1.0 - starting", flush=True)
        print("listening on stdio", flush=True)
    server = build(resources=args.mode != "toolsonly")
    if args.mode == "hostile":  # tool names no LLM API takes, and more tools than one request may offer
        def hostile(text: str = "") -> str:
            return "hostile"

        for name in ("../../etc/passwd", "x" * 10_000, "nul\x00name", "with space", "ünïcode", "semi;colon"):
            server.add_tool(hostile, name=name, description="a hostile name")
        for number in range(200):
            server.add_tool(hostile, name=f"many_{number}", description="d" * 5000)
    if args.http:
        server.run("streamable-http", host="127.0.0.1", port=args.http)
    else:
        server.run("stdio")


if __name__ == "__main__":
    main()
