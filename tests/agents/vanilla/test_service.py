"""vanillaFetchAgent: debug descriptions offline, real requests against a loopback server."""

from __future__ import annotations

import json
import socket
from typing import Any

import pytest
from graphrt_agents.vanilla.service import AGENTS, vanilla_fetch_agent

from graphrt.base.jsvalue import to_json_compatible
from graphrt.testing import SampleCase, parametrize_samples
from graphrt.testing import agent_context as context

pytestmark = pytest.mark.anyio


@pytest.fixture
def server(http) -> str:
    """The scripted server (tests/agents/conftest.py) with the answers these tests read; other paths echo."""
    http.route("/redirect", status=302, content_type="text/plain", headers={"Location": "/echo"})
    http.route("/text", body="plain text", content_type="text/plain")
    for status in (404, 500):
        http.route(f"/status/{status}", status=status, body={"reason": "nope"})
    for status in (403, 500):
        http.route(f"/status-text/{status}", status=status, body="nope", content_type="text/plain")
    return http.base


async def fetch(inputs: dict[str, Any], params: dict[str, Any] | None = None, **extra: Any) -> Any:
    return await vanilla_fetch_agent(context(inputs, params, **extra))


@parametrize_samples(*AGENTS)
def test_every_sample_gives_its_result(sample_case: SampleCase) -> None:
    sample_case.check()  # through a real one-node graph, as `graphrt test-agents` runs it


async def test_debug_describes_the_request_without_sending_it() -> None:
    result = await fetch({"url": "http://127.0.0.1:9/nothing-listens"}, {"debug": True})
    assert to_json_compatible(result) == {"url": "http://127.0.0.1:9/nothing-listens", "method": "GET", "headers": {}}


async def test_debug_normalises_the_url_as_whatwg_does() -> None:
    result = await fetch({"url": "HTTPS://Example.COM:443/a b#top"}, {"debug": True})
    assert result["url"] == "https://example.com/a%20b#top"


async def test_query_params_are_form_encoded_and_replace_the_urls_query() -> None:
    params = {"debug": True, "queryParams": {"q": "a b~*", "n": 1.5, "ok": True}}
    result = await fetch({"url": "https://example.com/?old=1"}, params)
    assert result["url"] == "https://example.com/?q=a+b%7E*&n=1.5&ok=true"


async def test_an_empty_query_params_object_removes_the_urls_query() -> None:
    result = await fetch({"url": "https://example.com/?old=1", "queryParams": {}}, {"debug": True})
    assert result["url"] == "https://example.com/"


async def test_a_string_body_is_sent_as_a_json_string() -> None:
    result = await fetch({"url": "https://example.com", "body": "hi"}, {"debug": True})
    assert (result["method"], result["body"]) == ("POST", '"hi"')


async def test_config_authorization_becomes_a_header() -> None:
    result = await fetch({"url": "https://example.com"}, {"debug": True}, config={"authorization": "Bearer k"})
    assert result["headers"] == {"Authorization": "Bearer k"}


async def test_get_sends_the_query_params(server: str) -> None:
    received = await fetch({"url": f"{server}/echo", "queryParams": {"q": "graph ai", "page": 2}})
    assert (received["method"], received["path"], received["query"]) == ("GET", "/echo", "q=graph+ai&page=2")


async def test_post_sends_the_body_as_json(server: str) -> None:
    received = await fetch({"url": f"{server}/echo", "body": {"foo": ["bar", 1]}})
    assert received["method"] == "POST"
    assert received["headers"]["content-type"] == "application/json"
    assert json.loads(received["body"]) == {"foo": ["bar", 1]}


async def test_headers_from_params_and_inputs_are_both_sent(server: str) -> None:
    received = await fetch(
        {"url": f"{server}/echo", "headers": {"X-From-Inputs": "i"}},
        {"headers": {"X-From-Params": "p", "X-Count": 3}},
    )
    headers = received["headers"]
    assert (headers["x-from-inputs"], headers["x-from-params"], headers["x-count"]) == ("i", "p", "3")


async def test_inputs_override_params_for_the_method(server: str) -> None:
    received = await fetch({"url": f"{server}/echo", "method": "delete"}, {"method": "PUT", "body": {"a": 1}})
    assert (received["method"], received["body"]) == ("DELETE", '{"a":1}')


async def test_the_text_type_returns_the_body_as_text(server: str) -> None:
    assert await fetch({"url": f"{server}/text"}, {"type": "text"}) == "plain text"


async def test_flat_response_false_wraps_the_data(server: str) -> None:
    assert await fetch({"url": f"{server}/text"}, {"type": "text", "flatResponse": False}) == {"data": "plain text"}


async def test_redirects_are_followed(server: str) -> None:
    received = await fetch({"url": f"{server}/redirect"})
    assert received["path"] == "/echo"


async def test_a_non_2xx_status_raises_an_http_error(server: str) -> None:
    with pytest.raises(RuntimeError, match="^HTTP error: 404$"):
        await fetch({"url": f"{server}/status/404"})


async def test_supress_error_returns_the_parsed_error_body(server: str) -> None:
    result = await fetch({"url": f"{server}/status/500"}, {"supressError": True})
    assert result == {"onError": {"message": "HTTP error: 500", "status": 500, "error": {"reason": "nope"}}}


async def test_supress_error_with_the_text_type_returns_the_error_text(server: str) -> None:
    result = await fetch({"url": f"{server}/status-text/403"}, {"supressError": True, "type": "text"})
    assert result["onError"]["error"] == "nope"


async def test_an_error_body_that_is_not_json_does_not_hide_the_status(server: str) -> None:
    with pytest.raises(RuntimeError, match="^HTTP error: 500$"):
        await fetch({"url": f"{server}/status-text/500"})
    result = await fetch({"url": f"{server}/status-text/500"}, {"supressError": True})
    assert result == {"onError": {"message": "HTTP error: 500", "status": 500, "error": "nope"}}


async def test_an_unknown_response_type_raises_after_the_request(server: str) -> None:
    with pytest.raises(ValueError, match="^Unknown Type! xml$"):
        await fetch({"url": f"{server}/text"}, {"type": "xml"})


async def test_a_refused_connection_raises_fetch_failed() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(TypeError, match=r"^fetch failed: http://127.0.0.1:\d+/: ConnectError: "):
        await fetch({"url": f"http://127.0.0.1:{port}/"})


async def test_a_get_with_a_body_raises_like_fetch() -> None:
    with pytest.raises(TypeError, match="^Request with GET/HEAD method cannot have body.$"):
        await fetch({"url": "http://127.0.0.1:9/", "method": "GET", "body": {"a": 1}})


async def test_a_missing_url_raises() -> None:
    with pytest.raises(ValueError, match="^fetchAgent: no url$"):
        await fetch({}, {"debug": True})


async def test_a_url_without_a_scheme_is_invalid() -> None:
    with pytest.raises(TypeError, match="^Invalid URL$"):
        await fetch({"url": "example.com"}, {"debug": True})


async def test_an_unknown_method_raises() -> None:
    with pytest.raises(ValueError, match="^fetchAgent: invalid method: TRACE$"):
        await fetch({"url": "https://example.com", "method": "trace"}, {"debug": True})


async def test_put_without_a_body_raises() -> None:
    with pytest.raises(ValueError, match="^fetchAgent: The request body is required for this method: PUT$"):
        await fetch({"url": "https://example.com", "method": "PUT"}, {"debug": True})
