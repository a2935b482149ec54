"""Webhooks (serve/webhooks.py, webhook_targets.py, base/signatures.py): a receiver on 127.0.0.1 that fails first
gets the call again until it takes it, signed with the API key; the body says what GET /runs/{id} says; a
delivery pending when the server is killed is made by the next one; URLs that lead inside are refused."""

from __future__ import annotations

import json
import logging
import os
import signal
import threading
import time
from typing import Any

import anyio
import httpx
import pytest

from graphrt.authoring.agent_info import AgentContext, AgentInfo
from graphrt.base.signatures import SIGNATURE_HEADER, sign_webhook, verify_webhook
from graphrt.checkpoint import SQLiteStore
from graphrt.serve.webhooks import WebhookSettings

from ..waiting import wait_until
from .conftest import HELLO, SLOW_ASK, free_port, start_process, wait_for_status
from .webhook_receiver import ENDLESS_CAP, Receiver

KEY = "test-key-3f9a"
SECRET_NAME = "sk-proj-abcdefghijklmnopqrstuvwxyz012345"
QUICK = WebhookSettings(first_delay=0.05, longest_delay=0.2, allow_private=True)

FAILING = """\
version: 0.5
nodes:
  boom:
    agent: failingAgent
    isResult: true
"""


def deliveries(checkpoint: str, run_id: str) -> list[Any]:
    async def read() -> list[Any]:
        store = SQLiteStore(checkpoint)
        try:
            return await store.run_deliveries(run_id)
        finally:
            await store.close()

    return anyio.run(read)


def test_a_receiver_that_fails_first_gets_the_same_signed_delivery_until_it_takes_it(serve, caplog):
    caplog.set_level(logging.INFO, logger="graphrt.serve")
    served = serve({"hello.yaml": HELLO}, api_key=KEY, webhooks=QUICK)
    with Receiver(fail_first=2) as receiver, served.client(headers={"X-API-Key": KEY}) as client:
        url = f"{receiver.url}?token=hook-token-77"
        run = client.post("/graphs/hello/runs", json={"inputs": {"name": SECRET_NAME}, "webhook": url}).json()
        wait_until(lambda: receiver.accepted(), "the receiver taking the webhook")
        shown = client.get(f"/runs/{run['id']}").json()

    first, second, third = receiver.calls  # two refused, then taken; none after
    assert [call.answered for call in receiver.calls] == [500, 500, 200]
    assert first.body == second.body == third.body and first.path == "/hook?token=hook-token-77"
    body = third.json
    assert body["type"] == "run.finished" and third.headers["Graphrt-Event"] == "run.finished"
    assert body["delivery_id"] == first.headers["Graphrt-Delivery"] == third.headers["Graphrt-Delivery"]
    run_seen = body["run"]
    assert run_seen["id"] == run["id"] and run_seen["graph"] == "hello" and run_seen["status"] == "finished"
    assert run_seen["results"] == shown["results"]  # redacted exactly as the HTTP answer is
    assert SECRET_NAME not in third.body.decode() and "REDACTED" in run_seen["results"]["greeting"]
    for call in receiver.calls:
        assert verify_webhook(KEY, call.body, call.headers[SIGNATURE_HEADER])
        assert KEY not in json.dumps(call.headers) and KEY not in call.body.decode()
    assert not verify_webhook("another-key", third.body, third.headers[SIGNATURE_HEADER])
    assert not verify_webhook(KEY, third.body.replace(b"finished", b"failed"), third.headers[SIGNATURE_HEADER])

    [delivery] = [item for item in deliveries(served.checkpoint, run["id"]) if item.event != "subscribed"]
    assert (delivery.state, delivery.attempts, delivery.error) == ("delivered", 3, None)
    with served.client(headers={"X-API-Key": KEY}) as client:
        assert client.get(f"/runs/{run['id']}/webhooks").json() == {"run": run["id"], "webhooks": [
            {"delivery_id": delivery.delivery_id, "event": "run.finished", "url": receiver.url, "state": "delivered",
             "calls": 3}]}  # the URL without its token
    assert "call 1 failed" in caplog.text
    assert "hook-token-77" not in caplog.text and KEY not in caplog.text and SECRET_NAME not in caplog.text


