"""`python -m bench durable`: what saving a run as it goes costs, graphrt and LangGraph side by side.

The workload of issue 26: a graph with one 50 ms I/O node, run `--runs` (200) times
at once under a limit of `--limit` (50) concurrent runs, and `--sequential` (50)
times one at a time; each engine without a checkpoint and with each of its stores:

- graphrt: `Graph.arun` against `arun_checkpointed(graph, store)` (SQLite file; PostgreSQL
  when initdb is installed: a throwaway cluster on 127.0.0.1 with the server's default
  durability, fsync and synchronous_commit on);
- LangGraph: `ainvoke` against the same graph compiled with `AsyncSqliteSaver`
  (langgraph-checkpoint-sqlite, in the bench extra), a thread per run.

GraphAI has no checkpoint store, so it has no row here. Each configuration runs in a
process of its own, configurations taking turns round after round; a round's figures
are its runs' median latency (p50), p99, wall time for all the runs and the process's
CPU time; the table gives each figure's median over the rounds, and the ratio to the
same engine without a checkpoint. The figures go to bench/results/durable_latest.json (git-ignored), which
`python -m bench report` draws.
"""

from __future__ import annotations

import argparse
import json
import os
import pwd
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

__all__ = ["main"]

RESULTS = Path(__file__).resolve().parent / "results"

GRAPH = """\
version: 0.5
nodes:
  n:
    value: 0
  io:
    agent: sleeperAgent
    params:
      duration: 50
    inputs:
      n: :n
    isResult: true
"""
WARMUP = 20


# ----- the runner (one configuration, in its own process) -----


async def _graphrt_runs(folder: Path, store: str, url: str | None, batches: list[tuple[int, int]]) -> list[dict[str, Any]]:
    import anyio

    import graphrt
    from graphrt.durable import arun_checkpointed

    graph = graphrt.Graph(folder / "io.yaml")
    opened: Any = None
    if store == "sqlite":
        from graphrt.checkpoint import SQLiteStore

        opened = SQLiteStore(folder / f"graphrt-{os.getpid()}.db")
    elif store == "postgres":
        from graphrt.checkpoint.postgres import PostgresStore

        opened = PostgresStore(url)

    async def one(n: int) -> Any:
        if opened is None:
            return await graph.arun(inject={"n": n})
        return await arun_checkpointed(graph, opened, inject={"n": n})

    try:
        return [await _timed(one, runs, limit, anyio) for runs, limit in batches]
    finally:
        if opened is not None:
            await opened.close()


async def _langgraph_runs(folder: Path, store: str, url: str | None, batches: list[tuple[int, int]]) -> list[dict[str, Any]]:
    import asyncio
    import contextlib

    import anyio
    from langgraph.graph import END, START, StateGraph
    from typing_extensions import TypedDict

    class State(TypedDict, total=False):
        n: int
        io: dict

    async def io(state: State) -> State:
        await asyncio.sleep(0.05)
        return {"io": {"n": state["n"]}}

    builder = StateGraph(State)
    builder.add_node("io", io)
    builder.add_edge(START, "io")
    builder.add_edge("io", END)
    async with contextlib.AsyncExitStack() as stack:
        saver = None
        if store == "sqlite":
            from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

            saver = await stack.enter_async_context(
                AsyncSqliteSaver.from_conn_string(str(folder / f"langgraph-{os.getpid()}.db")))
        compiled = builder.compile(checkpointer=saver)
        counter = iter(range(10**9))

        async def one(n: int) -> Any:
            config = {"configurable": {"thread_id": f"t{next(counter)}"}} if saver is not None else None
            result = await compiled.ainvoke({"n": n}, config)
            return {"io": result["io"]}

        return [await _timed(one, runs, limit, anyio) for runs, limit in batches]


async def _timed(one: Any, runs: int, limit: int, anyio: Any) -> dict[str, Any]:
    """Each run's latency (start to result), `runs` at once under `limit`, with the wall and CPU time
    of them all; results checked."""
    limiter = anyio.CapacityLimiter(limit)
    latencies = [0.0] * runs

    async def timed(n: int) -> None:
        started = time.perf_counter()
        async with limiter:
            result = await one(n)
        latencies[n] = time.perf_counter() - started
        if result != {"io": {"n": n}}:
            raise SystemExit(f"bench durable: run {n} gave {result!r}")

    started, cpu = time.perf_counter(), time.process_time()
    async with anyio.create_task_group() as tg:
        for n in range(runs):
            tg.start_soon(timed, n)
    return {"latencies": latencies, "wall": time.perf_counter() - started, "cpu": time.process_time() - cpu}


