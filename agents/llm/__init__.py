"""LLM agents: openAIAgent (any OpenAI-compatible server, or the embedded model), toolsAgent and
toolsSequentialAgent, and the ReAct kit."""

from __future__ import annotations

from typing import Any

__all__ = ["AGENTS"]


def __getattr__(name: str) -> Any:
    if name == "AGENTS":  # this package's agents, imported on first use (see graphrt_agents.INDEX)
        from graphrt_agents import agents_under

        return agents_under(__name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
