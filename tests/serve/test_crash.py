"""kill -9 a `graphrt serve` process with runs in flight and queued, start it again: every run finishes
once, with the results of an undisturbed run, and no node that had completed runs again."""

from __future__ import annotations

import collections
import os
import signal
import time
from pathlib import Path
from typing import Any

import anyio
import httpx

from graphrt.checkpoint import SQLiteStore

from .conftest import HERE, free_port, sse_events, start_process

CHAIN = """\
version: 0.5
nodes:
  n:
    value: 0
  a:
    agent: countedAgent
    params: {ms: 300}
    inputs:
      n: :n
  b:
    agent: countedAgent
    params: {ms: 300}
    inputs:
      previous: :a
  c:
    agent: countedAgent
    params: {ms: 300}
    inputs:
      previous: :b
    isResult: true
"""


def _saved(checkpoint: Path, ids: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(records, rows) of saved runs, by id."""

    async def read() -> tuple[dict[str, Any], dict[str, Any]]:
        store = SQLiteStore(checkpoint)
        try:
            return ({run_id: await store.get_run(run_id) for run_id in ids},
                    {run_id: await store.get_rows(run_id) for run_id in ids})
        finally:
            await store.close()

    return anyio.run(read)


def test_runs_survive_kill_9_and_finish_once(tmp_path: Path):
    folder = tmp_path / "graphs"
    folder.mkdir()
    (folder / "chain.yaml").write_text(CHAIN, encoding="utf-8")
    checkpoint, count_log = tmp_path / "runs.db", tmp_path / "calls.log"
    env = {"GRAPHRT_SERVE_COUNT_LOG": str(count_log)}
    agents = ("--agents", str(HERE / "count_agents.py"), "--max-runs", "3")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = start_process(folder, checkpoint, port, *agents, env=env)
    try:
        runs = [httpx.post(f"{url}/graphs/chain/runs", json={"inputs": {"n": n}}).json()["id"] for n in range(6)]
        deadline = time.monotonic() + 20
        while not count_log.exists() or len(count_log.read_text().splitlines()) < 4:
            assert time.monotonic() < deadline, "no node completed"
            time.sleep(0.05)
    finally:
        os.kill(server.pid, signal.SIGKILL)
        server.wait()
    records, rows = _saved(checkpoint, runs)
    saved = {(run_id, row.key) for run_id in runs for row in rows[run_id] if row.kind == "node"}
    assert all(records[run_id].status == "running" for run_id in runs)  # in flight or queued: none ended
    assert saved, "nothing was saved before the kill"

    server = start_process(folder, checkpoint, port, *agents, env=env)
    try:
        results = {}
        deadline = time.monotonic() + 30
        for run_id in runs:
            while (run := httpx.get(f"{url}/runs/{run_id}").json())["status"] not in ("finished", "failed"):
                assert time.monotonic() < deadline, f"run {run_id} is still {run['status']}"
                time.sleep(0.1)
            results[run_id] = run["results"]
            assert run["nodes"] == {"a": "done", "b": "done", "c": "done"}
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(20)
    assert [results[run_id] for run_id in runs] == [{"c": {"n": n, "seen": ["a", "b", "c"]}} for n in range(6)]
    calls = collections.Counter(tuple(line.split()) for line in count_log.read_text().splitlines())
    assert set(calls) == {(run_id, node) for run_id in runs for node in "abc"}  # every node ran
    assert all(calls[key] == 1 for key in saved), "a node saved before the kill ran again"
    assert all(count <= 2 for count in calls.values())  # only a node in flight at the kill runs twice
    assert _saved(checkpoint, runs[:1])[0][runs[0]].status == "completed"


def test_a_server_stopped_gracefully_continues_its_runs_when_started_again(tmp_path: Path):
    folder = tmp_path / "graphs"
    folder.mkdir()
    (folder / "chain.yaml").write_text(CHAIN.replace("ms: 300", "ms: 800"), encoding="utf-8")
    checkpoint = tmp_path / "runs.db"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    agents = ("--agents", str(HERE / "count_agents.py"))
    server = start_process(folder, checkpoint, port, *agents)
    run_id = httpx.post(f"{url}/graphs/chain/runs", json={"inputs": {"n": 7}}).json()["id"]
    time.sleep(1.0)
    server.send_signal(signal.SIGTERM)
    server.wait(20)  # uvicorn shuts down, then lets SIGTERM end the process (exit code -15)
    assert _saved(checkpoint, [run_id])[0][run_id].status == "running"  # not "stopped": it was not cancelled
    server = start_process(folder, checkpoint, port, *agents)
    try:
        deadline = time.monotonic() + 20
        while (run := httpx.get(f"{url}/runs/{run_id}").json())["status"] != "finished":
            assert time.monotonic() < deadline and run["status"] in ("queued", "running"), run
            time.sleep(0.1)
        assert run["results"] == {"c": {"n": 7, "seen": ["a", "b", "c"]}}
        # A client that comes back with an event id of the earlier server gets this server's log from its start,
        # which opens with the run's state as recovered (queued again, with its node states), and ends with the run.
        with httpx.stream("GET", f"{url}/runs/{run_id}/events", headers={"Last-Event-ID": "0badcafe.3"}) as response:
            events = list(sse_events(response))
        assert events[0][1] == "RunStatus" and events[0][2]["status"] == "queued"
        assert set(events[0][2]["nodes"]) == {"a", "b", "c"}
        assert events[-1][2]["status"] == "finished"
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(20)
