"""fetchAgent: GraphAI's requests and results against a local server, XML as xml2js reads it, bounded requests."""

from __future__ import annotations

import gzip
import socket
from typing import Any

import pytest
from graphrt_agents.service.fetch import AGENTS, fetch_agent

import graphrt
from graphrt.testing import SampleCase, parametrize_samples
from graphrt.testing import agent_context as context

pytestmark = pytest.mark.anyio


async def fetch(inputs: dict[str, Any], params: dict[str, Any] | None = None, **extra: Any) -> Any:
    return await fetch_agent(context(inputs, params, **extra))


@parametrize_samples(*AGENTS)
def test_every_sample_gives_its_result(sample_case: SampleCase) -> None:
    sample_case.check()


async def test_json_is_the_default_type(http) -> None:
    url = http.route("/data", body={"a": [1, 2]})
    assert await fetch({"url": url}) == {"a": [1, 2]}


async def test_the_request_comes_from_the_inputs_only(http) -> None:
    received = await fetch({"url": f"{http.base}/echo", "queryParams": {"q": "graph ai"}, "headers": {"X-Key": "k"},
                            "body": {"n": 1}}, {"url": "http://elsewhere.invalid", "method": "PUT"})
    assert (received["method"], received["path"], received["query"]) == ("POST", "/echo", "q=graph+ai")
    assert (received["headers"]["x-key"], received["headers"]["content-type"]) == ("k", "application/json")
    assert received["body"] == '{"n":1}'


async def test_any_method_is_sent_in_upper_case(http) -> None:
    assert (await fetch({"url": f"{http.base}/echo", "method": "put"}))["method"] == "PUT"


async def test_a_forbidden_method_is_refused_as_fetch_refuses_it() -> None:
    with pytest.raises(TypeError, match="^'TRACE' HTTP method is unsupported.$"):
        await fetch({"url": "http://127.0.0.1:9/", "method": "trace"})


async def test_text_is_returned_as_is(http) -> None:
    url = http.route("/page", body="<html>hi</html>", content_type="text/html")
    assert await fetch({"url": url}, {"type": "text"}) == "<html>hi</html>"


async def test_xml_becomes_json_as_xml2js_makes_it(http) -> None:
    feed = ('<?xml version="1.0"?><feed lang="en"><title>News</title>'
            '<entry id="1"><title>One</title><link href="/1"/></entry>'
            '<entry id="2"><title>Two</title><link href="/2"/></entry></feed>')
    url = http.route("/feed", body=feed, content_type="application/xml")
    assert await fetch({"url": url}, {"type": "xml"}) == {"feed": {
        "lang": "en", "title": "News",
        "entry": [{"id": "1", "title": "One", "link": {"href": "/1"}}, {"id": "2", "title": "Two", "link": {"href": "/2"}}],
    }}


async def test_an_unknown_type_is_an_error_after_the_request(http) -> None:
    url = http.route("/x", body="{}")
    with pytest.raises(ValueError, match="^Unknown Type! csv$"):
        await fetch({"url": url}, {"type": "csv"})


async def test_a_non_2xx_answer_raises_an_http_error(http) -> None:
    url = http.route("/missing", status=404, body={"reason": "nope"})
    with pytest.raises(RuntimeError, match="^HTTP error: 404$"):
        await fetch({"url": url})


async def test_supress_error_gives_graphais_on_error_result_with_the_parsed_body(http) -> None:
    url = http.route("/fail", status=500, body={"reason": "down"})
    assert await fetch({"url": url}, {"supressError": True}) == {
        "onError": {"message": "HTTP error: 500", "status": 500, "error": {"reason": "down"}}}


async def test_supress_error_with_xml_gives_the_error_body_as_text(http) -> None:
    url = http.route("/fail", status=503, body="<error>busy</error>", content_type="application/xml")
    assert (await fetch({"url": url}, {"supressError": True, "type": "xml"}))["onError"]["error"] == "<error>busy</error>"