def _runner(engine: str, store: str, mode: str, folder: Path, url: str | None, runs: int, limit: int) -> None:
    import anyio

    many = _graphrt_runs if engine == "graphrt" else _langgraph_runs
    # One store (one connection) for the warm-up and the timed runs: one batch of them, or one run at a time.
    timed = [(runs, limit)] if mode == "concurrent" else [(1, 1)] * runs
    batches = anyio.run(many, folder, store, url, [(WARMUP, limit), *timed])[1:]
    latencies = [latency for batch in batches for latency in batch["latencies"]]
    print(json.dumps({"wall": sum(batch["wall"] for batch in batches), "cpu": sum(batch["cpu"] for batch in batches),
                      "p50": _percentile(latencies, 0.5), "p99": _percentile(latencies, 0.99)}))


# ----- PostgreSQL for the bench: a throwaway cluster, default durability -----


class _Postgres:
    def __init__(self) -> None:
        self.bin = _pg_bin("initdb"), _pg_bin("pg_ctl")
        self.folder = Path(tempfile.mkdtemp(prefix="bench-pg-"))
        self.port = _free_port()
        self._as: list[str] = []
        if os.geteuid() == 0:  # initdb and postgres refuse to run as root
            user = "postgres" if _has_user("postgres") else "nobody"
            shutil.chown(self.folder, user)
            self._as = ["runuser", "-u", user, "--"]

    def start(self) -> str:
        initdb, pg_ctl = self.bin
        data = self.folder / "data"
        subprocess.run([*self._as, initdb, "-D", str(data), "-A", "trust", "-U", "bench", "-E", "UTF8"],
                       check=True, capture_output=True)
        subprocess.run([*self._as, pg_ctl, "-D", str(data), "-o", f"-h 127.0.0.1 -p {self.port} -k {self.folder}",
                        "-l", str(self.folder / "log"), "-w", "start"], check=True, capture_output=True)
        return f"postgresql://bench@127.0.0.1:{self.port}/postgres"

    def stop(self) -> None:
        subprocess.run([*self._as, self.bin[1], "-D", str(self.folder / "data"), "-m", "fast", "stop"],
                       capture_output=True)
        shutil.rmtree(self.folder, ignore_errors=True)


def _pg_bin(name: str) -> str | None:
    import glob

    found = shutil.which(name) or (sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}")) or [None])[-1]
    return found


