"""focusedWikiAgent: the wiki read *with the question*, for a 135M model that reads little and copies what it reads.

The library's wikiAgent is a plain tool: search gives a page's lead, lookup the next sentence
with a term. This example's reader is given the question too, and uses it:

- search shows the page's first sentence and the two that best match the question (BM25 over
  word stems, weights from the corpus, the page's own title words ignored), not the lead in order;
- a search that names no page reads the page that best matches the entity and the question, and
  whose text has the entity's very words ("Red Planet" is in Mars's lead), instead of listing
  similar titles: a small model rarely recovers from a list;
- lookup gives the sentences with the term that best match the question first;
- finish is one of its actions, so that the function-calling graph can call it as a tool.

That is retrieval tuned for one kind of question on one corpus, which is why it is an example.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from typing import Any

from graphrt_agents.wiki.agent import ARG_NAMES, action_argument, backend_for, lookup, page_state, split_sentences
from graphrt_agents.wiki.backends import Page, WikiBackend
from graphrt_agents.wiki.rank import stems

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.jsvalue import is_null

__all__ = ["AGENTS", "focused_wiki_agent", "rank_sentences"]

_FOCUSED_SENTENCES = 3
_SIMILAR = 5
_ARG_NAMES = {**ARG_NAMES, "finish": "answer"}  # wikiAgent's actions, and finish
_USAGE = "Use search[entity], lookup[term] or finish[answer]."


def rank_sentences(sentences: list[str], question: str, weight: Callable[[str], float] | None = None,
                   ignore: Iterable[str] = ()) -> list[int]:
    """The indices of `sentences`, most relevant to `question` first (ties keep page order).

    Relevance is the summed weight of the question's distinct stems a sentence contains, so a sentence
    with a rare word of the question ("commanded") beats one with a common word ("first"). Without a
    weight, a stem weighs by how few of these sentences have it. Stems in `ignore` (the page's title:
    on its own page every sentence is about it) count for nothing.
    """
    wanted = set(stems(question)) - set(ignore)
    found = [set(stems(sentence)) for sentence in sentences]
    if weight is None:
        total = len(found)

        def weight(stem: str) -> float:
            return math.log(1 + total / (1 + sum(stem in words for words in found)))

    def relevance(index: int) -> float:
        return sum(weight(stem) for stem in wanted & found[index])

    return sorted(range(len(sentences)), key=lambda index: (-relevance(index), index))


def _focused(backend: WikiBackend, page: Page, question: str, count: int) -> list[str]:
    """The page's first sentence and the sentences that best match the question, in page order."""
    sentences = split_sentences(page.text)
    weight = getattr(backend, "weight", None)
    ranked = [index for index in rank_sentences(sentences, question, weight, ignore=stems(page.title)) if index != 0]
    chosen = sorted([0, *ranked[: count - 1]]) if sentences else []
    return [sentences[index] for index in chosen]


async def _closest(backend: WikiBackend, entity: str, question: str) -> Page | None:
    """Of the best matches for the entity (counted twice: the page is about it) and the question, the first
    whose text has the entity's very words, else the best."""
    pages = [page for title in await backend.similar(f"{entity} {entity} {question}", _SIMILAR)
             if (page := await backend.page(title)) is not None]
    verbatim = re.compile(rf"\b{re.escape(entity)}\b", re.IGNORECASE)
    return next((page for page in pages if verbatim.search(page.text)), pages[0] if pages else None)


async def _search(backend: WikiBackend, entity: str, question: str) -> tuple[str, dict[str, Any]]:
    if not entity:
        return f"search needs an entity, as in search[Albert Einstein]. {_USAGE}", {}
    page = await backend.page(entity)
    note = ""
    if page is None:
        page = await _closest(backend, entity, question)
        if page is None:
            return f"Could not find [{entity}].", {}
        note = f"(No page [{entity}]; the closest is [{page.title}].) "
    return note + " ".join(_focused(backend, page, question, _FOCUSED_SENTENCES)), page_state(page)


