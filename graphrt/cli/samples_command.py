"""`graphrt test-agents [NAME ...]`: runs the agents' samples and reports the ones that fail.

Each sample runs through a real one-node graph (see graphrt.testing.samples). The
last line is `test-agents: N passed, M failed`; the exit code is 1 when any
sample failed. What agents print while they run is kept back, and shown with
`-v` for the samples that fail. Agents whose pack's extra is not installed are
named on a line of their own, and their samples are not run. The report hides the
environment's secrets and text shaped like a credential, as error lines do: a failing
sample's error, or what its agent printed, may quote one.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
from typing import TextIO

import anyio

from graphrt.base.secrets import Redactor
from graphrt.cli.run_options import add_agents_option, named_agents, not_installed
from graphrt.testing.samples import SampleOutcome, run_sample

__all__ = ["add_arguments", "handle"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("names", nargs="*", metavar="NAME", help="only these agents (default: all)")
    parser.add_argument("-v", "--verbose", action="store_true", help="list passing samples too, and failing ones' output")
    add_agents_option(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, stdout: TextIO | None = None) -> int:
    stdout = stdout or sys.stdout
    registry, agents = named_agents(args)

    async def run_all() -> list[tuple[SampleOutcome, str]]:
        outcomes = []
        for info in agents:
            for index, sample in enumerate(info.samples):
                printed = io.StringIO()
                with contextlib.redirect_stdout(printed):
                    outcome = await run_sample(info, sample, registry, index)
                outcomes.append((outcome, printed.getvalue()))
        return outcomes

    outcomes = anyio.run(run_all)
    redactor = Redactor()
    for outcome, printed in outcomes:
        if not outcome.passed:
            stdout.write(f"FAIL {redactor.text(outcome.describe())}\n")
            if args.verbose and printed:
                stdout.write("".join(f"  | {redactor.text(line)}\n" for line in printed.splitlines()))
        elif args.verbose:
            stdout.write(f"ok   {outcome.name}\n")
    without = [info.name for info in agents if not info.samples]
    if without and (args.verbose or args.names):
        stdout.write(f"no samples: {', '.join(without)}\n")
    missing = [] if args.names else not_installed(registry)
    for name in missing:  # their samples cannot run: skipped, each with the extra it needs
        stdout.write(f"skipped: {registry.why_unavailable(name)}\n")
    failed = sum(not outcome.passed for outcome, _ in outcomes)
    skipped = f", {len(missing)} agents skipped (not installed)" if missing else ""
    stdout.write(f"test-agents: {len(outcomes) - failed} passed, {failed} failed{skipped}\n")
    return 1 if failed else 0
