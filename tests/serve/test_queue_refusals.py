"""A full queue refuses a run with 429, whatever the timing: a run refused after it was saved is saved cancelled,
so that no later server runs it."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx

from .conftest import HELLO, wait_for_status


def test_concurrent_posts_past_a_queue_of_none_get_429_and_refused_runs_never_run(serve, tmp_path):
    """60 POSTs at once with --max-queue 0: some got a bare 500 after their run was saved, and those runs
    ran after a restart."""
    checkpoint = str(tmp_path / "runs.db")
    served = serve({"hello.yaml": HELLO}, checkpoint=checkpoint, max_runs=2, max_queue=0)

    def post(_: int) -> httpx.Response:
        with served.client() as client:
            return client.post("/graphs/hello/runs", json={})

    with ThreadPoolExecutor(60) as pool:
        answers = list(pool.map(post, range(60)))
    assert sorted({answer.status_code for answer in answers}) in ([202], [202, 429])
    assert all(answer.json()["error"].startswith("the run queue is full; retry after ")
               for answer in answers if answer.status_code == 429)
    accepted = {answer.json()["id"] for answer in answers if answer.status_code == 202}
    with served.client() as client:
        for run_id in accepted:
            assert wait_for_status(client, run_id)["status"] == "finished"
    served.server.should_exit = True
    served.thread.join(15)

    again = serve({"hello.yaml": HELLO}, checkpoint=checkpoint)  # the next server: it continues what was left
    with again.client() as client:
        runs = client.get("/runs", params={"limit": 500}).json()["runs"]
    assert {run["id"] for run in runs if run["status"] != "cancelled"} == accepted
    assert {run["status"] for run in runs if run["id"] not in accepted} <= {"cancelled"}
