"""Event-stream readers are bounded: past `max_streams` a reader gets 503 at once, the server keeps serving."""

from __future__ import annotations

from ..serve.conftest import SLOW_ASK, wait_for_status
from ..waiting import wait_until


def test_readers_past_the_limit_get_503_and_the_server_still_serves(serve) -> None:
    served = serve({"ask.yaml": SLOW_ASK.replace("duration: 1200", "duration: 1")}, max_streams=2)
    readers = served.app.state.readers
    with served.client() as client, served.client() as one, served.client() as two:
        run_id = client.post("/graphs/ask/runs", json={}).json()["id"]
        wait_for_status(client, run_id, ("interrupted",))  # a run that waits: its stream stays open
        wait_until(lambda: readers.open == 0, "the status reader gone")
        with one.stream("GET", f"/runs/{run_id}/events"), two.stream("GET", f"/runs/{run_id}/events"):
            wait_until(lambda: readers.open == 2, "two readers streaming")
            refused = client.get(f"/runs/{run_id}/events")
            assert refused.status_code == 503 and refused.headers["retry-after"] == "5"
            assert client.get("/health").status_code == 200
            assert client.post("/graphs/ask/runs", json={}).status_code == 202
        wait_until(lambda: readers.open == 0, "the readers gone")
        done = client.post(f"/runs/{run_id}/resume?wait=true", json={"answer": "Ada"}).json()
        assert done["status"] == "finished"
