"""graphrt's agent library: GraphAI's vanilla agents and graphrt's own.

Each submodule keeps a list `AGENTS` of `AgentInfo`; `builtin_agents()` gathers
them for the default registry.
"""

from __future__ import annotations

from graphrt.registry import AgentInfo

__all__ = ["builtin_agents"]


def builtin_agents() -> list[AgentInfo]:
    """Every agent that ships with graphrt."""
    from agents.input import AGENTS as input_agents
    from agents.llm import AGENTS as llm
    from agents.vanilla import AGENTS as vanilla
    from agents.wiki import AGENTS as wiki

    return [*vanilla, *llm, *wiki, *input_agents]
