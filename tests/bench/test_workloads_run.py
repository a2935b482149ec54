"""The bench's workload graphs give the right results on graphrt (small sizes; no timing here)."""

import asyncio

import pytest
import yaml

import graphrt
from bench.floor import FLOORS
from bench.workloads import WORKLOADS, Workload, to_yaml, workload_file


@pytest.mark.parametrize("workload", WORKLOADS, ids=lambda w: w.name)
def test_workload_gives_its_expected_result_at_a_small_size(workload: Workload) -> None:
    graph = yaml.safe_load(to_yaml(workload, workload.build(workload.small_n), workload.small_n))

    assert graphrt.run(graph) == workload.expected(workload.small_n)


@pytest.mark.parametrize("workload", [w for w in WORKLOADS if w.kept_in_git], ids=lambda w: w.name)
def test_workload_file_is_the_graph_its_builder_makes(workload: Workload) -> None:
    with open(workload_file(workload), encoding="utf-8") as file:
        assert yaml.safe_load(file) == workload.build(workload.n)


@pytest.mark.needs("bench")
def test_langgraph_equivalents_exist_for_the_workloads_that_claim_one() -> None:
    from bench.engine_langgraph import BUILDERS

    assert sorted(BUILDERS) == sorted(w.name for w in WORKLOADS if w.langgraph)


@pytest.mark.parametrize("workload", [w for w in WORKLOADS if w.name in FLOORS], ids=lambda w: w.name)
def test_floor_gives_the_workloads_expected_result(workload: Workload) -> None:
    n = workload.small_n if workload.name != "io_fan_out" else 3  # three real 50 ms sleeps

    assert asyncio.run(FLOORS[workload.name](n)) == workload.expected(n)


def test_every_engine_workload_has_a_floor() -> None:
    timed = {w.name for w in WORKLOADS if not w.memory and not w.tools}

    assert set(FLOORS) == timed


def test_report_gives_each_engine_over_the_floor() -> None:
    from bench.driver import Measurement
    from bench.report import Report

    measured = [Measurement("graphrt", "chain", 1000, total_ms=20.0), Measurement("graphai", "chain", 1000, total_ms=60.0),
                Measurement("floor", "chain", 1000, total_ms=0.5)]

    table = Report(measured, ("graphrt", "graphai")).floor_table()

    assert table.rows == [["chain", "1,000", "0.50", "0.50", "40.00×", "120.00×"]]
