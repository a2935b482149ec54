"""browserlessAgent and arxivAgent against stand-ins of browserless and arXiv's export API on 127.0.0.1; notionAgent."""

from __future__ import annotations

import pytest
from graphrt_agents._loopback import serving
from graphrt_agents.net import arxiv, browserless, notion
from graphrt_agents.net.standins import SAMPLE_DOCUMENTS, SAMPLE_KEY, ArxivStandIn, BrowserlessStandIn

import graphrt
from graphrt.testing import SampleCase, parametrize_samples


@pytest.fixture(autouse=True)
def no_keys(monkeypatch):
    monkeypatch.delenv("BROWSERLESS_API_TOKEN", raising=False)


@parametrize_samples(*browserless.AGENTS, *arxiv.AGENTS, *notion.AGENTS)
def test_every_sample_gives_its_result(sample_case: SampleCase) -> None:
    sample_case.check()


def run(agent: str, inputs: dict, params: dict | None = None):
    graph = {"version": 0.5, "nodes": {"src": {"value": inputs}, "out": {
        "agent": agent, "inputs": {key: f":src.{key}" for key in inputs}, "params": params or {}, "isResult": True}}}
    return graphrt.run(graph)["out"]


def test_browserless_posts_the_url_with_the_token_in_the_query() -> None:
    stand_in = BrowserlessStandIn()
    page = SAMPLE_DOCUMENTS[0]
    with serving(stand_in) as base:
        assert run("browserlessAgent", {"url": page.url}, {"baseURL": base, "apiKey": SAMPLE_KEY}) == {"text": page.html()}
        assert run("browserlessAgent", {"url": page.url}, {"baseURL": base, "apiKey": SAMPLE_KEY,
                                                           "text_content": True}) == {"text": f"{page.title}\n{page.text}"}
    first, second = stand_in.requests
    assert (first.path, first.query, first.json()) == ("/content", [("token", SAMPLE_KEY)], {"url": page.url})
    assert (second.path, second.json()) == ("/scrape", {"url": page.url, "elements": [{"selector": "body"}]})


def test_browserless_error_is_graphais_and_never_shows_the_token() -> None:
    with serving(BrowserlessStandIn()) as base:
        with pytest.raises(graphrt.GraphError) as failed:
            run("browserlessAgent", {"url": "https://nowhere.example"}, {"baseURL": base, "apiKey": SAMPLE_KEY})
        assert "Browserless HTTP error: 400, net::ERR_NAME_NOT_RESOLVED" in str(failed.value)
        result = run("browserlessAgent", {"url": "https://x.example"}, {"baseURL": base, "apiKey": "tok-secret-99887766",
                                                                       "supressError": True})
    assert result == {"onError": {"message": "Browserless HTTP error: 401", "status": 401, "error": "Unauthorized"}}


def test_browserless_debug_leaves_the_token_out() -> None:
    result = run("browserlessAgent", {"url": "https://a.example"}, {"apiKey": "tok-secret-99887766", "debug": True,
                                                                   "region": "lon"})
    assert result["url"] == "https://production-lon.browserless.io/content"
    assert "tok-secret" not in str(result)


def papers(params: dict, inputs: dict | None = None) -> tuple[dict, list]:
    stand_in = ArxivStandIn()
    with serving(stand_in) as base:
        result = run("arxivAgent", inputs or {}, {"baseURL": base, **params})
    return result, stand_in.requests


def test_arxiv_writes_arxiv_api_ts_query() -> None:
    result, (request,) = papers({"searchQueryParams": [
        {"include": [{"name": "graphs", "prefix": "ti"}, {"name": "Grace Hopper", "prefix": "au"}]},
        {"include": [{"name": "LLM"}], "exclude": [{"name": "cs.DC", "prefix": "cat"}]}]})
    assert request.raw_query == ("search_query=ti:graphs+AND+au:Grace%20Hopper+OR+all:LLM+ANDNOT+cat:cs.DC"
                                 "&start=0&max_results=10")
    # arXiv reads the operators left to right: ((ti AND au) OR all) ANDNOT cat leaves out the cs.DC paper
    assert [entry["title"] for entry in result["entries"]] == ["Large Language Models as Graph Agents"]
    assert result["totalResults"] == 1 and "doi" not in result["entries"][0]


def test_arxiv_entries_keep_what_the_feed_says() -> None:
    result, _ = papers({"searchQueryParams": [{"include": [{"name": "Grace Hopper", "prefix": "au"}]}]})
    (entry,) = result["entries"]
    assert (entry["authors"], entry["doi"], entry["primaryCategory"], entry["categories"]) == (
        [{"name": "Grace Hopper"}], "10.1000/graphs.2", "cs.DC", ["cs.DC"])
    assert entry["summary"] == "A scheduler for asynchronous graphs of agents."


def test_arxiv_pages_and_sorts_from_inputs_over_params() -> None:
    result, (request,) = papers({"searchQueryParams": [{"include": [{"name": "x"}]}], "maxResults": 5},
                                {"searchQueryParams": [{"include": [{"name": "agents"}]}], "start": 1,
                                 "sortBy": "submittedDate", "sortOrder": "ascending"})
    assert request.raw_query.endswith("&start=1&max_results=5&sortBy=submittedDate&sortOrder=ascending")
    assert (result["totalResults"], result["startIndex"], result["itemsPerPage"], len(result["entries"])) == (2, 1, 5, 1)


@pytest.mark.parametrize(("params", "message"), [
    ({}, "searchQueryParams must be an array"),
    ({"searchQueryParams": []}, r"searchQueryParams must hold at least one \{include"),
    ({"searchQueryParams": [{"include": []}]}, "include is a mandatory field"),
    ({"searchQueryParams": [{"include": [{"name": "x", "prefix": "zz"}]}]}, "unsupported prefix: zz"),
    ({"searchQueryParams": [{"include": [{"name": " "}]}]}, "you must specify tag name"),
    ({"searchQueryParams": [{"include": [{"name": "x"}]}], "sortBy": "date"}, "unsupported sort by option"),
])
def test_arxiv_refuses_what_arxiv_api_ts_refuses(params, message) -> None:
    with pytest.raises(graphrt.GraphError, match=message):
        run("arxivAgent", {}, params)


def test_notion_agent_is_graphais_template() -> None:
    assert run("notionAgent", {"page": "p1"}, {"db": "d"}) == {"params": {"db": "d"}, "namedInputs": {"page": "p1"}}
