"""`python -m bench --profile WORKLOAD`: graphrt on one workload under pyinstrument or cProfile.

The graph is parsed once, run once unprofiled (imports, caches), then built
and run under the profiler as many times as it takes to fill about two
seconds, so that even a 20 ms workload gives a profile worth reading.
"""

from __future__ import annotations

import cProfile
import io
import os
import pstats
import time
from typing import Any

import graphrt
from graphrt.graphdata.loader import parse_graph_text

from .workloads import get, workload_file

__all__ = ["profile"]

_TARGET_S = 2.0


def _runs_for(data: dict[str, Any]) -> int:
    started = time.perf_counter()
    graphrt.Graph(data).run()
    once = time.perf_counter() - started
    return max(1, min(200, int(_TARGET_S / max(once, 1e-6))))


def profile(name: str, profiler: str = "pyinstrument", n: int | None = None, top: int = 30, runs: int | None = None) -> str:
    """Profiles building and running a workload's graph; returns the report text."""
    workload = get(name)
    path = workload_file(workload, n)
    data, _ = parse_graph_text(path.read_text(encoding="utf-8"), file=str(path))
    runs = runs or _runs_for(data)
    header = f"graphrt profile: {name} ({path.name}), {runs} run(s) of build + run, profiler {profiler}\n"

    def work() -> None:
        for _ in range(runs):
            graphrt.Graph(data).run()

    if profiler == "cprofile":
        profile_ = cProfile.Profile()
        profile_.runcall(work)
        out = io.StringIO()
        stats = pstats.Stats(profile_, stream=out).strip_dirs()
        out.write("Top functions by own time (tottime):\n")
        stats.sort_stats("tottime").print_stats(top)
        out.write("Top functions by cumulative time:\n")
        stats.sort_stats("cumulative").print_stats(top)
        return header + out.getvalue()
    try:
        from pyinstrument import Profiler
    except ImportError:
        raise SystemExit("bench: pyinstrument is not installed; pip install -e '.[bench]', or use --profiler cprofile")
    # The timing thread: this VM's clock is slow to read, which pyinstrument warns about and which skews samples.
    os.environ.setdefault("PYINSTRUMENT_IGNORE_OVERHEAD_WARNING", "1")
    sampler = Profiler(interval=0.001, use_timing_thread=True)
    sampler.start()
    work()
    sampler.stop()
    return header + sampler.output_text(unicode=True, color=False, show_all=False)
