"""The gemini pack: geminiAgent (GraphAI's @graphai/gemini_agent) on Google's official `google-genai` SDK.

Its SDK comes with `pip install 'graphrt[gemini]'` (its entry in `graphrt_agents.PACKS`); the
agent's module imports it only when it runs, and says what to install without it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["AGENTS"]


def __getattr__(name: str) -> Any:
    if name == "AGENTS":  # this package's agents, imported on first use (see graphrt_agents.INDEX)
        from graphrt_agents import agents_under

        return agents_under(__name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
