"""What bench/adversarial's serve surface found in graphrt serve's HTTP API (issue 27), each fixed and kept so.

Cases of the campaign that broke: a client leaving before its body was whole (a
traceback in the server's log), a planted secret quoted back in an error, a Host
whose port is no number let in as loopback.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest

pytest.importorskip("starlette")

from graphrt.serve.origin import OriginPolicy
from graphrt.serve.security import Guard

from ..serve.conftest import HELLO


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


@pytest.mark.parametrize("host", ["127.0.0.1:8000.evil.example", "localhost:evil.example", "localhost:x.localhost", "[::1]x:80",
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