async def test_graphais_error_graph_takes_the_on_error_branch(http) -> None:
    url = http.route("/search", status=405, body="Method Not Allowed", content_type="text/plain")
    graph = {"version": 0.5, "nodes": {  # GraphAI's graphDataPost (service_agents/tests/graphData.ts), pointed here
        "url": {"value": url},
        "fetch": {"agent": "fetchAgent", "params": {"type": "text", "supressError": True},
                  "inputs": {"url": ":url", "body": "Posting data"}},
        "success": {"agent": "copyAgent", "isResult": True, "unless": ":fetch.onError", "inputs": {"result": True}},
        "error": {"agent": "propertyFilterAgent", "params": {"include": ["message", "status"]}, "isResult": True,
                  "if": ":fetch.onError", "inputs": {"item": ":fetch.onError"}},
    }}
    assert await graphrt.arun(graph) == {"error": {"message": "HTTP error: 405", "status": 405}}
    assert http.received[-1]["body"] == '"Posting data"'


async def test_redirects_are_followed_up_to_the_configured_count(http) -> None:
    http.route("/hop2", status=302, headers={"Location": "/hop1"})
    http.route("/hop1", status=302, headers={"Location": "/end"})
    http.route("/end", body={"at": "end"})
    assert await fetch({"url": f"{http.base}/hop2"}) == {"at": "end"}
    with pytest.raises(TypeError, match=r"^fetch failed: http://127.0.0.1:\d+/hop2 redirected more than 1 times "
                                        r"\(config maxRedirects\)$"):
        await fetch({"url": f"{http.base}/hop2"}, config={"maxRedirects": 1})


async def test_a_redirect_loop_fails_rather_than_running_forever(http) -> None:
    http.route("/loop", status=302, headers={"Location": "/loop"})
    with pytest.raises(TypeError, match="redirected more than 20 times"):
        await fetch({"url": f"{http.base}/loop"})


async def test_a_body_over_the_size_limit_is_refused(http) -> None:
    url = http.route("/big", body=b"x" * 5000, content_type="text/plain")
    assert len(await fetch({"url": url}, {"type": "text"}, config={"maxBytes": 5000})) == 5000
    with pytest.raises(TypeError, match=r"is 5000 bytes, over the limit of 4999 \(config maxBytes\)$"):
        await fetch({"url": url}, {"type": "text"}, config={"maxBytes": 4999})


async def test_the_size_limit_holds_for_a_body_without_length_and_for_what_gzip_unpacks(http) -> None:
    packed = gzip.compress(b"y" * 100_000)
    url = http.route("/bomb", body=packed, content_type="text/plain", headers={"Content-Encoding": "gzip"})
    assert len(await fetch({"url": url}, {"type": "text"})) == 100_000
    with pytest.raises(TypeError, match=r"is over the limit of 50000 bytes \(config maxBytes\)$"):
        await fetch({"url": url}, {"type": "text"}, config={"maxBytes": 50_000})


async def test_a_server_that_never_answers_fails_after_the_configured_timeout(http) -> None:
    http.routes["/hang"] = lambda _request: (http.release.wait(), (200, {}, b""))[1]
    with pytest.raises(TypeError, match=r"^fetch failed: http://127.0.0.1:\d+/hang did not answer within 0.2 s "
                                        r"\(config timeout\)$"):
        await fetch({"url": f"{http.base}/hang"}, config={"timeout": 0.2})


async def test_a_server_that_sends_a_byte_at_a_time_fails_at_the_timeout_of_the_whole_request(http) -> None:
    url = http.trickle("/drip", size=100, every=0.05)  # 5 s in all, never 0.5 s without a byte
    with pytest.raises(TypeError, match=r"^fetch failed: http://127.0.0.1:\d+/drip did not answer within 0.5 s "
                                        r"\(config timeout\)$"):
        await fetch({"url": url}, {"type": "text"}, config={"timeout": 0.5})


@pytest.mark.parametrize("params, error", [
    ({}, "HTTP error: 404"),
    ({"supressError": True}, {"onError": {"message": "HTTP error: 404", "status": 404,
                                          "error": "<html><h1>Not Found</h1></html>"}}),
])
async def test_a_non_2xx_page_that_is_not_json_gives_its_status(http, params, error) -> None:
    url = http.route("/gone", status=404, body="<html><h1>Not Found</h1></html>", content_type="text/html")
    if isinstance(error, str):
        with pytest.raises(RuntimeError, match=f"^{error}$"):
            await fetch({"url": url}, params)
    else:  # GraphAI's onError, its error the body: parsed as the type says when it can be, else as text
        assert await fetch({"url": url}, params) == error


