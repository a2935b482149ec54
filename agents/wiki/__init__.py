"""Wiki agents for ReAct: `wikiAgent` with its search, lookup and finish actions."""

from __future__ import annotations

from graphrt.authoring.registry import AgentInfo

from .agent import AGENTS as _WIKI

__all__ = ["AGENTS"]

AGENTS: list[AgentInfo] = [*_WIKI]