def test_a_signature_names_its_time_so_an_old_one_is_refused():
    body = b'{"type": "run.finished"}'
    header = sign_webhook(KEY, body, timestamp=1_000_000)
    assert verify_webhook(KEY, body, header, now=1_000_100)
    assert not verify_webhook(KEY, body, header, now=1_000_000 + 301)  # a replay after five minutes
    assert not verify_webhook(KEY, body, "v1=00")  # no time


@pytest.mark.parametrize("time_field", ["9" * 400, "-" + "9" * 400, "1e400", "1_000_000", "\u0661\u0662", ""])
def test_a_signature_whose_time_is_not_a_plain_number_is_refused_not_raised(time_field):
    body = b'{"type": "run.finished"}'
    valid = sign_webhook(KEY, body, timestamp=1_000_000).split(",")[1]
    assert verify_webhook(KEY, body, f"t={time_field},{valid}", now=1_000_000.0) is False
    assert verify_webhook(KEY, body, f"t={time_field},{valid}") is False  # now: the clock, a float


def test_a_receiver_answering_without_end_is_not_read_past_a_few_kilobytes(serve):
    with Receiver(answer="endless") as receiver:
        served = serve({"hello.yaml": HELLO}, webhooks=QUICK)
        with served.client() as client:
            run = client.post("/graphs/hello/runs", json={"webhook": receiver.url}).json()
        assert receiver.ended.wait(60), "the receiver's answer never ended"
        wait_until(lambda: [item.state for item in deliveries(served.checkpoint, run["id"])
                            if item.event == "run.finished"] == ["delivered"], "the delivery taken (it answered 200)")
    [sent] = receiver.sent
    assert sent < ENDLESS_CAP  # the server closed the connection: what it did not read was never sent


def test_a_receiver_that_trickles_is_cut_off_at_the_calls_deadline_and_the_next_is_called(serve):
    settings = WebhookSettings(allow_private=True, timeout=0.5, at_once=1, first_delay=60.0, longest_delay=60.0)
    with Receiver(answer="trickle") as slow, Receiver() as good:
        served = serve({"hello.yaml": HELLO}, webhooks=settings)
        with served.client() as client:
            held = client.post("/graphs/hello/runs", json={"webhook": slow.url}).json()
            assert slow.called.wait(60), "the trickling receiver was never called"  # it holds the one call slot
            client.post("/graphs/hello/runs", json={"webhook": good.url})
            wait_until(lambda: good.accepted(), "the good receiver called once the trickling call's deadline passed")
        [delivery] = [item for item in deliveries(served.checkpoint, held["id"]) if item.event == "run.finished"]
        assert (delivery.state, delivery.attempts, delivery.error) == (
            "pending", 1, "no answer within 0.5 s, the deadline of a call")
        assert slow.ended.wait(60)  # the server closed the connection, the trickle did not go on


def test_the_servers_webhook_hears_of_every_way_a_run_settles(serve):
    async def failing(ctx: AgentContext) -> Any:
        raise ValueError("the agent broke")

    with Receiver() as receiver:
        served = serve({"hello.yaml": HELLO, "ask.yaml": SLOW_ASK, "failing.yaml": FAILING},
                       agents=[AgentInfo(name="failingAgent", func=failing)],
                       webhooks=WebhookSettings(url=receiver.url, first_delay=0.05))
        with served.client() as client:
            finished = client.post("/graphs/hello/runs?wait=true", json={}).json()
            failed = client.post("/graphs/failing/runs?wait=true", json={}).json()
            asked = client.post("/graphs/ask/runs?wait=true", json={}).json()
            wait_until(lambda: len(receiver.accepted()) == 3, "three webhook calls")
            client.post(f"/runs/{asked['id']}/cancel")
            wait_until(lambda: len(receiver.accepted()) == 4, "the cancelled run's webhook call")

    calls = {(call.json["run"]["id"], call.json["type"]): call.json["run"] for call in receiver.accepted()}
    assert calls[(finished["id"], "run.finished")]["results"] == {"greeting": "Hello, World!"}
    failure = calls[(failed["id"], "run.failed")]
    assert failure["node"] == "boom" and failure["error"] == failed["error"] and "the agent broke" in failure["error"]
    assert calls[(asked["id"], "run.interrupted")]["question"] == "What is your name?"
    assert calls[(asked["id"], "run.cancelled")]["status"] == "cancelled"
    assert all(SIGNATURE_HEADER not in call.headers for call in receiver.calls)  # no API key: unsigned


