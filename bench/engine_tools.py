"""Times graphrt's tools on one workload file: `python -m bench.engine_tools FILE`.

Each repetition, the tools take turns on the same parsed data, so a noisy
stretch of the shared machine hits them all:

- run: `Graph(data)` (validation and compilation) and its run, quiet;
- display: the same with the live progress display on a terminal that
  discards what it is given (what `graphrt run` adds on a terminal), between
  two quiet runs (run, then run_again) that are its baseline;
- validate: every check `graphrt validate` makes (GraphAI's rules and lint, warnings included);
- lint: lint's own checks alone (what validate adds to GraphAI's rules);
- viz: the networkx model and its Mermaid text (`graphrt viz`);
- located error: the file position of one field of the last node, from a fresh
  source (what reporting one error costs once the text is parsed).
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import time
from pathlib import Path
from typing import Any, Callable

import graphrt
from graphrt.authoring.plugins import default_registry
from graphrt.check.lint import lint_issues
from graphrt.check.validate import collect_issues
from graphrt.check.viz import graph_model, to_mermaid
from graphrt.cli.watch import ProgressDisplay
from graphrt.graphdata.loader import GraphSource, parse_graph_text

from ._proc import emit, peak_rss_kb

__all__ = ["measure", "main"]

PHASES = ("run_ms", "display_ms", "run_again_ms", "validate_ms", "lint_ms", "viz_ms", "locate_ms")
# The display's cost is a few per cent, less than the shared machine's noise in wall time, and scaling is
# bent by the load of the moment: CPU time of this process, which other work on the machine does not inflate.
CPU_PHASES = tuple(phase.replace("_ms", "_cpu_ms") for phase in PHASES)
WARM_UP = {"version": 0.5, "nodes": {"a": {"value": 1}, "b": {"agent": "copyAgent", "inputs": {"v": ":a"}, "isResult": True}}}


class NullTerminal(io.TextIOBase):
    """A terminal that shows nothing: counts what it is given."""

    def __init__(self) -> None:
        self.written = 0

    def write(self, text: str) -> int:
        self.written += len(text)
        return len(text)

    def isatty(self) -> bool:
        return True


def _timed(step: Callable[[], Any]) -> tuple[float, float, Any]:
    """(wall ms, CPU ms of this process, the step's value)."""
    gc.collect()
    started, cpu = time.perf_counter(), time.process_time()
    value = step()
    return round((time.perf_counter() - started) * 1000, 3), round((time.process_time() - cpu) * 1000, 3), value


def measure(path: Path, warmup: int, repeat: int) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    registry = default_registry()
    parse_ms, _, (data, source) = _timed(lambda: parse_graph_text(text, file=str(path)))
    last = next(reversed(data["nodes"]))
    samples: dict[str, list[float]] = {phase: [] for phase in (*PHASES, *CPU_PHASES)}
    display_stats: dict[str, Any] = {}
    result: Any = None

    def run() -> Any:
        return graphrt.Graph(data, agents=registry).run()

    def run_with_display() -> Any:
        terminal = NullTerminal()
        graph = graphrt.Graph(data, agents=registry)
        display = ProgressDisplay(terminal)
        try:
            return graph.run(**display.run_options)
        finally:
            display.close()
            display_stats.update(redraws=display.redraws, display_bytes=terminal.written)

    steps: dict[str, Callable[[], Any]] = {
        "run_ms": run,
        "display_ms": run_with_display,
        "run_again_ms": run,  # the display's baseline is the quiet runs on either side of it: the machine drifts
        "validate_ms": lambda: collect_issues(data, registry, source),
        "lint_ms": lambda: lint_issues(data, registry, source, []),
        "viz_ms": lambda: to_mermaid(graph_model(data)),
        "locate_ms": lambda: GraphSource(str(path), text).locate_field(last, "inputs"),
    }
    # What the first use of each tool costs once (agents and modules loaded on first use) stays out of the rounds.
    small, small_source = parse_graph_text(json.dumps(WARM_UP), file="warm_up.json")
    graphrt.Graph(small, agents=registry).run()
    collect_issues(small, registry, small_source)
    to_mermaid(graph_model(small))
    for index in range(warmup + repeat):
        for phase, step in steps.items():
            ms, cpu_ms, value = _timed(step)
            if phase == "run_ms":
                result = value
            if index >= warmup:
                samples[phase].append(ms)
                samples[phase.replace("_ms", "_cpu_ms")].append(cpu_ms)
    issues = collect_issues(data, registry, source)
    return {"parse_ms": [parse_ms], **samples, "result": result, "issues": len(issues), **display_stats}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.engine_tools", description=__doc__)
    parser.add_argument("file", type=Path)
    parser.add_argument("--warmup", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)
    record = measure(args.file, args.warmup, args.repeat)
    record.update(engine="graphrt", peak_rss_kb=peak_rss_kb())
    emit(record)


if __name__ == "__main__":
    main()
