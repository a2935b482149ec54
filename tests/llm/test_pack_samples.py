"""The samples of the LLM packs' agents, each through a real one-node graph (GraphAI's own have none that run
offline: geminiAgent's empty call needs no server, groqAgent's runs openAIAgent's mock)."""

from __future__ import annotations

from graphrt_agents.gemini.agent import AGENTS as GEMINI
from graphrt_agents.groq.agent import AGENTS as GROQ

from graphrt.testing import SampleCase, parametrize_samples


@parametrize_samples(*GEMINI, *GROQ)
def test_every_sample_gives_its_result(sample_case: SampleCase) -> None:
    sample_case.check()
