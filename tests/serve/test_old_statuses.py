"""A checkpoint store written before run statuses were one vocabulary ("completed", "stopped") still opens,
and its runs show the API's statuses: on GET /runs/{id}, in GET /runs and on the viewer page's list."""

from __future__ import annotations

import threading
from typing import Any

import anyio

from graphrt.authoring.agent_info import AgentContext, AgentInfo
from graphrt.checkpoint import open_store

from .conftest import HELLO, wait_for_status

FOREVER = """\
version: 0.5
nodes:
  wait:
    agent: foreverAgent
    isResult: true
"""


def _spell_as_before(checkpoint: str, spellings: dict[str, str]) -> None:
    """Rewrites runs' statuses as an older graphrt saved them, keeping their detail and results."""

    async def rewrite() -> None:
        store = open_store(checkpoint)
        try:
            for run_id, old in spellings.items():
                record = await store.get_run(run_id)
                await store.update_run(run_id, status=old, detail=record.detail, results=record.results)
        finally:
            await store.close()

    anyio.run(rewrite)


def test_runs_saved_with_an_older_graphrt_s_statuses_show_the_api_s(serve, checkpoint):
    started = threading.Event()

    async def forever(ctx: AgentContext) -> Any:
        started.set()
        await anyio.sleep_forever()

    graphs, agents = {"hello.yaml": HELLO, "forever.yaml": FOREVER}, [AgentInfo(name="foreverAgent", func=forever)]
    first = serve(graphs, agents=agents, checkpoint=checkpoint)
    with first.client() as client:
        done = client.post("/graphs/hello/runs?wait=true", json={"name": "Ada"}).json()
        cancelled = client.post("/graphs/forever/runs", json={}).json()["id"]
        assert started.wait(30), "the agent did not start"  # a guard against a hang
        assert client.post(f"/runs/{cancelled}/cancel").json()["status"] == "cancelled"
    first.server.should_exit = True
    first.thread.join(15)
    _spell_as_before(checkpoint, {done["id"]: "completed", cancelled: "stopped"})

    second = serve(graphs, agents=agents, checkpoint=checkpoint)
    with second.client() as client:
        shown = client.get(f"/runs/{done['id']}").json()
        assert (shown["status"], shown["results"]) == ("finished", done["results"])
        assert client.get(f"/runs/{cancelled}").json()["status"] == "cancelled"  # not queued again
        listed = {run["id"]: run["status"] for run in client.get("/runs").json()["runs"]}
        assert listed == {done["id"]: "finished", cancelled: "cancelled"}
        assert wait_for_status(client, done["id"])["status"] == "finished"  # its stream ends as a finished run's
