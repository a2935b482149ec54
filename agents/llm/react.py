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


# --- the step format as a grammar ---------------------------------------------------------------

_PHRASE = re.compile(
    r"\d[\d,.]*\d|\d"                                             # numbers: 1851, 7,088, 8,848.86
    r"|[A-Z][\w'’-]*(?:\s+(?:(?:de|da|di|del|von|van|of|the|and)\s+)*[A-Z][\w'’-]*)*"  # names: Gustave Eiffel
    r"|[a-z][\w'-]+"                                              # any other word
)
_TEXT = r"[^\n\[\]]{1,200}"
_MISSED = re.compile(r"Could not find \[[^\]]*\]\. Similar: \[[^\]]*\]\.?")
_ARGUMENT = r"[^\n\[\]]{1,80}"


def _literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _plain(text: str) -> str:
    """Lower-case words only: "Moby-Dick?" and "moby dick" are the same."""
    return " ".join(re.findall(r"\w+", text.casefold()))


def answer_candidates(observations: str, question: str, limit: int = 300) -> list[str]:
    """The phrases of what was observed that an answer may be: names, numbers and words, not the question's own.

    A phrase the question already contains ("Eiffel Tower" in "Who designed the Eiffel Tower?") is left
    out: a small model otherwise tends to answer with the very thing it searched for.
    """
    asked = f" {_plain(question)} "
    found: dict[str, None] = {}
    # Only what pages said: a failed search's "Could not find [x]. Similar: [...]" lists titles, not answers.
    observations = _MISSED.sub(" ", observations)
    for match in _PHRASE.finditer(observations):
        phrase = match.group(0).strip(".,'’-")
        if len(phrase) < 2 and not phrase.isdigit():
            continue
        if f" {_plain(phrase)} " in asked or phrase.casefold() in _STOP:
            continue
        found.setdefault(phrase, None)
    return list(found)[:limit]


_STOP = frozenset(
    "a an and are as at be by for from has have he her his in is it its of on or she that the their they this to "
    "was were which who with also than then there these those been being into over under after before about".split()
)


def react_grammar(question: str, observations: str, first: bool) -> str:
    """The GBNF grammar of one ReAct reply: `Thought: ...` on one line, then one action and nothing after it.

    The first reply must search. After that, `finish` takes only a phrase of what was observed (see
    `answer_candidates`), so that the answer is grounded in the pages read; search and lookup stay free.
    """
    head = f'root ::= "Thought: " {_TEXT} "\\nAction: " '
    if first:
        return head + f'"search[" {_ARGUMENT} "]"'
    candidates = answer_candidates(observations, question)
    finish = f' | "finish[" ({" | ".join(_literal(phrase) for phrase in candidates)}) "]"' if candidates else ""
    return head + f'(("search" | "lookup") "[" {_ARGUMENT} "]"{finish})'


async def react_grammar_agent(ctx: AgentContext) -> str:
    """The grammar for the next ReAct reply, from the question and the observations so far.

    Args:
        ctx: inputs `question` and `observations` (the text of every observation so far; empty
            before the first step).

    Returns:
        A GBNF grammar for openAIAgent's `grammar` (llama.cpp servers).
    """
    question = ctx.inputs.get("question")
    observations = ctx.inputs.get("observations")
    question = "" if is_null(question) else str(question)
    observations = "" if is_null(observations) else str(observations)
    return react_grammar(question, observations, first=not observations.strip())


react_grammar_agent_info = AgentInfo(
    name="reactGrammarAgent",
    func=react_grammar_agent,
    description="The GBNF grammar of the next ReAct reply: a thought and one action; the first must search, and "
    "finish takes a phrase of what was observed",
    inputs={"type": "object", "properties": {"question": {"type": ["string", "null"]},
                                             "observations": {"type": ["string", "null"]}}},
    output={"type": "string"},
    samples=(
        Sample(inputs={"question": "Who wrote Hamlet?", "observations": ""}, params={},
               result='root ::= "Thought: " [^\\n\\[\\]]{1,200} "\\nAction: " "search[" [^\\n\\[\\]]{1,80} "]"'),
        Sample(inputs={"question": "Who wrote Hamlet?", "observations": "Hamlet was written by William Shakespeare."},
               params={},
               result='root ::= "Thought: " [^\\n\\[\\]]{1,200} "\\nAction: " (("search" | "lookup") "[" '
                      '[^\\n\\[\\]]{1,80} "]" | "finish[" ("written" | "William Shakespeare") "]")'),
    ),
    category=("llm", "react"),
    author="graphrt",
    license="MIT",
)

AGENTS.append(react_grammar_agent_info)
