"""`python -m bench ray_graphs`: small graphs on node-level Ray against in-process, with and without `runs_local`.

    .venv/bin/python -m bench ray_graphs              # ~2 min
    .venv/bin/python -m bench ray_graphs --runs 5

A graph on `--executor ray` sends each agent call to the cluster as a task,
unless the agent's function info says `runs_local`: the vanilla pack's pure
data-shaping agents (copyAgent, stringTemplateAgent, shiftAgent, pushAgent...)
do, since a trip to a worker costs far more than their call. Measured in one
run, on a cluster that is up and warm (graphrt.executors.local_cluster: a head
and one worker node of 2 declared CPUs on 127.0.0.1):
- graphs/hello.yaml, graphs/fruit_map.yaml, graphs/accumulate.yaml and a chain
  of 50 copyAgent nodes: in-process, on Ray with the vanilla pack as shipped
  (its pure agents runs_local), and on Ray with every agent a task (`runs_local`
  taken off those agents: how graphrt ran them before 2 Dec 2026);
- a chain of 50 sleeperAgent nodes of 0 ms (an agent that is not runs_local):
  the cost of one Ray task in a chain, per node.

Each figure is the median of `--runs` runs, in ms. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import time
from pathlib import Path
from typing import Any

import anyio

import graphrt
from graphrt.authoring.plugins import default_registry

ROOT = Path(__file__).resolve().parents[1]
GRAPHS = ("hello.yaml", "fruit_map.yaml", "accumulate.yaml")
CHAIN = 50


def chain(agent: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    nodes: dict[str, Any] = {"n0": {"value": {"v": 1}}}
    for i in range(1, CHAIN + 1):
        nodes[f"n{i}"] = {"agent": agent, "inputs": {"v": f":n{i - 1}.v"}, **({"params": params} if params else {})}
    nodes[f"n{CHAIN}"]["isResult"] = True
    return {"version": 0.5, "nodes": nodes}


def every_agent_a_task() -> Any:
    """The built-in agents with `runs_local` taken off the pure vanilla ones: each of their calls a task."""
    registry = default_registry().copy()  # a copy: the shipped registry stays as it is for the other column
    for name in registry.names():
        info = registry.get(name)
        if info is not None and info.runs_local and info.func.__module__.startswith("graphrt_agents.vanilla"):
            registry.register(dataclasses.replace(info, runs_local=False), replace=True)
    return registry


def median_ms(graph: Any, runs: int, executor: Any = None, agents: Any = None) -> float:
    prepared = graphrt.Graph(graph, agents=agents, executor=executor)
    anyio.run(prepared.arun)  # warm: the agents shipped, the workers' imports done
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        anyio.run(prepared.arun)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench ray_graphs", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args(argv)

    from graphrt.executors.local_cluster import LocalRayCluster
    from graphrt.executors.ray import RayExecutor

    cases: list[tuple[str, Any]] = [(f"graphs/{name}", str(ROOT / "graphs" / name)) for name in GRAPHS]
    cases.append((f"chain of {CHAIN} copyAgent", chain("copyAgent")))
    tasks = every_agent_a_task()
    rows = []
    load = os.getloadavg()[0]
    with LocalRayCluster(head_cpus=0, system_config={"worker_niceness": 0}) as cluster:
        cluster.add_node(2)
        executor = RayExecutor(cluster.address)
        anyio.run(executor.open)  # made here, so opened here once and closed at the end; the runs borrow it
        try:
            for label, graph in cases:
                here = median_ms(graph, args.runs)
                shipped = median_ms(graph, args.runs, executor)
                before = median_ms(graph, args.runs, executor, tasks)
                rows.append((label, here, shipped, before))
                print(f"{label}: in-process {here:.1f} ms, Ray {shipped:.1f} ms, Ray every agent a task {before:.1f} ms",
                      flush=True)
            sleeper = chain("sleeperAgent", {"duration": 0})
            here = median_ms(sleeper, args.runs)
            remote = median_ms(sleeper, args.runs, executor)
        finally:
            anyio.run(executor.close)
    print()
    print(f"Ray 2.60, one worker node of 2 declared CPUs on 127.0.0.1, {args.runs} runs each (median), "
          f"load average {load:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print()
    print("| graph | in-process ms | Ray ms (runs_local agents in the driver) | × in-process | "
          "Ray ms, every agent a task (before) | × in-process |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, here, shipped, before in rows:
        print(f"| {label} | {here:.1f} | {shipped:.1f} | {shipped / here:.1f}× | {before:.1f} | {before / here:.1f}× |")
    print()
    print(f"A Ray task in a chain (sleeperAgent, 0 ms, not runs_local): in-process {here / CHAIN:.2f} ms a node, "
          f"Ray {remote / CHAIN:.2f} ms a node: {(remote - here) / CHAIN:.2f} ms of Ray a task.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
