"""The public conformance cases (../shared/conformance/cases), run with the Ray executor.

The suite's own runner forks a process per case and calls `graphrt.run`; with
`GRAPHRT_EXECUTOR=ray RAY_ADDRESS=auto` it runs every case on a running Ray, but
connects a new driver per case. Here the cases run in this process on the test
session's Ray, judged by the runner's own comparison (`diff`), so CI checks that
the Ray executor keeps GraphAI's semantics case by case.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import anyio
import pytest
import yaml

import graphrt

from ..conftest import NEEDS, SHARED

CONFORMANCE = SHARED / "conformance"
RUNNER = CONFORMANCE / "run.py"
TIME_LIMIT_S = 10  # the runner's own limit per case (the cluster and its workers are started before, in conftest)


def _runner():
    spec = importlib.util.spec_from_file_location("conformance_runner", RUNNER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cases():
    if NEEDS["shared"].absent():  # no cases to list: one test, skipped for it
        return [pytest.param(None, marks=pytest.mark.needs("shared"))]
    return [pytest.param(path, id=name) for name, path in _runner().collect([CONFORMANCE / "cases"])]


@pytest.fixture(scope="module")
def runner():
    return _runner()


@pytest.mark.parametrize("case_file", _cases())
def test_case_on_ray(case_file, runner, ray_executor, capsys):
    case = yaml.safe_load(case_file.read_text(encoding="utf-8"))

    async def run():
        with anyio.fail_after(TIME_LIMIT_S):
            return await graphrt.arun(case["graph"], inject=case.get("inject") or {},
                                      all_results=bool(case.get("all", False)), executor=ray_executor)

    if case.get("expected_error") is True:
        with pytest.raises(graphrt.GraphError):
            anyio.run(run)
        return
    import json

    result = json.loads(json.dumps(anyio.run(run)))
    assert runner.diff(case["expected"], result) is None
