"""Limits where input enters `graphrt serve`: past one, a clear 4xx that says which; never a 500 or a traceback.

JSON nested a thousand levels deep (in inputs, bodies, answers), a lone surrogate,
an integer past Python's digit limit, a `Last-Event-ID` of `²` or 4,400 digits, a
`limit` of 5,000 digits: each is a 400 naming the limit, and the server answers the
next request as before.
"""

from __future__ import annotations

import pytest

from graphrt.base.errors import InputLimitError
from graphrt.base.limits import MAX_DEPTH, check_value, cut, parse_json, shown

from ..serve.conftest import HELLO, SLOW_ASK, wait_for_status


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 1_000, 100_000])
def test_json_nested_past_the_limit_is_refused_in_one_pass(depth: int) -> None:
    with pytest.raises(InputLimitError, match=f"nested more than {MAX_DEPTH} levels deep"):
        parse_json("[" * depth + "]" * depth, "the body")
    value: list = []
    for _ in range(depth):  # built in Python, deeper than its parser (or any recursive pass) would go
        value = [value]
    with pytest.raises(InputLimitError, match="nested more than"):
        check_value(value, "the value")


def test_what_an_error_quotes_of_a_value_is_short() -> None:
    assert len(shown("x" * 1_000_000)) < 300 and "999,800 more characters" in shown("x" * 1_000_000)
    assert len(cut("y" * 1_000_000)) < 5_000
    assert shown("short") == "'short'" and shown(12) == "12"


BODIES = {
    "deep inputs": '{"inputs": {"name": ' + "[" * 5000 + "]" * 5000 + "}}",
    "deep at 900": '{"inputs": {"name": ' + "[" * 900 + "]" * 900 + "}}",
    "deep object": '{"inputs": {"name": ' + '{"a":' * 2000 + "1" + "}" * 2000 + "}}",
    "lone surrogate": '{"inputs": {"name": "\\ud800"}}',
    "surrogate key": '{"inputs": {"\\udfff": 1}}',
    "huge integer": '{"inputs": {"name": ' + "9" * 5000 + "}}",
    "not JSON": "{" * 3,
    "not UTF-8": b'{"inputs": {"name": "\xff"}}',
}


@pytest.mark.parametrize("name", list(BODIES))
def test_a_body_past_a_limit_is_a_400_that_says_which(serve, name: str) -> None:
    served = serve({"hello.yaml": HELLO})
    with served.client() as client:
        response = client.post("/graphs/hello/runs", content=BODIES[name], headers={"Content-Type": "application/json"})
        assert response.status_code == 400, response.text
        assert "the request body" in response.json()["error"] and len(response.text) < 1_000
        assert client.get("/runs").json()["runs"] == []
        assert client.get("/health").status_code == 200


def test_an_answer_past_a_limit_is_a_400_and_the_run_still_waits(serve) -> None:
    served = serve({"ask.yaml": SLOW_ASK.replace("duration: 1200", "duration: 1")})
    with served.client() as client:
        run_id = client.post("/graphs/ask/runs", json={}).json()["id"]
        assert wait_for_status(client, run_id, ("interrupted",))["status"] == "interrupted"
        deep = '{"answer": ' + "[" * 3000 + "]" * 3000 + "}"
        assert client.post(f"/runs/{run_id}/resume", content=deep).status_code == 400
        assert client.post(f"/runs/{run_id}/resume", content='{"answer": "\\ud83d"}').status_code == 400
        assert client.get(f"/runs/{run_id}").json()["status"] == "interrupted"
        done = client.post(f"/runs/{run_id}/resume?wait=true", json={"answer": "Ada"}).json()
        assert done["results"] == {"greeting": "Hello, Ada! Welcome to graphs."}


@pytest.mark.parametrize("last_event_id", ["x.²", "x.٣", "x." + "9" * 4400, "x.-1", "", "..", "x.1e9"])
def test_a_hostile_last_event_id_replays_from_the_start(serve, last_event_id: str) -> None:
    served = serve({"hello.yaml": HELLO})
    with served.client() as client:
        run_id = client.post("/graphs/hello/runs?wait=true", json={}).json()["id"]
        for headers, params in (({"Last-Event-ID": last_event_id.encode("utf-8")}, {}),
                                ({}, {"last_event_id": last_event_id})):
            response = client.get(f"/runs/{run_id}/events", headers=headers, params=params)
            assert response.status_code == 200 and "event: RunStatus" in response.text


@pytest.mark.parametrize("limit", ["9" * 5000, "²", "-3", "1.5", "", "0x10"])
def test_a_hostile_limit_is_a_400(serve, limit: str) -> None:
    served = serve({"hello.yaml": HELLO})
    with served.client() as client:
        response = client.get("/runs", params={"limit": limit})
        assert response.status_code == 400 and "'limit' must be a number" in response.json()["error"]


LONE = (  # JSON text may hold a lone surrogate (JavaScript strings can); UTF-8 cannot
    '{"version": 0.5, "nodes": {"text": {"value": "ab"}, "cut": {"agent": "copyAgent", '
    '"inputs": {"text": ":text", "broken": "\\ud800"}, "isResult": true}}}'
)


def test_a_result_holding_a_lone_surrogate_is_answered_escaped(serve) -> None:
    served = serve({"lone.json": LONE})
    with served.client() as client:
        run = client.post("/graphs/lone/runs?wait=true", json={})
        assert run.status_code == 200 and run.json()["results"]["cut"]["broken"] == "\ud800"
        assert client.get(f"/runs/{run.json()['id']}").status_code == 200
        assert client.get("/runs").status_code == 200
