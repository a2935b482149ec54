"""`graphrt batch GRAPH ROWS.jsonl`: run a graph once per input row; each row's outcome as a line of JSONL.

    graphrt batch qa.yaml questions.jsonl -o answers.jsonl            # 8 rows at a time, in this process
    graphrt batch qa.yaml questions.jsonl -o answers.jsonl            # again after a crash: done rows are skipped
    graphrt batch qa.yaml questions.jsonl --executor ray --address auto --concurrency 64   # rows as Ray tasks
    make-rows | graphrt batch qa.yaml - -o answers.jsonl              # rows from stdin, as they come

Each line of ROWS is a JSON object of static node ids and the values to inject
(`{"question": "..."}`); each output line is `{"row", "status", "results"}` or,
for a row that failed, `{"row", "status": "failed", "error": {message, type, node,
file, line}}`, in input order (`--unordered`: as rows finish). A failed row does
not stop the others; the command exits with 1 when any row failed.

ROWS `-` reads the rows from stdin as they come (the progress line then has no
ETA); their ids and saved runs are the same as for a file of the same lines.

Rows are saved as they go to a checkpoint store (`--checkpoint`, by default
`OUTPUT.runs.db` beside `-o OUTPUT`, else `ROWS.runs.db` in the current folder),
one run per row named `BATCH/ROW`: run the same command again and the rows that
completed are not run again (their saved results are written), the others run.
A SQLite store has files beside it: `-claims` (which process runs which row)
and, while it is open, SQLite's `-wal` and `-shm`.

`-o` may not name the rows, the graph or the store (nor a file beside it): it is
refused before anything is written, as is an output that cannot be opened.

The output lines and error lines hide the credentials the run knows (its
environment's, its config's, its graph's params'), as `graphrt run` does.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from contextlib import nullcontext, redirect_stdout
from pathlib import Path
from typing import Any, TextIO

from graphrt.base.errors import GraphError, GraphValidationError
from graphrt.base.secrets import Redactor
from graphrt.checkpoint import store_class
from graphrt.cli.arguments import budgets
from graphrt.cli.output import run_redactor, write_message
from graphrt.cli.run_command import _print_warnings, format_warning
from graphrt.cli.run_options import (
    add_cassette_options,
    add_checkpoint_option,
    add_run_options,
    apply_local_model,
    cassette_of,
    executor_for,
    registry_for,
    run_config,
)
from graphrt.engine.graph import Graph
from graphrt.graphdata.spec import DEFAULT_CONCURRENCY

__all__ = ["add_arguments", "default_checkpoint"]

STDIN = "-"  # ROWS that means: read the rows from stdin
STDIN_NAME = "stdin"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description, parser.formatter_class = __doc__, argparse.RawDescriptionHelpFormatter
    parser.add_argument("file", help="a graph file (YAML or JSON)")
    parser.add_argument("rows", help="the input rows: a JSONL file, one JSON object of node ids and values a line "
                        "(-: read them from stdin)")
    parser.add_argument("-o", "--output", metavar="FILE.jsonl", help="write the rows' outcomes to FILE (default: stdout)")
    parser.add_argument("--concurrency", type=_positive, metavar="N",
                        help=f"rows running at once (default: {DEFAULT_CONCURRENCY}; with --executor, the cluster's "
                        "CPUs)")
    add_checkpoint_option(parser, "save each row's run",
                          "OUTPUT.runs.db beside -o OUTPUT (a file), else ROWS.runs.db in the current folder")
    parser.add_argument("--no-checkpoint", action="store_true", help="save nothing: every row runs, every time")
    parser.add_argument("--batch-id", metavar="ID",
                        help="names the batch's runs in the store, ID/ROW (default: GRAPH:ROWS, the files' names)")
    parser.add_argument("--id-field", metavar="KEY", help="the rows' field that is their id (default: the line number)")
    parser.add_argument("--unordered", action="store_true", help="write each row as it finishes, not in input order")
    add_cassette_options(parser)
    add_run_options(parser)
    parser.set_defaults(handler=handle)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"at least 1 row at a time, not {value}")
    return value


def default_checkpoint(args: argparse.Namespace) -> str | None:
    """Where the rows are saved: `--checkpoint`, else beside the output, else ROWS.runs.db here; None: not saved."""
    if args.no_checkpoint:
        return None
    if args.checkpoint:
        return args.checkpoint
    if args.output and not _device(args.output):
        return f"{args.output}.runs.db"
    return f"{_rows_name(args)}.runs.db"


def _device(path: str) -> bool:
    """Whether `path` is there and is no regular file (`/dev/stdout`, a FIFO): no store is made beside it."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _refuse_overwriting(args: argparse.Namespace, checkpoint: str | None) -> None:
    """Refuses an `-o` that names a file the batch reads (the rows, the graph) or its store, before anything is
    opened for writing: opening the output empties it.

    Raises:
        GraphError: it does, said in one line.
    """
    kept = [("the rows", args.rows if args.rows != STDIN else None), ("the graph", args.file)]
    if checkpoint is not None and "://" not in checkpoint:  # a SQLite file and the files beside it
        kept += [("the checkpoint store", checkpoint)]
        kept += [(f"the checkpoint store's {suffix} file", checkpoint + suffix) for suffix in ("-claims", "-wal", "-shm")]
    for what, path in kept:
        if path is not None and _same_file(args.output, path):
            raise GraphError(f"-o {args.output}: it is {what} ({path}): writing the outcomes there would destroy "
                             "it; give another file")


