"""The README's examples run as written, its first two commands are CI's, and it stays short.

Its code blocks run as tests/markdown_examples.py says (shell, Python, YAML, each in order in one scratch
folder; the LLM ones against the scripted server of tests/conftest.py). What it used to hold in full is in
docs/, whose examples tests/test_docs.py runs the same way.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from .markdown_examples import ROOT, blocks, named_files, run_page

README = ROOT / "README.md"


def test_the_readme_examples_run_as_written(tmp_path: Path, openai_server: Any, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    ran = run_page(README, tmp_path, openai_server, monkeypatch, capsys)
    assert ran >= 5, f"only {ran} of the README's blocks ran"


def test_every_file_the_readme_names_exists() -> None:
    assert not named_files(README), f"README.md names files that do not exist: {named_files(README)}"


def test_the_first_commands_are_install_and_run_then_the_ci_test_command() -> None:
    first, second = [block for block in blocks(README) if block.language == "sh"][:2]
    assert blocks(README)[:2] == [first, second], "the README's first two code blocks are its two commands"
    assert first.code.strip().startswith("./install.sh && .venv/bin/graphrt run graphs/")
    assert second.code.strip() == ".venv/bin/python -m pytest"
    # .ci/run runs these two, read from README.md, in a fresh clone, before it runs anything else of graphrt's
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    steps = [line for line in ci.splitlines() if line.startswith((".venv/", "python3 ", "env ", "GRAPHRT_"))]
    assert steps[0] == "python3 .ci/readme_commands.py", steps
    spec = importlib.util.spec_from_file_location("readme_commands", ROOT / ".ci" / "readme_commands.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.readme_commands(README) == [first.code.strip(), second.code.strip()]


def test_the_readme_is_short_and_links_into_the_docs() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 160, "README.md is for the first five minutes: the rest belongs in docs/"
    for page in ("docs/index.md", "docs/tutorials/first-agent.md", "docs/how-to/serve.md", "docs/how-to/durable.md"):
        assert f"]({page})" in text, f"README.md does not link {page}"
