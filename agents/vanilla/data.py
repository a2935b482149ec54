"""(being ported) GraphAI vanilla data agents."""

from __future__ import annotations

from graphrt.registry import AgentInfo

AGENTS: list[AgentInfo] = []
