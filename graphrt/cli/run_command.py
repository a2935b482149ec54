"""`graphrt run FILE`: run a graph file and print its results as JSON.

The graph is validated first, as `graphrt validate` does: errors stop it, warnings
are shown on stderr. On a terminal, stderr also shows the run's progress (node
states, loop count, streamed tokens); piped or with `--quiet`, only the results
are printed. `--trace FILE.jsonl` writes every event of the run, secrets redacted.
`--checkpoint PATH` saves the run as it goes, for `graphrt resume --checkpoint PATH` (graphrt/cli/resume_command.py).
`--record FILE` writes the run's outside calls (LLM requests, tool calls, services') to a cassette, and
`--replay FILE` answers them from one, with no network and no key (graphrt/testing/cassette.py).
`--executor ray` runs the agent calls on Ray (graphrt/executors/ray/).
`--config FILE` gives the agents their config (GraphAI's `{agentName: {...}}`: a file agent's base
folder, the programs runShellAgent may run, an LLM's key). `--mcp-config mcp.json` gives the run MCP servers (the `mcpServers` shape, see graphrt.mcp.config),
whose tools mcpToolsListAgent, mcpToolsCallAgent and toolsAgent use; they stop when the run ends.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from contextlib import nullcontext, redirect_stdout
from typing import Any, TextIO

from graphrt.base.errors import GraphError, GraphInterrupted, GraphValidationError, ValidationIssue
from graphrt.base.secrets import Redactor
from graphrt.check.validate import collect_issues
from graphrt.cli.arguments import budgets, node_value
from graphrt.cli.output import run_redactor, write_message, write_results
from graphrt.cli.run_options import (
    add_cassette_options,
    add_checkpoint_option,
    add_run_id_option,
    add_run_options,
    add_trace_option,
    add_uncertain_option,
    apply_local_model,
    cassette_of,
    executor_for,
    registry_for,
    run_config,
)
from graphrt.engine.graph import Graph
from graphrt.graphdata.loader import load_graph

__all__ = ["add_arguments"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a graph file (YAML or JSON)")
    parser.add_argument("-i", "--inject", action="append", type=node_value, default=[], metavar="NODE=VALUE",
                        help="set a static node's value before the run (VALUE is JSON, or else a string); repeatable")
    add_trace_option(parser)
    add_checkpoint_option(parser, "save the run as it goes, to continue it with 'graphrt resume --checkpoint PATH'",
                          default="not saved")
    add_run_id_option(parser, "save", "a new one")
    add_uncertain_option(parser)
    add_cassette_options(parser)
    add_run_options(parser)
    parser.set_defaults(handler=handle)


def format_warning(issue: ValidationIssue) -> str:
    """`graphrt: FILE:LINE:COL: warning: node 'x', field 'y': message`, as run errors read."""
    where = f"{issue.location}: " if issue.location is not None and issue.location.file else ""
    return f"graphrt: {where}warning: {dataclasses.replace(issue, location=None)}"


def _print_warnings(file: str, registry: Any, stderr: TextIO) -> None:
    try:
        data, source = load_graph(file)
    except GraphError:
        return
    for issue in collect_issues(data, registry, source):
        if issue.severity != "error":
            print(format_warning(issue), file=stderr)


def _run_asking(graph: Graph, args: argparse.Namespace, stderr: TextIO, options: dict[str, Any],
                redactor: Redactor) -> tuple[int, dict[str, Any] | None]:
    """A run on a terminal without --checkpoint: its state kept in memory, so that a node that asks a person
    (textInputAgent) asks at the prompt and the run goes on from where it stopped, as with --checkpoint."""
    import anyio

    from graphrt.checkpoint import SQLiteStore
    from graphrt.cli.resume_command import run_saved

    store = SQLiteStore(":memory:")  # the command's alone: nothing is written to disk
    try:
        return run_saved(graph, store, run_id=args.run_id, quiet=True, stderr=stderr, kept=False,  # type: ignore[arg-type]
                         redactor=redactor, **options)
    finally:
        anyio.run(store.close)


def handle(args: argparse.Namespace, stderr: TextIO | None = None) -> int:
    apply_local_model(args)
    stderr = stderr or sys.stderr
    if args.checkpoint:
        from graphrt.checkpoint import store_class

        store_class(args.checkpoint)  # a store that cannot be opened here (its extra is missing) is said first
    try:
        graph = Graph(args.file, agents=registry_for(args), config=run_config(args))
    except GraphValidationError:
        if not args.quiet:  # the warnings count too when there are errors: show them before the errors
            _print_warnings(args.file, registry_for(args), stderr)
        raise
    if not args.quiet:
        for issue in graph.warnings:
            print(format_warning(issue), file=stderr)
    redactor = run_redactor(graph)  # from here on, what is printed or written hides the run's credentials
    note = None
    if not args.quiet:
        from graphrt.cli.usage_note import UsageNote

        note = UsageNote()
    try:
        return _run(graph, args, stderr, redactor, note)
    except GraphError as error:  # an agent's error may quote a credential of the config
        write_message(error, redactor, stderr)
        return 1
    finally:
        if note is not None:  # what the run spent, however it ended
            note.write(stderr)


def _run(graph: Graph, args: argparse.Namespace, stderr: TextIO, redactor: Redactor, note: Any = None) -> int:
    """Runs the graph as the options say, and prints its results."""
    subscribe: list[Any] = []
    trace = display = None
    if args.trace:
        from graphrt.observe.trace import TraceWriter  # each option's module is imported only when it is given

        trace = TraceWriter(args.trace, redactor=redactor)
        subscribe.append(trace)
    if not args.quiet and stderr.isatty():
        from graphrt.cli.watch import ProgressDisplay

        display = ProgressDisplay(stderr, redactor=redactor)
        subscribe.append(display)
    options = dict(inject=dict(args.inject), all_results=args.all, timeout=args.timeout, subscribe=tuple(subscribe),
                   progress=display.progress if display is not None else None, on_usage=note,
                   budget=budgets(args.budget))
    cassette = cassette_of(args)
    if cassette is not None:
        options["journal"] = cassette
    try:
        # With -q, stdout holds the results alone: what agents and `console` print goes to stderr.
        with executor_for(args) as executor, redirect_stdout(stderr) if args.quiet else nullcontext():
            graph = graph.replace(executor=executor)
            if args.checkpoint:
                from graphrt.cli.resume_command import resume_flags, run_saved

                code, results = run_saved(graph, args.checkpoint, run_id=args.run_id, quiet=args.quiet, stderr=stderr,
                                          hint_flags=resume_flags(args), redactor=redactor,
                                          uncertain=args.uncertain, **options)
                if results is None:
                    return code
            elif sys.stdin.isatty() and stderr.isatty():
                code, results = _run_asking(graph, args, stderr, options, redactor)
                if results is None:
                    return code
            else:
                try:
                    results = graph.run(**options)
                except GraphInterrupted as asked:  # nobody to ask, and no store to answer it later from
                    from graphrt.cli.resume_command import NEEDS_CHECKPOINT, WAITING_FOR_ANSWER

                    write_message(asked, redactor, stderr)
                    print(f"graphrt: {NEEDS_CHECKPOINT}", file=stderr)
                    return WAITING_FOR_ANSWER
    finally:
        if display is not None:
            display.close()
        if trace is not None:
            trace.close()
        if cassette is not None:
            cassette.close()
    write_results(results, redactor=redactor)
    return 0

