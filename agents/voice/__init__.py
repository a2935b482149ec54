"""The voice pack: GraphAI's ttsOpenaiAgent and sttOpenaiAgent (@graphai/tts_openai_agent, @graphai/stt_openai_agent,
receptron/graphai-agents' voice/), speech from text and text from speech through OpenAI's audio API, and
ttsNijivoiceAgent (@graphai/tts_nijivoice_agent), speech from text through Nijivoice's.

The OpenAI agents ask through the `openai` SDK graphrt already has, as `OpenAIProvider`s of the LLM pack;
ttsNijivoiceAgent on httpx, as the net pack's agents: no extra."""

from __future__ import annotations

from typing import Any

__all__ = ["AGENTS"]


def __getattr__(name: str) -> Any:
    if name == "AGENTS":  # this package's agents, imported on first use (see graphrt_agents.INDEX)
        from graphrt_agents import agents_under

        return agents_under(__name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
