"""Property tests of the MCP server (`graphrt mcp`, and /mcp of `graphrt serve`): hypothesis over tool
names and arguments, and over the HTTP requests /mcp receives.

The rule: a result or a clean error result (`isError`, a short text), never an
exception out of the server, a traceback, a 500 or a hang; no key written in a
graph or set in the environment in what comes back.
"""

from __future__ import annotations

import json

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp import Client

from graphrt.mcp.graph_tools import collect_graph_tools
from graphrt.mcp.server import GraphToolServer

from .test_mcp_attacks import KEYED

pytestmark = pytest.mark.needs("mcp")

_leaf = (st.none() | st.booleans() | st.integers(min_value=-(10 ** 300), max_value=10 ** 300)
         | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=40))
_json = st.recursive(_leaf, lambda children: st.lists(children, max_size=4)
                     | st.dictionaries(st.text(max_size=10), children, max_size=4), max_leaves=25)


@st.composite
def _arguments(draw) -> dict:
    arguments = draw(st.dictionaries(st.sampled_from(["name", "count", "apiKey", "endpoint", "x", ""]) | st.text(max_size=8),
                                     _json, max_size=4))
    if draw(st.booleans()):
        depth = draw(st.integers(50, 2000))
        value: list = []
        for _ in range(depth):
            value = [value]
        arguments["name"] = value
    return arguments


async def _no_progress(*_: object) -> None:
    return None


def test_any_tool_call_gets_a_result_or_a_clean_error(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-secret-0123456789abcdef")
    (tmp_path / "keyed.yaml").write_text(KEYED)
    server = GraphToolServer(collect_graph_tools([tmp_path]))

    @settings(deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.sampled_from(["keyed"]) | st.text(max_size=50), _arguments())
    def each(name: str, arguments: dict) -> None:
        async def call() -> None:
            with anyio.fail_after(60):  # a guard against a hang
                result = await server._call_tool(name, arguments, _no_progress)
            text = " ".join(part.text for part in result.content)
            assert "Traceback" not in text and len(text) < 10_000
            assert "sk-graph-written" not in text and "sk-env-secret" not in text and "hunter2pass" not in text
            if not result.is_error:
                assert result.structured_content is not None

        anyio.run(call)

    each()


@pytest.mark.anyio
async def test_the_listing_and_real_calls_through_the_sdk(tmp_path) -> None:
    (tmp_path / "keyed.yaml").write_text(KEYED)
    async with Client(GraphToolServer(collect_graph_tools([tmp_path])).lowlevel) as client:
        listed = json.dumps([tool.model_dump() for tool in (await client.list_tools()).tools])
        assert "sk-graph-written" not in listed
        for arguments in ({"name": "Ada"}, {"count": "x"}, {"name": "\ud800"}):
            result = await client.call_tool("keyed", arguments)
            assert result.is_error or result.structured_content == {"greeting": "Hello, Ada!"}


_BODY = st.one_of(
    st.binary(max_size=300),
    _json.map(lambda value: json.dumps(value).encode()),
    st.builds(lambda method, params, ident: json.dumps({"jsonrpc": "2.0", "id": ident, "method": method,
                                                        "params": params}).encode(),
              st.sampled_from(["initialize", "tools/list", "tools/call", "ping", "x/y", ""]), _json,
              st.integers() | st.text(max_size=10) | st.none()),
)


def test_any_request_to_serves_mcp_endpoint_is_answered_without_a_500(tmp_path) -> None:
    import httpx

    from ..serve.conftest import free_port, start_process

    (tmp_path / "graphs").mkdir()
    (tmp_path / "graphs" / "keyed.yaml").write_text(KEYED)
    port = free_port()
    process = start_process(tmp_path / "graphs", tmp_path / "runs.db", port)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:  # the timeout: a hang guard
            _attack_mcp(client)
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=30)
    assert "Traceback" not in stderr, stderr[-2000:]


def _attack_mcp(client) -> None:
    if True:

        @settings(deadline=None, suppress_health_check=list(HealthCheck))
        @given(_BODY, st.sampled_from(["POST", "GET", "DELETE"]),
               st.sampled_from(["application/json, text/event-stream", "application/json", "*/*", "text/html"]),
               st.sampled_from(["application/json", "text/plain"]), st.sampled_from(["", "x" * 40, "\u00e9"]))
        def each(body: bytes, method: str, accept: str, content_type: str, session: str) -> None:
            headers = {"Accept": accept, "Content-Type": content_type}
            if session:
                headers["Mcp-Session-Id"] = session.encode("utf-8")
            response = client.request(method, "/mcp", content=body if method == "POST" else None, headers=headers)
            assert response.status_code < 500, (response.status_code, response.text[:300])
            assert "Traceback" not in response.text

        each()
        half_sent = client.post("/mcp", content=iter([b"x" * 65536] * 40),  # chunked, 2.5 MiB: over the body limit
                                headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
        assert half_sent.status_code == 413
        assert client.get("/health").status_code == 200
