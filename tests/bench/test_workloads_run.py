"""The bench's workload graphs give the right results on graphrt (small sizes; no timing here)."""

import pytest
import yaml

import graphrt
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
