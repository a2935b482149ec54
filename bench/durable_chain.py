"""`python -m bench durable_chain`: the fixed cost of a checkpointed run, on short nodes where it shows.

The workload of issue 44: a chain of three 20 ms I/O nodes, run `--runs` (200) times at once under a
limit of `--limit` (50) concurrent runs, saved to one SQLite file through `arun_checkpointed`, against
the same runs without a checkpoint (`Graph.arun`). A 50 ms node (`python -m bench durable`) hides what
a run pays once, whatever its nodes do: the record, the claim, the end, the Python around them. Here
each run's nodes take 60 ms in all, so that cost is a larger share of the wall time.

Each row is a configuration, run in a process of its own, configurations taking turns round after round:

- graph: `shared`, one `Graph` for every run, or `per run`, a `Graph` built for each (as a server or a
  script that loads the graph for each request does); the ratio is to the runs without a checkpoint
  built the same way;
- checkpoint: `none`; `sqlite`, one `SQLiteStore` that every run is given; `sqlite path`, the file's
  path given to each run (each opens the file, as `graphrt run --checkpoint` does); `postgres`, one
  `PostgresStore` on a throwaway cluster on 127.0.0.1 with the server's default durability (when
  initdb is installed).

A round's figures are the wall time of all the runs, each run's median latency (p50) and the process's
CPU time; the table gives each figure's median and range over the rounds, the ratio of the medians to
the same graph without a checkpoint, the CPU a checkpointed run adds, and the load average beside
them (the machine's other work is what makes rounds disagree).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .durable import _percentile, _pg_bin, _Postgres

__all__ = ["main"]

GRAPH = """\
version: 0.5
nodes:
  n:
    value: 0
  a:
    agent: sleeperAgent
    params:
      duration: 20
    inputs:
      n: :n
  b:
    agent: sleeperAgent
    params:
      duration: 20
    inputs:
      a: :a
  c:
    agent: sleeperAgent
    params:
      duration: 20
    inputs:
      b: :b
    isResult: true
