"""(being ported) GraphAI vanilla sleeper agents."""

from __future__ import annotations

from graphrt.registry import AgentInfo

AGENTS: list[AgentInfo] = []
