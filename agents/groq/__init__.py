"""The groq pack: groqAgent (GraphAI's @graphai/groq_agent) on Groq's OpenAI-compatible chat completions.

Groq's API is OpenAI's chat completions (GraphAI's groq-sdk posts to /openai/v1/chat/completions), so the
agent sends GraphAI's request through openAIAgent and the `openai` SDK graphrt already has: no extra."""

from __future__ import annotations

from typing import Any

__all__ = ["AGENTS"]


def __getattr__(name: str) -> Any:
    if name == "AGENTS":  # this package's agents, imported on first use (see graphrt_agents.INDEX)
        from graphrt_agents import agents_under

        return agents_under(__name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
