"""(being ported) GraphAI vanilla testing agents."""

from __future__ import annotations

from graphrt.registry import AgentInfo

AGENTS: list[AgentInfo] = []
