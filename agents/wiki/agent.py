"""wikiAgent: ReAct's three actions, `search`, `lookup` and `finish`, as one tool agent.

It speaks the toolsAgent protocol: inputs `{func, arg, data}`, result
`{content, data}`. `data` is the agent's state, handed back on the next call
(by the ReAct graph's loop, or by toolsAgent): the page found by the last
search and where the last lookup stopped, so that `lookup` is stateful per page
as in the ReAct paper. `arg` is an object (from a tool call) or the bare text
between the brackets of a text action.
"""

from __future__ import annotations

import os
import re
from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.jsvalue import is_null

from .backends import MediaWiki, OfflineCorpus, Page, WikiBackend
from .rank import rank_sentences, stems

__all__ = ["AGENTS", "wiki_agent", "split_sentences", "backend_for"]

_LEAD_SENTENCES = 5
_FOCUSED_SENTENCES = 3
_SIMILAR = 5
_SENTENCE_END = re.compile(r"(?<=[.!?])(?<![\s.][A-Z]\.)\s+(?=[\"'(\[A-Z0-9])")  # not after an initial: "J. K. Rowling"
_ARG_NAMES = {"search": "entity", "lookup": "term", "finish": "answer"}
_USAGE = "Use search[entity], lookup[term] or finish[answer]."


def split_sentences(text: str) -> list[str]:
    """The sentences of `text` (split after . ! ? before a capital, digit or quote, but not after an initial)."""
    return [sentence.strip() for sentence in _SENTENCE_END.split(text.strip()) if sentence.strip()]


def backend_for(options: dict[str, Any]) -> WikiBackend:
    """The backend named by `backend` (offline, the default, or mediawiki); `corpus` is a JSON file to use instead.

    The environment variable GRAPHRT_WIKI_BACKEND sets the default.
    """
    name = str(options.get("backend") or os.environ.get("GRAPHRT_WIKI_BACKEND") or "offline").lower()
    if name == "mediawiki":
        return MediaWiki(str(options.get("apiURL") or "https://en.wikipedia.org/w/api.php"))
    if name != "offline":
        raise ValueError(f"wikiAgent: unknown backend '{name}' (known: offline, mediawiki)")
    corpus = options.get("corpus")
    return OfflineCorpus.load(corpus) if corpus else OfflineCorpus.default(str(options.get("lang") or "en-us"))


def _argument(func: str, arg: Any) -> str:
    """The action's argument: the text of a text action, or the named field of a tool call's arguments."""
    if isinstance(arg, dict):
        value = arg.get(_ARG_NAMES.get(func, ""), next(iter(arg.values()), ""))
    else:
        value = "" if is_null(arg) else arg
    return str(value).strip().strip("\"'").strip()


def _page_state(page: Page) -> dict[str, Any]:
    return {"title": page.title, "text": page.text, "url": page.url, "source": page.source, "lookup": None}


def _focused(backend: WikiBackend | None, page: Page, question: str, count: int) -> list[str]:
    """The page's first sentence (what the page is about) and the sentences that best match the question, in page order."""
    sentences = split_sentences(page.text)
    weight = getattr(backend, "weight", None)
    ranked = [index for index in rank_sentences(sentences, question, weight, ignore=stems(page.title)) if index != 0]
    chosen = sorted([0, *ranked[: count - 1]]) if sentences else []
    return [sentences[index] for index in chosen]


async def _search(backend: WikiBackend, entity: str, question: str) -> tuple[str, dict[str, Any]]:
    """The page about `entity`: its lead, or with a question its sentences that bear on the question.

    With a question, a search that names no page reads the page that best matches the entity instead of
    listing similar titles: a small model rarely recovers from a list of titles.
    """
    if not entity:
        return f"search needs an entity, as in search[Albert Einstein]. {_USAGE}", {}
    page = await backend.page(entity)
    note = ""
    if page is None:
        if not question:
            return f"Could not find [{entity}]. Similar: {await backend.similar(entity, _SIMILAR)}.", {}
        page = await _closest(backend, entity, question)
        if page is None:
            return f"Could not find [{entity}].", {}
        note = f"(No page [{entity}]; the closest is [{page.title}].) "
    shown = _focused(backend, page, question, _FOCUSED_SENTENCES) if question else split_sentences(page.text)[:_LEAD_SENTENCES]
    return note + " ".join(shown), _page_state(page)


async def _closest(backend: WikiBackend, entity: str, question: str) -> Page | None:
    """The page a search that names no page most likely means: of the best matches for the entity (counted
    twice: the page is about it) and the question, the first whose text has the entity's very words ("Red
    Planet" is in Mars's lead), else the best."""
    pages = [page for title in await backend.similar(f"{entity} {entity} {question}", _SIMILAR)
             if (page := await backend.page(title)) is not None]
    verbatim = re.compile(rf"\b{re.escape(entity)}\b", re.IGNORECASE)
    return next((page for page in pages if verbatim.search(page.text)), pages[0] if pages else None)


