"""LLM agents: openAIAgent (any OpenAI-compatible server, or the embedded model), toolsAgent, reactActionAgent."""

from __future__ import annotations

from graphrt.authoring.registry import AgentInfo

from .openai_agent import AGENTS as _OPENAI
from .react import AGENTS as _REACT
from .tools_agent import AGENTS as _TOOLS

__all__ = ["AGENTS"]

AGENTS: list[AgentInfo] = [*_OPENAI, *_TOOLS, *_REACT]
