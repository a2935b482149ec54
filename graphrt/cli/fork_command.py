"""`graphrt fork --run-id RUN --from NODE [--set NODE=VALUE ...]`: a new run from a saved run's node, then run it.

The fork keeps every result that does not depend on the change and runs the
rest: NODE (unless `--set` gives it a result) and what depends on it or on a
node given a value (graphrt.durable.fork). VALUE is JSON, or plain text.
The saved run is named as graphrt/cli/saved_run.py says (`--checkpoint` is
`graphrt serve`'s default file unless given). Exit codes as `graphrt resume`'s.
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from graphrt.base.errors import GraphError
from graphrt.base.secrets import Redactor
from graphrt.cli.arguments import node_value
from graphrt.cli.output import write_message
from graphrt.cli.resume_command import continue_saved
from graphrt.cli.run_options import add_run_options, add_trace_option, apply_local_model, registry_for, run_config
from graphrt.cli.saved_run import add_saved_run_options, saved_run
from graphrt.durable import fork

__all__ = ["add_arguments", "handle"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_saved_run_options(parser, doing="fork", run_default=None, old="run_id")
    parser.add_argument("--from", dest="node", metavar="NODE", required=True,
                        help="the node to compute again (and every node that depends on it); inside a nested graph "
                             "OUTER/INNER, or OUTER/ROW/INNER in a mapAgent's row, as graphrt serve's node keys")
    parser.add_argument("--iteration", type=int, metavar="N",
                        help="the loop iteration to fork from (a checkpoint keeps only the latest)")
    parser.add_argument("--set", dest="settings", metavar="NODE=VALUE", action="append", default=[], type=node_value,
                        help="a static node's value or a computed node's result, JSON or text (repeatable)")
    add_trace_option(parser)
    add_run_options(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, stdin: TextIO | None = None, stderr: TextIO | None = None) -> int:
    stderr = stderr or sys.stderr
    apply_local_model(args)
    named = saved_run(args, "fork", stderr)
    if named:
        return named
    try:
        forked = fork(args.checkpoint, args.run_id, node=args.node, values=dict(args.settings),
                      iteration=args.iteration, agents=registry_for(args), force=args.force, config=run_config(args))
    except GraphError as error:  # before the fork's graph is known: the environment's secrets are hidden, as main's
        write_message(_blamed(error), Redactor(), stderr)
        return 1
    if not args.quiet:
        again = ", ".join(forked.recomputed) or "nothing"
        print(f"graphrt: run {forked.run_id} forks {args.run_id} from '{args.node}'; computing again: {again}",
              file=stderr)
    # stdout holds the results alone
    return continue_saved(forked.graph, args, forked.record, stdin=stdin, stderr=stderr, results_alone=True)


def _blamed(error: GraphError) -> str:
    """The error, naming the option that gave what it is about: `--set NODE: ...`, `--from NODE: ...`."""
    if error.field in ("set", "from") and error.node_id is not None and error.location is None:
        return f"--{error.field} {error.node_id}: {error.message}"
    return str(error)
