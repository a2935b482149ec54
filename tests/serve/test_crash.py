"""kill -9 a `graphrt serve` process with runs in flight and queued, start it again: every run finishes
once, with the results of an undisturbed run, and no node that had completed runs again."""

from __future__ import annotations

import collections
import json
import os
import signal
from pathlib import Path
from typing import Any

import anyio
import httpx

from graphrt.checkpoint import open_store

from ..waiting import wait_until
from .conftest import HERE, free_port, sse_events, start_process, wait_for_status


CHAIN = """\
version: 0.5
nodes:
  n:
    value: 0
  a:
    agent: countedAgent
    inputs:
      n: :n
  b:
    agent: countedAgent
    params: {b}
    inputs:
      previous: :a
  c:
    agent: countedAgent
    params: {c}
    inputs:
      previous: :b
    isResult: true
"""


def chain(held: str, gate: Path) -> str:
    """CHAIN with node `held` (b or c) waiting at `gate` until the test opens it."""
    params = {"b": "{}", "c": "{}", held: f"{{gate: {json.dumps(str(gate))}}}"}
    return CHAIN.format(**params)


def _held(gate: Path) -> list[tuple[str, str]]:
    """(run id, node) of each time a node started to wait at the gate."""
    waiting = Path(f"{gate}.waiting")
    return [tuple(line.split()) for line in waiting.read_text().splitlines()] if waiting.exists() else []


def _saved(checkpoint: Any, ids: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(records, rows) of saved runs, by id."""

    async def read() -> tuple[dict[str, Any], dict[str, Any]]:
        store = open_store(checkpoint)
        try:
            return ({run_id: await store.get_run(run_id) for run_id in ids},
                    {run_id: await store.get_rows(run_id) for run_id in ids})
        finally:
            await store.close()

    return anyio.run(read)


def test_runs_survive_kill_9_and_finish_once(tmp_path: Path, checkpoint: str):
    folder, gate = tmp_path / "graphs", tmp_path / "open"
    folder.mkdir()
    (folder / "chain.yaml").write_text(chain("c", gate), encoding="utf-8")
    count_log = tmp_path / "calls.log"
    env = {"GRAPHRT_SERVE_COUNT_LOG": str(count_log)}
    agents = ("--agents", str(HERE / "count_agents.py"), "--max-runs", "3")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = start_process(folder, checkpoint, port, *agents, env=env)
    try:
        runs = [httpx.post(f"{url}/graphs/chain/runs", json={"inputs": {"n": n}}).json()["id"] for n in range(6)]
        # Three runs have saved a and b and are held in c; the other three are queued behind them.
        wait_until(lambda: len(_held(gate)) == 3, "three runs reaching c")
    finally:
        os.kill(server.pid, signal.SIGKILL)
        server.wait()
    started = [run_id for run_id, _ in _held(gate)]
    records, rows = _saved(checkpoint, runs)
    saved = {(run_id, row.key) for run_id in runs for row in rows[run_id] if row.kind == "node"}
    assert all(records[run_id].status == "running" for run_id in runs)  # in flight or queued: none ended
    assert saved == {(run_id, node) for run_id in started for node in "ab"}

    gate.touch()
    server = start_process(folder, checkpoint, port, *agents, env=env)
    try:
        with httpx.Client(base_url=url, timeout=60) as client:
            finished = {run_id: wait_for_status(client, run_id) for run_id in runs}
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(20)
    assert [finished[run_id]["results"] for run_id in runs] == [{"c": {"n": n, "seen": ["a", "b", "c"]}} for n in range(6)]
    assert all(run["nodes"] == {"a": "completed", "b": "completed", "c": "completed"} for run in finished.values())
    calls = collections.Counter(tuple(line.split()) for line in count_log.read_text().splitlines())
    # Every node completed once: none saved before the kill ran again.
    assert calls == collections.Counter({(run_id, node): 1 for run_id in runs for node in "abc"})
    # Only the node in flight at the kill started again: c, in the three runs that had reached it.
    held = collections.Counter(_held(gate))
    assert held == collections.Counter({(run_id, "c"): 2 if run_id in started else 1 for run_id in runs})
    assert _saved(checkpoint, runs[:1])[0][runs[0]].status == "finished"


def test_a_server_stopped_gracefully_continues_its_runs_when_started_again(tmp_path: Path):
    folder, gate = tmp_path / "graphs", tmp_path / "open"
    folder.mkdir()
    (folder / "chain.yaml").write_text(chain("b", gate), encoding="utf-8")
    checkpoint = tmp_path / "runs.db"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    agents = ("--agents", str(HERE / "count_agents.py"))
    server = start_process(folder, checkpoint, port, *agents)
    run_id = httpx.post(f"{url}/graphs/chain/runs", json={"inputs": {"n": 7}}).json()["id"]
    wait_until(lambda: _held(gate) == [(run_id, "b")], "the run reaching b")
    server.send_signal(signal.SIGTERM)
    server.wait(20)  # uvicorn shuts down, then lets SIGTERM end the process (exit code -15)
    assert _saved(checkpoint, [run_id])[0][run_id].status == "running"  # not "cancelled": it was not cancelled
    gate.touch()
    server = start_process(folder, checkpoint, port, *agents)
    try:
        # A client that comes back with an event id of the earlier server gets this server's log from its start,
        # which opens with the run's state as recovered (queued again, with its node states), and ends with the run.
        with httpx.stream("GET", f"{url}/runs/{run_id}/events", headers={"Last-Event-ID": "0badcafe.3"},
                          timeout=60) as response:
            events = list(sse_events(response))
        assert events[0][1] == "RunStatus" and events[0][2]["status"] == "queued"
        assert set(events[0][2]["nodes"]) == {"a", "b", "c"}
        assert events[-1][2]["status"] == "finished"
        run = httpx.get(f"{url}/runs/{run_id}").json()
        assert run["status"] == "finished" and run["results"] == {"c": {"n": 7, "seen": ["a", "b", "c"]}}
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(20)
