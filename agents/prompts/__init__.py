"""GraphAI's prompt packs: promptsAgent (@graphai/prompts) and awesomeChatgptPromptsAgent
(@graphai/awesome_chatgpt_prompts_agent), each a fixed table of prompts by key.

The tables are data files beside this module, as GraphAI's packages ship them:
`graphai_prompts.json` (Receptron's prompts, MIT) and `awesome_chatgpt_prompts.json`
(the prompts of f/awesome-chatgpt-prompts, CC0 1.0, each cut where GraphAI's copy cuts it).
"""

from __future__ import annotations

from typing import Any

__all__ = ["AGENTS"]


def __getattr__(name: str) -> Any:
    if name == "AGENTS":  # this package's agents, imported on first use (see graphrt_agents.INDEX)
        from graphrt_agents import agents_under

        return agents_under(__name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
