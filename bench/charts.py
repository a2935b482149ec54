"""`python -m bench report`: the benchmarks' JSON as charts, for docs/benchmarks.md.

    .venv/bin/python -m bench report                        # bench/results/*.json -> docs/images/bench/*.png
    .venv/bin/python -m bench report --results DIR --out DIR

Each chart is drawn from the JSON one benchmark writes, whichever of them are there:

- `latest.json` (`python -m bench`): graphrt's time over GraphAI's and over LangGraph's, per workload;
- `durable_latest.json` (`python -m bench durable`): what a checkpoint costs, each store's latency over the
  same engine without one;
- `ray_batch_latest.json` (`python -m bench ray_batch`): a batch's rows a second by worker nodes;
- `serve_scaling_latest.json` (`python -m bench.serve --concurrency ...`): `graphrt serve`'s runs a second and
  latency by concurrent clients, beside `graphrt.arun` with the same store.

Every chart says under it the machine, its load and the date of its measurement, read from the same JSON,
so a chart never shows a figure without where it came from. matplotlib (the `bench` extra) draws them,
without a display (Agg). Prints each file it writes; a JSON that is not there is named and skipped.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

__all__ = ["main", "workload_ratios", "draw_ratios", "draw_durability", "draw_ray_scaling", "draw_serve_scaling"]

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
OUT = ROOT / "docs" / "images" / "bench"
_NAMES = {"graphai": "GraphAI", "langgraph": "LangGraph"}


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _footer(figure: Any, machine: str, load: str, when: str) -> None:
    figure.text(0.01, 0.01, f"{machine}; load average {load}; measured {when}", fontsize=7, color="#555555")


def _ratio_axis(axes: Any) -> None:
    """A log axis of ratios, ticked 0.1×, 0.25×, 0.5×, 1×, 2×, ... over the bars' range."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    axes.set_xscale("log")
    low, high = axes.get_xlim()
    ticks = [t for t in (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 10, 25, 50, 100) if low <= t <= high * 1.5]
    axes.set_xlim(min(low, 0.5), max(high * 1.5, 2))
    axes.xaxis.set_major_locator(FixedLocator(ticks or [1]))
    axes.xaxis.set_minor_locator(NullLocator())
    axes.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}×"))


def workload_ratios(data: dict[str, Any]) -> dict[str, tuple[int, dict[str, float]]]:
    """Per workload, its largest size graphrt ran and graphrt's time (build + run, median) over each other engine's
    there. A workload that samples memory is left out: graphrt runs it under tracemalloc, so its time is no speed
    figure (the tables give it no ratio either)."""
    from .workloads import get

    by_key: dict[tuple[str, int], dict[str, float]] = {}
    for m in data["measurements"]:
        if m.get("total_ms") and not m.get("error") and not get(m["workload"]).memory:
            by_key.setdefault((m["workload"], m["n"]), {})[m["engine"]] = m["total_ms"]
    largest: dict[str, int] = {}
    for workload, n in by_key:
        if "graphrt" in by_key[(workload, n)]:
            largest[workload] = max(n, largest.get(workload, 0))
    return {workload: (n, {engine: by_key[(workload, n)]["graphrt"] / total
                           for engine, total in by_key[(workload, n)].items() if engine in _NAMES})
            for workload, n in sorted(largest.items())}


