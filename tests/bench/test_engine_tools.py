"""The tools bench (bench/engine_tools.py) measures every tool on a small graph and checks its run (no timing here)."""

from bench.engine_tools import CPU_PHASES, PHASES, measure
from bench.workloads import get, write_workload


def test_every_tool_is_measured_and_the_run_gives_the_expected_result(tmp_path) -> None:
    workload = get("large_tools")
    path = write_workload(workload, 40, tmp_path / "large_tools_40.yaml")

    record = measure(path, warmup=0, repeat=2)

    assert record["result"] == workload.expected(40)
    assert all(len(record[phase]) == 2 and all(ms >= 0 for ms in record[phase]) for phase in (*PHASES, *CPU_PHASES))
    assert record["issues"] == 0
    assert record["display_bytes"] > 0  # the summary line at least
