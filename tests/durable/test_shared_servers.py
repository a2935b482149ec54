"""Several servers on one PostgreSQL store (checkpoint/postgres_claims.py): each run is claimed by one of them, and
a server whose claim was taken over writes nothing more for that run, refused in the write's own transaction.

Each server is a store object of its own on one real database, as each `graphrt serve` process has.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio
import pytest

from graphrt.checkpoint import Delivery, Row, RunRecord
from graphrt.checkpoint.errors import CheckpointError, LeaseLost
from graphrt.checkpoint.guard import GuardedStore

pytestmark = [pytest.mark.anyio, pytest.mark.needs("postgres", "initdb")]


def _record(run_id: str, status: str = "running") -> RunRecord:
    return RunRecord(run_id=run_id, graph_file=None, graph_text="nodes: {}", graph_hash="abc", status=status)


@pytest.fixture
async def servers(postgres_url: str) -> AsyncIterator[list[GuardedStore]]:
    """Three servers (a, b, c) joined to one store, and a fourth store that is no server (a command's)."""
    from graphrt.checkpoint.postgres import PostgresStore

    stores = [GuardedStore(PostgresStore(postgres_url)) for _ in range(4)]
    for name, store in zip("abc", stores):
        await store.join_servers(name, '{"pid": 1, "host": "elsewhere"}', seconds=300)
    yield stores
    for store in stores:
        await store.close()


async def test_a_run_claimed_by_one_server_is_written_by_it_alone(servers: list[GuardedStore]) -> None:
    a, b, _, command = servers
    await a.create_run(_record("r1"))
    assert await a.claim_for("a", "r1")
    assert not await b.claim_for("b", "r1")  # a lives: its claim stands
    await a.add_rows([Row("r1", 0, "iteration", "", "{}"), Row("r1", 0, "node", "x", "1")])
    for write in (lambda: b.add_rows([Row("r1", 0, "node", "y", "2")]),
                  lambda: b.update_run("r1", status="failed"),
                  lambda: command.update_run("r1", status="failed")):
        with pytest.raises(LeaseLost, match="run 'r1' is claimed by another graphrt serve"):
            await write()
    assert [row.key for row in await a.get_rows("r1") if row.kind == "node"] == ["x"]
    assert (await a.get_run("r1")).status == "running"


async def test_a_gone_servers_runs_are_claimed_by_exactly_one_other_and_its_late_writes_are_refused(
        servers: list[GuardedStore]) -> None:
    a, b, c, _ = servers
    for index in range(6):
        await a.create_run(_record(f"r{index}"))
        assert await a.claim_for("a", f"r{index}") == 1
    await a.create_run(_record("asks", status="interrupted"))  # waits for a person: nobody claims it
    assert await b.claim_left("b", 10) == [] and await c.claim_left("c", 10) == []  # a lives
    await b.expire_server("a")  # a's process is gone (or its heartbeat lapsed)
    taken: dict[str, list[str]] = {"b": [], "c": []}

    async def claim(store: GuardedStore, name: str) -> None:
        for _ in range(3):
            taken[name] += [run_id for run_id, _ in await store.claim_left(name, 2)]

    async with anyio.create_task_group() as tg:
        tg.start_soon(claim, b, "b")
        tg.start_soon(claim, c, "c")
    assert sorted(taken["b"] + taken["c"]) == [f"r{index}" for index in range(6)]  # each once, by one server
    # a, woken, writes a node of a run it held: refused, however the write is made.
    with pytest.raises(LeaseLost):
        await a.add_rows([Row("r0", 0, "node", "late", "1")])
    with pytest.raises(LeaseLost):
        await a.update_run("r0", status="finished", results={"late": 1})
    owner = b if "r0" in taken["b"] else c
    await owner.add_rows([Row("r0", 0, "node", "x", "1")])
    assert [row.key for row in await owner.get_rows("r0")] == ["x"]
    assert (await owner.get_run("r0")).status == "running"
    # a's heartbeat says which runs it still holds: none.
    assert await a.renew_server("a", seconds=300) == []


async def test_a_server_that_stops_leaves_its_runs_to_the_others_at_once(servers: list[GuardedStore]) -> None:
    a, b, _, command = servers
    await a.create_run(_record("r1"))
    await a.create_run(_record("ended", status="running"))
    assert await a.claim_for("a", "r1") and await a.claim_for("a", "ended")
    await a.update_run("ended", status="finished")
    await a.release_claim("a", "ended")
    await a.leave_servers("a")
    assert [run_id for run_id, _ in await b.claim_left("b", 10)] == ["r1"]  # a run that ended is nobody's to continue
    # A run given up is written by no server that has not claimed it, but by a command (graphrt resume).
    with pytest.raises(LeaseLost):
        await b.update_run("ended", status="failed")
    await command.update_run("ended", status="finished")
    listed = {row.server: row for row in await b.servers()}
    assert set(listed) == {"b", "c"} and listed["b"].runs == ("r1",) and listed["b"].live


async def test_a_server_whose_heartbeat_lapsed_does_not_claim_its_own_runs_as_left(servers: list[GuardedStore]) -> None:
    # Woken from a freeze past its lease, a server may look for runs left before its heartbeat renews its row: the
    # runs it still runs are not left (claimed again, each would be started a second time beside the first).
    a, b, _, _ = servers
    for run_id in ("mine", "its"):
        await a.create_run(_record(run_id))
    assert await a.claim_for("a", "mine") and await b.claim_for("b", "its")
    await a.expire_server("a")
    await a.expire_server("b")
    assert [run_id for run_id, _ in await a.claim_left("a", 10)] == ["its"]  # b's, left: a continues it; its own is not claimed again
    assert sorted(await a.renew_server("a", seconds=300)) == ["its", "mine"]


async def test_a_due_webhook_delivery_is_taken_by_one_server_until_its_time_passes(
        servers: list[GuardedStore]) -> None:
    a, b, c, _ = servers
    await a.create_run(_record("r1", status="finished"))
    await a.add_deliveries([Delivery(f"d{index}", "r1", "https://a.example/hook", "run.finished", "{}",
                                     next_at=float(index), created_at=float(index)) for index in range(6)])
    taken: list[tuple[str, str]] = []
    async with anyio.create_task_group() as tg:  # three servers take at once: each delivery goes to one
        for name, store in zip("abc", (a, b, c)):
            async def take(store: GuardedStore = store, name: str = name) -> None:
                taken.extend((name, item.delivery_id) for item in await store.take_deliveries(10.0, 100.0, limit=3))
            tg.start_soon(take)
    assert sorted(delivery for _, delivery in taken) == [f"d{index}" for index in range(6)]
    assert await b.take_deliveries(50.0, 200.0) == []  # taken until 100: nobody's before
    await a.update_delivery("d0", state="delivered", attempts=1, next_at=60.0, error=None)  # its taker called it
    await a.update_delivery("d1", state="pending", attempts=1, next_at=70.0, error="HTTP 500")  # to retry at 70
    assert [item.delivery_id for item in await c.take_deliveries(80.0, 200.0)] == ["d1"]
    again = await b.take_deliveries(101.0, 300.0)  # their takers were killed mid-call: another takes them after 100
    assert [item.delivery_id for item in again] == ["d2", "d3", "d4", "d5"]
    assert all(item.attempts == 0 for item in again)  # a call cut short by a kill counts for nothing


async def _hear(store: GuardedStore, wanted: tuple[str, str]) -> list[tuple[str, str]]:
    """What `store` hears until `wanted` is among it (each `heard` waits for the next announcement)."""
    heard: list[tuple[str, str]] = []
    with anyio.fail_after(30):
        while wanted not in heard:
            heard.extend(tuple(item) for item in await store.heard(5))
    return heard


async def test_what_servers_write_for_each_other_is_announced_once_committed(servers: list[GuardedStore]) -> None:
    a, b, _, command = servers
    assert await b.heard(5) == [("anything", "")]  # its first: announcements before it listened are unknown
    await a.create_run(_record("r1"))
    assert await a.claim_for("a", "r1")
    await a.add_events("r1", [(1, '{"type": "NodeState"}'), (2, '{"type": "NodeState"}')])
    heard = await _hear(b, ("events", "r1"))
    assert heard.count(("events", "r1")) == 1  # two events in one transaction: one announcement
    assert await command.ask_cancel("r1")
    await _hear(b, ("claims", "a"))  # the server that holds it is the one told
    assert await b.drain_server("c")
    await _hear(b, ("claims", "c"))
    await a.leave_servers("a")
    await _hear(b, ("claims", ""))  # runs left: any server may claim them


async def test_announcements_missed_while_the_connection_was_down_are_said_to_be(servers: list[GuardedStore],
                                                                                 postgres_url: str) -> None:
    import psycopg

    _, b, _, _ = servers
    assert await b.heard(0) == [("anything", "")]
    with psycopg.connect(postgres_url, autocommit=True) as admin:  # as an administrator ending its connection
        ended = admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                              "WHERE query LIKE 'LISTEN graphrt_%' AND pid <> pg_backend_pid()").fetchall()
    assert ended and all(row[0] for row in ended)
    with pytest.raises(CheckpointError, match="cannot hear checkpoint database"):
        with anyio.fail_after(30):
            while True:  # the broken connection is found at its next wait
                await b.heard(5)
    assert await b.heard(5) == [("anything", "")]  # made again: what was announced meanwhile is unknown


async def test_a_server_joins_a_store_its_tables_are_made_in_without_waiting_for_its_writers(
        servers: list[GuardedStore], postgres_url: str) -> None:
    # A server starting while the others write: made again at each start, the fence's triggers waited for every
    # writer of their tables, and the writers for them (a deadlock stopped a server restarted under load).
    import psycopg

    from graphrt.checkpoint.postgres import PostgresStore

    with psycopg.connect(postgres_url) as writer:  # a transaction of a server writing events, not committed yet
        writer.execute("LOCK TABLE graphrt_events IN ROW EXCLUSIVE MODE")
        joining = GuardedStore(PostgresStore(postgres_url))
        try:
            with anyio.fail_after(30):
                await joining.join_servers("d", "{}", seconds=300)
        finally:
            writer.rollback()
            await joining.close()
