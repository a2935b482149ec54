"""The documentation: every page's examples run as written, the generated reference covers the code, and the site
builds with `mkdocs build --strict` (a broken link, a missing page or reference fails).

The examples run as tests/markdown_examples.py says, one test per page, in the page's order. The reference
pages are made by docsite/ from the code as the site builds; these tests check that they name everything
the code has, so that a new command, route, agent or error cannot be left out.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import NEEDS, need
from .markdown_examples import ROOT, blocks, named_files, pages, run_page

DOCS = [page for page in pages() if page.name != "README.md"]


@pytest.mark.parametrize("page", DOCS, ids=lambda page: str(page.relative_to(ROOT)))
def test_the_page_examples_run_as_written(page: Path, tmp_path: Path, openai_server: Any,
                                          monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    run_page(page, tmp_path, openai_server, monkeypatch, capsys)


@pytest.fixture(scope="module")
def generated() -> frozenset[str]:
    """The pages docsite/ generates as the site builds, by their path under docs/."""
    from docsite.generated import generated_pages

    return frozenset(generated_pages()[0])


@pytest.mark.parametrize("page", DOCS, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_file_a_page_names_exists(page: Path, generated: frozenset[str]) -> None:
    missing = named_files(page, generated)
    assert not missing, f"{page.relative_to(ROOT)} names files that do not exist: {missing}"


def test_every_command_and_option_is_in_the_cli_reference() -> None:
    from docsite.cli_reference import cli_page, command_parser
    from graphrt.cli.main import COMMANDS

    page = cli_page()
    for name, module, _ in COMMANDS:
        assert f"\n## graphrt {name}\n" in page
        for action in command_parser(name, module)._actions:
            if not isinstance(action, argparse._HelpAction) and action.help != argparse.SUPPRESS:
                for option in action.option_strings or [action.metavar or action.dest]:
                    assert f"`{option}" in page, f"graphrt {name}: {option} is not in the CLI reference"


def test_every_route_and_schema_is_in_the_http_reference() -> None:
    from docsite.http_reference import http_page
    from graphrt.serve.openapi import openapi_document

    document = openapi_document()
    page = http_page(document)
    for path, operations in document["paths"].items():
        for method in operations:
            assert f"\n### {method.upper()} {path}\n" in page
    for name in document["components"]["schemas"]:
        assert f"\n### {name}\n" in page


def test_every_agent_has_its_reference_with_what_it_needs() -> None:
    from docsite.agent_reference import agent_pages, pack_pages
    import graphrt_agents

    made = agent_pages()
    assert set(pack_pages()) | {"reference/agents/index.md"} == set(made.pages)
    every = "".join(made.pages.values())
    for name in graphrt_agents.INDEX.names():
        assert f"\n## {name}\n" in every, f"{name} has no section"
        assert f"[{name}](" in made.pages["reference/agents/index.md"]
    for name in graphrt_agents.UNAVAILABLE:
        assert f"`{name}`" in made.pages["reference/agents/index.md"]
    # an installed agent's section shows its function info; one whose extra is missing here says so
    vanilla = made.pages["reference/agents/vanilla.md"]
    assert "## copyAgent" in vanilla and "@graphai/vanilla" in vanilla and '??? example' in vanilla
    for name in made.missing:
        section = every[every.index(f"\n## {name}\n"):]
        assert "pip install 'graphrt[" in section.split("\n## ")[1]


def test_every_error_of_the_tree_has_its_section() -> None:
    from docsite.error_reference import error_page, error_tree
    from graphrt.base.errors import GraphError

    tree = error_tree()
    page = error_page()
    assert tree[0].name == "GraphError" and all(error.parent for error in tree[1:])
    for error in tree:
        assert f"\n## {error.name}\n" in page and f"::: {error.module}.{error.name}\n" in page
    assert {cls.__name__ for cls in GraphError.__subclasses__() if cls.__module__ == "graphrt.base.errors"} <= \
        {error.name for error in tree}


def test_every_public_name_is_in_the_python_reference() -> None:
    import graphrt
    from docsite.generated import generated_pages

    generated, _ = generated_pages()
    every = "".join(generated.values())
    for name, module in graphrt._EXPORTS.items():
        assert re.search(rf"^::: {re.escape(module)}\.{name}$|^        - {name}$|^## {name}$", every, re.MULTILINE), \
            f"graphrt.{name} ({module}) is in no reference page"


def test_every_page_is_in_the_nav() -> None:
    import yaml

    class _Loader(yaml.SafeLoader):
        pass

    _Loader.add_multi_constructor("tag:yaml.org,2002:python/name:", lambda loader, suffix, node: suffix)
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)  # noqa: S506 - our own file
    listed = set(re.findall(r"[\w/.-]+\.md", str(config["nav"])))
    written = {str(page.relative_to(ROOT / "docs")) for page in DOCS}
    assert written <= listed, f"pages missing from mkdocs.yml's nav: {sorted(written - listed)}"


@pytest.mark.needs("docs")
def test_the_site_builds_strictly(tmp_path: Path) -> None:
    # Every agent's reference is read from its pack, so --strict needs every pack's extra: skip, naming them, without.
    import graphrt_agents
    from graphrt.engine.graph import make_registry

    registry = make_registry(None)
    for extra in sorted({pack.extra for pack in map(registry.pack_of, graphrt_agents.INDEX.names())
                         if pack is not None and pack.extra and pack.missing() and pack.extra in NEEDS}):
        need(extra)
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    built = tmp_path / "site"
    for page in ("reference/cli/index.html", "reference/http-api/index.html", "reference/agents/vanilla/index.html",
                 "reference/errors/index.html", "reference/python/index.html", "tutorials/first-graph/index.html"):
        assert (built / page).is_file(), f"{page} was not built"
    python_api = (built / "reference/python/index.html").read_text(encoding="utf-8")
    assert "A graph ready to run; it does not change once made." in python_api  # Graph's docstring, by mkdocstrings


def _said(page: str) -> str:
    """A page's words, across line ends."""
    return " ".join((ROOT / "docs" / page).read_text(encoding="utf-8").split())


