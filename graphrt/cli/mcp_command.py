"""`graphrt mcp DIR_OR_FILES`: serve graph files as MCP tools.

Over stdio by default, for MCP clients that start a command (Claude Desktop's
`{"command": "graphrt", "args": ["mcp", "graphs/"]}`); `--http PORT` serves streamable
HTTP at http://127.0.0.1:PORT/mcp instead, with a bearer key from `--key` or
GRAPHRT_MCP_KEY when one is set. `--mcp-config` gives the graphs MCP servers of their
own, started once for the server's life. Each graph is a tool (graphrt/mcp/graph_tools.py).
"""

from __future__ import annotations

import argparse
import os
import sys

import anyio

from graphrt.base.defaults import HOST
from graphrt.base.extras import needs_extra
from graphrt.base.limits import MAX_CONNECTIONS
from graphrt.cli.arguments import at_least, port
from graphrt.cli.run_options import add_agents_option, add_mcp_config_option, registry_for

__all__ = ["KEY_ENV", "add_arguments"]

KEY_ENV = "GRAPHRT_MCP_KEY"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="DIR_OR_FILE", help="graph files, or folders of graph files")
    parser.add_argument("--http", type=port, metavar="PORT", help="serve streamable HTTP at http://HOST:PORT/mcp")
    parser.add_argument("--host", default=HOST, help=f"the address to bind with --http (default: {HOST}, loopback)")
    parser.add_argument("--key", help=f"with --http, the bearer key clients must send (default: ${KEY_ENV})")
    add_mcp_config_option(parser, "started once, for the server's life")
    parser.add_argument("--max-connections", type=at_least(1), default=MAX_CONNECTIONS, metavar="N",
                        help=f"with --http, connections open at once before a new one gets 503 (default: "
                             f"{MAX_CONNECTIONS})")
    add_agents_option(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    # stdio needs the SDK alone; --http serves with uvicorn and httptools too (the whole extra)
    absent = needs_extra("graphrt mcp" if args.http is None else "graphrt mcp --http", "mcp",
                         ("mcp",) if args.http is None else None)
    if absent:
        print(f"graphrt: {absent}", file=sys.stderr)
        return 1
    from graphrt.mcp.server import GraphToolServer
    from graphrt.mcp.config import load_config_file
    from graphrt.mcp.graph_tools import collect_graph_tools, runnable_tools

    registry = registry_for(args)
    tools, problems = runnable_tools(collect_graph_tools(args.paths), registry)
    for problem in problems:  # offered, such a graph would be a tool that always fails
        print(f"graphrt: not served (invalid): {problem}", file=sys.stderr)
    if not tools:
        print("graphrt: no graph can be served as a tool (each one is invalid, see above)", file=sys.stderr)
        return 1
    mcp_config = load_config_file(args.mcp_config) if args.mcp_config else None
    server = GraphToolServer(tools, mcp_config=mcp_config, agents=registry)
    if args.http is None:
        anyio.run(server.serve_stdio)
        return 0
    from graphrt.cli.listen import bind, serve_app, url_of

    key = args.key or os.environ.get(KEY_ENV) or None
    if args.host not in ("127.0.0.1", "localhost", "::1") and not key:
        print(f"graphrt: serving beyond loopback needs a key (--key or {KEY_ENV})", file=sys.stderr)
        return 2
    app = server.http_app(host=args.host, key=key)
    sock = bind(args.host, args.http)

    def listening() -> None:  # once the socket takes connections: a port that is taken prints no URL
        print(f"graphrt: {len(tools)} graph tool(s) at {url_of(sock, '/mcp')}", file=sys.stderr, flush=True)

    return serve_app(app, sock, on_listening=listening, max_connections=args.max_connections)
