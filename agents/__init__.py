"""graphrt's agent library, installed as `graphrt_agents`: GraphAI's vanilla and sleeper agents, and graphrt's own.

It sits above the engine: it imports graphrt, and graphrt never imports it. The default
registry finds it, as it finds any agent pack, through the entry point group
`graphrt.agents` (pyproject.toml: `graphrt = "graphrt_agents:AGENTS"`).
Each submodule keeps a list `AGENTS` of `AgentInfo`.
"""

from __future__ import annotations

from graphrt_agents.input import AGENTS as _input
from graphrt_agents.llm import AGENTS as _llm
from graphrt_agents.mcp import AGENTS as _mcp
from graphrt_agents.sleeper import AGENTS as _sleeper
from graphrt_agents.vanilla import AGENTS as _vanilla
from graphrt_agents.wiki import AGENTS as _wiki

__all__ = ["AGENTS"]

AGENTS = [*_vanilla, *_sleeper, *_llm, *_mcp, *_wiki, *_input]
