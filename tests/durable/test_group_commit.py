"""Group commit (graphrt/checkpoint/group_commit.py): the writes of runs at once share commits, yet each
write returns only once it is committed and a failed write fails alone."""

from __future__ import annotations

import sqlite3

from pathlib import Path
from typing import Any

import anyio
import pytest

import graphrt
from graphrt import AgentContext, AgentInfo
from graphrt.checkpoint import CheckpointError, CheckpointStore, RunRecord, SQLiteStore
from graphrt.durable import arun_checkpointed

pytestmark = pytest.mark.anyio

CHAIN = {
    "version": 0.5,
    "nodes": {
        "run": {"value": ""},
        "a": {"agent": "stepAgent", "inputs": {"run": ":run"}},
        "b": {"agent": "checkAgent", "inputs": {"run": ":run", "a": ":a"}, "isResult": True},
    },
}


def _record(run_id: str) -> RunRecord:
    return RunRecord(run_id=run_id, graph_file=None, graph_text="nodes: {}", graph_hash="abc")


def _other_connection(store: CheckpointStore) -> CheckpointStore:
    """A second store on the same database: it sees only what the first has committed."""
    if isinstance(store, SQLiteStore):
        return SQLiteStore(store.path)
    from graphrt.checkpoint.postgres import PostgresStore

    return PostgresStore(store._url)


async def test_writes_made_at_once_are_all_saved_and_a_failing_one_fails_alone(store: CheckpointStore) -> None:
    await store.create_run(_record("taken"))
    outcomes: dict[str, Any] = {}

    async def create(run_id: str) -> None:
        try:
            await store.create_run(_record(run_id))
            outcomes[run_id] = "saved"
        except CheckpointError as error:
            outcomes[run_id] = str(error)

    async with anyio.create_task_group() as tg:
        for n in range(40):
            tg.start_soon(create, f"r{n}")
            if n == 20:
                tg.start_soon(create, "taken")

    assert outcomes.pop("taken").startswith("run 'taken' is already saved in")
    assert set(outcomes.values()) == {"saved"} and len(outcomes) == 40
    assert {record.run_id for record in await store.runs()} == {"taken", *outcomes}


async def test_a_nodes_waiters_start_only_once_its_row_is_committed(store: CheckpointStore) -> None:
    """30 runs at once: when b starts, another connection already reads a's row of the same run."""
    reader = _other_connection(store)
    seen: list[bool] = []

    async def step(ctx: AgentContext) -> Any:
        await anyio.sleep(0)
        return {"from": "a"}

    async def check(ctx: AgentContext) -> Any:
        rows = await reader.get_rows(ctx.inputs["run"])
        seen.append(any(row.kind == "node" and row.key == "a" for row in rows))
        return ctx.inputs["a"]

    graph = graphrt.Graph(CHAIN, agents=[AgentInfo("stepAgent", step), AgentInfo("checkAgent", check)])
    results: dict[int, Any] = {}

    async def one(n: int) -> None:
        results[n] = await arun_checkpointed(graph, store, run_id=f"run{n}", inject={"run": f"run{n}"})

    try:
        async with anyio.create_task_group() as tg:
            for n in range(30):
                tg.start_soon(one, n)
    finally:
        await reader.close()

    assert results == {n: {"b": {"from": "a"}} for n in range(30)}
    assert seen == [True] * 30


