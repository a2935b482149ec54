"""promptsAgent and awesomeChatgptPromptsAgent: `{text}` of the prompt that `params.promptKey` names.

As in GraphAI, a key the table lacks gives `{text: undefined}` (`{}` as JSON), not an
error; the params schema lists the keys, so `graphrt validate` warns about a literal
key that is not one of them.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentFunction, AgentInfo, Sample
from graphrt.base.jsvalue import UNDEFINED

__all__ = ["AGENTS", "prompt_table"]


@cache
def prompt_table(file: str) -> dict[str, str]:
    """The prompts of one of this package's data files, by key (read once)."""
    return json.loads(resources.files(__package__).joinpath(file).read_text(encoding="utf-8"))


def _prompt_agent(file: str) -> AgentFunction:
    async def prompt_agent(ctx: AgentContext) -> dict[str, Any]:
        """`{text}`: the prompt of `params.promptKey` (undefined when the table has no such key)."""
        key = ctx.params.get("promptKey")
        return {"text": prompt_table(file).get(key, UNDEFINED) if isinstance(key, str) else UNDEFINED}

    return prompt_agent


def _info(name: str, file: str, package: str, folder: str, source: str, sample_key: str, description: str) -> AgentInfo:
    keys = sorted(prompt_table(file))
    return AgentInfo(
        name=name,
        func=_prompt_agent(file),
        description=description,
        params={"type": "object", "properties": {"promptKey": {"type": "string", "enum": keys,
                                                               "description": "which prompt"}}},
        output={"type": "object", "properties": {"text": {"type": "string", "description": "the prompt"}}},
        samples=(Sample(inputs={}, params={"promptKey": sample_key}, result={"text": prompt_table(file)[sample_key]}),),
        category=("prompt",),
        author="Receptron team",
        repository=f"https://github.com/receptron/graphai-agents/tree/main/prompts/{folder}",
        source=f"https://github.com/receptron/graphai-agents/tree/main/prompts/{folder}/src/{source}",
        package=package,
        license="MIT",
        runs_local=True,  # a table look-up: a trip to a cluster worker would cost more than the call
    )


AGENTS: list[AgentInfo] = [
    _info("promptsAgent", "graphai_prompts.json", "@graphai/prompts", "prompts", "prompts_agent.ts", "test", "Prompts Agent"),
    _info("awesomeChatgptPromptsAgent", "awesome_chatgpt_prompts.json", "@graphai/awesome_chatgpt_prompts_agent",
          "awesome-chatgpt-prompts_agent", "awesome_chatgpt_prompts_agent.ts", "travelGuide", "awesomeChatgptPrompts Agent"),
]
