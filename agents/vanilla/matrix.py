"""(being ported) GraphAI vanilla matrix agents."""

from __future__ import annotations

from graphrt.registry import AgentInfo

AGENTS: list[AgentInfo] = []
