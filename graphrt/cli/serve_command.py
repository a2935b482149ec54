"""`graphrt serve DIR_OR_FILES`: serve graph files over HTTP, with the run viewer at `/`.

Needs the `serve` extra (`pip install 'graphrt[serve]'`). Runs are saved to
`--checkpoint` (a SQLite file by default, or a URL of an installed store); a server
started again on the same checkpoint continues the runs the last one left.
The key comes from `--api-key` or the GRAPHRT_API_KEY environment variable
(which keeps it out of the process list). With the `mcp` extra, the graphs are MCP tools
too, over streamable HTTP at `/mcp` behind the same key (graphrt/mcp/serve_extension.py);
`--mcp-config` gives the graphs MCP servers, started once for the server.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from typing import Any

from graphrt.base.defaults import HOST, KEEP_RUNS, LEASE_SECONDS, MAX_QUEUE, MAX_RUNS, PORT, RUNS_STORE
from graphrt.base.errors import GraphError
from graphrt.base.extras import needs_extra
from graphrt.base.limits import MAX_BODY, MAX_CONNECTIONS, MAX_STREAMS
from graphrt.cli.arguments import at_least, budgets, port, positive_seconds
from graphrt.cli.run_options import (
    add_agents_option,
    add_budget_option,
    add_checkpoint_option,
    add_config_option,
    add_executor_option,
    add_local_model_option,
    add_mcp_config_option,
    apply_local_model,
    config_file,
    executor_for,
    registry_for,
)

__all__ = ["API_KEY_ENV", "add_arguments", "handle", "server_settings"]

API_KEY_ENV = "GRAPHRT_API_KEY"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("targets", nargs="+", metavar="DIR_OR_FILES", help="a folder of graph files, or graph files")
    parser.add_argument("--host", default=HOST, help=f"the address to listen on (default: {HOST})")
    parser.add_argument("--port", type=port, default=PORT, help=f"the port (default: {PORT}; 0 picks a free one)")
    add_checkpoint_option(parser, "where runs are saved", RUNS_STORE, value=RUNS_STORE)
    parser.add_argument("--max-runs", type=at_least(1), default=MAX_RUNS, metavar="N",
                        help=f"runs at once (default: {MAX_RUNS})")
    parser.add_argument("--max-queue", type=at_least(0), default=MAX_QUEUE, metavar="N",
                        help=f"runs waiting for a slot before requests get 429; on a PostgreSQL store several servers share, "
                             f"runs waiting in the store's queue (default: {MAX_QUEUE})")
    parser.add_argument("--max-body", type=at_least(1), default=MAX_BODY, metavar="BYTES",
                        help=f"the largest request body (default: {_bytes(MAX_BODY)})")
    parser.add_argument("--max-connections", type=at_least(1), default=MAX_CONNECTIONS, metavar="N",
                        help="connections open at once before a new one gets 503 (default: "
                             f"{MAX_CONNECTIONS}; fewer if the process may not open that many files); event "
                             f"streams take at most half of them (and at most {MAX_STREAMS})")
    parser.add_argument("--api-key", default=os.environ.get(API_KEY_ENV), metavar="KEY",
                        help=f"require this key on every API request (default: ${API_KEY_ENV})")
    parser.add_argument("--keep-runs", type=int, default=KEEP_RUNS, metavar="N",
                        help="ended runs the store keeps, the most recent; older ones are deleted with their events "
                             f"(default: {KEEP_RUNS}; 0 keeps none, -1 keeps every run)")
    parser.add_argument("--keep-days", type=float, metavar="D",
                        help="delete ended runs last updated more than D days ago (default: no age limit)")
    parser.add_argument("--cors-origin", action="append", default=[], metavar="ORIGIN",
                        help="let web pages of this origin call the API (e.g. https://app.example.com; * for any); "
                             "repeat for more (default: none)")
    parser.add_argument("--webhook-url", metavar="URL",
                        help="POST to this URL, signed with the API key, when any run finishes, fails, is cancelled or "
                             "asks a person; retried with backoff, kept across restarts (default: none)")
    parser.add_argument("--webhook-allow-private", action="store_true",
                        help="let a run's own webhook (\"webhook\" in its POST) name loopback, private and "
                             "link-local hosts (default: public addresses only, against request forgery)")
    add_mcp_config_option(parser, "started once, for the server's life")
    add_config_option(parser)
    add_budget_option(parser, "each run (a run's request may lower it, never raise it)")
    parser.add_argument("--lease-seconds", type=positive_seconds, default=LEASE_SECONDS, metavar="S",
                        help="how long the store stays this server's after its last heartbeat (one every S/3 s): "
                             "another server on a SQLite store refuses to start until then; on a PostgreSQL store, "
                             "which several servers share, how long the runs of a server that is gone wait before "
                             f"another claims them (default: {LEASE_SECONDS:g})")
    parser.add_argument("--drain", metavar="SERVER",
                        help="ask the server SERVER (its id or URL, as GET /servers lists them) of the PostgreSQL "
                             "--checkpoint store to drain: it takes no new runs, finishes those it holds, then exits; "
                             "this command serves nothing and returns at once")
    parser.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                        help="a host name requests may name besides the loopback names and --host "
                        "('*': any, behind a proxy that checks it); repeatable")
    add_agents_option(parser)
    add_executor_option(parser)
    add_local_model_option(parser)
    parser.set_defaults(handler=handle)


def _bytes(count: int) -> str:
    """A size as the help says it: `1 MiB`, `64 KiB`, else in bytes."""
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count % size == 0:
            return f"{count // size} {unit}"
    return f"{count:,} bytes"


def handle(args: argparse.Namespace) -> int:
    apply_local_model(args)
    absent = needs_extra("graphrt serve", "serve")
    if absent:
        raise GraphError(absent)
    from graphrt.serve import GraphCatalog
    from graphrt.serve.origin import is_loopback
    if args.max_runs < 1:
        raise GraphError("--max-runs must be at least 1")
    if args.keep_runs < -1 or (args.keep_days is not None and args.keep_days <= 0):
        raise GraphError("--keep-runs must be at least 0 (or -1: every run), and --keep-days more than 0")
    if not is_loopback(args.host) and not args.api_key:
        raise GraphError(f"serving on {args.host} needs an API key: anyone who reaches it could run graphs "
                         f"(set {API_KEY_ENV}, or --api-key)")
    _check_store(args.checkpoint)  # one line now, not a traceback from the server's start-up
    if args.drain is not None:
        return _drain(args.checkpoint, args.drain)
    with executor_for(args) as executor:
        return _serve(args, GraphCatalog(args.targets, registry_for(args), executor=executor,
                                         config=_config(args)))


def _config(args: argparse.Namespace) -> dict[str, Any]:
    """The served graphs' config: `--config`'s, with `--budget` over its budget."""
    config = config_file(args.config) if args.config else {}
    given = budgets(args.budget)
    if given is not None:
        from graphrt.observe.meter import UsageSettings

        config["budget"] = given.over(UsageSettings(config).budget).to_dict()
    return config


def _drain(target: str, server: str) -> int:
    """Asks a server of a shared store to drain (by its id or URL); says which, in one line."""
    import anyio

    from graphrt.checkpoint import GuardedStore, open_store
    from graphrt.durable.served import holder_of
    from graphrt.checkpoint.records import Lease

    async def drain() -> str:
        store = GuardedStore(open_store(target))
        try:
            if not store.abilities.shared:
                raise GraphError(f"--drain: {store.location} is served by one server alone (a SQLite store); stop "
                                 "it instead")
            for row in await store.servers():
                url = holder_of(Lease(row.server, row.holder, row.expires_at)).get("url") or ""
                if row.live and server in (row.server, url, url.rstrip("/")) and await store.drain_server(row.server):
                    return f"{row.server} at {url}" if url else row.server
            raise GraphError(f"--drain: no live server {server!r} on {store.location} (GET /servers lists them)")
        finally:
            with anyio.CancelScope(shield=True):
                await store.close()

    print(f"graphrt: asked graphrt serve {anyio.run(drain)} to drain", file=sys.stderr)
    return 0


def _take_lease(target: str, lease: "StoreLease") -> None:  # noqa: F821 - imported in _serve
    """Raises StoreLeased, in one line naming the holder, when another server owns the store."""
    import anyio

    from graphrt.checkpoint import GuardedStore, open_store

    async def take() -> None:
        store = GuardedStore(open_store(target))
        try:
            await lease.take(store)
        finally:
            with anyio.CancelScope(shield=True):
                await store.close()

    anyio.run(take)


def _check_store(target: str) -> None:
    """Raises CheckpointError, in one line, when the checkpoint store cannot be used (missing folder, a folder,
    not a database, read-only, PostgreSQL down, a bad URL)."""
    import anyio

    from graphrt.checkpoint import GuardedStore, open_store

    async def check() -> None:
        store = GuardedStore(open_store(target))
        try:
            await store.check()
        finally:
            with anyio.CancelScope(shield=True):
                await store.close()

    anyio.run(check)


def _extensions(settings: "ServerSettings", args: argparse.Namespace,  # noqa: F821
                catalog: "GraphCatalog") -> list[Any]:  # noqa: F821
    """The MCP endpoint at /mcp (the graphs as MCP tools), when the mcp extra is installed."""
    absent = needs_extra("--mcp-config", "mcp", ("mcp",))
    if absent:
        if args.mcp_config:
            raise GraphError(absent)
        return []
    from graphrt.mcp.serve_extension import McpExtension
    from graphrt.mcp.config import load_config_file

    mcp_config = load_config_file(args.mcp_config) if args.mcp_config else None
    return [McpExtension(catalog, mcp_config=mcp_config, host=settings.host)]


def server_settings(args: argparse.Namespace) -> "ServerSettings":  # noqa: F821 - imported here
    """The server's settings, built once from the options: create_app and the RunService read them."""
    from graphrt.cli.listen import connections_allowed
    from graphrt.serve.retention import Retention
    from graphrt.serve.settings import ServerSettings
    from graphrt.serve.webhooks import WebhookSettings

    connections = connections_allowed(args.max_connections)  # fewer if the process may not open that many files
    # Event streams hold their connections for as long as their runs go: at most half of them, so that
    # readers past the limit (503) never leave a new run's POST without a connection.
    streams = min(MAX_STREAMS, max(1, connections // 2))
    return ServerSettings(
        host=args.host, port=args.port, api_key=args.api_key, max_runs=args.max_runs, max_queue=args.max_queue,
        max_body=args.max_body, max_connections=connections, max_streams=streams,
        allowed_hosts=tuple(args.allowed_host), cors_origins=tuple(args.cors_origin),
        retention=Retention(keep_runs=None if args.keep_runs == -1 else args.keep_runs, keep_days=args.keep_days),
        webhooks=WebhookSettings(url=args.webhook_url, allow_private=args.webhook_allow_private),
        lease_seconds=args.lease_seconds)


def _serve(args: argparse.Namespace, catalog: "GraphCatalog") -> int:  # noqa: F821 - imported in handle
    from graphrt.cli.listen import bind, serve_app, url_of
    from graphrt.serve import create_app
    from graphrt.serve.lease import StoreLease

    settings = server_settings(args)
    if settings.webhooks.url and not settings.api_key:
        print(f"graphrt: warning: webhook calls go unsigned without an API key (set {API_KEY_ENV})", file=sys.stderr)
    lease = StoreLease(settings.lease_seconds)
    app = create_app(catalog, args.checkpoint, settings, extensions=_extensions(settings, args, catalog), lease=lease)
    sock = bind(settings.host, settings.port)  # before anything prints: a taken port is one line, nothing served
    lease.url = url_of(sock)
    _take_lease(args.checkpoint, lease)  # one line naming the server that owns the store, if one does
    names = ", ".join(sorted(catalog.graphs))
    print(f"graphrt: serving {len(catalog.graphs)} graph(s) ({names})", file=sys.stderr)

    def listening() -> None:
        print(f"graphrt: listening on {url_of(sock)}", file=sys.stderr, flush=True)

    # What is alive now (modules, the catalog's graphs, the app) lives as long as the server: the cyclic
    # collector need not walk it again at every full collection (~1 ms of each run under load, issue 26).
    gc.freeze()
    service = app.state.service
    code = serve_app(app, sock, on_listening=listening,
                     should_stop=lambda: service.lease_lost is not None or service.drained,
                     max_connections=settings.max_connections)
    if service.lease_lost is not None:
        raise GraphError(service.lease_lost)
    return code