def draw_ratios(data: dict[str, Any], out: Path) -> Path:
    """graphrt's time (build + run, median) over each other engine's, per workload, at each workload's largest size."""
    plt = _pyplot()
    found = workload_ratios(data)
    workloads = list(found)
    others = [engine for engine in ("graphai", "langgraph") if any(engine in found[w][1] for w in workloads)]
    figure, axes = plt.subplots(figsize=(8, 0.45 * len(workloads) + 1.6))
    height = 0.8 / max(len(others), 1)
    for index, engine in enumerate(others):
        ratios = [found[w][1].get(engine, float("nan")) for w in workloads]
        positions = [row + index * height for row in range(len(workloads))]
        axes.barh(positions, ratios, height=height, label=f"graphrt ÷ {_NAMES[engine]}")
        for position, ratio in zip(positions, ratios):
            if ratio == ratio:  # not NaN
                axes.text(ratio, position, f" {ratio:.2f}×", va="center", fontsize=7)
    axes.axvline(1, color="#333333", linewidth=0.8)
    _ratio_axis(axes)
    axes.set_yticks([row + height * (len(others) - 1) / 2 for row in range(len(workloads))])
    axes.set_yticklabels([f"{w} (n={found[w][0]:,})" for w in workloads], fontsize=8)
    axes.invert_yaxis()
    axes.set_xlabel("graphrt's time over the other engine's (below 1: graphrt is faster)")
    axes.set_title("Build and run time against GraphAI and LangGraph, per workload")
    axes.legend(fontsize=8)
    machine = data["machine"]
    _footer(figure, machine.get("machine", "?"), machine.get("load average at start", "?"),
            machine.get("measured at", "?"))
    figure.tight_layout(rect=(0, 0.03, 1, 1))
    path = out / "ratios.png"
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


def draw_durability(data: dict[str, Any], out: Path) -> Path:
    """Each store's median latency (p50) over the same engine's without a checkpoint, both modes."""
    plt = _pyplot()
    medians = {(r["engine"], r["store"], r["mode"]): statistics.median(x["p50"] for x in r["rounds"])
               for r in data["results"]}
    rows = [(engine, store, mode) for (engine, store, mode) in medians if store != "none"]
    labels = [f"{engine} + {store}, {mode}" for engine, store, mode in rows]
    ratios = [medians[key] / medians[(key[0], "none", key[2])] for key in rows]
    figure, axes = plt.subplots(figsize=(8, 0.45 * len(rows) + 1.6))
    axes.barh(range(len(rows)), ratios, color=["#4c72b0" if key[0] == "graphrt" else "#dd8452" for key in rows])
    axes.set_xlim(0, max([*ratios, 1.0]) * 1.15)  # room for the largest bar's label
    for position, ratio in enumerate(ratios):
        axes.text(ratio, position, f" {ratio:.2f}×", va="center", fontsize=7)
    axes.axvline(1, color="#333333", linewidth=0.8)
    axes.set_yticks(range(len(rows)))
    axes.set_yticklabels(labels, fontsize=8)
    axes.invert_yaxis()
    settings = data.get("settings", {})
    axes.set_xlabel("median latency with a checkpoint over without (1: free)")
    axes.set_title(f"What a checkpoint costs: a 50 ms I/O node, {settings.get('runs', '?')} runs at once "
                   f"(limit {settings.get('limit', '?')}) or {settings.get('sequential', '?')} one at a time",
                   fontsize=9)
    loads = [x["load"] for r in data["results"] for x in r["rounds"] if "load" in x]
    machine = data["machine"]
    _footer(figure, machine.get("machine", "?"),
            f"{min(loads):.1f} to {max(loads):.1f}" if loads else machine.get("load average at start", "?"),
            machine.get("measured at", "?"))
    figure.tight_layout(rect=(0, 0.03, 1, 1))
    path = out / "durability.png"
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


