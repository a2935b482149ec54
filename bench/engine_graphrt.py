"""Runs one workload file on graphrt and prints its timings: `python -m bench.engine_graphrt FILE`.

Each repetition parses the YAML text (timed alone), builds a `graphrt.Graph`
from the data (validation and compilation), and runs it. The first `--warmup`
repetitions are not reported. With `--checkpoints`, one run samples the
memory at those loop iterations instead (see `measure_memory`).
"""

from __future__ import annotations

import argparse
import gc
import time
import tracemalloc
from pathlib import Path
from typing import Any

import graphrt
from graphrt.graphdata.loader import parse_graph_text
from graphrt.observe.events import LoopIteration

from ._proc import emit, peak_rss_kb, rss_kb

__all__ = ["measure", "measure_memory", "main"]


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


def measure(path: Path, warmup: int, repeat: int) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    parse_ms, build_ms, run_ms = [], [], []
    result: Any = None
    for index in range(warmup + repeat):
        gc.collect()
        started = time.perf_counter()
        data, _ = parse_graph_text(text, file=str(path))
        parsed = time.perf_counter()
        graph = graphrt.Graph(data)
        built = time.perf_counter()
        result = graph.run()
        finished = time.perf_counter()
        if index >= warmup:
            parse_ms.append(_ms(parsed - started))
            build_ms.append(_ms(built - parsed))
            run_ms.append(_ms(finished - built))
        del graph
    return {"parse_ms": parse_ms, "build_ms": build_ms, "run_ms": run_ms, "result": result}


def measure_memory(path: Path, checkpoints: list[int], use_tracemalloc: bool) -> dict[str, Any]:
    """One run that samples RSS (and tracemalloc's traced memory) as iterations start.

    A subscriber turns graphrt's events on, which costs some time; this run
    answers "does memory grow with iterations", not "how fast".
    """
    text = path.read_text(encoding="utf-8")
    data, _ = parse_graph_text(text, file=str(path))
    gc.collect()
    if use_tracemalloc:
        tracemalloc.start()
    wanted = set(checkpoints)
    samples: list[dict[str, Any]] = []

    def sample(event: Any) -> None:
        if isinstance(event, LoopIteration) and not event.path and event.index in wanted:
            traced = tracemalloc.get_traced_memory()[0] if use_tracemalloc else None
            samples.append({"iteration": event.index, "rss_kb": rss_kb(), "traced_kb": traced and traced // 1024})

    started = time.perf_counter()
    graph = graphrt.Graph(data)
    result = graph.run(subscribe=[sample])
    elapsed = time.perf_counter() - started
    traced_peak = tracemalloc.get_traced_memory()[1] // 1024 if use_tracemalloc else None
    return {"run_ms": [_ms(elapsed)], "result": result, "samples": samples, "traced_peak_kb": traced_peak,
            "tracemalloc": use_tracemalloc}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.engine_graphrt", description=__doc__)
    parser.add_argument("file", type=Path)
    parser.add_argument("--warmup", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--checkpoints", default="", help="comma-separated loop iterations to sample memory at")
    parser.add_argument("--tracemalloc", action="store_true")
    args = parser.parse_args(argv)
    if args.checkpoints:
        record = measure_memory(args.file, [int(c) for c in args.checkpoints.split(",")], args.tracemalloc)
    else:
        record = measure(args.file, args.warmup, args.repeat)
    record.update(engine="graphrt", version=_version(), peak_rss_kb=peak_rss_kb())
    emit(record)


def _version() -> str:
    from importlib.metadata import version

    return version("graphrt")


if __name__ == "__main__":
    main()
