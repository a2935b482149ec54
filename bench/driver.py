"""Runs the workloads on every engine, each in its own process, and gathers the numbers.

Per workload and engine there are two kinds of runs:
- in-process: one runner process repeats parse, build and run (after warmups)
  and reports each phase's times, from which we take medians;
- whole command: the same runner doing one repetition, timed from outside
  (interpreter start, imports, parse, build, run, exit), with its peak RSS
  taken from `wait4`.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from . import graphai
from ._proc import RESULT_PREFIX
from .floor import FLOORS
from .workloads import Workload, workload_file

__all__ = ["ENGINES", "FLOOR", "BASELINES", "Measurement", "Settings", "run_workload", "checkpoints"]

ROOT = Path(__file__).resolve().parent.parent
ENGINES = ("graphrt", "graphai", "langgraph")
# Each workload's work as a plain Python loop (bench/floor.py): how far each engine is from what the language allows.
FLOOR = "floor"
# The I/O fan-out without an engine in node too (bench/baseline_io.cjs; Python's is the floor's).
BASELINES = ("node",)
TIMEOUT_S = 1800
# What bench/engine_tools.py times besides the run (ms samples), kept in Measurement.extra.
TOOL_PHASES = ("run_ms", "display_ms", "run_again_ms", "validate_ms", "lint_ms", "viz_ms", "locate_ms", "run_cpu_ms",
               "display_cpu_ms", "run_again_cpu_ms", "validate_cpu_ms", "lint_cpu_ms", "viz_cpu_ms", "locate_cpu_ms")


@dataclass
class Settings:
    engines: tuple[str, ...] = ENGINES
    rounds: int | None = None  # None: the workload's own
    repeat: int | None = None
    warmup: int | None = None
    command_repeat: int | None = None
    floor: bool = True  # the plain Python loop beside the engines, where the workload has one
    log: Callable[[str], None] = print


@dataclass
class Measurement:
    """One engine on one workload at one size: medians in ms, memory in KiB."""

    engine: str
    workload: str
    n: int
    parse_ms: float | None = None
    build_ms: float | None = None
    run_ms: float | None = None
    total_ms: float | None = None  # build + run, the number the ratios use
    runs: int = 0
    command_ms: float | None = None
    command_rss_kb: int | None = None
    peak_rss_kb: int | None = None
    ok: bool | None = None
    error: str | None = None
    result: Any = None
    samples: list[dict[str, Any]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def rss_kb(self) -> int | None:
        return self.command_rss_kb or self.peak_rss_kb


def _median(values: list[float] | None) -> float | None:
    return round(statistics.median(values), 3) if values else None


def _spawn(command: list[str]) -> tuple[int, str, str, float, int]:
    """Runs a command; returns (exit status, stdout, stderr, wall seconds, peak RSS KiB)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err, cwd=ROOT, text=True)
        timer = threading.Timer(TIMEOUT_S, process.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            timer.cancel()
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return process.returncode, out.read(), err.read(), wall, usage.ru_maxrss


def _record(stdout: str) -> dict[str, Any] | None:
    for line in reversed(stdout.splitlines()):
        if line.startswith(RESULT_PREFIX):
            return json.loads(line[len(RESULT_PREFIX):])
    return None


def _command(engine: str, workload: Workload, n: int, file: Path, *options: str) -> list[str]:
    if engine == FLOOR:
        return [sys.executable, "-m", "bench.floor", workload.name, "--n", str(n), *options]
    if engine == "node":
        return ["node", str(Path(__file__).with_name("baseline_io.cjs")), "--n", str(n), *options]
    if engine == "graphrt":
        runner = "bench.engine_tools" if workload.tools else "bench.engine_graphrt"
        return [sys.executable, "-m", runner, str(file), *options]
    if engine == "graphai":
        return graphai.command(file, *options)
    return [sys.executable, "-m", "bench.engine_langgraph", workload.name, "--n", str(n), *options]


def supports(engine: str, workload: Workload) -> bool:
    return engine != "langgraph" or workload.langgraph


def checkpoints(n: int) -> list[int]:
    """Ten evenly spaced loop iterations to sample memory at, the last one included."""
    step = max(1, n // 10)
    return sorted({min(i * step, n - 1) for i in range(1, 11)})


def _normal(value: Any) -> Any:
    return json.loads(json.dumps(value))


def run_workload(workload: Workload, n: int, settings: Settings) -> list[Measurement]:
    """Every engine on one workload at size n, the engines taking turns.

    The machines are shared and their load comes and goes, so each engine's
    runs are spread over the same stretch of time: round after round, every
    engine runs one in-process runner (its warmups, then its repetitions);
    then the whole commands take turns the same way.
    """
    file = workload_file(workload, n)
    expected = _normal(workload.expected(n))
    measurements = [Measurement(engine, workload.name, n) for engine in settings.engines if supports(engine, workload)]
    if settings.floor and workload.name in FLOORS:
        measurements.append(Measurement(FLOOR, workload.name, n))
    if workload.name == "io_fan_out" and n == workload.n:
        measurements += [Measurement(engine, workload.name, n) for engine in BASELINES]
    samples: dict[str, dict[str, list[float]]] = {m.engine: {"parse_ms": [], "build_ms": [], "run_ms": []}
                                                  for m in measurements}
    rounds = 1 if workload.memory else (workload.rounds if settings.rounds is None else settings.rounds)
    if n != workload.n and n in workload.extra_sizes:
        rounds = max(rounds, workload.extra_rounds)
    for index in range(max(1, rounds)):
        for measurement in measurements:
            if measurement.error is None:
                settings.log(f"  {measurement.engine:9} {workload.name} n={n} round {index + 1}/{rounds}")
                _guarded(measurement, lambda m=measurement: _in_process(m, workload, n, file, settings, samples[m.engine]))
    for measurement in measurements:
        runs = samples[measurement.engine]
        builds = runs["build_ms"] or [0.0] * len(runs["run_ms"])
        measurement.runs = len(runs["run_ms"])
        measurement.parse_ms = _median(runs["parse_ms"])
        measurement.build_ms = _median(runs["build_ms"])
        measurement.run_ms = _median(runs["run_ms"])
        measurement.total_ms = _median([build + run for build, run in zip(builds, runs["run_ms"])])
    command_repeat = workload.command_repeat if settings.command_repeat is None else settings.command_repeat
    if workload.command_max_n is not None and n > workload.command_max_n:
        command_repeat = 0
    walls: dict[str, list[float]] = {m.engine: [] for m in measurements}
    for _ in range(0 if workload.memory else command_repeat):
        for measurement in measurements:
            if measurement.error is None:
                settings.log(f"  {measurement.engine:9} {workload.name} n={n} whole command")
                _guarded(measurement, lambda m=measurement: _whole_command(m, workload, n, file, walls[m.engine]))
    for measurement in measurements:
        if measurement.error is None:
            measurement.ok = _normal(measurement.result) == expected
            if not measurement.ok:
                measurement.error = f"wrong result: {json.dumps(measurement.result)[:200]}"
        if measurement.error is not None:
            settings.log(f"    {measurement.engine} failed: {measurement.error.strip().splitlines()[-1:]}")
        measurement.command_ms = _median(walls[measurement.engine])
    return measurements


def _guarded(measurement: Measurement, step: Callable[[], None]) -> None:
    try:
        step()
    except Exception as error:  # noqa: BLE001 - one failing engine must not stop the bench
        measurement.error = f"{type(error).__name__}: {error}"


def _in_process(measurement: Measurement, workload: Workload, n: int, file: Path, settings: Settings,
                samples: dict[str, list[float]]) -> None:
    engine = measurement.engine
    if workload.memory:
        options = ["--checkpoints", ",".join(map(str, checkpoints(n)))]
        if engine == "graphrt":
            options.append("--tracemalloc")
    else:
        warmup = workload.warmup if settings.warmup is None else settings.warmup
        repeat = workload.repeat if settings.repeat is None else settings.repeat
        options = ["--warmup", str(warmup), "--repeat", str(max(1, repeat))]
    status, stdout, stderr, _, rss = _spawn(_command(engine, workload, n, file, *options))
    record = _record(stdout)
    if status != 0 or record is None:
        measurement.error = f"exit status {status}: {(stderr or stdout).strip()[-2000:]}"
        return
    measurement.result = record.get("result")
    measurement.samples = record.get("samples", [])
    measurement.peak_rss_kb = max(measurement.peak_rss_kb or 0, record.get("peak_rss_kb") or rss)
    measurement.extra.update((key, value) for key, value in record.items()
                             if key in ("version", "vanilla_version", "node_version", "traced_peak_kb", "tracemalloc", "steps",
                                        "issues", "redraws", "display_bytes"))
    if workload.tools and engine == "graphrt":  # bench/engine_tools.py: every round's samples, in the order taken
        for key in TOOL_PHASES:
            measurement.extra.setdefault(key, []).extend(record.get(key) or [])
    for key in ("parse_ms", "build_ms", "run_ms"):
        samples[key].extend(record.get(key) or [])


def _whole_command(measurement: Measurement, workload: Workload, n: int, file: Path, walls: list[float]) -> None:
    status, stdout, stderr, wall, rss = _spawn(_command(measurement.engine, workload, n, file))
    if status != 0:
        measurement.error = f"whole command, exit status {status}: {stderr.strip()[-2000:]}"
        return
    walls.append(wall * 1000)
    measurement.command_rss_kb = max(measurement.command_rss_kb or 0, rss)
