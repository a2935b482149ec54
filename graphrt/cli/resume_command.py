"""`graphrt resume --checkpoint PATH`: continue a run saved with `graphrt run FILE --checkpoint PATH`.

Completed nodes are not run again. Without `--run-id`, the most recent
unfinished run in PATH continues (graphrt/cli/saved_run.py: how a saved run is
named). A run waiting for an answer takes it from `--answer TEXT`, or asks on
the terminal. Exit codes: 0 done, 1 a GraphError,
3 the run waits for an answer, 130 stopped with Ctrl-C (the state is saved).

`run_saved` is shared with `graphrt run --checkpoint`: it prompts for answers
on a terminal, and tells how to resume when the run stops. What it prints of a
run (results, errors, questions, the trace) hides the credentials the run knows
(graphrt.cli.output's `run_redactor`).
"""

from __future__ import annotations

import argparse
import shlex
import sys
import uuid
from contextlib import nullcontext, redirect_stdout
from typing import Any, Sequence, TextIO

import anyio

from graphrt.base.defaults import UNCERTAIN_CALLS
from graphrt.base.errors import GraphError, GraphInterrupted
from graphrt.base.secrets import Redactor
from graphrt.checkpoint import RunRecord, RunStatus, location_of, open_store
from graphrt.checkpoint.errors import RunTaken
from graphrt.checkpoint.guard import GuardedStore
from graphrt.cli.arguments import budgets
from graphrt.cli.output import run_redactor, write_message, write_results
from graphrt.cli.run_options import (
    add_run_options,
    add_trace_option,
    add_uncertain_option,
    apply_local_model,
    executor_for,
    registry_for,
    run_config,
)
from graphrt.cli.saved_run import add_saved_run_options, saved_run
from graphrt.cli.usage_note import UsageNote
from graphrt.durable import find_run, from_checkpoint, run_checkpointed
from graphrt.durable.served import StoreLeased, described, served_by
from graphrt.engine.graph import Graph
from graphrt.observe.trace import TraceWriter

__all__ = ["add_arguments", "handle", "resume_flags", "run_saved", "NEEDS_CHECKPOINT", "WAITING_FOR_ANSWER"]

WAITING_FOR_ANSWER = 3  # exit code: the run stopped on a question
NEEDS_CHECKPOINT = ("to answer it later, run the graph with --checkpoint PATH, then answer with: "
                    "graphrt resume --checkpoint PATH --answer TEXT")
STOPPED = 130  # exit code: Ctrl-C (128 + SIGINT)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_saved_run_options(parser, doing="continue", run_default="the latest unfinished one", old="checkpoint")
    parser.add_argument("--answer", metavar="TEXT", help="the answer to the question the run stopped on")
    add_trace_option(parser)
    add_uncertain_option(parser)
    add_run_options(parser)
    parser.set_defaults(handler=handle)


def _resume_hint(checkpoint: str, run_id: str, flags: Sequence[str] = (), extra: str = "") -> str:
    """The command that continues the run: the store, the run, the flags it needs again, then `extra`."""
    words = ["graphrt", "resume", "--checkpoint", location_of(checkpoint), "--run-id", run_id, *flags]
    return " ".join(map(shlex.quote, words)) + extra


def resume_flags(args: argparse.Namespace) -> list[str]:
    """The options of this command that resuming its run needs again: `graphrt resume` is told none of them.

    The agents' modules (Python agents are not saved), the config files (a checkpoint keeps no credentials), the
    embedded model's file, the executor, and `--force` (the graph file still differs from the saved one).
    """
    flags: list[str] = []
    for module in getattr(args, "agents", None) or ():
        flags += ["--agents", module]
    for option, name in (("--config", "config"), ("--mcp-config", "mcp_config"), ("--local-model", "local_model"),
                         ("--executor", "executor"), ("--address", "address")):
        value = getattr(args, name, None)
        if value:
            flags += [option, value]
    if getattr(args, "force", False):
        flags.append("--force")
    return flags


def _interactive(stdin: TextIO, stderr: TextIO) -> bool:
    return stdin.isatty() and stderr.isatty()


def _prompt(question: str, stdin: TextIO, stderr: TextIO) -> str | None:
    """Asks on the terminal; None at end of input."""
    stderr.write(f"? {question} ")
    stderr.flush()
    line = stdin.readline()
    return line.rstrip("\n") if line else None