async def test_a_cancelled_writer_does_not_take_the_others_writes_with_it(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.db")
    try:
        async with anyio.create_task_group() as tg:
            for n in range(10):
                tg.start_soon(store.create_run, _record(f"r{n}"))
            with anyio.CancelScope() as scope:
                scope.cancel()
                await store.create_run(_record("cancelled"))  # queued, then its caller stops waiting
        saved = {record.run_id for record in await store.runs()}
    finally:
        await store.close()
    assert {f"r{n}" for n in range(10)} <= saved


class _RowByRow:
    """A store with the protocol's methods only (no add_rows), around a real one."""

    def __init__(self, store: CheckpointStore) -> None:
        self._store = store
        self.location = store.location
        self.rows: list[Any] = []

    async def add_row(self, row: Any) -> None:
        self.rows.append(row)
        await self._store.add_row(row)

    def __getattr__(self, name: str) -> Any:
        if name in ("add_rows", "queue_rows", "start_new_run"):  # only the protocol's methods
            raise AttributeError(name)
        return getattr(self._store, name)


async def test_a_store_without_add_rows_gets_each_row_on_its_own(tmp_path: Path) -> None:
    inner = SQLiteStore(tmp_path / "runs.db")
    store = _RowByRow(inner)

    async def step(ctx: AgentContext) -> Any:
        return {"from": "a"}

    graph = graphrt.Graph(CHAIN, agents=[AgentInfo("stepAgent", step), AgentInfo("checkAgent", step)])
    try:
        assert await arun_checkpointed(graph, store, run_id="r1") == {"b": {"from": "a"}}
        saved = await inner.get_rows("r1")
    finally:
        await inner.close()
    assert [(row.kind, row.key) for row in store.rows] == [("iteration", ""), ("node", "a"), ("node", "b")]
    assert saved == store.rows


async def test_values_written_together_come_back_exactly(store: CheckpointStore) -> None:
    """A batch goes to PostgreSQL as one text with its values bound in it: quotes, backslashes, percent
    signs, placeholders and statement ends inside values must stay values."""
    from graphrt.checkpoint import Row

    hostile = ["it's", "\\'; DROP TABLE graphrt_rows; --", "100% %s %(x)s ?", "$1 $$ $tag$", "line\nnext\r\ttab",
               "Ζ 日本 🙂", "", "\\x00 not a nul", '"quoted"']
    await store.create_run(_record("values"))
    async with anyio.create_task_group() as tg:  # at once: one transaction
        for n, text in enumerate(hostile):
            tg.start_soon(store.add_row, Row("values", 0, "node", f"n{n}{text}", graphrt_json(text)))
    rows = {row.key: row.value for row in await store.get_rows("values")}
    assert rows == {f"n{n}{text}": graphrt_json(text) for n, text in enumerate(hostile)}


async def test_rows_written_together_come_back_in_the_order_written(store: CheckpointStore) -> None:
    """Inserts of one text in a batch are one statement (PostgreSQL: many rows; SQLite: executemany): each
    run's rows keep their order, the order resume replays them in (a node's later row wins)."""
    from graphrt.checkpoint import Row

    for n in range(10):
        await store.create_run(_record(f"order{n}"))

    async def rows_of(n: int) -> None:
        await store.add_rows([Row(f"order{n}", 0, "iteration", "", "{}"),
                              *(Row(f"order{n}", 0, "node", f"k{n}", str(value)) for value in range(5))])

    async with anyio.create_task_group() as tg:  # at once: one transaction
        for n in range(10):
            tg.start_soon(rows_of, n)
    for n in range(10):
        rows = await store.get_rows(f"order{n}")
        assert [(row.kind, row.value) for row in rows] == [("iteration", "{}"), *(("node", str(v)) for v in range(5))]


def graphrt_json(text: str) -> str:
    from graphrt.checkpoint.values import encode_value

    return encode_value({"text": text})


async def test_a_released_run_can_be_claimed_again_at_once(store: CheckpointStore) -> None:
    """Giving a claim back is not waited for (PostgreSQL), but a claim made after it comes after it."""
    for _ in range(20):
        await store.claim_run("again")
        await store.release_run("again")
    await store.claim_run("again")
    other = _other_connection(store)
    try:
        with pytest.raises(CheckpointError, match="running elsewhere"):
            await other.claim_run("again")
    finally:
        await other.close()


FIRST = {
    "version": 0.5,
    "nodes": {
        "first": {"agent": "firstAgent", "isResult": True},
    },
}


async def test_a_new_runs_record_and_claim_are_saved_while_its_first_node_runs(store: CheckpointStore) -> None:
    """A run whose id graphrt makes up: PostgreSQL saves its claim and record while its first node runs (queued
    before it starts); seen from another connection before the node returns, as a claim that is refused there."""
    other = _other_connection(store)
    seen: dict[str, Any] = {}

    async def first(ctx: AgentContext) -> Any:
        with anyio.fail_after(60):  # a hang guard: the record is committed a trip to the server after the start
            while (record := await other.get_run(ctx.run_id)) is None:
                await anyio.sleep(0.01)
        seen["status"] = record.status
        try:
            await other.claim_run(ctx.run_id)
        except CheckpointError as error:
            seen["claim"] = str(error)
        seen["rows"] = await other.get_rows(ctx.run_id)
        return {"run": ctx.run_id}

    graph = graphrt.Graph(FIRST, agents=[AgentInfo("firstAgent", first)])
    await store.get_run("none")  # connected: PostgreSQL's store queues a new run's claim once it knows its schema
    try:
        results = await arun_checkpointed(graph, store)
        run_id = results["first"]["run"]
        assert seen["status"] == "running" and "running elsewhere" in seen["claim"] and seen["rows"] == []
        saved = await other.get_run(run_id)
        assert saved is not None and saved.status == "finished" and saved.results == results
        await other.claim_run(run_id)  # given back once the run ended
    finally:
        await other.close()


async def test_a_made_up_id_already_saved_fails_the_run_and_writes_nothing_into_the_saved_one(
        store: CheckpointStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """The record's insert is not waited for before the first node (queued, in both stores), but before any row: a
    made-up id that names a saved run (two equal random ids) fails the run, and the saved run gets no row of it."""
    from graphrt.durable import runs

    monkeypatch.setattr(runs, "_new_run_id", lambda: "5a3e1d005a3e")
    await store.create_run(_record("5a3e1d005a3e"))

    async def first(ctx: AgentContext) -> Any:
        return {"run": ctx.run_id}

    graph = graphrt.Graph(FIRST, agents=[AgentInfo("firstAgent", first)])
    with pytest.raises(CheckpointError, match="'5a3e1d005a3e' is already saved"):
        await arun_checkpointed(graph, store)
    assert await store.get_rows("5a3e1d005a3e") == []
    saved = await store.get_run("5a3e1d005a3e")
    assert saved is not None and saved.status == "running" and saved.graph_text == "nodes: {}"
    other = _other_connection(store)
    try:
        await other.claim_run("5a3e1d005a3e")  # the failed run gave its claim back
    finally:
        await other.close()


async def test_the_row_of_a_node_nobody_waits_for_is_saved_with_the_runs_end(store: CheckpointStore) -> None:
    """`b` starts nothing, so its row is queued and not awaited before the run goes on: it is committed with the
    run's end, and both are there for another connection when the run returns."""
    reader = _other_connection(store)

    async def step(ctx: AgentContext) -> Any:
        return {"from": ctx.node_id}

    graph = graphrt.Graph(CHAIN, agents=[AgentInfo("stepAgent", step), AgentInfo("checkAgent", step)])
    try:
        for n in range(5):
            assert await arun_checkpointed(graph, store, run_id=f"end{n}", inject={"run": f"end{n}"}) == {
                "b": {"from": "b"}}
            saved, rows = await reader.get_run(f"end{n}"), await reader.get_rows(f"end{n}")
            assert saved is not None and saved.status == "finished" and saved.results == {"b": {"from": "b"}}
            assert [(row.kind, row.key) for row in rows] == [("iteration", ""), ("node", "a"), ("node", "b")]
    finally:
        await reader.close()


class _FailingQueuedRows:
    """A store whose rows queued without waiting (`queue_rows`) fail when their commit is awaited."""

    def __init__(self, store: CheckpointStore) -> None:
        self._store = store

    def queue_rows(self, rows: Any) -> Any:
        async def failed() -> None:
            raise OSError("disk full")

        return failed()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


async def test_a_row_not_awaited_that_fails_fails_the_run(tmp_path: Path) -> None:
    inner = SQLiteStore(tmp_path / "runs.db")

    async def step(ctx: AgentContext) -> Any:
        return {"from": ctx.node_id}

    graph = graphrt.Graph(CHAIN, agents=[AgentInfo("stepAgent", step), AgentInfo("checkAgent", step)])
    try:
        with pytest.raises(CheckpointError, match="could not save run 'queued'.*disk full"):
            await arun_checkpointed(graph, _FailingQueuedRows(inner), run_id="queued", inject={"run": "x"})
    finally:
        await inner.close()


async def test_a_queued_row_the_store_refused_leaves_the_run_unfinished(tmp_path: Path) -> None:
    """`b`'s row is queued and the run's end after it: when the row's write fails and the end's would succeed (a
    full disk fails the larger write), the run fails and the store does not say it finished without `b`'s row."""
    path = tmp_path / "runs.db"
    store = SQLiteStore(path)
    await store.get_run("none")  # the tables exist
    refuse = sqlite3.connect(path)
    refuse.execute("CREATE TRIGGER refuse_b BEFORE INSERT ON graphrt_rows WHEN NEW.key = 'b' "
                   "BEGIN SELECT RAISE(ABORT, 'disk full'); END")
    refuse.commit()
    refuse.close()

    async def step(ctx: AgentContext) -> Any:
        return {"from": ctx.node_id}

    graph = graphrt.Graph(CHAIN, agents=[AgentInfo("stepAgent", step), AgentInfo("checkAgent", step)])
    try:
        with pytest.raises(CheckpointError, match="could not save run 'refused'.*disk full"):
            await arun_checkpointed(graph, store, run_id="refused", inject={"run": "x"})
        saved = await store.get_run("refused")
        assert saved is not None and saved.status == "running"  # resumed, it runs `b` again
        assert [(row.kind, row.key) for row in await store.get_rows("refused")] == [("iteration", ""), ("node", "a")]
    finally:
        await store.close()


def test_new_runs_at_once_on_trio(store: CheckpointStore) -> None:
    """The record queued as a run starts and the last node's row queued with its end, on trio's event loop."""

    async def step(ctx: AgentContext) -> Any:
        return {"from": ctx.node_id}

    graph = graphrt.Graph(CHAIN, agents=[AgentInfo("stepAgent", step), AgentInfo("checkAgent", step)])
    results: list[Any] = []

    async def many() -> None:
        await store.get_run("none")  # connected: PostgreSQL's store queues a new run's claim once it knows its schema

        async def one(n: int) -> None:
            results.append(await arun_checkpointed(graph, store, inject={"run": f"trio{n}"}))

        async with anyio.create_task_group() as tg:
            for n in range(20):
                tg.start_soon(one, n)
        assert {record.status for record in await store.runs()} == {"finished"}

    anyio.run(many, backend="trio")
    assert results == [{"b": {"from": "b"}}] * 20


# ----- held writes: a journal entry of a call harmless to make again shares the next write's commit -----


def _call(index: int, state: str = "returned") -> Any:
    from graphrt.checkpoint.records import JournalEntry

    return JournalEntry("r1", "agent/llm", index, "llm", "openAIAgent", '{"inputs":{},"params":{}}', state,
                        '{"text":"hi"}' if state == "returned" else None, 1000.0, None)


def _transactions(url: str) -> dict[int, str]:
    """Each journal entry's index, and the transaction that wrote it (PostgreSQL's xmin)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as connection:
        return dict(connection.execute("SELECT idx, xmin::text FROM graphrt_journal WHERE run_id = 'r1'").fetchall())


async def test_a_held_entry_is_committed_with_the_next_write_not_by_itself(postgres_url: str, monkeypatch) -> None:
    """An LLM reply's entry and the next tool call's mark: one commit, not two (bench journal cost)."""
    from graphrt.checkpoint import group_commit
    from graphrt.checkpoint.postgres import PostgresStore

    monkeypatch.setattr(group_commit, "_HOLD", 3600.0)  # it waits for the next write, however slow the machine
    store = PostgresStore(postgres_url)
    try:
        await store.create_run(_record("r1"))
        held = store.queue_call(_call(0), hold=True)
        await store.add_call(_call(1, "started"))
        await held
        written = _transactions(postgres_url)
    finally:
        await store.close()
    assert set(written) == {0, 1} and written[0] == written[1]


async def test_a_held_entry_awaited_is_committed_at_once(postgres_url: str, monkeypatch) -> None:
    from graphrt.checkpoint import group_commit
    from graphrt.checkpoint.postgres import PostgresStore

    monkeypatch.setattr(group_commit, "_HOLD", 3600.0)
    store = PostgresStore(postgres_url)
    try:
        await store.create_run(_record("r1"))
        with anyio.fail_after(60):  # a failure's bound, not a measure: held for an hour, it would hang
            await store.queue_call(_call(0), hold=True)
        assert set(_transactions(postgres_url)) == {0}
    finally:
        await store.close()


async def test_a_held_entry_nobody_awaits_is_committed_after_a_moment(postgres_url: str, monkeypatch) -> None:
    from graphrt.checkpoint import group_commit
    from graphrt.checkpoint.postgres import PostgresStore

    monkeypatch.setattr(group_commit, "_HOLD", 0.05)
    store = PostgresStore(postgres_url)
    try:
        await store.create_run(_record("r1"))
        held = store.queue_call(_call(0), hold=True)
        with anyio.fail_after(60):
            while not _transactions(postgres_url):  # another connection sees it: committed, and nobody asked
                await anyio.sleep(0.01)
    finally:
        await store.close()
    held.close()  # never awaited: the hold alone committed it
