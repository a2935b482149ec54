"""templateAgent, nodeBrowserDetectAgent and nodeBrowserDetect2Agent return `{params, namedInputs}`, as GraphAI's do."""

from __future__ import annotations

import pytest
from graphrt_agents.template.echo import AGENTS

import graphrt
from graphrt.testing import SampleCase, parametrize_samples


@parametrize_samples(*AGENTS)
def test_every_sample_gives_its_result(sample_case: SampleCase) -> None:
    sample_case.check()


@pytest.mark.parametrize("agent", ["templateAgent", "nodeBrowserDetectAgent", "nodeBrowserDetect2Agent"])
def test_inputs_come_back_resolved_and_params_as_given(agent: str) -> None:
    graph = {"version": 0.5, "nodes": {
        "src": {"value": {"x": [1, 2]}},
        "out": {"agent": agent, "inputs": {"first": ":src.x.$0", "all": ":src"}, "params": {"p": True},
                "isResult": True}}}
    assert graphrt.run(graph)["out"] == {"params": {"p": True}, "namedInputs": {"first": 1, "all": {"x": [1, 2]}}}
