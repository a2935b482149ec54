"""Hypothesis profiles for the property tests: `fast` (default, keeps the suite quick) and `deep`.

    HYPOTHESIS_PROFILE=deep .venv/bin/python -m pytest tests/security    # thousands of examples each
"""

import os

from hypothesis import HealthCheck, settings

# A hang shows up as an example past the deadline.
settings.register_profile("fast", max_examples=100, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("deep", max_examples=5000, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))


import importlib.util  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Iterator  # noqa: E402

import pytest  # noqa: E402


def _llm_fixtures() -> Any:
    """tests/llm/conftest.py as a module (its scripted OpenAI-compatible server), loaded once."""
    name = "graphrt_llm_fixtures"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).parents[1] / "llm" / "conftest.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture(scope="session")
def _scripted_server() -> Iterator[Any]:
    server = _llm_fixtures().ScriptedOpenAIServer().start()
    yield server
    server.close()


@pytest.fixture
def openai_server(_scripted_server: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The scripted server of tests/llm, emptied; replies are built with `reply`."""
    _scripted_server.reset()
    monkeypatch.setenv("OPENAI_BASE_URL", _scripted_server.url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-secret-0123456789abcdef")
    monkeypatch.delenv("OPENAI_MODEL", raising=False)
    return _scripted_server


@pytest.fixture
def reply() -> Any:
    return _llm_fixtures()
