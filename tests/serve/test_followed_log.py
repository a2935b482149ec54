"""A run another server runs, followed through the store (serve/followed_log.py) as what is saved is announced
(serve/announcements.py, PostgreSQL's NOTIFY): a reader waits for the announcement, not for the next look."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import anyio
import pytest

from graphrt.checkpoint import RunRecord
from graphrt.checkpoint.guard import GuardedStore
from graphrt.serve.announcements import Announced
from graphrt.serve.followed_log import FollowedLog

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("checkpoint", ["postgres"], indirect=True)]


class _CountedReads(GuardedStore):
    """The store as the reading server uses it, counting the reads of a run's events."""

    reads = 0

    def get_events(self, run_id: str, after: int = 0, limit: int = 1000):  # type: ignore[override]
        self.reads += 1
        return super().get_events(run_id, after, limit)


@pytest.fixture
async def stores(checkpoint: str) -> AsyncIterator[tuple[GuardedStore, _CountedReads]]:
    """The running server's store and the reading server's, two servers on one database."""
    from graphrt.checkpoint.postgres import PostgresStore

    running, reading = GuardedStore(PostgresStore(checkpoint)), _CountedReads(PostgresStore(checkpoint))
    await running.join_servers("a", "{}", seconds=300)
    await reading.join_servers("b", "{}", seconds=300)
    await running.create_run(RunRecord(run_id="r1", graph_file=None, graph_text="nodes: {}", graph_hash="abc",
                                       status="running"))
    assert await running.claim_for("a", "r1")
    yield running, reading
    await running.close()
    await reading.close()


def _event(kind: str, **fields: object) -> str:
    return json.dumps({"type": kind, **fields})


async def test_a_reader_is_woken_by_the_events_saved_and_reads_nothing_meanwhile(
        stores: tuple[GuardedStore, _CountedReads]) -> None:
    running, reading = stores
    announced = Announced(reading, lambda server: None)
    async with anyio.create_task_group() as tg:
        tg.start_soon(announced.listen)
        with anyio.fail_after(30):
            while not announced.live:
                await anyio.sleep(0.01)
        log = FollowedLog(reading, "r1", announced)
        first = announced.changed("r1")
        await running.add_events("r1", [(1, _event("NodeState", node="x"))])
        with anyio.fail_after(60):
            await first.wait()  # its announcement heard: none is pending when the log reads
        assert [event_id for event_id, _ in (await log.read(0))[0]] == [1]
        reads = reading.reads
        assert await log.read(1) == ([], 0) and reading.reads == reads  # nothing announced: the store is not read
        async with anyio.create_task_group() as saving:
            saving.start_soon(running.add_events, "r1", [(2, _event("NodeState", node="y")),
                                                          (3, _event("RunStatus", status="finished"))])
            with anyio.fail_after(60):
                await log.wait(1, 600)  # no look at the store for 600 s: only the announcement wakes it
        await running.update_run("r1", status="finished")
        records, _ = await log.read(1)
        assert [event_id for event_id, _ in records] == [2, 3] and log.closed
        tg.cancel_scope.cancel()


async def test_a_reader_on_a_store_it_cannot_hear_looks_every_second(
        stores: tuple[GuardedStore, _CountedReads]) -> None:
    running, reading = stores
    announced = Announced(reading, lambda server: None)  # never listening: not live
    log = FollowedLog(reading, "r1", announced)
    assert await log.read(0) == ([], 0)
    await running.add_events("r1", [(1, _event("NodeState", node="x"))])
    with anyio.fail_after(60):
        await log.wait(0, 600)  # a second at most
    assert [event_id for event_id, _ in (await log.read(0))[0]] == [1]


async def test_servers_sharing_a_store_do_not_sweep_it_in_the_same_period(
        stores: tuple[GuardedStore, _CountedReads]) -> None:
    from graphrt.serve.retention import Retention

    a, b = stores
    retention = Retention(keep_runs=0, every=600)
    await a.update_run("r1", status="finished")
    await a.release_claim("a", "r1")
    assert await retention.sweep(b, server="b") == ["r1"]
    await a.create_run(RunRecord(run_id="r2", graph_file=None, graph_text="nodes: {}", graph_hash="abc",
                                 status="finished"))
    assert await retention.sweep(a, server="a") == []  # b swept this period: a leaves it to b
    assert await retention.sweep(b, server="b") == ["r2"]  # b's own period goes on
    assert await a.get_run("r2") is None
