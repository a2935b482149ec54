"""`python -m bench report` draws each benchmark's JSON as a chart that says the machine, load and date it came from
(bench/charts.py); a JSON that is not there is skipped, and none at all is an error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.charts import main, workload_ratios

pytestmark = pytest.mark.needs("bench")

MACHINE = {"machine": "2 cores (nproc 2), a test CPU, 24 GiB", "load average at start": "0.50 0.40 0.30",
           "measured at": "2026-12-05 00:00 UTC"}


def _m(engine: str, workload: str, n: int, total_ms: float) -> dict:
    return {"engine": engine, "workload": workload, "n": n, "total_ms": total_ms, "error": None}


def _write(folder: Path) -> None:
    (folder / "latest.json").write_text(json.dumps({"machine": MACHINE, "measurements": [
        _m("graphrt", "chain", 10, 1.0), _m("graphai", "chain", 10, 2.0), _m("langgraph", "chain", 10, 8.0),
        _m("graphrt", "chain", 1000, 50.0), _m("graphai", "chain", 1000, 100.0), _m("langgraph", "chain", 1000, 400.0),
        _m("graphrt", "fan_out", 100, 5.0), _m("graphai", "fan_out", 100, 4.0),
        _m("graphrt", "loop_memory", 100_000, 9000.0), _m("graphai", "loop_memory", 100_000, 1000.0)]}))
    rounds = [{"p50": 0.05, "p99": 0.06, "wall": 1.0, "cpu": 0.5, "load": 1.5}]
    (folder / "durable_latest.json").write_text(json.dumps({"machine": MACHINE, "settings": {"runs": 200, "limit": 50,
                                                                                            "sequential": 50},
        "results": [{"engine": "graphrt", "store": store, "mode": mode, "rounds": rounds}
                    for store in ("none", "sqlite") for mode in ("concurrent", "sequential")]}))
    io = {str(nodes): {key: {"rows_per_s": 10.0 * nodes} for key in ("ray", "ray_one", "in_process")}
          for nodes in (1, 2, 4)}
    (folder / "ray_batch_latest.json").write_text(json.dumps({
        "summary": {"rows": 400, "io_ms": 50, "machine": {"nproc": 2, "python": "3.11", "ray": "2.9"},
                    "when": "2026-12-05 00:00 UTC", "load_average_before_after": [0.5, 0.7]}, "runs": {"io": io}}))
    levels = [{"clients": clients, "runs": 100, "load": [0.5, 0.6],
               "server": {"runs_per_s": 18.0 * clients, "p50_ms": 55.0, "p99_ms": 60.0, "cpu_us_per_run": 900.0,
                          "refused": 0},
               "arun": {"runs_per_s": 19.0 * clients, "p50_ms": 52.0, "p99_ms": 55.0}} for clients in (1, 10, 100)]
    (folder / "serve_scaling_latest.json").write_text(json.dumps({
        "machine": MACHINE, "settings": {"io_ms": 50, "max_runs": 50, "runs": 100}, "levels": levels}))


def test_each_benchmark_json_becomes_its_chart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path)
    out = tmp_path / "charts"
    assert main(["--results", str(tmp_path), "--out", str(out)]) == 0
    for name in ("ratios.png", "durability.png", "ray-scaling.png", "serve-scaling.png"):
        png = (out / name).read_bytes()
        assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000, name
    assert capsys.readouterr().out.count("bench report: ") == 4


def test_a_missing_json_is_skipped_and_none_at_all_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--results", str(tmp_path), "--out", str(tmp_path / "charts")]) == 1
    assert "no " in capsys.readouterr().err
    _write(tmp_path)
    (tmp_path / "ray_batch_latest.json").unlink()
    assert main(["--results", str(tmp_path), "--out", str(tmp_path / "charts")]) == 0
    assert not (tmp_path / "charts" / "ray-scaling.png").exists()


def test_the_ratios_are_at_each_workloads_largest_size_and_leave_memory_sampling_out(tmp_path: Path) -> None:
    _write(tmp_path)
    ratios = workload_ratios(json.loads((tmp_path / "latest.json").read_text()))
    # loop_memory runs graphrt under tracemalloc: its time is no speed figure, as the tables say
    assert ratios == {"chain": (1000, {"graphai": 0.5, "langgraph": 0.125}), "fan_out": (100, {"graphai": 1.25})}
