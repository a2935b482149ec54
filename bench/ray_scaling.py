"""`python -m bench.ray_scaling`: a mapAgent in-process and on Ray (2 workers), side by side in one run.

    .venv/bin/pip install -e '.[ray]'
    .venv/bin/python -m bench.ray_scaling                    # 2,000 rows of 20 ms CPU, 2,000 of 50 ms I/O
    .venv/bin/python -m bench.ray_scaling --rows 500 --quick

Workloads (the same graph file for both executors; only `executor=` changes):
- cpu: a mapAgent over N rows whose agent spins 20 ms of pure-Python work (it holds the GIL);
- io: a mapAgent over N rows whose agent waits 50 ms (an async sleep, as an HTTP call would);
- overhead: a chain of nodes that do no work (latency per call) and a map of rows that do none
  (throughput), from which the per-task cost of the Ray executor follows; the driver's own
  CPU time per task is what caps a single driver on a large cluster (BENCHMARKS.md).

Ray is started once (`num_cpus=2`, no dashboard) and warmed up before anything is timed.
Writes bench/results/ray_latest.json (git-ignored) and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path
from typing import Any

import anyio

import graphrt
from graphrt.authoring.agent_info import AgentContext, AgentInfo

RESULTS = Path(__file__).resolve().parent / "results"


def work(steps: int) -> int:
    """A fixed amount of pure-Python CPU work (it holds the GIL throughout)."""
    total = 0
    for i in range(steps):
        total = (total + (i & 255) * 3) & 0xFFFF  # small ints: every step costs the same
    return total


def steps_for(ms: float) -> int:
    """How many steps of `work` take `ms` milliseconds of CPU time (the fastest of 7 tries)."""
    trial = 200_000
    times = []
    for _ in range(7):
        started = time.process_time()  # CPU time: the machine's other load does not count
        work(trial)
        times.append(time.process_time() - started)
    return int(trial * (ms / 1000) / min(times))


def parallel_capacity(steps: int) -> float:
    """How much faster two processes do `steps` of work than one, on this machine now (the floor for Ray's gain).

    2.0 on two idle cores; on a shared machine, whatever the other load leaves.
    """
    import multiprocessing

    started = time.perf_counter()
    work(steps)
    alone = time.perf_counter() - started
    context = multiprocessing.get_context("fork")
    halves = [context.Process(target=work, args=(steps // 2,)) for _ in range(2)]
    started = time.perf_counter()
    for process in halves:
        process.start()
    for process in halves:
        process.join()
    return alone / (time.perf_counter() - started)


def spin(ctx: AgentContext) -> int:
    """`params.steps` of CPU work: the same work wherever it runs (a wall-clock spin would not be)."""
    work(ctx.params["steps"])
    return ctx.inputs["row"]


async def wait(ctx: AgentContext) -> int:
    """I/O-like: waits `params.ms` milliseconds without using the CPU."""
    await anyio.sleep(ctx.params["ms"] / 1000)
    return ctx.inputs["row"]


def echo(ctx: AgentContext) -> dict[str, Any]:
    """No work: its inputs back, as copyAgent does. copyAgent is `runs_local` (cheaper in the driver than a trip to a
    worker), so it never reaches Ray; this one does, and what a call costs on Ray is then Ray's own."""
    return dict(ctx.inputs)


NO_WORK = "benchEchoAgent"
"""The agent of the overhead workloads (the map of trivial rows, the chain): every call a Ray task."""

AGENTS = [AgentInfo("benchSpinAgent", spin), AgentInfo("benchWaitAgent", wait), AgentInfo(NO_WORK, echo)]


def map_graph(rows: int, agent: str, params: dict[str, Any], concurrency: int) -> dict[str, Any]:
    return {
        "version": 0.5,
        "concurrency": concurrency,
        "nodes": {
            "rows": {"value": list(range(rows))},
            "map": {"agent": "mapAgent", "inputs": {"rows": ":rows"}, "isResult": True,
                    "graph": {"nodes": {"work": {"agent": agent, "params": params, "inputs": {"row": ":row"},
                                                 "isResult": True}}}},
        },
    }


def chain_graph(length: int) -> dict[str, Any]:
    nodes: dict[str, Any] = {"n0": {"value": {"v": 1}}}
    for i in range(1, length + 1):
        nodes[f"n{i}"] = {"agent": NO_WORK, "inputs": {"v": f":n{i - 1}.v"}}
    nodes[f"n{length}"]["isResult"] = True
    return {"version": 0.5, "nodes": nodes}


def ray_processes_cpu() -> float:
    """CPU seconds used so far by this machine's Ray processes: workers, raylet, GCS and the other daemons."""
    import psutil  # Ray ships it

    total = 0.0
    for process in psutil.process_iter(["cmdline"]):
        command = " ".join(process.info["cmdline"] or [])
        if "ray::" in command or "/ray/" in command:
            try:
                times = process.cpu_times()
            except psutil.Error:
                continue
            total += times.user + times.system
    return total


def timed(graph: dict[str, Any], executor: Any) -> dict[str, Any]:
    """Wall, driver-CPU and (on Ray) Ray-processes-CPU seconds of one run; the caller checks the result."""
    on_ray = executor is not None
    ray_cpu = ray_processes_cpu() if on_ray else 0.0
    cpu, wall = time.process_time(), time.perf_counter()
    result = graphrt.run(graph, agents=AGENTS, executor=executor)
    outcome = {"wall_s": time.perf_counter() - wall, "driver_cpu_s": time.process_time() - cpu, "result": result}
    if on_ray:
        outcome["ray_cpu_s"] = ray_processes_cpu() - ray_cpu
    return outcome


def check_map(outcome: dict[str, Any], rows: int) -> None:
    got = [row["work"] for row in outcome.pop("result")["map"]]
    assert got == list(range(rows)), "wrong map result"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ray_scaling", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--cpu-ms", type=float, default=20)
    parser.add_argument("--io-ms", type=float, default=50)
    parser.add_argument("--concurrency", type=int, default=8, help="the graphs' concurrency limit (GraphAI's default: 8)")
    parser.add_argument("--chain", type=int, default=300, help="nodes in the latency chain")
    parser.add_argument("--quick", action="store_true", help="a quarter of the rows")
    args = parser.parse_args(argv)
    rows = args.rows // 4 if args.quick else args.rows

    import ray

    from graphrt.executors.ray import RayExecutor, start_local_ray

    load_before = os.getloadavg()
    steps = steps_for(args.cpu_ms)  # before Ray starts: its start-up takes the CPU for seconds
    capacity_before = parallel_capacity(steps * 100)
    started = time.perf_counter()
    # Ray keeps as many idle workers as CPUs and ends the others after a second; the I/O rows want
    # `concurrency` workers (a quarter CPU each) to stay between runs, as a service's would.
    # Ray runs its workers at niceness 15 (to keep its own daemons responsive on a busy node); on this machine,
    # shared with other work, that starves them against the in-process engine at 0: both run at 0 here.
    start_local_ray(num_cpus=2, include_dashboard=False, log_to_driver=False,
                    _system_config={"num_workers_soft_limit": args.concurrency, "worker_niceness": 0})
    ray_start_s = time.perf_counter() - started
    # I/O rows hold no CPU: a quarter CPU each lets `concurrency` of them wait at once on 2 CPUs.
    io_share = 2 / args.concurrency
    on_ray = RayExecutor(agent_options={"benchWaitAgent": {"num_cpus": io_share}})
    anyio.run(on_ray.open)  # made here, so opened here once and closed at the end; the runs borrow it
    cpu_params, io_params = {"steps": steps}, {"ms": args.io_ms}
    # Warm up: every worker process started (waits long enough that all `concurrency` run at once), agents shipped.
    for _ in range(2):
        graphrt.run(map_graph(2 * args.concurrency, "benchWaitAgent", {"ms": 500}, args.concurrency), agents=AGENTS,
                    executor=on_ray)
        graphrt.run(map_graph(8, "benchSpinAgent", cpu_params, args.concurrency), agents=AGENTS, executor=on_ray)

    table: dict[str, dict[str, Any]] = {}
    for name, graph in (("cpu", map_graph(rows, "benchSpinAgent", cpu_params, args.concurrency)),
                        ("io", map_graph(rows, "benchWaitAgent", io_params, args.concurrency)),
                        ("trivial_map", map_graph(rows, NO_WORK, {}, args.concurrency))):
        entry = {}
        for label, executor in (("in_process", None), ("ray", on_ray)):
            outcome = timed(graph, executor)
            if name == "trivial_map":
                outcome.pop("result")
            else:
                check_map(outcome, rows)
            entry[label] = outcome
            print(f"{name:12} {label:10} {outcome['wall_s']:8.2f} s wall, {outcome['driver_cpu_s']:7.2f} s driver CPU"
                  + (f", {outcome['ray_cpu_s']:7.2f} s Ray processes CPU" if "ray_cpu_s" in outcome else ""), flush=True)
        table[name] = entry
    chain = {}
    for label, executor in (("in_process", None), ("ray", on_ray)):
        outcome = timed(chain_graph(args.chain), executor)
        assert outcome.pop("result") == {f"n{args.chain}": {"v": 1}}
        chain[label] = outcome
        print(f"{'chain':12} {label:10} {outcome['wall_s']:8.2f} s wall, {outcome['driver_cpu_s']:7.2f} s driver CPU",
              flush=True)
    table["chain"] = chain
    anyio.run(on_ray.close)
    ray.shutdown()
    capacity_after = parallel_capacity(steps * 100)

    per_call_ms = (chain["ray"]["wall_s"] - chain["in_process"]["wall_s"]) / args.chain * 1000
    trivial = table["trivial_map"]
    per_task_ms = (trivial["ray"]["wall_s"] - trivial["in_process"]["wall_s"]) / rows * 1000
    driver_ms = trivial["ray"]["driver_cpu_s"] / rows * 1000
    cluster_ms = trivial["ray"]["ray_cpu_s"] / rows * 1000
    summary = {
        "rows": rows, "cpu_ms": args.cpu_ms, "cpu_steps": steps, "io_ms": args.io_ms, "concurrency": args.concurrency,
        "ray_start_s": ray_start_s, "io_num_cpus": io_share,
        "cpu_speedup": table["cpu"]["in_process"]["wall_s"] / table["cpu"]["ray"]["wall_s"],
        "io_ratio": table["io"]["ray"]["wall_s"] / table["io"]["in_process"]["wall_s"],
        "latency_per_call_ms": per_call_ms, "overhead_per_task_ms": per_task_ms, "driver_cpu_per_task_ms": driver_ms,
        "ray_cpu_per_task_ms": cluster_ms,
        "machine": {"nproc": os.cpu_count(), "python": platform.python_version(), "ray": ray.__version__},
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load_average_before_after": [load_before, os.getloadavg()],
        "two_process_speedup_before_after": [capacity_before, capacity_after],
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "ray_latest.json").write_text(json.dumps({"summary": summary, "runs": table}, indent=2))
    print()
    print("| workload | rows | in-process s | Ray (2 workers) s | in-process / Ray |")
    print("|---|---:|---:|---:|---:|")
    for name, label in (("cpu", f"{args.cpu_ms:g} ms CPU"), ("io", f"{args.io_ms:g} ms I/O"),
                        ("trivial_map", "no work")):
        local, remote = table[name]["in_process"]["wall_s"], table[name]["ray"]["wall_s"]
        print(f"| map, {label} | {rows:,} | {local:.2f} | {remote:.2f} | {local / remote:.2f}× |")
    print(f"| chain of {args.chain}, no work | 1 at a time | {chain['in_process']['wall_s']:.2f} | "
          f"{chain['ray']['wall_s']:.2f} | {chain['in_process']['wall_s'] / chain['ray']['wall_s']:.2f}× |")
    print()
    print(f"Ray executor: {per_call_ms:.2f} ms more per call in a chain (latency), {per_task_ms:.2f} ms per task in a "
          f"map at concurrency {args.concurrency} (throughput), {driver_ms:.2f} ms of driver CPU and {cluster_ms:.2f} ms of "
          f"Ray's (workers, raylet) per task; "
          f"local Ray start {ray_start_s:.1f} s")
    print(f"load average before {load_before[0]:.1f}, after {os.getloadavg()[0]:.1f}; two processes vs one on the "
          f"same work, before and after: {capacity_before:.2f}×, {capacity_after:.2f}× (the most any executor could gain)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
