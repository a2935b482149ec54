"""`graphrt <command>`: parses the command line and hands over to the command's module.

Each command's one line of help is written once, in COMMANDS; its module has
`add_arguments(parser)`, which adds the command's arguments to the sub-parser
made here and sets the function that handles it as `handler`. A GraphError ends the command with exit code 1
and one line that
names the file, the node and the field.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from typing import Sequence

__all__ = ["main", "command", "COMMANDS"]

# Each command's module, imported only when that command runs (or shows its own --help),
# so that `graphrt --help` answers at once: (name, module under graphrt.cli, one-line help).
COMMANDS = [
    ("run", "run_command", "run a graph file and print its results as JSON"),
    ("batch", "batch_command", "run a graph once per row of a JSONL file; results as JSONL"),
    ("resume", "resume_command", "continue a run saved with 'graphrt run --checkpoint'"),
    ("fork", "fork_command", "run a saved run again from one of its nodes, keeping the rest"),
    ("validate", "validate_command", "report every problem of graph files without running them"),
    ("viz", "viz_command", "draw a graph file as a Mermaid or Graphviz DOT diagram"),
    ("agents", "agents_command", "list the registered agents, their descriptions and schemas"),
    ("test-agents", "samples_command", "run the registered agents' samples and report failures"),
    ("serve", "serve_command", "serve graph files over HTTP, with a live run viewer at /"),
    ("mcp", "mcp_command", "serve graph files as MCP tools (stdio, or streamable HTTP)"),
]


def _chosen(argv: Sequence[str]) -> str | None:
    """The command named on the command line (its first word that is not an option)."""
    for word in argv:
        if not word.startswith("-"):
            return word
    return None


class _Parser(argparse.ArgumentParser):
    """argparse's parser, laying its help out to the terminal's width without importing shutil.

    argparse's formatter imports shutil (bz2 and lzma with it: ~3 ms of every command) to
    ask for the terminal's width, and makes a formatter for every argument added; the width
    is asked of os here, as shutil.get_terminal_size asks it.
    """

    def _get_formatter(self) -> argparse.HelpFormatter:
        return self.formatter_class(prog=self.prog, width=_help_width())


def _help_width() -> int:
    """The terminal's columns less 2, as argparse's own formatter takes them: $COLUMNS, the terminal's, or 80."""
    try:
        columns = int(os.environ.get("COLUMNS", 0))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return (columns or 80) - 2


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser, with the full sub-parser of the chosen command (all of them if `argv` is None).

    A known command gets its own sub-parser alone (each one argparse makes costs a run of
    `graphrt run` a millisecond); without one, or with an unknown one, every command is
    listed, for `graphrt --help` and for the error that names the choices.
    """
    parser = _Parser(prog="graphrt", description="Run GraphAI graph files in Python.")  # sub-parsers are _Parsers too
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    chosen = _chosen(argv) if argv is not None else None
    known = any(name == chosen for name, _, _ in COMMANDS)
    for name, module, help_text in COMMANDS:
        if argv is None or name == chosen:
            command = importlib.import_module(f"graphrt.cli.{module}")
            command.add_arguments(subparsers.add_parser(name, help=help_text))
        elif not known:
            subparsers.add_parser(name, help=help_text)
    return parser


def main(argv: Sequence[str] | None = None, *, own_process: bool = False) -> int:
    """Entry point of the `graphrt` command; returns the exit code.

    `own_process`: the process runs this command alone (the console script, `python -m graphrt`), so the objects
    its imports make are the process's for good: they are made with the garbage collector paused and then frozen
    (see `_parsed`). A caller that goes on after the command (a test, a program) leaves it False.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parsed(argv) if own_process else build_parser(argv).parse_args(argv)
    from graphrt.base.errors import GraphError  # after parsing: `graphrt --help` needs none of graphrt

    try:
        return args.handler(args) or 0
    except GraphError as error:
        from graphrt.base.secrets import Redactor
        from graphrt.cli.output import write_message

        # An error from before a run's credentials are known (a command that runs a graph reports the errors of
        # its run itself, hiding them: cli/output.run_redactor); the environment's secrets are hidden here.
        write_message(error, Redactor(), sys.stderr)
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


def command() -> int:
    """The `graphrt` command as a process of its own (the console script, `python -m graphrt`)."""
    return main(own_process=True)


def _parsed(argv: list[str]) -> argparse.Namespace:
    """The command line parsed, the chosen command's modules imported with the garbage collector paused.

    Importing a command's modules makes tens of thousands of objects that live as long as the process, and the
    collector, counting them as they come, would walk them again and again; once imported they are frozen
    (gc.freeze: the collector leaves them alone), so that no collection of the run walks them either. A hello run
    executes ~8% fewer instructions. What the imports left as cyclic garbage, if any, stays: a few objects, once.
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        return build_parser(argv).parse_args(argv)
    finally:
        if collecting:
            gc.freeze()
            gc.enable()


def _silence_stdout() -> None:
    """Points stdout at /dev/null, so that flushing it at exit raises no second BrokenPipeError."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (a test's capture)
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(command())
