"""Runs' event logs in the store (serve/event_saver.py): replay after a restart has the whole log, with the same
ids; retention deletes old ended runs (serve/retention.py); a stored run shows the times it was saved with, and what
each node spent (as its saved log says)."""

from __future__ import annotations

import sqlite3
import time

import pytest

from graphrt.serve.retention import Retention

from ..waiting import wait_until
from .conftest import ASK, HELLO, sse_events, wait_for_status


def _stream(client, run_id, **headers):
    with client.stream("GET", f"/runs/{run_id}/events", headers=headers) as response:
        return list(sse_events(response))


def _stop(served) -> None:
    served.server.should_exit = True
    served.thread.join(15)


def _hello_logged(serve, checkpoint) -> tuple[dict, list]:
    """A hello run on a first server, stopped after: the run as it answered, and its log as streamed live."""
    first = serve({"hello.yaml": HELLO}, checkpoint=checkpoint)
    with first.client() as client:
        run = client.post("/graphs/hello/runs?wait=true", json={"inputs": {"name": "Ada"}}).json()
        live = _stream(client, run["id"])
    _stop(first)
    return run, live


def test_replay_after_a_restart_has_the_whole_log_with_the_same_ids(serve, checkpoint):
    run, live = _hello_logged(serve, checkpoint)
    stopped_at = time.time()
    names = [name for _, name, _ in live]
    assert "NodeStarted" in names and "NodeCompleted" in names and names[-1] == "RunStatus"

    second = serve({}, checkpoint=checkpoint)  # the same folder and checkpoint
    with second.client() as client:
        replayed = _stream(client, run["id"])
        assert replayed == live  # every event, its id and its data, as the first server sent them
        middle = live[len(live) // 2][0]
        assert _stream(client, run["id"], **{"Last-Event-ID": middle}) == live[len(live) // 2 + 1:]
        again = client.get(f"/runs/{run['id']}").json()
        assert run["created_at"] <= again["updated_at"] < stopped_at  # as saved, not the time it was read back
        assert again["last_event_id"] == int(live[-1][0])
    _stop(second)

    third = serve({}, checkpoint=checkpoint)  # reading a run back adds nothing to its saved log
    with third.client() as client:
        assert _stream(client, run["id"]) == live


@pytest.mark.parametrize("checkpoint", ["sqlite"], indirect=True)  # on PostgreSQL: test_many_servers.py
def test_a_run_saved_ended_without_its_status_in_its_log_gets_it_when_read_back(serve, checkpoint):
    # What a server killed between saving a run's end and saving its status (the last of its log) leaves: made here
    # from a whole log. The log must end, with the run's status; else readers wait for an end that never comes.
    run, live = _hello_logged(serve, checkpoint)
    with sqlite3.connect(checkpoint) as db:
        db.execute("DELETE FROM graphrt_events WHERE run_id = ? AND id = ?", (run["id"], int(live[-1][0])))

    second = serve({}, checkpoint=checkpoint)
    with second.client() as client:
        replayed = _stream(client, run["id"])
    assert [(event_id, name) for event_id, name, _ in replayed] == [(event_id, name) for event_id, name, _ in live]
    assert replayed[-1][2]["status"] == "finished" and replayed[-1][2]["results"] == live[-1][2]["results"]


def test_a_run_continued_after_a_restart_goes_on_numbering_its_log(serve, checkpoint):
    first = serve({"ask.yaml": ASK}, checkpoint=checkpoint)
    with first.client() as client:
        run_id = client.post("/graphs/ask/runs?wait=true", json={}).json()["id"]
        before = _stream_until(client, run_id, "interrupted")
    _stop(first)

    second = serve({}, checkpoint=checkpoint)
    with second.client() as client:
        assert client.post(f"/runs/{run_id}/resume?wait=true", json={"answer": "Bo"}).json()["status"] == "finished"
        whole = _stream(client, run_id)
    assert whole[:len(before)] == before
    ids = [int(event_id) for event_id, _, _ in whole]
    assert ids == list(range(1, len(ids) + 1))
    assert whole[-1][2]["results"] == {"greeting": "Hello, Bo!"}


def _stream_until(client, run_id, status):
    seen = []
    with client.stream("GET", f"/runs/{run_id}/events") as response:
        for event in sse_events(response):
            seen.append(event)
            if event[1] == "RunStatus" and event[2]["status"] == status:
                return seen
    raise AssertionError(f"run {run_id} never was {status}")


def test_retention_deletes_the_oldest_ended_runs_and_keeps_unfinished_ones(serve, checkpoint):
    served = serve({"hello.yaml": HELLO, "ask.yaml": ASK}, checkpoint=checkpoint,
                   retention=Retention(keep_runs=2, every=0.05))
    with served.client() as client:
        asking = client.post("/graphs/ask/runs?wait=true", json={}).json()["id"]
        ended = [client.post("/graphs/hello/runs?wait=true", json={}).json()["id"] for _ in range(4)]

        def kept() -> set[str]:
            import anyio.from_thread

            with anyio.from_thread.start_blocking_portal() as portal:
                return portal.call(_saved_ids, served.checkpoint)

        wait_until(lambda: kept() == {asking, *ended[-2:]}, "the sweep deleting the two oldest ended runs")
        assert client.get(f"/runs/{ended[0]}").status_code == 404
        assert client.get(f"/runs/{ended[0]}/events").status_code == 404
        assert client.get(f"/runs/{ended[-1]}").json()["status"] == "finished"
        assert wait_for_status(client, asking, ("interrupted",))["status"] == "interrupted"


async def _saved_ids(checkpoint) -> set[str]:
    from graphrt.checkpoint import open_store

    store = open_store(checkpoint)
    try:
        return {record.run_id for record in await store.runs()}
    finally:
        await store.close()


TWO_CALLS = """\
version: 0.5
nodes:
  draft:
    agent: openAIAgent
    inputs:
      prompt: hi
  reply:
    agent: openAIAgent
    inputs:
      prompt: ":draft.text"
    isResult: true
"""


def _chat_run(serve, checkpoint, openai_server, reply, graph: str):
    """A run of `graph`, whose LLM calls spend 18 tokens then 25, on a first server, waited for: the server, still
    serving, and the run's id."""
    openai_server.script(reply.text("a draft"), reply.text("the reply", usage={
        "prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25}))
    first = serve({"chat.yaml": graph}, checkpoint=checkpoint)
    with first.client() as client:
        return first, client.post("/graphs/chat/runs?wait=true", json={}).json()["id"]


def test_what_each_node_spent_is_shown_after_a_restart_as_before_it(serve, checkpoint, openai_server, reply):
    first, run_id = _chat_run(serve, checkpoint, openai_server, reply, TWO_CALLS)
    with first.client() as client:
        before = client.get(f"/runs/{run_id}/nodes").json()["nodes"]
        node_before = client.get(f"/runs/{run_id}/nodes/reply").json()["usage"]
    _stop(first)
    assert before["draft"]["usage"]["total_tokens"] == 18 and node_before["total_tokens"] == 25

    second = serve({}, checkpoint=checkpoint)
    with second.client() as client:
        after = client.get(f"/runs/{run_id}/nodes").json()["nodes"]
        node_after = client.get(f"/runs/{run_id}/nodes/reply").json()["usage"]
        run = client.get(f"/runs/{run_id}").json()
    assert {key: node["usage"] for key, node in after.items()} == {key: node["usage"] for key, node in before.items()}
    assert node_after == node_before
    assert run["usage"]["llm_calls"] == 2 and run["usage"]["total_tokens"] == 43


ASKS_BETWEEN = """\
version: 0.5
nodes:
  draft:
    agent: openAIAgent
    inputs:
      prompt: hi
  name:
    agent: textInputAgent
    inputs:
      after: :draft
    params:
      message: Go on?
  reply:
    agent: openAIAgent
    inputs:
      prompt: ":name.text"
    isResult: true
"""


def test_what_a_run_spent_before_a_restart_counts_with_what_it_spends_after(serve, checkpoint, openai_server, reply):
    first, run_id = _chat_run(serve, checkpoint, openai_server, reply, ASKS_BETWEEN)
    with first.client() as client:
        assert client.get(f"/runs/{run_id}").json()["status"] == "interrupted"
    _stop(first)

    second = serve({}, checkpoint=checkpoint)
    with second.client() as client:
        assert client.post(f"/runs/{run_id}/resume?wait=true", json={"answer": "go"}).json()["status"] == "finished"
        nodes = client.get(f"/runs/{run_id}/nodes").json()["nodes"]
    assert nodes["draft"]["usage"]["total_tokens"] == 18 and nodes["reply"]["usage"]["total_tokens"] == 25
    assert [request["messages"][-1]["content"] for request in openai_server.requests] == ["hi", "go"]