def test_the_batch_page_names_every_file_a_batch_writes_beside_its_output(tmp_path: Path) -> None:
    (tmp_path / "names.jsonl").write_text('{"name": "Ada"}\n{"name": "Alan"}\n')
    done = subprocess.run([str(Path(sys.executable).parent / "graphrt"), "batch", str(ROOT / "graphs" / "hello.yaml"),
                           "names.jsonl", "-o", "greetings.jsonl", "-q"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    written = {path.name for path in tmp_path.iterdir()} - {"names.jsonl", "greetings.jsonl"}
    said = _said("how-to/batches.md")
    assert written and all(f"`{name}`" in said for name in written), (written, said)
    for name in ("-wal", "-shm", "`OUTPUT.runs.db`"):  # SQLite's files while it runs, and the default's rule
        assert name in said


def test_the_mcp_example_says_the_embedded_model_calls_no_tool_there() -> None:
    assert ("On the embedded 135M model this example calls no tool: llama-cpp-python's server makes a tool call "
            "only when `tool_choice` names the tool") in _said("how-to/mcp.md")
    header = (ROOT / "graphs" / "mcp_files.yaml").read_text(encoding="utf-8")
    assert "it calls\n# no tool there" in header


def test_every_extra_is_on_the_packs_page() -> None:
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    said = _said("how-to/packs.md")
    assert not [extra for extra in extras if f"`{extra}`" not in said], "extras the packs page does not name"


def test_each_deviation_ci_allows_is_on_the_compatibility_page() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("graphai_own", ROOT / ".ci" / "graphai_own.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    said = _said("explanation/compatibility.md")
    for reason, _ in module.DEVIATIONS.values():
        assert reason.split(":")[0].split("'")[0] in said, reason


def test_the_benchmarks_page_shows_every_chart_and_benchmarks_md_figures() -> None:
    from bench.charts import CHARTS

    charts = sorted(path.name for path in (ROOT / "docs" / "images" / "bench").glob("*.png"))
    assert len(charts) == len(CHARTS), f"one chart a benchmark's JSON ({sorted(CHARTS)}), found {charts}"
    page = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    benchmarks = (ROOT / "BENCHMARKS.md").read_text(encoding="utf-8")
    for chart in charts:
        assert f"](images/bench/{chart})" in page and f"](docs/images/bench/{chart})" in benchmarks, chart
    # the page's figures are BENCHMARKS.md's own, not a copy that could drift from it
    assert '\n--8<-- "BENCHMARKS.md:figures"\n' in page
    start, end = benchmarks.index("<!-- --8<-- [start:figures] -->"), benchmarks.index("<!-- --8<-- [end:figures] -->")
    assert start < end and "](docs/" not in benchmarks[start:end], "a link in the figures would break on the site"