async def test_a_bad_limit_in_the_config_is_named() -> None:
    with pytest.raises(ValueError, match=r"^fetchAgent: config 'maxBytes' must be a positive number, got -1$"):
        await fetch({"url": "http://127.0.0.1:9/"}, config={"maxBytes": -1})


async def test_a_refused_connection_says_fetch_failed_without_the_query() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(TypeError) as caught:
        await fetch({"url": f"http://127.0.0.1:{port}/api?key=SECRET"})
    assert str(caught.value).startswith(f"fetch failed: http://127.0.0.1:{port}/api: ConnectError: ")
    assert "SECRET" not in str(caught.value)


async def test_a_missing_url_is_an_invalid_url_as_in_graphai() -> None:
    with pytest.raises(TypeError, match="^Invalid URL$"):
        await fetch({}, {"debug": True})


# ----- the journal: what a request may change, and its idempotency key -----

FETCH = AGENTS[0]


@pytest.mark.parametrize("inputs, params, changes, harmless", [
    ({"url": "http://x"}, {}, False, True),  # GET changes nothing
    ({"url": "http://x", "method": "head"}, {}, False, True),
    ({"url": "http://x", "body": {"n": 1}}, {}, True, False),  # POST: sent twice, it may act twice
    ({"url": "http://x", "body": {"n": 1}}, {"idempotencyKey": True}, True, True),  # unless the server reads a key
    ({"url": "http://x", "method": "POST", "headers": {"idempotency-key": "mine"}}, {}, True, True),
    ({"url": "http://x", "method": "PUT"}, {}, True, True),
    ({"url": "http://x", "method": "DELETE"}, {}, True, True),
    ({"url": "http://x", "body": {"n": 1}}, {"debug": True}, False, True),  # sends nothing
])
def test_what_a_request_may_change_follows_its_method(inputs, params, changes, harmless) -> None:
    ctx = context(inputs, params)
    assert FETCH.journaled
    assert (FETCH.has_side_effects(ctx), FETCH.is_idempotent(ctx)) == (changes, harmless)


async def test_the_idempotency_key_of_a_journaled_call_is_sent_when_asked(http) -> None:
    sent = await fetch({"url": f"{http.base}/echo", "body": {"n": 1}}, {"idempotencyKey": True},
                       idempotency_key="0123456789abcdef0123456789abcdef")
    assert sent["headers"]["idempotency-key"] == "0123456789abcdef0123456789abcdef"
    mine = await fetch({"url": f"{http.base}/echo", "body": {"n": 1}, "headers": {"Idempotency-Key": "mine"}},
                       {"idempotencyKey": True}, idempotency_key="0123456789abcdef0123456789abcdef")
    assert mine["headers"]["idempotency-key"] == "mine"  # a key of the graph's own wins
    unasked = await fetch({"url": f"{http.base}/echo", "body": {"n": 1}}, idempotency_key="0123456789abcdef")
    assert "idempotency-key" not in unasked["headers"]


async def test_a_checkpointed_run_sends_each_call_its_own_key_and_the_same_on_resume(http, tmp_path) -> None:
    from graphrt.durable import arun_checkpointed

    graph = graphrt.Graph({"version": 0.5, "nodes": {
        "a": {"agent": "fetchAgent", "inputs": {"url": f"{http.base}/echo", "body": {"n": 1}},
              "params": {"idempotencyKey": True}},
        "b": {"agent": "fetchAgent", "inputs": {"url": f"{http.base}/echo", "body": ":a.body"},
              "params": {"idempotencyKey": True}, "isResult": True}}})
    first = await arun_checkpointed(graph, tmp_path / "runs.db", run_id="r1")
    again = await arun_checkpointed(graph, tmp_path / "other.db", run_id="r1")  # the same run, made again elsewhere

    keys = [request["headers"]["idempotency-key"] for request in http.received]
    assert len(keys) == 4 and keys[0] != keys[1] and keys[:2] == keys[2:]
    assert first == again