def draw_ray_scaling(data: dict[str, Any], out: Path) -> Path:
    """A batch's rows a second by worker nodes: Ray with one row a task, with several, and in-process."""
    plt = _pyplot()
    io = {int(nodes): entry for nodes, entry in data["runs"]["io"].items()}
    nodes = sorted(io)
    figure, axes = plt.subplots(figsize=(7, 4))
    for key, label in (("ray", "Ray, several rows a task"), ("ray_one", "Ray, one row a task"),
                       ("in_process", "in-process, same concurrency")):
        axes.plot(nodes, [io[n][key]["rows_per_s"] for n in nodes], marker="o", label=label)
    one = io[nodes[0]]["ray"]["rows_per_s"]
    axes.plot(nodes, [one * n / nodes[0] for n in nodes], linestyle=":", color="#888888", label="linear from 1 node")
    axes.set_xticks(nodes)
    axes.set_xlabel("worker nodes")
    axes.set_ylabel("rows a second")
    summary = data["summary"]
    axes.set_title(f"graphrt batch on a real Ray cluster: {summary.get('rows', '?')} rows of "
                   f"{summary.get('io_ms', '?')} ms I/O", fontsize=9)
    axes.legend(fontsize=8)
    machine = summary.get("machine", {})
    load = summary.get("load_average_before_after", ["?", "?"])
    _footer(figure, f"{machine.get('nproc', '?')} cores, Python {machine.get('python', '?')}, "
                    f"Ray {machine.get('ray', '?')}", f"{load[0]:.1f} before, {load[1]:.1f} after"
            if all(isinstance(x, (int, float)) for x in load) else "?", summary.get("when", "?"))
    figure.tight_layout(rect=(0, 0.04, 1, 1))
    path = out / "ray-scaling.png"
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


def draw_serve_scaling(data: dict[str, Any], out: Path) -> Path:
    """graphrt serve's runs a second and p50 latency by concurrent clients, beside arun with the same store."""
    plt = _pyplot()
    levels = data["levels"]
    clients = [level["clients"] for level in levels]
    io_ms = data["settings"]["io_ms"]
    figure, (rate, latency) = plt.subplots(1, 2, figsize=(10, 4))
    for key, label in (("server", "graphrt serve (HTTP, SQLite store)"), ("arun", "graphrt.arun, same store")):
        rate.plot(clients, [level[key]["runs_per_s"] for level in levels], marker="o", label=label)
        latency.plot(clients, [level[key]["p50_ms"] for level in levels], marker="o", label=f"{label}, p50")
    limit = data["settings"]["max_runs"]
    rate.plot(clients, [min(n, limit) * 1000 / io_ms for n in clients], linestyle=":", color="#888888",
              label=f"ideal: min(clients, {limit}) ÷ {io_ms} ms")
    latency.axhline(io_ms, linestyle=":", color="#888888", label=f"the run's own {io_ms} ms")
    for axes in (rate, latency):
        axes.set_xscale("log")
        axes.set_xticks(clients)
        axes.set_xticklabels([str(n) for n in clients], fontsize=8)
        axes.set_xlabel("clients, each sending its next run once answered")
        axes.legend(fontsize=7)
    rate.set_yscale("log")
    rate.set_ylabel("runs a second")
    latency.set_ylabel("latency, ms")
    figure.suptitle(f"graphrt serve by concurrency: a run of one {io_ms} ms I/O node, "
                    f"--max-runs {data['settings']['max_runs']}", fontsize=9)
    loads = [value for level in levels for value in level["load"]]
    machine = data["machine"]
    _footer(figure, machine.get("machine", "?"), f"{min(loads):.1f} to {max(loads):.1f}" if loads else "?",
            machine.get("measured at", "?"))
    figure.tight_layout(rect=(0, 0.03, 1, 1))
    path = out / "serve-scaling.png"
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


CHARTS = {"latest.json": draw_ratios, "durable_latest.json": draw_durability,
          "ray_batch_latest.json": draw_ray_scaling, "serve_scaling_latest.json": draw_serve_scaling}
"""Each benchmark's JSON, by its file name under bench/results/, and the chart drawn from it."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench report", description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=RESULTS, help="where the benchmarks' JSON is")
    parser.add_argument("--out", type=Path, default=OUT, help="where the charts go")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    drawn = 0
    for name, draw in CHARTS.items():
        source = args.results / name
        if not source.is_file():
            print(f"bench report: no {source} (skipped)", file=sys.stderr)
            continue
        print(f"bench report: {draw(json.loads(source.read_text(encoding='utf-8')), args.out)}")
        drawn += 1
    return 0 if drawn else 1


if __name__ == "__main__":
    sys.exit(main())
