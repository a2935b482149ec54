"""`python -m bench.soak`: 1,000 graphs with LLM calls against a local server injecting 10% faults.

Prints what was injected and how the runs ended; exits 1 if any run was lost,
wrong, or ran a completed node again.

    python -m bench.soak                      # the full soak
    python -m bench.soak --runs 100 --fault-rate 0.3
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import anyio

from .run import soak


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--fault-rate", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--concurrency", type=int, default=32, help="runs at once")
    parser.add_argument("--timeout", type=float, default=0.5, help="seconds per LLM request")
    parser.add_argument("--retries", type=int, default=2, help="openAIAgent retries per node")
    parser.add_argument("--max-resumes", type=int, default=3, help="resumes of a failed run before it counts as lost")
    parser.add_argument("--checkpoint", type=Path, help="the SQLite file (default: a temporary one)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        checkpoint = args.checkpoint or Path(folder) / "soak.db"
        report = anyio.run(lambda: soak(args.runs, fault_rate=args.fault_rate, seed=args.seed,
                                        concurrency=args.concurrency, timeout=args.timeout, retries=args.retries,
                                        max_resumes=args.max_resumes, checkpoint=checkpoint))
    print("\n".join(report.lines()))
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
