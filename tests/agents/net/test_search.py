"""braveSearchAgent, googleSearchAgent and serperAgent against stand-ins of their APIs on 127.0.0.1: GraphAI's requests,
results and errors, and keys kept out of results and errors."""

from __future__ import annotations

import pytest
from graphrt_agents._loopback import serving
from graphrt_agents.net.search import AGENTS
from graphrt_agents.net.standins import SAMPLE_KEY, BraveStandIn, GoogleSearchStandIn, SerperStandIn

import graphrt
from graphrt.testing import SampleCase, parametrize_samples

KEYS = ("BRAVE_SEARCH_API_TOKEN", "GOOGLE_SEARCH_API_KEY", "SERPER_API_KEY")


@pytest.fixture(autouse=True)
def no_keys(monkeypatch):
    for key in KEYS:
        monkeypatch.delenv(key, raising=False)


@parametrize_samples(*AGENTS)
def test_every_sample_gives_its_result(sample_case: SampleCase) -> None:
    sample_case.check()  # through the mock: the agent against a stand-in of the service on 127.0.0.1


def run(agent: str, inputs: dict, params: dict | None = None, config: dict | None = None):
    graph = {"version": 0.5, "nodes": {"src": {"value": inputs}, "out": {
        "agent": agent, "inputs": {key: f":src.{key}" for key in inputs}, "params": params or {}, "isResult": True}}}
    return graphrt.run(graph, config={agent: config} if config else None)["out"]


def test_brave_sends_the_token_header_and_the_search_args_and_maps_the_results() -> None:
    stand_in = BraveStandIn()
    with serving(stand_in) as base:
        result = run("braveSearchAgent", {"query": "graphai yaml", "search_args": {"count": 5, "safesearch": True}},
                     {"baseURL": base, "apiKey": SAMPLE_KEY})
    assert result == {"items": [{"title": "Getting started with GraphAI", "link": "https://example.com/graphai/docs",
                                 "snippet": "Learn how to write a GraphAI graph in YAML and run it."}]}
    (request,) = stand_in.requests
    assert (request.method, request.path, request.query) == (
        "GET", "/res/v1/web/search", [("count", "5"), ("safesearch", "true"), ("q", "graphai yaml")])
    assert (request.headers["x-subscription-token"], request.headers["accept"]) == (SAMPLE_KEY, "application/json")


def test_brave_takes_its_token_from_the_environment(monkeypatch) -> None:
    monkeypatch.setenv("BRAVE_SEARCH_API_TOKEN", SAMPLE_KEY)
    with serving(BraveStandIn()) as base:
        assert run("braveSearchAgent", {"query": "nothing matches"}, {"baseURL": base}) == {"items": []}


def test_brave_refusal_fails_with_graphais_message_and_no_key() -> None:
    with serving(BraveStandIn()) as base, pytest.raises(graphrt.GraphError) as failed:
        run("braveSearchAgent", {"query": "graphai"}, config={"baseURL": base, "apiKey": "wrong-key-123456"})
    assert "Brave Search HTTP error: 401, " in str(failed.value)
    assert "SUBSCRIPTION_TOKEN_INVALID" in str(failed.value) and "wrong-key-123456" not in str(failed.value)


def test_brave_refusal_with_supress_error_is_graphais_on_error() -> None:
    with serving(BraveStandIn()) as base:
        result = run("braveSearchAgent", {"query": "graphai"}, {"baseURL": base, "apiKey": "bad", "supressError": True})
    assert result["items"] == [] and result["onError"]["status"] == 401
    assert result["onError"]["message"] == "Brave Search HTTP error: 401"


def test_brave_without_a_token_says_which_variable() -> None:
    with pytest.raises(graphrt.GraphError, match="Brave Search API token is required. Please set the "
                                                 "BRAVE_SEARCH_API_TOKEN environment variable."):
        run("braveSearchAgent", {"query": "graphai"})


def test_no_query_is_graphais_assertion() -> None:
    with pytest.raises(graphrt.GraphError, match=r"braveSearchAgent: query is required!"):
        run("braveSearchAgent", {"query": ""}, {"apiKey": SAMPLE_KEY})


def test_an_unreachable_service_with_supress_error_is_on_error_without_the_key() -> None:
    with serving(BraveStandIn()) as base:
        pass  # the port is free again: nothing listens there
    result = run("braveSearchAgent", {"query": "graphai"}, {"baseURL": base, "apiKey": "secret-token-123456",
                                                             "supressError": True})
    assert result["onError"]["error"].startswith("TypeError: fetch failed")
    assert "secret-token-123456" not in str(result)


def test_google_sends_key_cx_and_query_and_maps_the_items() -> None:
    stand_in = GoogleSearchStandIn()
    with serving(stand_in) as base:
        result = run("googleSearchAgent", {"query": "data flow programming"}, {"cx": "sample-cx"},
                     {"baseURL": base, "apiKey": SAMPLE_KEY})
    assert result == {"items": [{"title": "Data flow programming", "link": "https://example.com/dataflow",
                                 "snippet": "Data flow programs are graphs whose nodes run when their inputs are ready."}]}
    (request,) = stand_in.requests
    assert request.path == "/customsearch/v1"
    assert dict(request.query) == {"cx": "sample-cx", "q": "data flow programming", "key": SAMPLE_KEY}


def test_google_no_hit_is_no_items() -> None:
    with serving(GoogleSearchStandIn()) as base:
        assert run("googleSearchAgent", {"query": "zebra"}, {"cx": "sample-cx", "baseURL": base,
                                                             "apiKey": SAMPLE_KEY}) == {"items": []}


def test_google_refusal_names_googles_message_not_the_key() -> None:
    with serving(GoogleSearchStandIn()) as base, pytest.raises(graphrt.GraphError) as failed:
        run("googleSearchAgent", {"query": "graphai"}, {"cx": "sample-cx", "baseURL": base, "apiKey": "bad-key-7654321"})
    assert "Google Search HTTP error: Error: API key not valid. Please pass a valid API key. (HTTP 400)" in str(failed.value)
    assert "bad-key-7654321" not in str(failed.value)


def test_google_needs_cx() -> None:
    with pytest.raises(graphrt.GraphError, match="Google Search API cx is required."):
        run("googleSearchAgent", {"query": "graphai"}, {"apiKey": SAMPLE_KEY})


def test_serper_posts_the_query_with_its_key_and_returns_the_answer_whole() -> None:
    stand_in = SerperStandIn()
    with serving(stand_in) as base:
        result = run("serperAgent", {"query": "graphai yaml"}, {"baseURL": base, "apiKey": SAMPLE_KEY})
    assert result["organic"][0]["link"] == "https://example.com/graphai/docs" and result["credits"] == 1
    (request,) = stand_in.requests
    assert (request.method, request.path, request.json(), request.headers["x-api-key"]) == (
        "POST", "/search", {"q": "graphai yaml"}, SAMPLE_KEY)


def test_serper_failure_is_graphais_error_object() -> None:
    with serving(SerperStandIn()) as base:
        assert run("serperAgent", {"query": "x"}, {"baseURL": base, "apiKey": "wrong"}) == {
            "error": "Request failed with status code 403"}


def test_serper_without_a_key_sends_nothing() -> None:
    stand_in = SerperStandIn()
    with serving(stand_in) as base:
        result = run("serperAgent", {"query": "x"}, {"baseURL": base})
    assert result == {"error": "no serper.dev API key: set SERPER_API_KEY (or params.apiKey, or the config's apiKey)"}
    assert stand_in.requests == []
