"""slackAgent (slack_sdk) and exaAgent (exa-py) through their official SDKs, against stand-ins on 127.0.0.1."""

from __future__ import annotations

import pytest

import graphrt
from graphrt_agents._loopback import serving
from graphrt_agents.net.standins import SAMPLE_KEY, ExaStandIn, SlackStandIn


def run(agent: str, inputs: dict, params: dict | None = None, config: dict | None = None):
    graph = {"version": 0.5, "nodes": {"src": {"value": inputs}, "out": {
        "agent": agent, "inputs": {key: f":src.{key}" for key in inputs}, "params": params or {}, "isResult": True}}}
    return graphrt.run(graph, config={agent: config} if config else None)["out"]


@pytest.mark.needs("slack")
class TestSlack:
    @pytest.fixture(autouse=True)
    def no_token(self, monkeypatch):
        monkeypatch.delenv("SLACK_TOKEN", raising=False)

    def test_samples(self) -> None:
        from graphrt_agents.net.slack import AGENTS
        from graphrt.testing import sample_cases

        for case in sample_cases(*AGENTS):
            case.check()

    def test_a_list_message_is_posted_as_lines_with_the_bearer_token(self) -> None:
        slack = SlackStandIn()
        with serving(slack) as base:
            assert run("slackAgent", {"message": ["one", "two"], "slack_token": SAMPLE_KEY},
                       {"post_channel": "#general", "baseURL": base}) == {}
        assert slack.posted[0]["channel"] == "C0000000001" and slack.posted[0]["text"] == "one\ntwo"
        assert slack.requests[0].path == "/api/chat.postMessage"

    def test_the_environments_token_comes_first_as_in_graphai(self, monkeypatch) -> None:
        monkeypatch.setenv("SLACK_TOKEN", SAMPLE_KEY)
        slack = SlackStandIn()
        with serving(slack) as base:
            run("slackAgent", {"slack_token": "other"}, {"post_channel": "#graphai", "baseURL": base, "message": "hi"})
        assert slack.requests[0].headers["authorization"] == f"Bearer {SAMPLE_KEY}"

    def test_slacks_refusal_names_its_error_code(self) -> None:
        with serving(SlackStandIn()) as base, pytest.raises(graphrt.GraphError,
                                                            match="Slack refused chat.postMessage to #nope: channel_not_found"):
            run("slackAgent", {"message": "hi", "slack_token": SAMPLE_KEY}, {"post_channel": "#nope", "baseURL": base})

    def test_no_token_and_no_channel_are_graphais_errors(self) -> None:
        with pytest.raises(graphrt.GraphError, match="SLACK_TOKEN is not set in environment variables."):
            run("slackAgent", {"message": "hi"}, {"post_channel": "#general"})
        with pytest.raises(graphrt.GraphError, match="Slacl post_channel is not set in params."):
            run("slackAgent", {"message": "hi", "slack_token": SAMPLE_KEY})

    @pytest.mark.parametrize("message", [None, "", []])
    def test_no_text_is_refused_before_any_request_naming_the_input(self, message) -> None:
        slack = SlackStandIn()
        inputs = {"slack_token": SAMPLE_KEY} if message is None else {"message": message, "slack_token": SAMPLE_KEY}
        with serving(slack) as base, pytest.raises(graphrt.GraphError, match="no text to post") as refused:
            run("slackAgent", inputs, {"post_channel": "#general", "baseURL": base})
        assert refused.value.field == "inputs.message" and slack.requests == []


@pytest.mark.needs("exa")
class TestExa:
    @pytest.fixture(autouse=True)
    def no_key(self, monkeypatch):
        monkeypatch.delenv("EXASEARCH_API_KEY", raising=False)
        monkeypatch.delenv("EXA_API_KEY", raising=False)

    def test_samples(self) -> None:
        from graphrt_agents.net.exa import AGENTS
        from graphrt.testing import sample_cases

        for case in sample_cases(*AGENTS):
            case.check()

    def test_search_and_contents_sends_exa_js_body(self) -> None:
        exa = ExaStandIn()
        with serving(exa) as base:
            result = run("exaAgent", {"query": "graphai", "search_args": {"text": {"maxCharacters": 100},
                                                                           "numResults": 2, "includeDomains": ["example.com"]}},
                         config={"baseURL": base, "apiKey": SAMPLE_KEY})
        assert [item["link"] for item in result] == ["https://example.com/graphai", "https://example.com/graphai/docs"]
        assert exa.requests[0].json() == {"query": "graphai", "contents": {"text": {"maxCharacters": 100}},
                                          "numResults": 2, "includeDomains": ["example.com"]}
        assert exa.requests[0].headers["x-api-key"] == SAMPLE_KEY

    def test_a_plain_search_sends_the_args_as_they_are(self) -> None:
        exa = ExaStandIn()
        with serving(exa) as base:
            result = run("exaAgent", {"query": "data flow programming"}, {"search_args": {"type": "keyword"}},
                         {"baseURL": base, "apiKey": SAMPLE_KEY})
        assert result == [{"title": "Data flow programming", "link": "https://example.com/dataflow"}]
        assert exa.requests[0].json() == {"query": "data flow programming", "type": "keyword"}

    def test_a_refusal_fails_or_is_on_error_with_supress_error(self) -> None:
        with serving(ExaStandIn()) as base:
            with pytest.raises(graphrt.GraphError, match="exaAgent: Request failed with status code 401"):
                run("exaAgent", {"query": "x"}, config={"baseURL": base, "apiKey": "bad"})
            result = run("exaAgent", {"query": "x"}, {"supressError": True}, {"baseURL": base, "apiKey": "bad"})
        assert result["onError"]["message"].startswith("exaAgent: Request failed with status code 401")

    def test_no_key_is_exa_js_message(self) -> None:
        with pytest.raises(graphrt.GraphError, match=r"API key must be provided as an argument or as an environment "
                                                     r"variable \(EXASEARCH_API_KEY\)"):
            run("exaAgent", {"query": "x"})
