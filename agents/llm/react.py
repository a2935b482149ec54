"""reactActionAgent: finds the ReAct action (`search[...]`, `lookup[...]`, `finish[...]`) in an LLM reply.

The action may sit anywhere in the reply: after a thought, after `Action:` or
`Action 2:`, in backticks or bold, with any capitalisation. When the reply
labels an action with `Action`, that one wins; otherwise the first one does, since
small models tend to go on and invent the observations that follow.
"""

from __future__ import annotations

import re
from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.jsvalue import is_null

__all__ = ["AGENTS", "parse_action", "react_action_agent"]

_DEFAULT_ACTIONS = ("search", "lookup", "finish")


def _pattern(actions: tuple[str, ...]) -> re.Pattern[str]:
    names = "|".join(re.escape(action) for action in actions)
    return re.compile(rf"(?<![A-Za-z])({names})\s*\[\s*(.*?)\s*\]", re.IGNORECASE | re.DOTALL)


def parse_action(text: str, actions: tuple[str, ...] = _DEFAULT_ACTIONS) -> tuple[str, str] | None:
    """The (action, argument) in `text`, lower-cased action, or None when there is none."""
    pattern = _pattern(actions)
    matches = list(pattern.finditer(text))
    if not matches:
        return None
    labelled = [match for match in matches if re.search(r"action\s*\d*\s*[:：]\W*$", text[:match.start()], re.IGNORECASE)]
    match = (labelled or matches)[0]
    argument = match.group(2).strip().strip("\"'`*").strip()
    return match.group(1).lower(), argument


async def react_action_agent(ctx: AgentContext) -> dict[str, Any]:
    """Parses the action out of an LLM reply.

    Args:
        ctx: input `text` (the reply); param `actions` (the action names, default
            search, lookup, finish).

    Returns:
        `{func, arg, action, answer}`: `func` is "" when no action was found (the
        action agent then explains the format), `answer` is the argument of
        `finish` and None otherwise.
    """
    text = ctx.inputs.get("text")
    text = "" if is_null(text) else str(text)
    actions = tuple(str(name).lower() for name in ctx.params.get("actions") or _DEFAULT_ACTIONS)
    found = parse_action(text, actions)
    func, arg = found if found else ("", text)
    return {
        "func": func,
        "arg": arg,
        "action": f"{func}[{arg}]" if found else None,
        "answer": arg if func == "finish" else None,
    }


react_action_agent_info = AgentInfo(
    name="reactActionAgent",
    func=react_action_agent,
    description="Finds the ReAct action (search[...], lookup[...], finish[...]) anywhere in an LLM reply",
    inputs={"type": "object", "properties": {"text": {"type": ["string", "null"]}}},
    params={"type": "object", "properties": {"actions": {"type": "array", "items": {"type": "string"}}}},
    samples=(
        Sample(inputs={"text": "Thought: I should look it up.\nAction: Search[Eiffel Tower]"}, params={},
               result={"func": "search", "arg": "Eiffel Tower", "action": "search[Eiffel Tower]", "answer": None}),
        Sample(inputs={"text": "It was designed by his company, so finish[Gustave Eiffel]."}, params={},
               result={"func": "finish", "arg": "Gustave Eiffel", "action": "finish[Gustave Eiffel]",
                       "answer": "Gustave Eiffel"}),
        Sample(inputs={"text": "I am not sure."}, params={},
               result={"func": "", "arg": "I am not sure.", "action": None, "answer": None}),
    ),
    category=("llm", "react"),
    author="graphrt",
    license="MIT",
)

AGENTS: list[AgentInfo] = [react_action_agent_info]
