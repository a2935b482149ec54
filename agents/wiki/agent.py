"""wikiAgent: a wiki as a tool, with the ReAct paper's two actions, `search` and `lookup`.

It speaks the toolsAgent protocol: inputs `{func, arg, data}`, result
`{content, data}`. `data` is the agent's state, handed back on the next call
(by the ReAct graph's act step, or by toolsAgent): the page found by the last
search and where the last lookup stopped, so that `lookup` is stateful per page
as in the ReAct paper. `search` gives the first sentences of the page with that
title, or, when there is none, the most similar titles to search for instead;
`lookup` the next sentence of that page containing a term. It knows nothing of
the question being answered: reading, choosing and answering are the LLM's.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.jsvalue import is_null

from .backends import MediaWiki, OfflineCorpus, Page, WikiBackend

__all__ = ["AGENTS", "ARG_NAMES", "wiki_agent", "action_argument", "lookup", "page_state", "split_sentences",
           "backend_for"]

_LEAD_SENTENCES = 5
_SIMILAR = 5
_SENTENCE_END = re.compile(r"(?<=[.!?])(?<![\s.][A-Z]\.)\s+(?=[\"'(\[A-Z0-9])")  # not after an initial: "J. K. Rowling"
ARG_NAMES = {"search": "entity", "lookup": "term"}
"""The argument each action's tool call names (its JSON Schema property)."""
_USAGE = "Use search[entity] or lookup[term]."
_MAX_TITLE = 255  # characters: no wiki title is longer (Wikipedia's limit is 255 bytes)
_QUOTED = 100  # characters of an argument an observation quotes back


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


def action_argument(func: str, arg: Any, names: Mapping[str, str] = ARG_NAMES) -> str:
    """The action's argument: the text of a text action, or the field of a tool call's arguments that `names`
    gives for the action (else its first field), without the quotes a model puts around it."""
    if isinstance(arg, dict):
        value = arg.get(names.get(func, ""), next(iter(arg.values()), ""))
    else:
        value = "" if is_null(arg) else arg
    return str(value).strip().strip("\"'").strip()


def page_state(page: Page) -> dict[str, Any]:
    """The state a search hands back for the next call: the page found, and no lookup yet."""
    return {"title": page.title, "text": page.text, "url": page.url, "source": page.source, "lookup": None}


def _quoted(text: str) -> str:
    """An argument as an observation quotes it: the start of a long one (an LLM's 10 MB argument is not said back)."""
    return text if len(text) <= _QUOTED else text[:_QUOTED] + "..."


async def _search(backend: WikiBackend, entity: str) -> tuple[str, dict[str, Any]]:
    """The page about `entity`: its first sentences; else the titles most like it, to search again.

    An entity longer than any title is no page's and like none: said at once (the similar titles of a
    2 MB one were a spelling comparison of all of it with every title, minutes of CPU)."""
    if not entity:
        return f"search needs an entity, as in search[Albert Einstein]. {_USAGE}", {}
    if len(entity) > _MAX_TITLE:
        return (f"Could not find [{_quoted(entity)}]: a title has at most {_MAX_TITLE} characters, this one "
                f"{len(entity):,}. {_USAGE}"), {}
    page = await backend.page(entity)
    if page is None:
        return f"Could not find [{entity}]. Similar: {await backend.similar(entity, _SIMILAR)}.", {}
    return " ".join(split_sentences(page.text)[:_LEAD_SENTENCES]), page_state(page)


def lookup(state: dict[str, Any], term: str,
           order: Callable[[list[str]], list[str]] | None = None) -> tuple[str, dict[str, Any]]:
    """The next sentence of the current page containing `term`; a new term starts again from the top.

    `order` arranges the matching sentences (e.g. best for the question first); by default page order.
    """
    if not term:
        return f"lookup needs a term, as in lookup[relativity]. {_USAGE}", state
    if not state.get("text"):
        return f"There is no page to look in yet: search for one first, as in search[{_quoted(term)}].", state
    previous = state.get("lookup") or {}
    folded = term.casefold()  # once, not once a sentence
    index = previous.get("index", 0) if previous.get("term", "").casefold() == folded else 0
    hits = [sentence for sentence in split_sentences(state["text"]) if folded in sentence.casefold()]
    if order is not None:
        hits = order(hits)
    if not hits:
        return "No Results", state
    if index >= len(hits):
        return "No More Results", state
    return f"(Result {index + 1}/{len(hits)}) {hits[index]}", {**state, "lookup": {"term": term, "index": index + 1}}


async def wiki_agent(ctx: AgentContext) -> dict[str, Any]:
    """Runs one wiki action: `search` a page, or `lookup` a term in the page found.

    Args:
        ctx: inputs `func` (search or lookup), `arg` (its argument, text or object) and `data`
            (the state the previous call returned); params or config `backend`
            (offline or mediawiki), `corpus` (a JSON corpus file), `lang`, `apiURL`.

    Returns:
        `{content, data}`: the observation for the LLM, and the new state. An unknown action
        is explained in `content`.
    """
    options = {**ctx.config, **ctx.params}
    func = str(ctx.inputs.get("func") or "").strip().lower()
    argument = action_argument(func, ctx.inputs.get("arg"))
    state = ctx.inputs.get("data")
    state = dict(state) if isinstance(state, dict) else {}
    if func == "search":
        content, state = await _search(backend_for(options), argument)
    elif func == "lookup":
        content, state = lookup(state, argument)
    else:
        content = f"Invalid action{f' {func!r}' if func else ''}. {_USAGE}"
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
    outside=True,
    func=wiki_agent,
    description="A wiki as a tool: search a page by title (its first sentences, or similar titles), lookup the "
    "next sentence with a term in it (offline Wikipedia lead extracts by default; text from Wikipedia, CC BY-SA 4.0)",
    inputs={
        "type": "object",
        "properties": {
            "func": {"type": "string", "enum": ["search", "lookup", ""]},
            "arg": {"anyOf": [{"type": "string"}, {"type": "object"}]},
            "data": {"type": "object", "description": "the state the previous call returned"},
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
        _tool("search", "Returns the first sentences of the wiki page with this title, or the 5 most similar page "
              "titles when there is no such page.", "entity", "the title of the page, e.g. a person, place or thing"),
        _tool("lookup", "Returns the next sentence containing a term in the page found by the last search.",
              "term", "the word or phrase to find"),
    ),
    samples=(
        Sample(inputs={"func": "lookup", "arg": "Lovelace", "data": _FIXTURE}, params={},
               result={"content": "(Result 1/2) Ada Lovelace was a mathematician.",
                       "data": {**_FIXTURE, "lookup": {"term": "Lovelace", "index": 1}}}),
        Sample(inputs={"func": "lookup", "arg": {"term": "Babbage"}, "data": _FIXTURE}, params={},
               result={"content": "(Result 1/1) Lovelace worked with Babbage.",
                       "data": {**_FIXTURE, "lookup": {"term": "Babbage", "index": 1}}}),
    ),
    category=("wiki", "react"),
    author="graphrt",
    license="MIT",
    environment_variables=("GRAPHRT_WIKI_BACKEND",),
)

AGENTS: list[AgentInfo] = [wiki_agent_info]
