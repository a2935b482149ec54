"""`graphrt <command>`: parses the command line and hands over to the command's module.

Each command module has `add_parser(subparsers)` and the function it sets as
`handler`. A GraphError ends the command with exit code 1 and one line that
names the file, the node and the field.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Sequence

from graphrt.base.errors import GraphError
from graphrt.cli import (
    agents_command,
    resume_command,
    run_command,
    samples_command,
    serve_command,
    validate_command,
    viz_command,
)
from graphrt.observe.trace import Redactor

__all__ = ["main", "COMMANDS"]

COMMANDS = [run_command, resume_command, validate_command, viz_command, agents_command, samples_command, serve_command]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="graphrt", description="Run GraphAI graph files in Python.")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `graphrt` command; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args) or 0
    except GraphError as error:
        print(f"graphrt: {Redactor().text(str(error))}", file=sys.stderr)  # an agent's error may quote a credential
        return 1
    except KeyboardInterrupt:
        print("graphrt: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`graphrt run g.yaml | head`): stop quietly, as other tools do.
        _silence_stdout()
        return 141  # 128 + SIGPIPE
    except RecursionError:
        print("graphrt: a value is nested too deeply to handle", file=sys.stderr)
        return 1


def _silence_stdout() -> None:
    """Points stdout at /dev/null, so that flushing it at exit raises no second BrokenPipeError."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (a test's capture)
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
