"""How `graphrt resume` and `graphrt fork` name a saved run: `--checkpoint PATH --run-id ID`, as `graphrt run` saves it.

    graphrt run graph.yaml --checkpoint runs.db --run-id first
    graphrt resume --checkpoint runs.db --run-id first --answer Ada
    graphrt fork --checkpoint runs.db --run-id first --from title

The options that saved a run name it again, so a command line turns into the next by its command word
alone; a command's positional arguments are the files it reads (run's graph, batch's graph and rows).
Without `--checkpoint`, the store is graphrt serve's, RUNS_STORE in the current folder. The spellings of
before still work, each saying the new one on stderr: `graphrt resume PATH` and `graphrt fork RUN`.
"""

from __future__ import annotations

import argparse
import os
from typing import Literal, TextIO

from graphrt.base.defaults import RUNS_STORE
from graphrt.cli.arguments import non_empty
from graphrt.cli.run_options import add_checkpoint_option, add_run_id_option

__all__ = ["add_saved_run_options", "saved_run"]

_OLD = {"checkpoint": "PATH", "run_id": "RUN"}  # the positional argument of before, by the option that is it now


def add_saved_run_options(parser: argparse.ArgumentParser, *, doing: str, run_default: str | None,
                          old: Literal["checkpoint", "run_id"]) -> None:
    """`--checkpoint PATH`, `--run-id ID` (required when `run_default` is None: `saved_run` checks it) and `--force`;
    `doing` is what the command does to the run ("continue"). `old` is the option the command's positional
    argument of before gave, still taken (`saved_run` says the new spelling)."""
    # The argument of before and the option it is now: one of them, never both (argparse says so).
    named = parser.add_mutually_exclusive_group()
    add_checkpoint_option(named if old == "checkpoint" else parser, "the store the run is saved in",
                          f"{RUNS_STORE} in this folder, graphrt serve's")
    add_run_id_option(named if old == "run_id" else parser, doing, run_default)
    named.add_argument("old_spelling", nargs="?", type=non_empty, metavar=_OLD[old], help=argparse.SUPPRESS)
    parser.set_defaults(old_option=old, run_required=run_default is None)
    parser.add_argument("--force", action="store_true",
                        help="run the graph file even though it changed since the run was saved")


def saved_run(args: argparse.Namespace, command: str, stderr: TextIO) -> int:
    """Sets `args.checkpoint` and `args.run_id` from the command line: the spelling of before (saying the new one),
    and graphrt serve's store when none is named. Returns 0, or the exit code of what it said on `stderr`:
    2 when a required `--run-id` is missing (as argparse's), 1 when graphrt serve's store is not here."""
    if args.old_spelling is not None:
        option, old = args.old_option, _OLD[args.old_option]
        flag = "--" + option.replace("_", "-")
        print(f"graphrt: note: 'graphrt {command} {old}' is now 'graphrt {command} {flag} {old}'; "
              "the old spelling still works", file=stderr)
        setattr(args, option, args.old_spelling)
    if args.run_required and args.run_id is None:  # not argparse's: the argument of before names it as well
        print(f"graphrt {command}: error: the following arguments are required: --run-id", file=stderr)
        return 2
    if args.checkpoint is None:
        if not os.path.lexists(RUNS_STORE):  # said here: the store is not one the user named
            print(f"graphrt: no checkpoint store at {RUNS_STORE} (graphrt serve's, the default) in this folder: "
                  "name the run's store with --checkpoint PATH", file=stderr)
            return 1
        args.checkpoint = RUNS_STORE
    return 0
