"""`python -m bench.callgrind chain fan_out ...`: the engine's instructions per run, counted by callgrind.

Wall time on a shared machine moves with whatever else runs; an instruction
count does not, so a change to the engine's hot path is judged by this figure
(it may not grow). For each workload two processes run under `valgrind
--tool=callgrind`: both load the graph, build one `graphrt.Graph` and run it
`--warmup` times (imports, caches, the first run's compiling of nested graphs);
the second then runs it `--runs` times more. The difference of their totals,
divided by `--runs`, is what one more run costs: the interpreter's start, the
imports and the building of the Graph cancel out. `--build` counts building the
Graph with each run, as `python -m bench` times it.

PYTHONHASHSEED is fixed and the bytecode cache is written first (one run
outside valgrind), yet two counts of the same code still differ by up to about
1% (addresses and random run ids change the order of some hash tables): each
count is taken `--repeat` times and the median is reported.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from .workloads import get, workload_file

__all__ = ["instructions_per_run", "main"]

_CHILD = """
import sys
import graphrt
from graphrt.graphdata.loader import parse_graph_text

path, warmup, runs, build = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
data, _ = parse_graph_text(open(path, encoding="utf-8").read(), file=path)
graph = graphrt.Graph(data)
for _ in range(warmup):
    graph.run()
for _ in range(runs):
    (graphrt.Graph(data) if build else graph).run()
"""

_TOTAL = re.compile(rb"^(?:summary|totals):\s+(\d+)", re.MULTILINE)


def _count(path: Path, warmup: int, runs: int, build: bool) -> int:
    """The instructions one process executes: start, load, build, `warmup` runs, then `runs` more."""
    with tempfile.TemporaryDirectory(prefix="graphrt-callgrind-") as folder:
        out = Path(folder) / "callgrind.out"
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--dump-instr=no", "--compress-strings=no",
             sys.executable, "-c", _CHILD, str(path), str(warmup), str(runs), "1" if build else "0"],
            check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        found = _TOTAL.search(out.read_bytes())
        if found is None:
            raise SystemExit(f"bench.callgrind: no total in {out}")
        return int(found.group(1))


def instructions_per_run(name: str, runs: int = 10, warmup: int = 2, build: bool = False, repeat: int = 1) -> int:
    """The instructions one more run of workload `name` costs, the median of `repeat` counts (see the module
    docstring)."""
    path = workload_file(get(name), None)
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    subprocess.run([sys.executable, "-c", _CHILD, str(path), "1", "0", "0"], check=True, env=env,
                   stdout=subprocess.DEVNULL)  # writes the bytecode cache, which no count should include
    counts = []
    for _ in range(repeat):
        base = _count(path, warmup, 0, build)
        more = _count(path, warmup, runs, build)
        counts.append((more - base) / runs)
    return round(statistics.median(counts))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.callgrind", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("workloads", nargs="+", help="e.g. chain fan_out map_rows counter_count")
    parser.add_argument("--runs", type=int, default=10, help="runs counted (default 10)")
    parser.add_argument("--warmup", type=int, default=2, help="runs before, in both processes (default 2)")
    parser.add_argument("--build", action="store_true", help="build the Graph with each counted run")
    parser.add_argument("--repeat", type=int, default=3, help="counts per workload, the median reported (default 3)")
    args = parser.parse_args(argv)
    for name in args.workloads:
        per_run = instructions_per_run(name, args.runs, args.warmup, args.build, args.repeat)
        print(f"{name:16} {per_run:>14,} instructions per run{' (with building the Graph)' if args.build else ''}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