def _same_file(one: str, other: str) -> bool:
    """Whether two paths name one file: the same inode if both exist, else the same resolved path."""
    try:
        return os.path.samefile(one, other)
    except OSError:
        return Path(one).resolve() == Path(other).resolve()


def _open_output(path: str) -> TextIO:
    """The output file, opened for writing (emptied).

    Raises:
        GraphError: it cannot be (a folder, a folder that does not exist, no permission).
    """
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as error:
        raise GraphError(f"{path}: cannot write the rows' outcomes there: {error.strerror or error}") from None


def _rows_name(args: argparse.Namespace) -> str:
    """The rows' name in default file and batch names: the file's stem, or `stdin`."""
    return STDIN_NAME if args.rows == STDIN else Path(args.rows).stem


def handle(args: argparse.Namespace, stderr: TextIO | None = None) -> int:
    apply_local_model(args)
    stderr = stderr or sys.stderr
    if args.no_checkpoint and args.checkpoint:
        raise GraphError("--checkpoint and --no-checkpoint: give one")
    if (args.record or args.replay) and args.executor:
        raise GraphError(f"--{'record' if args.record else 'replay'} runs the rows in this process, where their "
                         "calls are journaled: leave out --executor")
    checkpoint = default_checkpoint(args)
    if checkpoint is not None:
        store_class(checkpoint)  # a store that cannot be opened here (its extra is missing) is said first
    if args.output:
        _refuse_overwriting(args, checkpoint)
    try:
        graph = Graph(args.file, agents=registry_for(args), config=run_config(args))
    except GraphValidationError:
        if not args.quiet:
            _print_warnings(args.file, registry_for(args), stderr)
        raise
    if not args.quiet:
        for issue in graph.warnings:
            print(format_warning(issue), file=stderr)
    redactor = run_redactor(graph)  # from here on, what is printed or written hides the run's credentials
    try:
        return _run_rows(graph, args, checkpoint, stderr, redactor)
    except GraphError as error:
        write_message(error, redactor, stderr)
        return 1


def _run_rows(graph: Graph, args: argparse.Namespace, checkpoint: str | None, stderr: TextIO,
              redactor: Redactor) -> int:
    """Runs the batch, each row's outcome a line of the output; the exit code."""
    from graphrt.api import batch, default_batch_id
    from graphrt.batches import BatchProgress, count_rows

    rows: Any = args.rows
    total = None
    if rows == STDIN:
        rows = sys.stdin
    else:
        try:
            total = count_rows(rows)
        except OSError as error:
            raise GraphError(f"{rows}: cannot read the batch's rows: {error.strerror or error}") from None
    progress = BatchProgress(total=total)
    display = None
    if not args.quiet:
        from graphrt.cli.batch_display import BatchDisplay

        display = BatchDisplay(progress, stderr)
    failed = 0
    output = _open_output(args.output) if args.output else sys.stdout

    def write(outcome: Any) -> None:
        nonlocal failed
        try:
            output.write(outcome.json_line(redactor) + "\n")
            output.flush()  # a killed batch leaves whole lines, each row saved before it is written
        except OSError as error:
            if output is sys.stdout:
                raise
            saved = f" (the rows that ran are saved in {checkpoint}: run the command again)" if checkpoint else ""
            raise GraphError(f"{args.output}: cannot write the rows' outcomes: {error.strerror or error}{saved}") \
                from None
        failed += not outcome.ok
        if display is not None:
            display.row_finished()

    cassette = cassette_of(args)
    try:
        # What agents and `console` print goes to stderr: the output holds the rows' lines alone.
        with executor_for(args) as executor, redirect_stdout(stderr) if output is sys.stdout else nullcontext():
            batch(graph, rows, concurrency=args.concurrency, checkpoint=checkpoint,
                  batch_id=args.batch_id or f"{default_batch_id(graph, None)}:{_rows_name(args)}", id_field=args.id_field,
                  ordered=not args.unordered, on_row=write, progress=progress, executor=executor,
                  timeout=args.timeout, all_results=args.all, keep=False, budget=budgets(args.budget),
                  journal_of=cassette.part if cassette is not None else None)
    finally:
        if cassette is not None:
            cassette.close()
        if display is not None:
            display.close()
        if output is not sys.stdout:
            try:
                output.close()
            except OSError:  # what it could not write was said as it failed
                pass
    if failed and not args.quiet:
        saved = f"; run the command again to retry them (saved in {checkpoint})" if checkpoint else ""
        print(f"graphrt: {failed:,} of {progress.finished:,} rows failed{saved}", file=stderr)
    if progress.usage and not args.quiet:  # what the rows run now spent, together
        print(f"graphrt: usage: {progress.usage.summary()}", file=stderr)
    return 1 if failed else 0
