"""(being ported) GraphAI vanilla service agents."""

from __future__ import annotations

from graphrt.registry import AgentInfo

AGENTS: list[AgentInfo] = []