"""
WARMUP = 20
GRAPHS = ("shared", "per run")
STORES = ("none", "sqlite", "sqlite path", "postgres")


# ----- the runner (one configuration, in its own process) -----


async def _runs(folder: Path, graphs: str, store: str, url: str | None, runs: int, limit: int) -> dict[str, Any]:
    import anyio

    import graphrt
    from graphrt.durable import arun_checkpointed

    path = folder / "chain.yaml"
    shared = graphrt.Graph(path)
    target: Any = None
    if store == "sqlite":
        from graphrt.checkpoint import SQLiteStore

        target = SQLiteStore(folder / f"chain-{os.getpid()}.db")
    elif store == "sqlite path":
        target = str(folder / f"chain-{os.getpid()}.db")
    elif store == "postgres":
        from graphrt.checkpoint.postgres import PostgresStore

        target = PostgresStore(url)

    async def one(n: int) -> Any:
        graph = shared if graphs == "shared" else graphrt.Graph(path)
        if target is None:
            return await graph.arun(inject={"n": n})
        return await arun_checkpointed(graph, target, inject={"n": n})

    async def batch(count: int) -> dict[str, Any]:
        limiter = anyio.CapacityLimiter(limit)
        latencies = [0.0] * count

        async def timed(n: int) -> None:
            started = time.perf_counter()
            async with limiter:
                result = await one(n)
            latencies[n] = time.perf_counter() - started
            if not isinstance(result, dict) or "c" not in result:
                raise SystemExit(f"bench durable_chain: run {n} gave {result!r}")

        started, cpu = time.perf_counter(), time.process_time()
        async with anyio.create_task_group() as tg:
            for n in range(count):
                tg.start_soon(timed, n)
        return {"wall": time.perf_counter() - started, "cpu": time.process_time() - cpu,
                "p50": _percentile(latencies, 0.5)}

    try:
        await batch(WARMUP)
        return await batch(runs)
    finally:
        if target is not None and not isinstance(target, str):
            await target.close()


# ----- the driver -----


def measure(rounds: int, runs: int, limit: int, postgres: bool = True,
            baseline: Path | None = None) -> tuple[dict[tuple[str, str], list[dict]], str]:
    """Every configuration's figures per round, and what was left out and why.

    `baseline`: another tree (a checkout of main, say) whose graphrt runs the same rows, labelled `base: ...`, in
    the same rounds: the two builds measured side by side under the same load."""
    missing = ""
    server = _Postgres() if postgres and _pg_bin("initdb") and _pg_bin("pg_ctl") else None
    if server is None:
        missing = "postgres rows: initdb and pg_ctl not found" if postgres else "postgres rows: --no-postgres"
    url = server.start() if server is not None else None
    stores = [store for store in STORES if store != "postgres" or server is not None]
    results: dict[tuple[str, str], list[dict]] = {}
    try:
        with tempfile.TemporaryDirectory() as temporary:
            folder = Path(temporary)
            (folder / "chain.yaml").write_text(GRAPH, encoding="utf-8")
            trees = [("", Path(__file__).resolve().parent.parent)]
            if baseline is not None:
                trees.append(("base: ", baseline))
            for round_ in range(rounds):
                for graphs in GRAPHS:
                    for store in stores:
                        for label, tree in trees:
                            # The runner imports graphrt from `tree`: this one's, or the baseline's.
                            argv = [sys.executable, "-m", "bench.durable_chain", "--runner", graphs, store,
                                    str(folder), url or "", str(runs), str(limit), str(tree)]
                            done = subprocess.run(argv, capture_output=True, text=True,
                                                  cwd=Path(__file__).resolve().parent.parent)
                            if done.returncode != 0:
                                raise SystemExit(f"bench durable_chain: {label}{graphs} {store} failed:\n"
                                                 f"{done.stderr[-2000:]}")
                            figures = json.loads(done.stdout.strip().splitlines()[-1])
                            figures["load"] = os.getloadavg()[0]
                            results.setdefault((f"{label}{graphs}", store), []).append(figures)
                            print(f"round {round_ + 1}: graph {label}{graphs:7s} {store:11s} "
                                  f"wall {figures['wall'] * 1000:6.0f} ms"
                                  f"  p50 {figures['p50'] * 1000:6.1f} ms  cpu {figures['cpu'] * 1000:5.0f} ms"
                                  f"  load {figures['load']:.1f}", file=sys.stderr, flush=True)
    finally:
        if server is not None:
            server.stop()
    return results, missing


def table(results: dict[tuple[str, str], list[dict]], runs: int) -> str:
    lines = ["| graph | checkpoint | wall ms (range) | p50 ms | CPU ms | wall ÷ none | CPU added per run | load |",
             "|---|---|---:|---:|---:|---:|---:|---|"]
    for (graphs, store), rounds in results.items():
        walls = [r["wall"] * 1000 for r in rounds]
        wall, p50 = statistics.median(walls), statistics.median(r["p50"] for r in rounds) * 1000
        cpu = statistics.median(r["cpu"] for r in rounds) * 1000
        base = results[(graphs, "none")]
        base_wall = statistics.median(r["wall"] for r in base) * 1000
        base_cpu = statistics.median(r["cpu"] for r in base) * 1000
        loads = [r["load"] for r in rounds]
        lines.append(f"| {graphs} | {store} | {wall:.0f} ({min(walls):.0f}–{max(walls):.0f}) | {p50:.1f} | {cpu:.0f} | "
                     f"{wall / base_wall:.2f}× | {(cpu - base_cpu) / runs:.2f} ms | {min(loads):.1f}–{max(loads):.1f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench durable_chain", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--limit", type=int, default=50)
    parser.add_argument("--no-postgres", action="store_true", help="leave the PostgreSQL rows out")
    parser.add_argument("--baseline", type=Path, metavar="DIR",
                        help="also run graphrt from another tree (e.g. `git archive main | tar -x -C DIR`), round by round")
    parser.add_argument("--runner", nargs=7, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.runner:
        import anyio

        graphs, store, folder, url, count, limit, tree = args.runner
        sys.path.insert(0, tree)  # the graphrt measured: this tree's, or the baseline's
        figures = anyio.run(_runs, Path(folder), graphs, store, url or None, int(count), int(limit))
        print(json.dumps(figures))
        return 0
    from .machine import describe

    machine = describe()
    print(f"{machine['machine']}; load average at start {machine['load average at start']}", flush=True)
    results, missing = measure(args.rounds, args.runs, args.limit, not args.no_postgres,
                               args.baseline.resolve() if args.baseline else None)
    print(f"{args.runs} runs of a chain of three 20 ms nodes at once, limit {args.limit}; medians of "
          f"{args.rounds} rounds")
    print(table(results, args.runs))
    if missing:
        print(f"\nleft out: {missing}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