def _lookup(state: dict[str, Any], term: str, question: str) -> tuple[str, dict[str, Any]]:
    """The next sentence of the current page containing `term` (the best match for the question first); a new
    term starts again."""
    if not term:
        return f"lookup needs a term, as in lookup[relativity]. {_USAGE}", state
    if not state.get("text"):
        return f"There is no page to look in yet: search for one first, as in search[{term}].", state
    previous = state.get("lookup") or {}
    index = previous.get("index", 0) if previous.get("term", "").casefold() == term.casefold() else 0
    hits = [sentence for sentence in split_sentences(state["text"]) if term.casefold() in sentence.casefold()]
    if question:
        ignore = stems(state.get("title") or "")
        hits = [hits[rank] for rank in rank_sentences(hits, question, ignore=ignore)]
    if not hits:
        return "No Results", state
    if index >= len(hits):
        return "No More Results", state
    return f"(Result {index + 1}/{len(hits)}) {hits[index]}", {**state, "lookup": {"term": term, "index": index + 1}}


async def wiki_agent(ctx: AgentContext) -> dict[str, Any]:
    """Runs one ReAct action on a wiki: `search`, `lookup` or `finish`.

    Args:
        ctx: inputs `func` (the action), `arg` (its argument, text or object) and `data`
            (the state the previous call returned); params or config `backend`
            (offline or mediawiki), `corpus` (a JSON corpus file), `lang`, `apiURL`.

    Returns:
        `{content, data}`: the observation for the LLM, and the new state (with
        `answer` after finish). An unknown action is explained in `content`.
    """
    options = {**ctx.config, **ctx.params}
    func = str(ctx.inputs.get("func") or "").strip().lower()
    argument = _argument(func, ctx.inputs.get("arg"))
    state = ctx.inputs.get("data")
    state = dict(state) if isinstance(state, dict) else {}
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
    if question and "question" in (ctx.inputs.get("data") or {}):
        state = {**state, "question": question}  # a question that came in the state stays there for the next call
    return {"content": content, "data": state}


def _tool(func: str, description: str, parameter: str, about: str) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": f"wikiAgent--{func}",
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {parameter: {"type": "string", "description": about}},
                "required": [parameter],
            },
        },
    }


_FIXTURE = {"title": "Ada Lovelace", "text": "Ada Lovelace was a mathematician. She wrote the first program. "
            "Lovelace worked with Babbage.", "lookup": None}

wiki_agent_info = AgentInfo(
    name="wikiAgent",
    func=wiki_agent,
    description="ReAct's wiki actions: search a page's lead, lookup the next sentence with a term, finish "
    "with an answer (offline Wikipedia lead extracts by default; text from Wikipedia, CC BY-SA 4.0)",
    inputs={
        "type": "object",
        "properties": {
            "func": {"type": "string", "enum": ["search", "lookup", "finish", ""]},
            "arg": {"anyOf": [{"type": "string"}, {"type": "object"}]},
            "data": {"type": "object", "description": "the state the previous call returned"},
            "question": {"type": ["string", "null"], "description": "the question being answered: search then shows "
                         "the page's sentences that bear on it, and a search that names no page reads the closest "
                         "page (it may also come in data.question)"},
        },
    },
    params={
        "type": "object",
        "properties": {
            "backend": {"type": "string", "enum": ["offline", "mediawiki"]},
            "corpus": {"type": "string", "description": "a JSON corpus file {title: {title, extract}}"},
            "lang": {"type": "string", "description": "offline corpus language: en-us, es-es, fr-fr"},
            "apiURL": {"type": "string", "description": "MediaWiki API endpoint"},
        },
    },
    tools=(
        _tool("search", "Returns the first sentences of the wiki page about an entity, or the 5 most similar "
              "page titles when there is no such page.", "entity", "the page title to look up"),
        _tool("lookup", "Returns the next sentence containing a term in the page found by the last search.",
              "term", "the word or phrase to find"),
        _tool("finish", "Finishes the task with the final answer.", "answer", "the answer to the question"),
    ),
    samples=(
        Sample(inputs={"func": "lookup", "arg": "Lovelace", "data": _FIXTURE}, params={},
               result={"content": "(Result 1/2) Ada Lovelace was a mathematician.",
                       "data": {**_FIXTURE, "lookup": {"term": "Lovelace", "index": 1}}}),
        Sample(inputs={"func": "finish", "arg": {"answer": "Babbage"}, "data": {}}, params={},
               result={"content": "Babbage", "data": {"answer": "Babbage"}}),
    ),
    category=("wiki", "react"),
    author="graphrt",
    license="MIT",
    environment_variables=("GRAPHRT_WIKI_BACKEND",),
)

AGENTS: list[AgentInfo] = [wiki_agent_info]
