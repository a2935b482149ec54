"""The library's agents that reach outside the run say so in their function info, so that a run journals their
calls (graphrt/engine/journal.py): a resumed run takes their results, a replay needs no network; those that change
the world say that too."""

from __future__ import annotations

import pytest

from graphrt.authoring.plugins import default_registry
from graphrt.testing import agent_context

from ..conftest import need_agents


def _loaded(name: str):
    """The agent's info, its pack's extra installed (else skipped, naming it)."""
    need_agents({"nodes": {"agent": {"agent": name}}})
    return default_registry().get(name)

OUTSIDE = ("openAIAgent", "openAIFetchAgent", "openAIImageAgent", "anthropicAgent", "geminiAgent", "groqAgent",
           "stringEmbeddingsAgent", "fetchAgent", "vanillaFetchAgent", "wikipediaAgent", "wikiAgent",
           "braveSearchAgent", "googleSearchAgent", "serperAgent", "browserlessAgent", "arxivAgent", "exaAgent",
           "slackAgent", "replicateAgent", "ttsOpenaiAgent", "sttOpenaiAgent", "ttsNijivoiceAgent", "puppeteerAgent",
           "mcpToolsListAgent", "mcpToolsCallAgent")


@pytest.mark.parametrize("name", OUTSIDE)
def test_an_agent_that_reaches_outside_the_run_is_journaled(name: str) -> None:
    info = _loaded(name)
    assert info is not None and info.journaled


def test_pure_agents_are_not_journaled() -> None:
    registry = default_registry()
    assert not any(registry.get(name).journaled for name in ("copyAgent", "stringTemplateAgent", "mapAgent",
                                                             "nestedAgent", "toolsAgent"))


@pytest.mark.parametrize("name, inputs, params, changes, harmless", [
    ("slackAgent", {"message": "hi"}, {}, True, False),  # a message posted twice is two
    ("mcpToolsCallAgent", {"tools": {"name": "s--t"}}, {}, True, False),  # MCP's defaults
    ("vanillaFetchAgent", {"url": "http://x"}, {}, False, True),
    ("vanillaFetchAgent", {"url": "http://x"}, {"method": "POST"}, True, False),
    ("vanillaFetchAgent", {"url": "http://x", "headers": {"Idempotency-Key": "k"}}, {"method": "POST"}, True, True),
    ("openAIAgent", {"prompt": "hi"}, {}, False, True),
])
def test_what_a_call_does_outside_follows_its_function_info(name, inputs, params, changes, harmless) -> None:
    info = _loaded(name)
    ctx = agent_context(inputs, params)
    assert (info.has_side_effects(ctx), info.is_idempotent(ctx)) == (changes, harmless)
