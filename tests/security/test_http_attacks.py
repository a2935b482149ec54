"""What bench/adversarial's serve surface found in graphrt serve's HTTP API (issue 27), each fixed and kept so.

Cases of the campaign that broke: a client leaving before its body was whole (a
traceback in the server's log), a planted secret quoted back in an error, a Host
whose port is no number let in as loopback.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from graphrt.serve.origin import OriginPolicy
from graphrt.serve.security import Guard

from ..conftest import need
from ..serve.conftest import HELLO

pytestmark = pytest.mark.needs("serve")


@pytest.mark.parametrize("first", [b'{"inputs":', b""])
def test_a_client_that_leaves_before_its_body_ends_gets_no_route_called(first: bytes) -> None:
    called: list[Any] = []
    sent: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        called.append(await receive())  # Starlette's request.body() raises ClientDisconnect here: a traceback

    messages = [{"type": "http.request", "body": first, "more_body": True}, {"type": "http.disconnect"}]

    async def receive() -> dict[str, Any]:
        return messages.pop(0)

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/graphs/hello/runs", "headers": [(b"content-length", b"100")]}
    anyio.run(Guard(app, api_key=None, max_body=1000), scope, receive, send)
    assert called == [] and sent == []


@pytest.mark.parametrize("host", ["127.0.0.1:8000.evil.example", "localhost:evil.example", "localhost:x.localhost",
                                  "[::1]x:80",
                                  "127.0.0.1:80x"])
def test_a_host_whose_port_is_no_number_is_not_loopback(host: str) -> None:
    assert not OriginPolicy.of().host_allowed(host)


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost", "[::1]:8000", "LOCALHOST:1", "127.1.2.3:65535",
                                  "127.0.0.1:", "app.localhost:8000"])
def test_loopback_hosts_with_their_ports_are_let_in(host: str) -> None:
    assert OriginPolicy.of().host_allowed(host)


PLANTED = "planted-value-of-a-token-9876"  # no pattern finds it: only the environment says it is a secret


@pytest.mark.parametrize(("method", "path", "body", "headers"), [
    ("GET", f"/graphs/{PLANTED}", None, {}),
    ("POST", f"/graphs/{PLANTED}/runs", {}, {}),
    ("GET", f"/runs/{PLANTED}", None, {}),
    ("POST", f"/runs/{PLANTED}/cancel", None, {}),
    ("GET", "/runs/RUN/nodes/" + PLANTED, None, {}),
    ("POST", "/runs/RUN/fork", {"from": PLANTED}, {}),
    ("POST", "/graphs/hello/runs", {"inputs": {PLANTED: 1}}, {}),
    ("POST", "/v1/chat/completions", {"model": PLANTED, "messages": []}, {}),
    ("GET", "/runs", None, {"Host": PLANTED}),
])
def test_an_error_quotes_no_secret_the_request_named(serve, monkeypatch, method, path, body, headers) -> None:
    monkeypatch.setenv("CAMPAIGN_SERVICE_TOKEN", PLANTED)
    served = serve({"hello.yaml": HELLO})
    with served.client() as client:
        run_id = client.post("/graphs/hello/runs?wait=true", json={}).json()["id"]
        response = client.request(method, path.replace("RUN", run_id), json=body, headers=headers)
        assert 400 <= response.status_code < 500, response.text
        assert PLANTED not in response.text and "REDACTED" in response.text


# ----- graphrt mcp --http: the same guards as graphrt serve -----


def _mcp_app(tmp_path, key: str | None = None) -> Any:
    need("mcp")
    from graphrt.engine.graph import make_registry
    from graphrt.mcp.graph_tools import collect_graph_tools
    from graphrt.mcp.server import GraphToolServer

    (tmp_path / "hello.yaml").write_text(HELLO, encoding="utf-8")
    return GraphToolServer(collect_graph_tools([tmp_path / "hello.yaml"]), agents=make_registry(None)).http_app(key=key)


async def _call(app: Any, scope: dict[str, Any], body: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What `app` sends for one request (`body`: its receive messages), with the app's lifespan running around it,
    as uvicorn runs it (the SDK's session manager lives there)."""
    started, stop, sent = anyio.Event(), anyio.Event(), []
    lifespan = [{"type": "lifespan.startup"}]

    async def life_receive() -> dict[str, Any]:
        if lifespan:
            return lifespan.pop(0)
        await stop.wait()
        return {"type": "lifespan.shutdown"}

    async def life_send(message: dict[str, Any]) -> None:
        if message["type"] == "lifespan.startup.complete":
            started.set()

    async def receive() -> dict[str, Any]:
        if body:
            return body.pop(0)
        await anyio.sleep_forever()

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async with anyio.create_task_group() as group:
        group.start_soon(app, {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, life_receive, life_send)
        await started.wait()
        with anyio.move_on_after(10):  # a guard against a hang, not a wait: the answers come at once
            await app({"type": "http", "method": "POST", "path": "/mcp", "query_string": b"", "scheme": "http",
                       "http_version": "1.1", "server": ("127.0.0.1", 8000), "client": ("127.0.0.1", 1),
                       "root_path": "", **scope}, receive, send)
        stop.set()
    return sent


_MCP_HEADERS = [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json"),
                (b"accept", b"application/json, text/event-stream")]
_INIT = (b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", '
         b'"capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}')


def test_mcp_http_ends_a_request_whose_client_left_half_way_unanswered(tmp_path, caplog) -> None:
    body = [{"type": "http.request", "body": b'{"jsonrpc":', "more_body": True}, {"type": "http.disconnect"}]
    sent = anyio.run(_call, _mcp_app(tmp_path), {"headers": _MCP_HEADERS}, body)
    assert sent == [] and "Traceback" not in caplog.text and "Error handling" not in caplog.text


@pytest.mark.parametrize(("header", "status"), [
    ((b"host", b"127.0.0.1:8000.evil.example"), 421),  # the SDK's check let '127.0.0.1:*' through
    ((b"origin", b"http://localhost:1"), 403),  # another page on this machine: the SDK let any localhost port in
    ((b"origin", b"http://127.0.0.1:8000.evil.example"), 403),
    ((b"origin", b"https://evil.example"), 403),
])
def test_mcp_http_refuses_foreign_hosts_and_pages_as_serve_does(tmp_path, header, status) -> None:
    headers = [item for item in _MCP_HEADERS if item[0] != header[0]] + [header]
    sent = anyio.run(_call, _mcp_app(tmp_path), {"headers": headers},
                     [{"type": "http.request", "body": _INIT, "more_body": False}])
    assert sent[0]["status"] == status


def test_mcp_http_serves_its_own_page_and_plain_clients(tmp_path) -> None:
    for extra in ([], [(b"origin", b"http://127.0.0.1:8000")]):
        sent = anyio.run(_call, _mcp_app(tmp_path), {"headers": _MCP_HEADERS + extra},
                         [{"type": "http.request", "body": _INIT, "more_body": False}])
        assert sent[0]["status"] == 200


def test_mcp_http_takes_the_key_as_serve_does(tmp_path) -> None:
    for given, status in (((), 401), (((b"authorization", b"Bearer k3yx"),), 401), (((b"x-api-key", b"no"),), 401),
                          (((b"authorization", b"Bearer k3y"),), 200), (((b"x-api-key", b"k3y"),), 200)):
        sent = anyio.run(_call, _mcp_app(tmp_path, key="k3y"), {"headers": [*_MCP_HEADERS, *given]},
                         [{"type": "http.request", "body": _INIT, "more_body": False}])
        assert sent[0]["status"] == status, given