@pytest.mark.parametrize("url, said", [
    ("file:///etc/passwd", "must be http or https, not 'file'"),
    ("ftp://example.com/hook", "must be http or https, not 'ftp'"),
    ("gopher://127.0.0.1:6379/_FLUSHALL", "must be http or https"),
    ("http://169.254.169.254/latest/meta-data/", "not a public address"),
    ("http://127.0.0.1:1/hook", "not a public address"),
    ("http://10.0.0.7/hook", "not a public address"),
    ("http://[::1]/hook", "not a public address"),
    ("http://[::ffff:127.0.0.1]/hook", "not a public address"),
    ("http://[::127.0.0.1]/hook", "not a public address"),  # IPv4-compatible (::/96), as IPv4-mapped is refused
    ("http://[::10.0.0.7]/hook", "not a public address"),
    ("http://[64:ff9b::127.0.0.1]/hook", "not a public address"),  # NAT64's prefix: an IPv4 address, spelt in IPv6
    ("http://[2002:7f00:1::1]/hook", "not a public address"),  # 6to4: 127.0.0.1 in its second and third groups
    ("http://localhost/hook", "not a public address"),
    ("http://user:pass@example.com/hook", "may not hold a user or password"),
    ("not a url", "must be http or https"),
    (17, "must be a URL"),
])
def test_a_runs_webhook_that_leads_inside_or_is_not_http_is_refused(serve, url, said):
    served = serve({"hello.yaml": HELLO})  # default: public addresses only
    with served.client() as client:
        refused = client.post("/graphs/hello/runs", json={"webhook": url})
        assert refused.status_code == 400 and said in refused.json()["error"]
        assert client.get("/runs").json()["runs"] == []  # no run was started


def test_a_delivery_pending_when_the_server_is_killed_is_made_by_the_next(tmp_path):
    folder = tmp_path / "graphs"
    folder.mkdir()
    (folder / "hello.yaml").write_text(HELLO, encoding="utf-8")
    checkpoint = tmp_path / "runs.db"
    with Receiver(fail_first=1_000_000) as receiver:  # down until the first server is killed
        hook = f"{receiver.url}?token=hook-token-88"
        env = {"GRAPHRT_API_KEY": KEY}
        port = free_port()
        first = start_process(folder, checkpoint, port, "--webhook-url", hook, env=env)
        try:
            run = httpx.post(f"http://127.0.0.1:{port}/graphs/hello/runs?wait=true", json={},
                             headers={"X-API-Key": KEY}, timeout=30).json()
            wait_until(lambda: receiver.calls, "the first (refused) webhook call")
        finally:
            os.kill(first.pid, signal.SIGKILL)
            first.wait()
        refused = receiver.calls[0]
        with receiver._lock:
            receiver.fail_first = 0
        second = start_process(folder, checkpoint, free_port(), "--webhook-url", hook, env=env)
        try:
            wait_until(lambda: receiver.accepted(), "the next server making the pending delivery")
        finally:
            second.terminate()
            second.wait(30)
        logged = first.stderr.read() + second.stderr.read()

    taken = receiver.accepted()[0]
    assert taken.headers["Graphrt-Delivery"] == refused.headers["Graphrt-Delivery"]  # the same delivery, not anew
    assert taken.body == refused.body and taken.json["run"]["id"] == run["id"]
    assert verify_webhook(KEY, taken.body, taken.headers[SIGNATURE_HEADER])
    assert "hook-token-88" not in logged and KEY not in logged
    assert len(receiver.accepted()) == 1


