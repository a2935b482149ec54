"""`python -m bench.callgrind chain fan_out ...`: the engine's instructions per run, counted by callgrind.

Wall time on a shared machine moves with whatever else runs; an instruction
count does not, so a change to the engine's hot path is judged by this figure
(it may not grow). For each workload a process runs under `valgrind
--tool=callgrind`: it loads the graph, builds one `graphrt.Graph`, runs it
`--warmup` times (imports, caches, the first run's compiling of nested graphs),
then `--runs` times more inside one call of `functools.reduce`, the only code
callgrind counts (`--toggle-collect=functools_reduce`; graphrt calls no
`reduce`). The count divided by `--runs` is one run: the interpreter's start,
the imports and the building of the Graph are not in it. `--build` counts
building the Graph with each run, as `python -m bench` times it.

PYTHONHASHSEED is fixed, the run ids are given and the bytecode cache is
written first (one run outside valgrind): two counts of the same code are
equal to the instruction (`--repeat` shows it). Before the counted runs the
garbage collector collects and freezes what exists (`gc.freeze`), so that the
objects start-up and the imports made, which change with any module's code,
do not change how much the runs' collections traverse. Counting the whole
process instead (start, imports and all) varied by about 1% from one process
to the next.

`--durable` counts bench durable_chain's runs instead (issue 44: what a checkpoint
adds to a run): its chain with 0 ms nodes, 60 and then 160 runs at once under a
limit of 50, in one event loop each, without a checkpoint, with one SQLiteStore
and with the file's path given to each run, the Graph shared or built per run;
the difference of the two counts over 100 runs is one run.
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
import functools
import gc
import sys
import graphrt
from graphrt.graphdata.loader import parse_graph_text

path, warmup, runs, build = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
data, _ = parse_graph_text(open(path, encoding="utf-8").read(), file=path)
graph = graphrt.Graph(data)
for index in range(warmup):
    graph.run(run_id=f"warmup{index}")


def run(_, index):
    (graphrt.Graph(data) if build else graph).run(run_id=f"run{index:06}")


gc.collect()
gc.freeze()  # what start-up and the imports made is not traversed by the runs' collections
functools.reduce(run, range(runs), None)  # what callgrind counts
"""

# `--durable`: bench durable_chain's runs (0 ms nodes, `count` at once under a limit of 50), with a checkpoint or
# without, after two warm-up batches; one anyio.run inside reduce, counted for two counts whose difference is kept.
_DURABLE_CHILD = """
import functools
import gc
import sys
from pathlib import Path

import anyio

import graphrt
from graphrt.durable import arun_checkpointed

folder, store, per_run, count = Path(sys.argv[1]), sys.argv[2], sys.argv[3] == "1", int(sys.argv[4])
path = folder / "chain.yaml"
shared = graphrt.Graph(path)
if store == "sqlite":
    from graphrt.checkpoint import SQLiteStore

    target = SQLiteStore(folder / "chain.db")
else:
    target = str(folder / "chain-path.db") if store == "sqlite path" else None


async def batch(runs):
    limiter = anyio.CapacityLimiter(50)

    async def one(n):
        async with limiter:
            graph = graphrt.Graph(path) if per_run else shared
            result = await (graph.arun(inject={"n": n}) if target is None else
                            arun_checkpointed(graph, target, inject={"n": n}))
        assert "c" in result, result

    async with anyio.create_task_group() as tg:
        for n in range(runs):
            tg.start_soon(one, n)


anyio.run(batch, 20)
anyio.run(batch, 20)
gc.collect()
gc.freeze()
functools.reduce(lambda _, __: anyio.run(batch, count), range(1), None)  # what callgrind counts
"""

_TOTAL = re.compile(rb"^(?:summary|totals):\s+(\d+)", re.MULTILINE)


def _count(path: Path, warmup: int, runs: int, build: bool) -> int:
    """The instructions `runs` runs execute, after `warmup` runs in the same process."""
    return _counted([_CHILD, str(path), str(warmup), str(runs), "1" if build else "0"])


def _counted(child: list[str]) -> int:
    """The instructions the child (`python -c` and its arguments) executes inside functools.reduce."""
    with tempfile.TemporaryDirectory(prefix="graphrt-callgrind-") as folder:
        out = Path(folder) / "callgrind.out"
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--dump-instr=no", "--compress-strings=no",
             "--collect-atstart=no", "--toggle-collect=functools_reduce", sys.executable, "-c", *child],
            check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        found = _TOTAL.search(out.read_bytes())
        if found is None or int(found.group(1)) == 0:
            raise SystemExit(f"bench.callgrind: nothing counted in {out} (does this Python have its symbols?)")
        return int(found.group(1))


def instructions_per_run(name: str, runs: int = 10, warmup: int = 2, build: bool = False,
                         repeat: int = 1) -> list[int]:
    """The instructions one run of workload `name` costs, by each of `repeat` counts (see the module docstring)."""
    path = workload_file(get(name), None)
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    subprocess.run([sys.executable, "-c", _CHILD, str(path), "1", "0", "0"], check=True, env=env,
                   stdout=subprocess.DEVNULL)  # writes the bytecode cache, which no count should include
    return [round(_count(path, warmup, runs, build) / runs) for _ in range(repeat)]


def durable_instructions_per_run(store: str, per_run: bool, few: int = 60, many: int = 160) -> int:
    """The instructions one of bench durable_chain's runs costs (its nodes take 0 ms), `few` and then `many` at once
    under a limit of 50: the difference of the two counts over `many - few` runs, so that starting the event loop
    and ending the batch are not in it. `store`: none, sqlite (one SQLiteStore) or sqlite path."""
    from .durable_chain import GRAPH

    with tempfile.TemporaryDirectory(prefix="graphrt-callgrind-") as temporary:
        folder = Path(temporary)
        (folder / "chain.yaml").write_text(GRAPH.replace("duration: 20", "duration: 0"), encoding="utf-8")
        counts = [_counted([_DURABLE_CHILD, str(folder), store, "1" if per_run else "0", str(count)])
                  for count in (few, many)]
    return round((counts[1] - counts[0]) / (many - few))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.callgrind", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("workloads", nargs="*", help="e.g. chain fan_out map_rows counter_count")
    parser.add_argument("--durable", action="store_true",
                        help="bench durable_chain's runs (0 ms nodes), without a checkpoint and with SQLite, the Graph "
                             "shared and built per run (the difference of 160 and 60 runs at once)")
    parser.add_argument("--runs", type=int, default=10, help="runs counted (default 10)")
    parser.add_argument("--warmup", type=int, default=2, help="runs before, in both processes (default 2)")
    parser.add_argument("--build", action="store_true", help="build the Graph with each counted run")
    parser.add_argument("--repeat", type=int, default=1, help="counts per workload, the median reported (default 1)")
    args = parser.parse_args(argv)
    if args.durable:
        for per_run in (False, True):
            for store in ("none", "sqlite", "sqlite path"):
                count = durable_instructions_per_run(store, per_run)
                print(f"durable_chain  graph {'per run' if per_run else 'shared':7}  {store:11} {count:>12,} "
                      "instructions per run", flush=True)
    for name in args.workloads:
        counts = instructions_per_run(name, args.runs, args.warmup, args.build, args.repeat)
        print(f"{name:16} {round(statistics.median(counts)):>14,} instructions per run"
              f"{' (with building the Graph)' if args.build else ''}; counts {min(counts):,}–{max(counts):,}",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
