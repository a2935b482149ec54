"""wikipediaAgent against a MediaWiki stand-in on 127.0.0.1: GraphAI's requests and result, and what it says
when the wiki cannot be reached or answers garbage."""

from __future__ import annotations

import socket
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
from graphrt_agents.service.wikipedia import AGENTS, WikipediaError, wikipedia_agent

import graphrt
from graphrt.base.jsvalue import UNDEFINED
from graphrt.testing import SampleCase, parametrize_samples
from graphrt.testing import agent_context as context

pytestmark = pytest.mark.anyio


async def wikipedia(query: Any, params: dict[str, Any] | None = None, **extra: Any) -> Any:
    return await wikipedia_agent(context({"query": query}, params, **extra))


@parametrize_samples(*AGENTS)
def test_every_sample_gives_its_result(sample_case: SampleCase) -> None:
    sample_case.check()  # through the mock: the agent reading a stand-in wiki in process


async def test_the_first_hits_page_text_comes_with_the_hit(mediawiki) -> None:
    base, _ = mediawiki
    assert await wikipedia("babbage engine", {"baseURL": base}) == {
        "content": "The Analytical Engine was a proposed digital mechanical computer designed by Charles Babbage.",
        "ns": 0, "title": "Analytical Engine", "pageid": 1271}


async def test_it_asks_what_graphais_wikipedia_package_asks(mediawiki) -> None:
    base, wiki = mediawiki
    await wikipedia("ada", {"baseURL": base})
    asked = [(urlsplit(target).path, dict(parse_qsl(urlsplit(target).query, keep_blank_values=True)))
             for target in wiki.requests]
    common = {"format": "json", "redirects": "", "action": "query", "origin": "*"}
    assert asked == [
        ("/w/api.php", {"list": "search", "srprop": "", "srlimit": "10", "srsearch": "ada", **common}),
        ("/w/api.php", {"prop": "info|pageprops", "inprop": "url", "ppprop": "disambiguation", "titles": "Ada Lovelace",
                        **common}),
        ("/w/api.php", {"prop": "extracts|revisions", "explaintext": "", "rvprop": "ids", "pageids": "974", **common}),
    ]


async def test_summary_gives_the_rest_apis_summary_object(mediawiki) -> None:
    base, wiki = mediawiki
    result = await wikipedia("ac/dc", {"baseURL": base, "summary": True})
    assert (result["title"], result["content"]["type"], result["content"]["extract"]) == (
        "AC/DC", "standard", "AC/DC are an Australian rock band formed in Sydney in 1973.")
    assert wiki.requests[-1] == "/api/rest_v1/page/summary/AC%2FDC"


async def test_a_query_with_ampersand_and_hash_is_sent_whole(mediawiki) -> None:
    base, wiki = mediawiki
    assert (await wikipedia("babbage & #engine", {"baseURL": base}))["title"] == "Analytical Engine"
    assert dict(parse_qsl(urlsplit(wiki.requests[0]).query))["srsearch"] == "babbage & #engine"


async def test_no_hit_gives_nothing_as_in_graphai(mediawiki) -> None:
    base, _ = mediawiki
    assert await wikipedia("quantum chromodynamics", {"baseURL": base}) is UNDEFINED


async def test_the_base_url_may_come_from_config_and_name_the_language(mediawiki) -> None:
    base, wiki = mediawiki
    result = await wikipedia("lovelace", {"lang": "JA"}, config={"baseURL": base + "/{lang}/.."})
    assert result["title"] == "Ada Lovelace"
    assert wiki.requests[0].startswith("/w/api.php?")  # http normalised /ja/.. away


async def test_a_language_that_is_not_a_code_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^wikipediaAgent: params.lang must be a language code like 'en' or 'ja', "
                                         r"got 'evil.example/x'$"):
        await wikipedia("x", {"lang": "evil.example/x"})


async def test_an_unreachable_wiki_says_so(mediawiki) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(WikipediaError, match=rf"^wikipediaAgent: cannot reach http://127.0.0.1:{port}: fetch failed: "):
        await wikipedia("ada", {"baseURL": f"http://127.0.0.1:{port}"})


async def test_without_a_network_the_default_wiki_says_there_may_be_none(monkeypatch) -> None:
    import httpx

    def no_network(request: httpx.Request) -> httpx.Response:  # what httpx raises when DNS has no answer
        raise httpx.ConnectError("[Errno -3] Temporary failure in name resolution", request=request)

    from graphrt_agents.service import wikipedia as module

    async def offline(ctx):
        return await module._wikipedia(ctx, transport=httpx.MockTransport(no_network))

    with pytest.raises(WikipediaError) as caught:
        await offline(context({"query": "ada"}, {"lang": "en"}))
    assert str(caught.value) == (
        "wikipediaAgent: cannot reach https://en.wikipedia.org (is there a network? To read another MediaWiki server, "
        "set params.baseURL or the config's baseURL): fetch failed: https://en.wikipedia.org/w/api.php: ConnectError: "
        "[Errno -3] Temporary failure in name resolution")


async def test_a_wiki_answering_garbage_fails_the_node_naming_it(http) -> None:
    http.route("/w/api.php", body="<html>not an API</html>", content_type="text/html")
    with pytest.raises(WikipediaError, match=r"^wikipediaAgent: http://127.0.0.1:\d+ did not answer JSON: "):
        await wikipedia("ada", {"baseURL": http.base})
    http.route("/w/api.php", status=503, body="busy", content_type="text/plain")
    with pytest.raises(WikipediaError, match=r"^wikipediaAgent: http://127.0.0.1:\d+ answered HTTP 503 to "):
        await wikipedia("ada", {"baseURL": http.base})


async def test_in_a_graph_the_result_feeds_the_next_node(mediawiki) -> None:
    base, _ = mediawiki
    graph = {"version": 0.5, "nodes": {
        "source": {"value": {"name": "Ada Lovelace"}},
        "wiki": {"agent": "wikipediaAgent", "inputs": {"query": ":source.name"}, "params": {"lang": "en", "baseURL": base}},
        "title": {"agent": "copyAgent", "inputs": {"t": ":wiki.title", "id": ":wiki.pageid"}, "isResult": True},
    }}
    assert await graphrt.arun(graph) == {"title": {"t": "Ada Lovelace", "id": 974}}
