"""A store fenced by its lease (`fence_writes`) refuses every write once another owner took the lease over.

The check is made by the store in the write's own transaction, so no window is left between a
check and the write it allows: a process frozen for any time after it last checked, then woken,
writes nothing into a store another process took over. Both SQL stores, each with a second store
object on the same database as the other owner.
"""

from __future__ import annotations

import time

import anyio
import pytest

from graphrt.checkpoint import CheckpointStore, Row, RunRecord, SQLiteStore
from graphrt.checkpoint.errors import LeaseLost
from graphrt.checkpoint.guard import GuardedStore

pytestmark = pytest.mark.anyio


def _record(run_id: str) -> RunRecord:
    return RunRecord(run_id=run_id, graph_file=None, graph_text="nodes: {}", graph_hash="abc")


def _other(store: CheckpointStore) -> CheckpointStore:
    if isinstance(store, SQLiteStore):
        return SQLiteStore(store.path)
    from graphrt.checkpoint.postgres import PostgresStore

    return PostgresStore(store._url)


async def _take(store: CheckpointStore, owner: str, *, replacing: str | None = None) -> str:
    now = time.time()
    return (await store.take_lease("serve", owner, "{}", until=now + 300, now=now, replacing=replacing)).owner


async def test_a_fenced_store_writes_while_it_holds_its_lease_and_nothing_once_it_is_taken_over(
        store: CheckpointStore) -> None:
    assert await _take(store, "first") == "first"
    store.fence_writes("serve", "first")
    await store.create_run(_record("r1"))
    await store.add_rows([Row("r1", 0, "iteration", "", "{}"), Row("r1", 0, "node", "a", "1")])
    await store.update_run("r1", status="running")

    other = _other(store)
    try:
        assert await _take(other, "second", replacing="first") == "second"  # the first one is taken to be gone
        # The first store, woken: whatever it writes is refused, each write with its own LeaseLost.
        refused = []

        async def write(call) -> None:
            try:
                await call()
            except LeaseLost as error:
                refused.append(str(error))

        async with anyio.create_task_group() as tg:  # several at once: one transaction refused for them all
            tg.start_soon(write, lambda: store.add_rows([Row("r1", 0, "node", "b", "2")]))
            tg.start_soon(write, lambda: store.add_row(Row("r1", 0, "node", "c", "3")))
            tg.start_soon(write, lambda: store.update_run("r1", status="finished", results={"b": 2}))
            tg.start_soon(write, lambda: store.create_run(_record("r2")))
            tg.start_soon(write, lambda: store.queue_rows([Row("r1", 0, "node", "d", "4")]))
        assert len(refused) == 5
        assert all("no longer holds its lease 'serve'" in said and "the write was refused" in said for said in refused)

        # Nothing of it was written; the new owner's writes go on.
        assert [row.key for row in await other.get_rows("r1")] == ["", "a"]
        assert (await other.get_run("r1")).status == "running"
        assert await other.get_run("r2") is None
        await other.update_run("r1", status="finished")
        assert (await other.get_run("r1")).status == "finished"
        # The lease itself is not fenced: the first store can still ask for it, and is told who holds it.
        assert await _take(store, "first") == "second"
    finally:
        await other.close()


async def test_an_unfenced_store_and_the_lease_owner_write_as_before(store: CheckpointStore) -> None:
    other = _other(store)
    try:
        assert await _take(other, "owner") == "owner"
        other.fence_writes("serve", "owner")
        await other.create_run(_record("r1"))
        await store.update_run("r1", status="failed")  # a store that takes no lease is not fenced
        assert (await other.get_run("r1")).status == "failed"
    finally:
        await other.close()


async def test_a_guarded_store_queues_writes_again_once_the_store_checks_them_itself(store: CheckpointStore) -> None:
    guarded = GuardedStore(store)

    async def checked() -> None:
        pass

    guarded.before_write = checked
    assert guarded.queue_rows([]) is None  # checked before each write, a queued one would slip past the check
    guarded.fence_writes("serve", "first")
    pending = guarded.queue_rows([Row("r0", 0, "iteration", "", "{}")])
    assert pending is not None
    with pytest.raises(LeaseLost):  # the store's own check: this process holds no lease
        await pending