def test_deliveries_are_kept_by_both_stores_and_go_with_their_run(checkpoint):
    from graphrt.checkpoint import Delivery, RunRecord, open_store

    async def check() -> None:
        store = open_store(checkpoint)
        try:
            for run_id in ("old", "live"):
                await store.create_run(RunRecord(run_id, None, "version: 0.5", "h", status="completed"))
            await store.add_deliveries([
                Delivery("s1", "old", "https://a.example/hook", "subscribed", state="subscribed", created_at=0.5),
                Delivery("d1", "old", "https://a.example/hook", "run.finished", '{"type": "run.finished"}',
                         next_at=10.0, created_at=1.0),
                Delivery("d2", "live", "https://b.example/hook", "run.failed", "{}", next_at=5.0, created_at=2.0)])
            assert [item.delivery_id for item in await store.due_deliveries(11.0)] == ["d2", "d1"]  # soonest first
            assert [item.delivery_id for item in await store.due_deliveries(6.0)] == ["d2"]
            await store.update_delivery("d2", state="pending", attempts=1, next_at=20.0, error="HTTP 500")
            assert [item.delivery_id for item in await store.due_deliveries(11.0)] == ["d1"]
            await store.update_delivery("d1", state="delivered", attempts=1, next_at=12.0, error=None)
            assert await store.due_deliveries(11.0) == []
            [old_sub, old_call] = await store.run_deliveries("old")
            assert (old_sub.state, old_call.state, old_call.body) == ("subscribed", "delivered", '{"type": "run.finished"}')
            [live] = await store.run_deliveries("live")
            assert (live.attempts, live.error, live.next_at) == (1, "HTTP 500", 20.0)
            assert await store.subscribed_runs() == ["old"]

            await store.update_run("live", status="completed")  # "live" is now the most recently updated
            assert await store.prune_runs(keep=1) == ["old"]
            assert await store.run_deliveries("old") == [] and len(await store.run_deliveries("live")) == 1
        finally:
            await store.close()

    anyio.run(check)


def test_a_public_host_is_called_at_the_address_that_was_checked():
    from graphrt.serve.webhook_targets import Target, resolve_target, shown_url

    target = anyio.run(lambda: resolve_target("https://93.184.215.14:8443/hook?token=t1", allow_private=False))
    assert target == Target("https://93.184.215.14:8443/hook?token=t1", host_header="93.184.215.14:8443",
                            tls_name="93.184.215.14")
    assert anyio.run(lambda: resolve_target("http://10.0.0.7/x", allow_private=True)) == Target("http://10.0.0.7/x")
    assert shown_url("https://example.com:8443/hook?token=t1") == "https://example.com:8443/hook"


def test_a_server_without_webhooks_reads_none_for_its_runs(tmp_path):
    from graphrt.engine.graph import make_registry
    from graphrt.serve import GraphCatalog
    from graphrt.serve.runs import RunService

    class CountingStore(SQLiteStore):
        reads = 0

        async def run_deliveries(self, run_id: str) -> list[Any]:
            CountingStore.reads += 1
            return await super().run_deliveries(run_id)

    (tmp_path / "graphs").mkdir()
    (tmp_path / "graphs" / "hello.yaml").write_text(HELLO, encoding="utf-8")
    store = CountingStore(tmp_path / "runs.db")
    service = RunService(GraphCatalog([tmp_path / "graphs"], make_registry(None)), store)

    async def body() -> None:
        try:
            async with anyio.create_task_group() as tg:
                await tg.start(service.serve)
                for _ in range(3):
                    run = await service.submit("hello")
                    await run.settled()
                await anyio.wait_all_tasks_blocked()
                tg.cancel_scope.cancel()
        finally:
            await store.close()

    anyio.run(body)
    assert CountingStore.reads == 0  # a run's settling costs no store read when no URL is to be called


def test_a_run_that_ended_before_its_delivery_was_saved_is_called_by_the_next_server(serve, monkeypatch):
    from graphrt.serve.webhooks import Webhooks

    with Receiver() as receiver:
        monkeypatch.setattr(Webhooks, "settled", lambda self, run: None)  # killed before the delivery row
        first = serve({"hello.yaml": HELLO}, webhooks=QUICK)
        with first.client() as client:
            run = client.post("/graphs/hello/runs?wait=true", json={"webhook": receiver.url}).json()
        first.server.should_exit = True
        first.thread.join(15)
        monkeypatch.undo()
        assert receiver.calls == []

        second = serve({"hello.yaml": HELLO}, webhooks=QUICK, checkpoint=first.checkpoint)
        wait_until(lambda: receiver.accepted(), "the next server calling the run's webhook")
        [call] = receiver.accepted()
        assert call.json["type"] == "run.finished" and call.json["run"]["id"] == run["id"]
        assert call.json["run"]["results"] == {"greeting": "Hello, World!"}
        wait_until(lambda: [item.state for item in deliveries(second.checkpoint, run["id"])] == ["ended", "delivered"],
                   "the run's subscription marked ended")
        second.server.should_exit = True
        second.thread.join(15)

        third = serve({"hello.yaml": HELLO}, webhooks=QUICK, checkpoint=first.checkpoint)
        with third.client() as client:
            assert client.get("/health").status_code == 200
        assert len(receiver.calls) == 1  # called once: the third server has nothing to catch up