def _has_user(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# ----- the driver -----


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def _configurations(postgres: bool, langgraph: bool, baseline: bool = False) -> list[tuple[str, str]]:
    listed = [("graphrt", "none"), ("graphrt", "sqlite")]
    if postgres:
        listed.append(("graphrt", "postgres"))
    if baseline:  # the same rows with another tree's graphrt, taking turns with this one's
        listed += [("baseline", store) for _, store in list(listed)]
    if langgraph:
        listed += [("langgraph", "none"), ("langgraph", "sqlite")]
    return listed


def measure(rounds: int, runs: int, limit: int, sequential: int, baseline: Path | None = None,
            langgraph: bool = True) -> tuple[dict[tuple[str, str, str], list[dict]], str]:
    """Every configuration's figures per round, and what was left out and why.

    `baseline`: another tree (a checkout of main, say) whose graphrt runs the same rows as "baseline",
    in the same rounds: the two builds measured side by side under the same load."""
    missing = []
    if langgraph:
        try:
            import langgraph.checkpoint.sqlite.aio as _  # noqa: F401
        except ImportError:
            langgraph = False
            missing.append("LangGraph rows: pip install -e '.[bench]' (langgraph, langgraph-checkpoint-sqlite)")
    server = _Postgres() if _pg_bin("initdb") and _pg_bin("pg_ctl") else None
    if server is None:
        missing.append("graphrt + PostgreSQL: initdb and pg_ctl not found")
    url = server.start() if server is not None else None
    results: dict[tuple[str, str, str], list[dict]] = {}
    try:
        with tempfile.TemporaryDirectory() as temporary:
            folder = Path(temporary)
            (folder / "io.yaml").write_text(GRAPH, encoding="utf-8")
            for round_ in range(rounds):
                for mode, count in (("concurrent", runs), ("sequential", sequential)):
                    for engine, store in _configurations(server is not None, langgraph, baseline is not None):
                        # The runner imports graphrt from its working folder: this tree's, or the baseline's.
                        tree = baseline if engine == "baseline" else Path(__file__).parent.parent
                        argv = [sys.executable, "-m", "bench.durable", "--runner",
                                "graphrt" if engine == "baseline" else engine, store, mode, str(folder),
                                url or "", str(count), str(limit)]
                        done = subprocess.run(argv, capture_output=True, text=True, cwd=tree)
                        if done.returncode != 0:
                            raise SystemExit(f"bench durable: {engine} {store} {mode} failed:\n{done.stderr[-2000:]}")
                        figures = json.loads(done.stdout.strip().splitlines()[-1])
                        figures["load"] = os.getloadavg()[0]  # other work on the machine: what makes rounds disagree
                        results.setdefault((engine, store, mode), []).append(figures)
                        print(f"round {round_ + 1}: {engine:9s} {store:8s} {mode:10s} p50 {figures['p50'] * 1000:7.1f} ms"
                              f"  wall {figures['wall'] * 1000:7.0f} ms  cpu {figures['cpu'] * 1000:6.0f} ms"
                              f"  load {figures['load']:.1f}",
                              file=sys.stderr, flush=True)
    finally:
        if server is not None:
            server.stop()
    return results, "; ".join(missing)


def table(results: dict[tuple[str, str, str], list[dict]], runs: int, limit: int, sequential: int) -> str:
    lines = ["| engine | checkpoint | runs | p50 ms | p99 ms | wall ms | CPU ms | p50 ÷ none | wall ÷ none |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for mode, label in (("concurrent", f"{runs} at once, limit {limit}"), ("sequential", f"{sequential} one at a time")):
        for (engine, store, each_mode), rounds in results.items():
            if each_mode != mode:
                continue
            median = {key: statistics.median(r[key] for r in rounds) * 1000 for key in ("p50", "p99", "wall", "cpu")}
            base = results[(engine, "none", mode)]
            base_p50 = statistics.median(r["p50"] for r in base) * 1000
            base_wall = statistics.median(r["wall"] for r in base) * 1000
            lines.append(f"| {engine} | {store} | {label} | {median['p50']:.1f} | {median['p99']:.1f} | "
                         f"{median['wall']:.0f} | {median['cpu']:.0f} | {median['p50'] / base_p50:.2f}× | "
                         f"{median['wall'] / base_wall:.2f}× |")
    loads = [r["load"] for rounds in results.values() for r in rounds if "load" in r]
    if loads:
        lines.append(f"\nload average (1 min) while measuring: {min(loads):.1f} to {max(loads):.1f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench durable", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--limit", type=int, default=50)
    parser.add_argument("--sequential", type=int, default=50)
    parser.add_argument("--baseline", type=Path, metavar="DIR",
                        help="also run graphrt from another tree (e.g. `git archive main | tar -x -C DIR`), round by round")
    parser.add_argument("--no-langgraph", action="store_true", help="leave LangGraph's rows out")
    parser.add_argument("--runner", nargs=7, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.runner:
        engine, store, mode, folder, url, count, limit = args.runner
        _runner(engine, store, mode, Path(folder), url or None, int(count), int(limit))
        return 0
    from .machine import describe

    machine = describe()
    results, missing = measure(args.rounds, args.runs, args.limit, args.sequential,
                               args.baseline.resolve() if args.baseline else None, not args.no_langgraph)
    RESULTS.mkdir(exist_ok=True)  # what `python -m bench report` draws
    (RESULTS / "durable_latest.json").write_text(json.dumps({
        "machine": machine, "settings": {"runs": args.runs, "limit": args.limit, "sequential": args.sequential},
        "results": [{"engine": engine, "store": store, "mode": mode, "rounds": rounds}
                    for (engine, store, mode), rounds in results.items()]}, indent=1) + "\n")
    print(table(results, args.runs, args.limit, args.sequential))
    if missing:
        print(f"\nleft out: {missing}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
