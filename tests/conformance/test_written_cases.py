"""Conformance cases that graphrt wrote (tests/conformance/cases), in the shared suite's format, judged by its
runner: each one's GraphAI result was worked out by reading GraphAI's code, where it is deterministic offline
(the case says how, in `written_by`). They run with no provider key in the environment, as their GraphAI
result assumes."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import yaml

from ..conftest import SHARED, need_agents

HERE = Path(__file__).parent
RUNNER = SHARED / "conformance" / "run.py"
KEYS = ("ANTHROPIC_API_KEY", "GOOGLE_GENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "GROQ_API_KEY",
        "OPENAI_API_KEY", "OPENAI_BASE_URL", "BRAVE_SEARCH_API_TOKEN", "BROWSERLESS_API_TOKEN", "GOOGLE_SEARCH_API_KEY",
        "SERPER_API_KEY", "SLACK_TOKEN", "EXASEARCH_API_KEY", "EXA_API_KEY", "REPLICATE_API_TOKEN",
        "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_AD_TOKEN", "AZURE_OPENAI_ENDPOINT", "GRAPHRT_AZURE_AD_TOKEN_PROVIDER")


def _runner():
    spec = importlib.util.spec_from_file_location("conformance_runner", RUNNER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.needs("shared")
@pytest.mark.parametrize("case_file", sorted((HERE / "cases").rglob("*.yaml")), ids=lambda path: path.stem)
def test_case_gives_graphais_result(case_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for key in KEYS:
        monkeypatch.delenv(key, raising=False)
    case = yaml.safe_load(case_file.read_text(encoding="utf-8"))
    assert case["written_by"].startswith("graphrt, from reading GraphAI's ")
    need_agents(case.get("graph"))
    runner = _runner()
    failure, got = runner.check(runner.multiprocessing.get_context("fork"), case)
    assert failure is None, f"{failure} (got {got})"
