"""The samples of the LLM and voice packs' agents, each through a real one-node graph (GraphAI's own have none that
run offline: geminiAgent's empty call needs no server; groqAgent's runs openAIAgent's mock; openAIImageAgent's,
openAIFetchAgent's, ttsOpenaiAgent's and sttOpenaiAgent's run their mocks)."""

from __future__ import annotations

from graphrt_agents.gemini.agent import AGENTS as GEMINI
from graphrt_agents.groq.agent import AGENTS as GROQ
from graphrt_agents.llm.openai_fetch_agent import AGENTS as FETCH
from graphrt_agents.llm.openai_image_agent import AGENTS as IMAGE
from graphrt_agents.voice import AGENTS as VOICE

from graphrt.testing import SampleCase, parametrize_samples


@parametrize_samples(*GEMINI, *GROQ, *IMAGE, *FETCH, *VOICE)
def test_every_sample_gives_its_result(sample_case: SampleCase) -> None:
    sample_case.check()