def run_saved(
    graph: Graph,
    checkpoint: str,
    *,
    run_id: str | None,
    answer: str | None = None,
    force: bool = False,
    stdin: TextIO | None = None,
    stderr: TextIO | None = None,
    quiet: bool = False,
    hint_flags: Sequence[str] = (),
    kept: bool = True,
    redactor: Redactor,
    **options: Any,
) -> tuple[int, dict[str, Any] | None]:
    """Runs (or continues) a saved run until it ends; returns (exit code, results or None).

    `hint_flags` go into the `graphrt resume` command it suggests (`resume_flags`: `--agents`, ...).
    `kept`: the store outlives the command; False (`graphrt run` on a terminal without --checkpoint: a store in
    memory, only so that a question can be asked and answered) suggests no `graphrt resume`.
    `redactor` hides the run's credentials in the errors and questions it prints (`run_redactor`).
    `options` are the run's (graphrt.engine.options.RunOptions: `all_results`, `inject`, `timeout`, ...).
    """
    stdin = stdin or sys.stdin
    stderr = stderr or sys.stderr
    run_id = run_id or uuid.uuid4().hex[:12]
    if not quiet and kept:
        print(f"graphrt: run {run_id} saves to {location_of(checkpoint)}", file=stderr)
    while True:
        try:
            try:
                return 0, run_checkpointed(graph, checkpoint, run_id=run_id, answer=answer, force=force, **options)
            except GraphInterrupted as asked:
                answer = _prompt(redactor.text(asked.question), stdin, stderr) if _interactive(stdin, stderr) else None
                if answer is None:
                    write_message(asked, redactor, stderr)
                    if kept:
                        print("graphrt: answer with: "
                              f"{_resume_hint(checkpoint, run_id, hint_flags, ' --answer TEXT')}", file=stderr)
                    else:
                        print(f"graphrt: {NEEDS_CHECKPOINT}", file=stderr)
                    return WAITING_FOR_ANSWER, None
        except KeyboardInterrupt:
            if not kept:
                print("graphrt: interrupted", file=stderr)  # as a run without a store says it
            elif _saved_status(checkpoint, run_id) is not None:
                print("graphrt: stopped; the run is saved. Continue it with: "
                      f"{_resume_hint(checkpoint, run_id, hint_flags)}", file=stderr)
            else:
                print(f"graphrt: stopped before run {run_id} was saved", file=stderr)
            return STOPPED, None
        except RunTaken as error:  # it goes on there: resuming it here now would be refused the same way
            write_message(error, redactor, stderr)
            return 1, None
        except GraphError as error:
            write_message(error, redactor, stderr)  # an agent's error may quote a credential
            if not kept:
                return 1, None
            status = _saved_status(checkpoint, run_id)
            if status is None:
                print(f"graphrt: nothing of run {run_id} was saved in {location_of(checkpoint)}", file=stderr)
            elif status == RunStatus.FINISHED:  # refused before it ran again (other inputs, a changed graph)
                print(f"graphrt: run {run_id} is saved, finished; to see its results: "
                      f"{_resume_hint(checkpoint, run_id, hint_flags)}", file=stderr)
            else:
                print("graphrt: the run is saved; after a fix, continue it with: "
                      f"{_resume_hint(checkpoint, run_id, hint_flags)}", file=stderr)
            return 1, None


def _saved_status(checkpoint: str, run_id: str) -> str | None:
    """How the store holds the run now, or None where it holds none: a resume hint is only given for a run
    that can be resumed, and a finished one is only shown again."""

    async def saved() -> str | None:
        store = open_store(checkpoint, existing=True)
        try:
            record = await store.get_run(run_id)
            return None if record is None else record.status
        finally:
            await store.close()

    try:
        return anyio.run(saved)
    except Exception:  # noqa: BLE001 - an unreachable or unusable store holds nothing to resume
        return None


async def _find_run(checkpoint: str, run_id: str | None) -> RunRecord:
    """The saved run to resume.

    Raises:
        StoreLeased: a graphrt serve owns the store: the run is resumed through its API, which owns its runs.
    """
    store = GuardedStore(open_store(checkpoint, existing=True))  # resuming reads a store: it makes none
    try:
        record = await find_run(store, run_id)
        lease = await served_by(store)
        if lease is not None:
            holder = described(lease)
            raise StoreLeased(f"{store.location} is served by graphrt serve ({holder}): resume run {record.run_id} "
                              f"through its API (POST /runs/{record.run_id}/resume), or stop the server first",
                              holder)
        return record
    finally:
        await store.close()


def handle(args: argparse.Namespace, stdin: TextIO | None = None, stderr: TextIO | None = None) -> int:
    apply_local_model(args)
    named = saved_run(args, "resume", stderr or sys.stderr)
    if named:
        return named
    record = anyio.run(_find_run, args.checkpoint, args.run_id)
    graph, _ = from_checkpoint(args.checkpoint, record.run_id, agents=registry_for(args), force=args.force,
                               config=run_config(args))
    # With -q, stdout holds the results alone: what agents and `console` print goes to stderr.
    return continue_saved(graph, args, record, answer=args.answer, stdin=stdin, stderr=stderr,
                          results_alone=args.quiet)


def continue_saved(graph: Graph, args: argparse.Namespace, record: RunRecord, *, answer: Any = None,
                   stdin: TextIO | None, stderr: TextIO | None, results_alone: bool) -> int:
    """Runs a saved run on (resume, fork) with the command's executor and --trace, and writes its results.

    `results_alone`: stdout holds the results only; what agents and `console` print goes to stderr.
    """
    stderr = stderr or sys.stderr
    redactor = run_redactor(graph)  # its graph's credentials (its file's, or its saved copy's) and the environment's
    note = None if args.quiet else UsageNote()
    try:
        trace = TraceWriter(args.trace, redactor=redactor) if args.trace else None
        try:
            with executor_for(args) as executor, redirect_stdout(stderr) if results_alone else nullcontext():
                code, results = run_saved(graph.replace(executor=executor), args.checkpoint, run_id=record.run_id,
                                          all_results=args.all or record.all_results, answer=answer, force=args.force,
                                          timeout=args.timeout, stdin=stdin, stderr=stderr, quiet=True,
                                          uncertain=getattr(args, "uncertain", UNCERTAIN_CALLS[0]),
                                          hint_flags=resume_flags(args),
                                          redactor=redactor, subscribe=(trace,) if trace is not None else (),
                                          on_usage=note, budget=budgets(args.budget))
        finally:
            if trace is not None:
                trace.close()
        if results is not None:
            write_results(results, redactor=redactor)
        return code
    except GraphError as error:
        write_message(error, redactor, stderr)
        return 1
    finally:
        if note is not None:  # what the run spent, its earlier runs included
            note.write(stderr)
