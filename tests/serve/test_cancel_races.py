"""A run the server says is cancelled stays cancelled: on the next server too, whatever the cancel came across
(a store that takes its time, as PostgreSQL's round trips do); and a run id the store cannot hold is a 404."""

from __future__ import annotations

import threading
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel

from graphrt.checkpoint import store_class

from .conftest import HELLO, SLOW_ASK, wait_for_status
from ..waiting import wait_until


class Gate:
    """A store call held until the test lets it go (from the test's thread), or until it is cancelled."""

    def __init__(self) -> None:
        self.reached = threading.Event()
        self._event: anyio.Event | None = None
        self._token: Any = None

    async def wait(self) -> None:
        self._event, self._token = anyio.Event(), anyio.lowlevel.current_token()
        self.reached.set()
        await self._event.wait()

    def release(self) -> None:
        if self._event is not None:
            anyio.from_thread.run_sync(self._event.set, token=self._token)


def held_store(checkpoint: str) -> Any:
    """The test's real store (SQLite or PostgreSQL), whose next `claim_run`, or `get_run` of a run named in
    `gates`, waits at that call's gate."""
    base = store_class(checkpoint)

    class Held(base):  # type: ignore[misc, valid-type]
        gates: dict[Any, Gate] = {}

        async def claim_run(self, run_id: str) -> None:
            gate = self.gates.pop("claim_run", None)
            if gate is not None:
                await gate.wait()
            await super().claim_run(run_id)

        async def get_run(self, run_id: str) -> Any:
            gate = self.gates.pop(("get_run", run_id), None)
            if gate is not None:
                await gate.wait()
            return await super().get_run(run_id)

    return Held(checkpoint)


def _stopped(served: Any, store: Any) -> None:
    served.server.should_exit = True
    served.thread.join(15)
    anyio.run(store.close)


def test_a_run_cancelled_before_it_was_claimed_stays_cancelled_on_the_next_server(serve, checkpoint):
    """Cancelled while its claim was on its way to the store, it was told "cancelled" but saved as running:
    the next server ran it to "finished"."""
    store = held_store(checkpoint)
    gate = store.gates["claim_run"] = Gate()
    served = serve({"hello.yaml": HELLO}, checkpoint=store)
    with served.client() as client:
        run_id = client.post("/graphs/hello/runs", json={}).json()["id"]
        assert gate.reached.wait(30), "the run did not claim"  # a guard against a hang
        told = client.post(f"/runs/{run_id}/cancel").json()["status"]
    _stopped(served, store)

    again = serve({"hello.yaml": HELLO}, checkpoint=checkpoint)
    with again.client() as client:
        assert (told, client.get(f"/runs/{run_id}").json()["status"]) == ("cancelled", "cancelled")


def test_a_resumed_run_cancelled_before_it_runs_is_not_run(serve, checkpoint):
    """Cancelled while the worker that took it read its checkpoint, it was told "cancelled" and then run."""
    store = held_store(checkpoint)
    served = serve({"ask.yaml": SLOW_ASK.replace("duration: 1200", "duration: 1")}, checkpoint=store)
    with served.client() as client:
        run_id = client.post("/graphs/ask/runs", json={}).json()["id"]
        wait_for_status(client, run_id, ("interrupted",))
        gate = store.gates[("get_run", run_id)] = Gate()
        assert client.post(f"/runs/{run_id}/resume", json={"answer": "Ada"}).status_code == 202
        assert gate.reached.wait(30), "the worker did not read the run"  # a guard against a hang
        told = client.post(f"/runs/{run_id}/cancel").json()["status"]
        gate.release()
        wait_until(lambda: served.service.running == 0, "the worker done with the run")
        now = client.get(f"/runs/{run_id}").json()
    _stopped(served, store)

    again = serve({"ask.yaml": SLOW_ASK}, checkpoint=checkpoint)
    with again.client() as client:
        after = client.get(f"/runs/{run_id}").json()
    assert (told, now["status"], after["status"]) == ("cancelled", "cancelled", "cancelled")
    assert "results" not in after and now["nodes"]["greeting"] != "completed"


def test_a_run_id_the_store_cannot_hold_is_not_found(serve, checkpoint):
    """A NUL in a run id was a 503 on PostgreSQL (its text cannot hold one), as if the store were down."""
    served = serve({"hello.yaml": HELLO}, checkpoint=checkpoint)
    with served.client() as client:
        for method, path in (("GET", "/runs/%00"), ("GET", "/runs/a%00b/nodes"), ("GET", "/runs/%00/events"),
                             ("POST", "/runs/%00/cancel"), ("POST", "/runs/%00/fork")):
            answer = client.request(method, path, json={"from": "greeting"} if path.endswith("fork") else None)
            assert (path, answer.status_code) == (path, 404), answer.text
            assert answer.json()["error"].startswith("no run ")
