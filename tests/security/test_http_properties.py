"""Property tests of `graphrt serve`'s HTTP API (hypothesis over methods, paths, headers and bodies).

The rule for every request: an answer, or a clean error. No 500, no traceback in
the answer or in the server's log, no hang (the client's timeout guards), and no
run started or data read by a request the Host and Origin checks refuse. Each
test starts one real server and sends it every example.

    HYPOTHESIS_PROFILE=deep .venv/bin/python -m pytest tests/security/test_http_properties.py
"""

from __future__ import annotations

import json
import logging

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ..serve.conftest import HELLO, SLOW_ASK

pytestmark = pytest.mark.needs("serve")


ASK = SLOW_ASK.replace("duration: 1200", "duration: 1")

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=20,
)

_text = st.text(st.characters(codec="latin-1", exclude_categories=("Cc",)), max_size=60)
_segment = st.sampled_from(["hello", "ask", "..", "%2e%2e", "x" * 300, "", "runs", "%00", "ü", "hello/runs"]) | _text.map(
    lambda text: "".join(ch for ch in text if ch not in "/?#% "))


@st.composite
def _bodies(draw) -> bytes:
    kind = draw(st.sampled_from(["inputs", "answer", "json", "bytes", "deep", "empty"]))
    if kind == "inputs":
        return json.dumps({"inputs": draw(st.dictionaries(st.sampled_from(["name", "topic", "x", "__loop"]), _json,
                                                          max_size=3)),
                           "all_results": draw(_json)}).encode()
    if kind == "answer":
        return json.dumps({"answer": draw(_json)}).encode()
    if kind == "json":
        return json.dumps(draw(_json)).encode()
    if kind == "deep":
        depth = draw(st.integers(90, 3000))
        return (b'{"inputs": {"name": ' + b"[" * depth + b"]" * depth + b"}}")
    if kind == "empty":
        return b""
    return draw(st.binary(max_size=200))


@st.composite
def _requests(draw, run_ids: list[str]):
    run_id = draw(st.sampled_from(run_ids) | _segment)
    if draw(st.integers(0, 2)) == 0:  # a third of the examples: the routes that read a body, by a real name
        path = draw(st.sampled_from(["/graphs/hello/runs", "/graphs/ask/runs", f"/runs/{run_ids[0]}/resume"]))
        return "POST", path, {"Content-Type": "application/json"}, draw(_bodies())
    path = draw(st.sampled_from([
        "/graphs", f"/graphs/{draw(_segment)}", f"/graphs/{draw(_segment)}/runs", "/runs", f"/runs/{run_id}",
        f"/runs/{run_id}/resume", f"/runs/{run_id}/cancel", "/health", "/openapi.json", "/",
        f"/static/{draw(_segment)}", "/favicon.ico", f"/{draw(_segment)}",
    ]))
    method = draw(st.sampled_from(["GET", "POST", "PUT", "DELETE", "OPTIONS", "HEAD", "PATCH"]))
    query = draw(st.sampled_from(["", "?limit=" + draw(_segment), "?wait=" + draw(_segment), "?last_event_id=" +
                                  draw(_segment)]))
    headers = {}
    if draw(st.booleans()):
        headers["Content-Type"] = draw(st.sampled_from(["application/json", "text/plain", "multipart/form-data",
                                                        "application/x-www-form-urlencoded"]) | _text)
    if draw(st.booleans()):
        headers["Origin"] = draw(st.sampled_from(["https://evil.example", "null", "http://127.0.0.1"]) | _text)
    if draw(st.booleans()):
        headers["Last-Event-ID"] = draw(_text)
    if draw(st.booleans()):
        headers["Authorization"] = draw(_text)
    return method, path + query, headers, draw(_bodies())


class _Tracebacks(logging.Handler):
    """Counts the server's log records that carry an exception (a traceback in its log)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info or record.levelno >= logging.ERROR:
            self.records.append(record)


@pytest.fixture
def tracebacks():
    handler = _Tracebacks()
    loggers = [logging.getLogger(name) for name in ("uvicorn.error", "uvicorn", "graphrt", "starlette", "")]
    for logger in loggers:
        logger.addHandler(handler)
    yield handler
    for logger in loggers:
        logger.removeHandler(handler)


def _check(response, tracebacks) -> None:
    assert response.status_code < 500 or response.status_code == 503, (response.status_code, response.text[:300])
    assert "Traceback" not in response.text
    assert not tracebacks.records, tracebacks.records[0].getMessage()


def test_any_request_gets_an_answer_or_a_clean_error(serve, tracebacks) -> None:
    served = serve({"hello.yaml": HELLO, "ask.yaml": ASK}, max_body=64 * 1024)
    with served.client() as client:  # the timeout guards against a hang
        run_ids = [client.post("/graphs/hello/runs?wait=true", json={}).json()["id"]]

        @settings(deadline=None, suppress_health_check=list(HealthCheck))
        @given(_requests(run_ids))
        def each(request) -> None:
            method, path, headers, body = request
            sent = {name: value.strip().encode("latin-1") for name, value in headers.items() if value.strip()}
            response = client.request(method, path, headers=sent, content=body if method not in ("GET", "HEAD")
                                      else None)
            _check(response, tracebacks)
            if sent.get("Origin", b"http://127.0.0.1").decode("latin-1") not in (served.url, "http://127.0.0.1"):  # a foreign page is answered nothing
                assert response.status_code == 403, (sent["Origin"], response.status_code)

        each()
        assert client.get("/health").status_code == 200


@pytest.mark.parametrize("origin", ["https://evil.example", "null"])
def test_no_foreign_origin_or_host_starts_a_run(serve, tracebacks, origin) -> None:
    served = serve({"hello.yaml": HELLO})
    with served.client() as client:

        @settings(deadline=None, suppress_health_check=list(HealthCheck))
        @given(_bodies(), st.sampled_from(["text/plain", "application/json", "application/x-www-form-urlencoded"]),
               st.sampled_from([None, "evil.example", "localhost.evil.example", "127.0.0.1.nip.io"]))
        def each(body: bytes, content_type: str, host: str | None) -> None:
            headers = {"Content-Type": content_type, "Origin": origin}
            if host is not None:
                headers["Host"] = host
            response = client.post("/graphs/hello/runs", content=body, headers=headers)
            assert response.status_code in (403, 421), response.status_code
            _check(response, tracebacks)

        each()
        assert client.get("/runs").json()["runs"] == []
