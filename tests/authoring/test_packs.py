"""Agent packs (graphrt/authoring/packs.py): an agent's pack, what to install when its extra is missing,
and GraphAI's agents a pack knows of but lacks, as validation, `graphrt agents` and a run say them."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

import graphrt
from graphrt.authoring.packs import Pack, Unavailable
from graphrt.authoring.registry import AgentIndex, Registry
from graphrt.base.errors import GraphValidationError, RegistrationError
from graphrt.check.validate import collect_issues
from graphrt.cli.main import main

MISSING = Pack("pdf", extra="pdf", requires=("graphrt_no_such_module_for_tests",))
NOT_INSTALLED = ("agent 'pdfAgent' is in graphrt[pdf], which is not installed "
                 "(no module graphrt_no_such_module_for_tests): pip install 'graphrt[pdf]'")


@pytest.fixture
def pack_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A module `fake_pdf_pack` whose import would fail loudly, so that a test sees it is never imported."""
    (tmp_path / "fake_pdf_pack.py").write_text("raise RuntimeError('imported although its pack is not installed')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    return "fake_pdf_pack"


def registry_with(index: AgentIndex) -> Registry:
    registry = Registry()
    registry.add_index(index)
    registry.add(graphrt.as_agent(lambda: 1, name="oneAgent"), pack=Pack("mine"))
    return registry


def graph(agent: str) -> dict:
    return {"version": 0.5, "nodes": {"a": {"agent": agent, "isResult": True}}}


def test_an_agent_of_a_pack_whose_extra_is_missing_stays_known_and_says_what_to_install(pack_module: str) -> None:
    registry = registry_with(AgentIndex({pack_module: ("pdfAgent",)}, packs={pack_module: MISSING}))
    assert "pdfAgent" in registry.names()
    assert registry.why_unavailable("pdfAgent") == NOT_INSTALLED
    with pytest.raises(RegistrationError) as caught:
        registry.get("pdfAgent")
    assert caught.value.message == NOT_INSTALLED
    assert pack_module not in sys.modules


def test_validation_names_the_extra_of_an_agent_whose_pack_is_missing(pack_module: str) -> None:
    registry = registry_with(AgentIndex({pack_module: ("pdfAgent",)}, packs={pack_module: MISSING}))
    issues = collect_issues(graph("pdfAgent"), registry)
    assert [(issue.message, issue.node_id, issue.field) for issue in issues] == [(NOT_INSTALLED, "a", "agent")]


def test_an_unavailable_graphai_agent_is_not_available_rather_than_unknown() -> None:
    index = AgentIndex({}, unavailable={"cloudAgent": Unavailable("@graphai/cloud_agent", "it needs cloud.example, a paid service",
                                                                   instead="fetchAgent can call it")})
    with pytest.raises(GraphValidationError) as caught:
        graphrt.Graph(graph("cloudAgent"), agents=registry_with(index))
    assert [issue.message for issue in caught.value.issues] == [
        "agent 'cloudAgent' (GraphAI's @graphai/cloud_agent) is not available: it needs cloud.example, a paid service; "
        "fetchAgent can call it"]


def test_an_agent_registered_under_an_unavailable_name_is_used() -> None:
    index = AgentIndex({}, unavailable={"oneAgent": Unavailable("@graphai/x", "no")})
    registry = Registry()
    registry.add_index(index)
    registry.register(graphrt.as_agent(lambda: 1, name="oneAgent"))
    assert registry.why_unavailable("oneAgent") is None
    assert graphrt.Graph(graph("oneAgent"), agents=registry).run() == {"a": 1}


def test_a_module_is_in_the_pack_of_its_longest_prefix() -> None:
    index = AgentIndex({"p.a.b": ("x",), "p.c": ("y",), "q": ("z",)}, packs={"p": Pack("p"), "p.a": Pack("pa")})
    assert [getattr(index.pack_of(module), "name", None) for module in ("p.a.b", "p.c", "q", "pa")] == ["pa", "p", None, None]


def test_the_pack_of_an_agent_outlives_its_import() -> None:
    registry = Registry()
    registry.add_index(AgentIndex({"graphrt_agents.vanilla.data": ("copyAgent",)},
                                  packs={"graphrt_agents.vanilla": Pack("vanilla")}))
    assert registry.pack_of("copyAgent").name == "vanilla"
    registry.get("copyAgent")
    assert registry.pack_of("copyAgent").name == "vanilla"
    assert registry.copy().pack_of("copyAgent").name == "vanilla"


def test_every_module_of_graphrt_agents_is_in_a_pack() -> None:
    import graphrt_agents

    assert [module for module in graphrt_agents.INDEX.modules if graphrt_agents.INDEX.pack_of(module) is None] == []


def test_graphrt_agents_lists_each_agents_pack_and_what_to_install_for_a_missing_one(
        pack_module: str, installed_package, capsys: pytest.CaptureFixture[str]) -> None:
    installed_package("pdf-index-pack", entry_points={"graphrt.agents": {"pdf": "pdf_index_pack:INDEX"}},
                      pdf_index_pack=f"""
        from graphrt.authoring.packs import Pack
        from graphrt.authoring.registry import AgentIndex

        INDEX = AgentIndex({{{pack_module!r}: ("pdfAgent",)}},
                           packs={{{pack_module!r}: Pack("pdf", extra="pdf", requires=({MISSING.requires[0]!r},))}})
    """)
    assert main(["agents"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(None, 2) for line in lines if line.startswith(("pdfAgent ", "copyAgent "))] == [
        ["copyAgent", "vanilla", "Returns namedInputs"], ["pdfAgent", "pdf", NOT_INSTALLED]]
    assert main(["agents", "pdfAgent"]) == 1
    assert capsys.readouterr().err == f"graphrt: {NOT_INSTALLED}\n"


def test_iterating_a_registry_leaves_out_the_agents_whose_pack_is_missing(pack_module: str) -> None:
    registry = registry_with(AgentIndex({pack_module: ("pdfAgent",)}, packs={pack_module: MISSING}))
    assert [info.name for info in registry] == ["oneAgent"]
    assert pack_module not in sys.modules