def _lookup(state: dict[str, Any], term: str, question: str) -> tuple[str, dict[str, Any]]:
    """wikiAgent's lookup, with the sentences that bear most on the question first."""
    if not term:
        return f"lookup needs a term, as in lookup[relativity]. {_USAGE}", state
    ignore = stems(state.get("title") or "")
    return lookup(state, term, lambda hits: [hits[rank] for rank in rank_sentences(hits, question, ignore=ignore)])


async def focused_wiki_agent(ctx: AgentContext) -> dict[str, Any]:
    """Runs one ReAct action on the wiki, reading with the question: `search`, `lookup` or `finish`.

    Args:
        ctx: inputs `func`, `arg` (text or object), `data` (the state the previous call returned) and
            `question` (or `data.question`, as toolsAgent's passthrough gives it); params or config as
            wikiAgent's (`backend`, `corpus`, `lang`, `apiURL`).

    Returns:
        `{content, data}`: the observation, and the new state (with `answer` after finish).
    """
    options = {**ctx.config, **ctx.params}
    func = str(ctx.inputs.get("func") or "").strip().lower()
    argument = action_argument(func, ctx.inputs.get("arg"), _ARG_NAMES)
    given = ctx.inputs.get("data")
    state = dict(given) if isinstance(given, dict) else {}
    question = ctx.inputs.get("question", state.get("question"))
    question = "" if is_null(question) else str(question).strip()
    if func == "search":
        content, state = await _search(backend_for(options), argument, question)
    elif func == "lookup":
        content, state = _lookup(state, argument, question)
    elif func == "finish":
        content, state = argument, {**state, "answer": argument}
    else:
        content = f"Invalid action{f' {func!r}' if func else ''}. {_USAGE}"
    if question and isinstance(given, dict) and "question" in given:
        state = {**state, "question": question}  # a question that came in the state stays there for the next call
    return {"content": content, "data": state}


def _tool(func: str, description: str, parameter: str, about: str) -> dict[str, Any]:
    return {"type": "function", "function": {
        "name": f"focusedWikiAgent--{func}", "description": description,
        "parameters": {"type": "object", "properties": {parameter: {"type": "string", "description": about}},
                       "required": [parameter]}}}


_FIXTURE = {"title": "Gustave Eiffel", "text": "Gustave Eiffel was a French civil engineer. His company built bridges "
            "for the French railways. Eiffel also designed the inner frame of the Statue of Liberty.", "lookup": None}

focused_wiki_agent_info = AgentInfo(
    name="focusedWikiAgent",
    func=focused_wiki_agent,
    description="ReAct's wiki actions read with the question: search shows a page's sentences that bear on it "
    "(and reads the closest page when none has the name), lookup the best-matching sentence with a term first, "
    "finish ends with an answer (text from Wikipedia, CC BY-SA 4.0)",
    inputs={"type": "object", "properties": {
        "func": {"type": "string", "enum": ["search", "lookup", "finish", ""]},
        "arg": {"anyOf": [{"type": "string"}, {"type": "object"}]},
        "data": {"type": "object", "description": "the state the previous call returned"},
        "question": {"type": ["string", "null"], "description": "the question being answered"},
    }},
    params={"type": "object", "properties": {
        "backend": {"type": "string", "enum": ["offline", "mediawiki"]},
        "corpus": {"type": "string", "description": "a JSON corpus file {title: {title, extract}}"},
    }},
    tools=(
        _tool("search", "Reads the sentences of the wiki page about an entity that bear on the question.",
              "entity", "the page title to look up"),
        _tool("lookup", "Returns the next sentence containing a term in the page found by the last search.",
              "term", "the word or phrase to find"),
        _tool("finish", "Finishes the task with the final answer.", "answer", "the answer to the question"),
    ),
    samples=(
        Sample(inputs={"func": "lookup", "arg": "Eiffel", "data": _FIXTURE, "question": "What frame did he design?"},
               params={},
               result={"content": "(Result 1/2) Eiffel also designed the inner frame of the Statue of Liberty.",
                       "data": {**_FIXTURE, "lookup": {"term": "Eiffel", "index": 1}}}),
    ),
    category=("wiki", "react", "example"),
    author="graphrt",
    license="MIT",
)

AGENTS: list[AgentInfo] = [focused_wiki_agent_info]
