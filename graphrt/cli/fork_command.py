"""`graphrt fork RUN --from NODE [--set NODE=VALUE ...]`: a new run from a saved run's node, then run it.

The fork keeps every result that does not depend on the change and runs the
rest: NODE (unless `--set` gives it a result) and what depends on it or on a
node given a value (graphrt.durable.fork). VALUE is JSON, or plain text.
`--checkpoint` is where the run is saved (`graphrt serve`'s default file unless
given). Exit codes as `graphrt resume`'s.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, TextIO

from graphrt.base.errors import GraphError
from graphrt.base.secrets import Redactor
from graphrt.checkpoint import describe_targets
from graphrt.cli.agent_modules import add_agents_option, registry_for
from graphrt.cli.arguments import node_value
from graphrt.cli.executor_option import add_executor_option
from graphrt.cli.local_model_option import add_local_model_option, apply_local_model
from graphrt.cli.output import write_message
from graphrt.cli.resume_command import continue_saved
from graphrt.durable import fork

__all__ = ["add_parser", "handle"]

DEFAULT_STORE = "graphrt-runs.db"  # graphrt serve's store when it is given none


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("fork", help="run a saved run again from one of its nodes, keeping the rest")
    parser.add_argument("run_id", metavar="RUN", help="the saved run to fork")
    parser.add_argument("--from", dest="node", metavar="NODE", required=True,
                        help="the node to compute again (and every node that depends on it); inside a nested graph "
                             "OUTER/INNER, or OUTER/ROW/INNER in a mapAgent's row, as graphrt serve's node keys")
    parser.add_argument("--iteration", type=int, metavar="N",
                        help="the loop iteration to fork from (a checkpoint keeps only the latest)")
    parser.add_argument("--set", dest="settings", metavar="NODE=VALUE", action="append", default=[], type=node_value,
                        help="a static node's value or a computed node's result, JSON or text (repeatable)")
    parser.add_argument("--checkpoint", metavar="PATH",
                        help=f"where the run is saved (default: {DEFAULT_STORE}, as graphrt serve's): {describe_targets()}")
    parser.add_argument("--force", action="store_true", help="fork even though the graph file changed since")
    parser.add_argument("--all", action="store_true", help="print every node's result, not only isResult nodes")
    parser.add_argument("--trace", metavar="FILE.jsonl", help="write every event of the fork to FILE, one JSON object a line")
    add_agents_option(parser)
    add_executor_option(parser)
    add_local_model_option(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, stdin: TextIO | None = None, stderr: TextIO | None = None) -> int:
    stderr = stderr or sys.stderr
    apply_local_model(args)
    if args.checkpoint is None:
        if not os.path.lexists(DEFAULT_STORE):  # said here: the store is not one the user named
            print(f"graphrt: no checkpoint store at {DEFAULT_STORE} (graphrt serve's, the default) in this folder: "
                  "name the run's store with --checkpoint PATH", file=stderr)
            return 1
        args.checkpoint = DEFAULT_STORE
    try:
        forked = fork(args.checkpoint, args.run_id, node=args.node, values=dict(args.settings),
                      iteration=args.iteration, agents=registry_for(args), force=args.force)
    except GraphError as error:  # before the fork's graph is known: the environment's secrets are hidden, as main's
        write_message(_blamed(error), Redactor(), stderr)
        return 1
    again = ", ".join(forked.recomputed) or "nothing"
    print(f"graphrt: run {forked.run_id} forks {args.run_id} from '{args.node}'; computing again: {again}", file=stderr)
    # stdout holds the results alone
    return continue_saved(forked.graph, args, forked.record, stdin=stdin, stderr=stderr, results_alone=True)


def _blamed(error: GraphError) -> str:
    """The error, naming the option that gave what it is about: `--set NODE: ...`, `--from NODE: ...`."""
    if error.field in ("set", "from") and error.node_id is not None and error.location is None:
        return f"--{error.field} {error.node_id}: {error.message}"
    return str(error)
