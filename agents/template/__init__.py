"""GraphAI's example agents from graphai-agents' packages/: templateAgent (@graphai/agent_template), the skeleton
a new agent starts from, and nodeBrowserDetectAgent and nodeBrowserDetect2Agent (node_browser_detect_agent), test
agents; each returns what it was given, `{params, namedInputs}`.
"""

from __future__ import annotations

from typing import Any

__all__ = ["AGENTS"]


def __getattr__(name: str) -> Any:
    if name == "AGENTS":  # this package's agents, imported on first use (see graphrt_agents.INDEX)
        from graphrt_agents import agents_under

        return agents_under(__name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
