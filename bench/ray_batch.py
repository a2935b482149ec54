"""`python -m bench ray_batch`: a batch of rows on a real multi-node Ray cluster on this machine, against in-process.

    .venv/bin/python -m bench ray_batch                 # 1,000 rows of 100 ms I/O on 1, 2, 4 nodes; ~8 min
    .venv/bin/python -m bench ray_batch --rows 200      # a quick look

What one run measures, side by side:
- the batch (`graphrt.abatch`, each row one whole run: a Ray task) of N rows of a latency-bound
  graph (an agent that awaits 100 ms, as an HTTP call would, then a copyAgent) on 1, 2 and 4 worker
  nodes of 2 declared CPUs each (graphrt.executors.local_cluster: a head and worker nodes, each its
  own `ray start` process on 127.0.0.1), at the cluster's default concurrency (one row per declared
  CPU), once with one row a Ray task (`rows_per_task=1`, as before 2 Dec 2026) and once with the
  default (8 rows a task, fewer near the end); throughput per node count, against linear (n × the
  1-node throughput) and the ideal (2 n rows per 100 ms);
- the same batch in this process with the same concurrency (2, 4, 8 rows at once): what Ray costs;
- a CPU-bound batch (rows of pure-Python work) on one worker node of 2 declared CPUs, one row at a
  time (1 core) and two at a time (2 cores: this machine has 2), and in this process (the GIL: 1 core);
- from the measured costs (the driver's CPU per row, the workers' per row), on paper: what 100
  machines would do with 1,000,000 rows, and where the driver becomes the limit.

Writes bench/results/ray_batch_latest.json (git-ignored) and prints Markdown tables.
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

from .ray_scaling import parallel_capacity, steps_for, work

RESULTS = Path(__file__).resolve().parent / "results"
CPUS_PER_NODE = 2
NODE_COUNTS = (1, 2, 4)


async def wait(ctx: AgentContext) -> int:
    """Latency-bound: waits `params.ms` milliseconds without using the CPU."""
    await anyio.sleep(ctx.params["ms"] / 1000)
    return ctx.inputs["row"]


def spin(ctx: AgentContext) -> int:
    """CPU-bound: `params.steps` of pure-Python work (holds the GIL)."""
    work(ctx.params["steps"])
    return ctx.inputs["row"]


AGENTS = [AgentInfo("benchWaitAgent", wait), AgentInfo("benchSpinAgent", spin)]


def row_graph(agent: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"version": 0.5, "nodes": {
        "row": {"value": 0},
        "work": {"agent": agent, "inputs": {"row": ":row"}, "params": params},
        "answer": {"agent": "copyAgent", "inputs": {"row": ":work"}, "isResult": True},
    }}


def timed_batch(graph: graphrt.Graph, rows: int, *, executor: Any = None, concurrency: int,
                cluster_cpu: Any = None) -> dict[str, Any]:
    """One batch: wall and driver-CPU seconds (and the cluster's processes' CPU), checked row by row."""
    before = cluster_cpu() if cluster_cpu else 0.0
    cpu, wall = time.process_time(), time.perf_counter()
    outcomes = graphrt.batch(graph, [{"row": i} for i in range(rows)], executor=executor, concurrency=concurrency)
    elapsed, driver = time.perf_counter() - wall, time.process_time() - cpu
    bad = [o for o in outcomes if not o.ok or o.results["answer"] != {"row": o.index}]
    assert not bad, f"{len(bad)} rows wrong, e.g. {bad[0].record()}"
    measured = {"rows": rows, "concurrency": concurrency, "wall_s": elapsed, "driver_cpu_s": driver,
                "rows_per_s": rows / elapsed}
    if cluster_cpu:
        measured["cluster_cpu_s"] = cluster_cpu() - before
    return measured


def cluster_cpu_counter(cluster: Any) -> Any:
    """CPU seconds used so far by the cluster's own processes (every node's `ray start` and what it started)."""
    import psutil  # Ray ships it

    def total() -> float:
        seconds = 0.0
        for node in cluster.nodes:
            try:
                root = psutil.Process(node.process.pid)
                processes = [root, *root.children(recursive=True)]
            except psutil.Error:
                continue
            for process in processes:
                try:
                    times = process.cpu_times()
                except psutil.Error:
                    continue
                seconds += times.user + times.system + times.children_user + times.children_system
        return seconds

    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench ray_batch", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1000, help="rows of the I/O batch (default 1,000)")
    parser.add_argument("--io-ms", type=float, default=100)
    parser.add_argument("--cpu-rows", type=int, default=200)
    parser.add_argument("--cpu-ms", type=float, default=50)
    args = parser.parse_args(argv)

    from graphrt.executors.local_cluster import LocalRayCluster
    from graphrt.executors.ray import RayExecutor

    load_before = os.getloadavg()
    steps = steps_for(args.cpu_ms)  # before Ray starts: its start-up takes the CPU for seconds
    capacity_before = parallel_capacity(steps * 40)
    io_graph = graphrt.Graph(row_graph("benchWaitAgent", {"ms": args.io_ms}), agents=AGENTS)
    cpu_graph = graphrt.Graph(row_graph("benchSpinAgent", {"steps": steps}), agents=AGENTS)
    table: dict[str, Any] = {"io": {}, "cpu": {}}
    started = time.perf_counter()
    # Ray runs workers at niceness 15 by default; on this shared machine that starves them against the
    # in-process engine at 0, so both run at 0 (as bench.ray_scaling does).
    with LocalRayCluster(head_cpus=0, system_config={"worker_niceness": 0}) as cluster:
        cluster.add_node(CPUS_PER_NODE)
        cluster_start_s = time.perf_counter() - started
        executor = RayExecutor(cluster.address)
        one_a_task = RayExecutor(cluster.address, rows_per_task=1)
        anyio.run(executor.open)  # made here, so opened here once and closed at the end; the batches borrow them
        anyio.run(one_a_task.open)
        cluster_cpu = cluster_cpu_counter(cluster)
        try:
            for nodes in NODE_COUNTS:
                while len(cluster.nodes) - 1 < nodes:
                    cluster.add_node(CPUS_PER_NODE)
                _wait_for_cpus(nodes * CPUS_PER_NODE)
                slots = executor.whole_run_slots()
                # Warm up: every node's workers started, the graph shipped and built on each.
                timed_batch(io_graph, 6 * slots, executor=one_a_task, concurrency=slots)
                timed_batch(io_graph, 2 * slots * executor.rows_per_task, executor=executor, concurrency=slots)
                entry = {"ray_one": timed_batch(io_graph, args.rows, executor=one_a_task, concurrency=slots,
                                                cluster_cpu=cluster_cpu),
                         "ray": timed_batch(io_graph, args.rows, executor=executor, concurrency=slots,
                                            cluster_cpu=cluster_cpu),
                         "in_process": timed_batch(io_graph, args.rows, concurrency=slots)}
                entry["ray"]["rows_per_task"] = executor.rows_per_task
                table["io"][nodes] = entry
                print(f"io  {nodes} node(s), {slots} rows at once: Ray {entry['ray_one']['rows_per_s']:7.1f} rows/s "
                      f"(1 row a task), {entry['ray']['rows_per_s']:7.1f} rows/s ({executor.rows_per_task} a task), "
                      f"in-process {entry['in_process']['rows_per_s']:7.1f} rows/s", flush=True)
                if nodes == 1:  # one node of 2 declared CPUs: 1 and 2 rows of CPU work at once
                    timed_batch(cpu_graph, 4, executor=executor, concurrency=2)
                    for cores in (1, 2):
                        table["cpu"][f"ray_{cores}_core"] = timed_batch(cpu_graph, args.cpu_rows, executor=executor,
                                                                       concurrency=cores, cluster_cpu=cluster_cpu)
                    table["cpu"]["in_process"] = timed_batch(cpu_graph, args.cpu_rows, concurrency=2)
                    print("cpu " + ", ".join(f"{name} {entry['wall_s']:.2f} s" for name, entry in table["cpu"].items()),
                          flush=True)
        finally:
            anyio.run(one_a_task.close)
            anyio.run(executor.close)
    capacity_after = parallel_capacity(steps * 40)
    summary = _summary(table, args, cluster_start_s)
    summary.update({
        "machine": {"nproc": os.cpu_count(), "python": platform.python_version(), "ray": _ray_version()},
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load_average_before_after": [load_before[0], os.getloadavg()[0]],
        "two_process_speedup_before_after": [capacity_before, capacity_after],
    })
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "ray_batch_latest.json").write_text(json.dumps({"summary": summary, "runs": table}, indent=2))
    print()
    print(report(table, summary))
    return 0


def _wait_for_cpus(cpus: float) -> None:
    """Until the cluster counts `cpus` CPUs (a node that has started is counted a moment later)."""
    import ray

    deadline = time.monotonic() + 120
    while ray.cluster_resources().get("CPU", 0) < cpus:
        if time.monotonic() > deadline:
            raise SystemExit(f"bench: the cluster never counted {cpus:g} CPUs")
        time.sleep(0.2)


def _ray_version() -> str:
    import ray

    return ray.__version__


def _summary(table: dict[str, Any], args: argparse.Namespace, cluster_start_s: float) -> dict[str, Any]:
    io = table["io"]
    one = io[1]["ray"]["rows_per_s"]
    one_a_task = io[1]["ray_one"]["rows_per_s"]
    most = io[max(io)]["ray"]
    rows = most["rows"]
    driver_ms = most["driver_cpu_s"] / rows * 1000  # the driver's CPU per row (schedule, send, receive)
    worker_ms = most["cluster_cpu_s"] / rows * 1000  # the cluster's CPU per row (run the graph, Ray's own)
    return {
        "rows": args.rows, "io_ms": args.io_ms, "cpu_rows": args.cpu_rows, "cpu_ms": args.cpu_ms,
        "cluster_start_s": cluster_start_s,
        "scaling": {nodes: io[nodes]["ray"]["rows_per_s"] / (nodes * one) for nodes in io},
        "scaling_one_row_a_task": {nodes: io[nodes]["ray_one"]["rows_per_s"] / (nodes * one_a_task) for nodes in io},
        "driver_cpu_per_row_ms": driver_ms, "cluster_cpu_per_row_ms": worker_ms,
    }


def report(table: dict[str, Any], summary: dict[str, Any]) -> str:
    """The Markdown tables: I/O scaling, CPU rows, and the cluster on paper."""
    io_ms = summary["io_ms"]
    lines = [f"| worker nodes (2 CPUs each) | rows at once | Ray, 1 row a task: rows/s | of linear | "
             "Ray, 8 rows a task: rows/s | × 1 node | of linear | "
             f"of ideal ({2000 / io_ms:g} rows/s a node) | in-process rows/s, same concurrency | Ray (8) / in-process | "
             "driver CPU ms/row (1 / 8) | cluster CPU ms/row (1 / 8) |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    first = table["io"][min(table["io"])]
    one, single = first["ray"]["rows_per_s"], first["ray_one"]["rows_per_s"]
    for nodes, entry in sorted(table["io"].items()):
        ray_rate, local, plain = entry["ray"]["rows_per_s"], entry["in_process"]["rows_per_s"], entry["ray_one"]["rows_per_s"]
        ideal = nodes * CPUS_PER_NODE * 1000 / io_ms
        per_row = {key: (entry[key]["driver_cpu_s"] / entry[key]["rows"] * 1000,
                         entry[key]["cluster_cpu_s"] / entry[key]["rows"] * 1000) for key in ("ray_one", "ray")}
        lines.append(f"| {nodes} | {entry['ray']['concurrency']} | {plain:.1f} | {plain / (nodes * single):.0%} | "
                     f"{ray_rate:.1f} | {ray_rate / one:.2f}× | "
                     f"{ray_rate / (nodes * one):.0%} | {ray_rate / ideal:.0%} | {local:.1f} | {ray_rate / local:.2f}× | "
                     f"{per_row['ray_one'][0]:.2f} / {per_row['ray'][0]:.2f} | "
                     f"{per_row['ray_one'][1]:.1f} / {per_row['ray'][1]:.1f} |")
    cpu = table["cpu"]
    lines += ["", "| CPU rows (one node of 2 declared CPUs) | rows | wall s | rows/s | speed-up over 1 core |",
              "|---|---:|---:|---:|---:|"]
    base = cpu["ray_1_core"]["wall_s"]
    for name, label in (("in_process", "in this process, 2 at a time (the GIL: 1 core)"),
                        ("ray_1_core", "Ray, 1 row at a time (1 core)"), ("ray_2_core", "Ray, 2 at a time (2 cores)")):
        entry = cpu[name]
        lines.append(f"| {label} | {entry['rows']} | {entry['wall_s']:.2f} | {entry['rows_per_s']:.1f} | "
                     f"{base / entry['wall_s']:.2f}× |")
    lines += ["", on_paper(summary)]
    return "\n".join(lines)


def on_paper(summary: dict[str, Any], machines: int = 100, cpus: int = 16, rows: int = 1_000_000) -> str:
    """What `machines` of `cpus` CPUs would do with `rows` rows of this graph, from the measured per-row costs."""
    io_s = summary["io_ms"] / 1000
    driver_s = summary["driver_cpu_per_row_ms"] / 1000
    worker_s = summary["cluster_cpu_per_row_ms"] / 1000
    slots = machines * cpus
    cluster_rate = slots / (io_s + worker_s)  # every declared CPU holds one row: its wait plus its CPU
    driver_rate = 1 / driver_s
    rate = min(cluster_rate, driver_rate)
    limit = "the driver" if driver_rate < cluster_rate else "the cluster"
    nodes_driver_fills = driver_rate * (io_s + worker_s) / cpus
    return (f"On paper, {machines} machines of {cpus} CPUs ({slots:,} rows at once), {rows:,} rows of this graph: "
            f"the cluster could take {cluster_rate:,.0f} rows/s ({io_s * 1000:g} ms wait + "
            f"{worker_s * 1000:.1f} ms CPU a row); one driver at {driver_s * 1000:.2f} ms of CPU a row sends at most "
            f"{driver_rate:,.0f} rows/s, so {limit} is the limit: {rows / rate / 60:,.1f} min for the batch "
            f"({rate:,.0f} rows/s). One driver keeps {nodes_driver_fills:,.1f} such machines busy.")


if __name__ == "__main__":
    raise SystemExit(main())
