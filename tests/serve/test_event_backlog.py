"""The queue of unsaved events is bounded (serve/events.py, event_saver.py, event_backpressure.py): a run whose
store is slow waits for it, a store that cannot keep up fails the run saying so, and an event the store did not
take is never shown as if it had been."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from graphrt.base.states import RunStatus
from graphrt.checkpoint import GuardedStore, SQLiteStore
from graphrt.engine.graph import make_registry
from graphrt.serve import GraphCatalog
from graphrt.serve.event_saver import EventSaver
from graphrt.serve.runs import RunService
from graphrt.serve.settings import ServerSettings

pytestmark = [pytest.mark.anyio, pytest.mark.needs("serve")]


class GatedStore(SQLiteStore):
    """A SQLite store whose event writes wait at a gate (a store made slow) or fail while `failing`."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.gate = anyio.Event()
        self.writes_waiting = 0
        self.failing = 0  # the next writes that fail
        self.land_then_fail = False  # a failing write lands first (the connection broke after the commit)

    async def add_events(self, run_id: str, events: Any) -> None:
        await self._gated(lambda: super(GatedStore, self).add_events(run_id, events))

    async def add_event_batches(self, batches: Any) -> None:  # what the saver uses: several runs' events at once
        await self._gated(lambda: super(GatedStore, self).add_event_batches(batches))

    async def _gated(self, write: Any) -> None:
        self.writes_waiting += 1
        try:
            await self.gate.wait()
        finally:
            self.writes_waiting -= 1
        if self.failing:
            self.failing -= 1
            if self.land_then_fail:
                await write()
            raise OSError("disk I/O error")
        await write()


def chain(length: int) -> str:
    """A graph of `length` nodes, each copying the one before: a few events per node."""
    nodes = {"start": {"value": 0}}
    for number in range(1, length + 1):
        nodes[f"n{number}"] = {"agent": "copyAgent", "inputs": {"value": f":{'start' if number == 1 else f'n{number - 1}'}"},
                               **({"isResult": True} if number == length else {})}
    return json.dumps({"version": 0.5, "nodes": nodes})


async def test_a_full_log_holds_its_run_and_shows_nothing_unsaved(tmp_path: Path) -> None:
    store = GatedStore(tmp_path / "runs.db")
    try:
        saver = EventSaver(store, max_unsaved=10)
        log = saver.log_for("r1", limit=100, first_id=1)
        overflowed: list[int] = []
        log.on_overflow = overflowed.append
        for number in range(1, 21):
            log.append({"type": "Tick", "n": number})

        assert log.full and log.unsaved_count == 20 and overflowed == [20]  # at twice the bound, once
        assert log.last_id == 0  # none is shown before the store has it
        store.gate.set()
        async with anyio.create_task_group() as tg:
            tg.start_soon(log.room)  # returns once the saver has caught up
            assert await saver.flush()

        assert not log.full and log.last_id == 20 and await store.last_event_id("r1") == 20
    finally:
        await store.close()


async def test_a_failed_write_is_written_again_once_and_shown_only_then(tmp_path: Path) -> None:
    store = GatedStore(tmp_path / "runs.db")
    store.gate.set()
    store.failing, store.land_then_fail = 1, True  # the first write lands, but the saver is told it failed
    try:
        saver = EventSaver(store)
        log = saver.log_for("r1", limit=100, first_id=1)
        for number in range(1, 4):
            log.append({"type": "Tick", "n": number})
        assert not await saver.flush()
        assert log.last_id == 0 and saver.failure == "OSError: disk I/O error"  # said, and not shown as saved

        log.append({"type": "Tick", "n": 4})
        assert await saver.flush()

        assert log.last_id == 4 and saver.failure is None
        assert [json.loads(text)["n"] for _, text in await store.get_events("r1")] == [1, 2, 3, 4]  # each once
    finally:
        await store.close()


async def serving(service: RunService, body) -> None:
    async with anyio.create_task_group() as tg:
        await tg.start(service.serve)
        await body()
        tg.cancel_scope.cancel()


def service_for(tmp_path: Path, store: GatedStore, **options: Any) -> RunService:
    folder = tmp_path / "graphs"
    folder.mkdir()
    (folder / "chain.json").write_text(chain(30), encoding="utf-8")
    return RunService(GraphCatalog([folder], make_registry(None)), store, ServerSettings(**options))


async def test_a_run_whose_store_is_slow_waits_for_it_and_loses_no_event(tmp_path: Path) -> None:
    store = GatedStore(tmp_path / "runs.db")
    service = service_for(tmp_path, store, max_unsaved_events=8)
    try:
        async def body() -> None:
            run = await service.submit("chain")
            while not run.events.full:  # the run goes on until its unsaved events reach the bound
                await anyio.wait_all_tasks_blocked()
            held_at = run.ledger.states()
            await anyio.wait_all_tasks_blocked()
            assert run.ledger.states() == held_at  # held: no node moves while the store holds its events
            assert run.events.unsaved_count < 16  # bounded: below twice the bound, so not failed
            assert run.events.last_id == 0

            store.gate.set()
            await run.settled()

            assert run.status == RunStatus.FINISHED and list(run.results) == ["n30"]
            while not run.events.closed:  # every record shown, the last one the run's end
                await run.events.wait(run.events.last_id, 1.0)
            saved = [(event_id, json.loads(text)) for event_id, text in await store.get_events(run.id, limit=10_000)]
            assert [event_id for event_id, _ in saved] == list(range(1, run.events.last_id + 1))
            assert saved[-1][1]["type"] == "RunStatus" and saved[-1][1]["status"] == "finished"

        await serving(service, body)
    finally:
        await store.close()


async def _saved_status(store: GatedStore, run_id: str) -> str | None:
    record = await store.get_run(run_id)
    return record.status if record is not None else None


async def test_a_runs_end_is_saved_only_after_its_events(tmp_path: Path) -> None:
    # A server killed between the two must leave the run running (another continues it, and saves its whole log), not
    # ended with its log cut short: its last nodes' events would never be saved, and readers never see it end.
    store = GatedStore(tmp_path / "runs.db")
    service = service_for(tmp_path, store)
    try:
        async def body() -> None:
            run = await service.submit("chain")
            try:
                while store.writes_waiting == 0 or run.ledger.states().get("n30") != "completed":
                    await anyio.wait_all_tasks_blocked()  # every node done, its events held at the store's gate
                await anyio.wait_all_tasks_blocked()  # as far as the run goes while they are
                assert await _saved_status(store, run.id) == RunStatus.RUNNING
            finally:
                store.gate.set()  # else the server, stopping, would wait at the gate for ever to save them
            await run.settled()
            assert run.status == RunStatus.FINISHED and await _saved_status(store, run.id) == RunStatus.FINISHED

        await serving(service, body)
    finally:
        await store.close()


async def test_a_runs_end_waits_for_no_event_the_store_cannot_save(tmp_path: Path) -> None:
    # Its end waits for its events only while the store takes them: a store that fails them does not hold the run's
    # end (nor a stopping server, which waits for it) for the events' whole hold limit.
    store = GatedStore(tmp_path / "runs.db")
    store.gate.set()
    store.failing = 1_000_000  # every event write fails
    service = service_for(tmp_path, store)
    try:
        async def body() -> None:
            run = await service.submit("chain")
            with anyio.fail_after(60):  # a guard: held, it would wait the hold limit (120 s)
                await run.settled()
            assert run.status == RunStatus.FINISHED and await _saved_status(store, run.id) == RunStatus.FINISHED
            assert run.events.unsaved_count > 0 and await store.last_event_id(run.id) == 0
            store.failing = 0  # the server, stopping, saves them

        await serving(service, body)
    finally:
        await store.close()


async def test_a_store_that_cannot_keep_up_fails_the_run_saying_so(tmp_path: Path) -> None:
    store = GatedStore(tmp_path / "runs.db")
    store.gate.set()
    store.failing = 1_000_000  # every event write fails
    service = service_for(tmp_path, store, max_unsaved_events=8, event_hold_seconds=0.2)
    try:
        async def body() -> None:
            run = await service.submit("chain")
            await run.settled()

            assert run.status == RunStatus.FAILED
            assert "did not keep up with its events" in run.error and "OSError: disk I/O error" in run.error
            assert (await store.get_run(run.id)).status == RunStatus.FAILED  # saved failed, not cancelled
            assert run.events.last_id == 0 and await store.last_event_id(run.id) == 0  # nothing shown unsaved

        await serving(service, body)
    finally:
        await store.close()


class CountingStore(SQLiteStore):
    """A SQLite store that notes each event write: which runs' events it held."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.writes: list[list[str]] = []

    async def add_events(self, run_id: str, events: Any) -> None:
        self.writes.append([run_id])
        await super().add_events(run_id, events)

    async def add_event_batches(self, batches: Any) -> None:
        self.writes.append([run_id for run_id, _ in batches])
        await super().add_event_batches(batches)


def _three_runs_of_three_events(saver: EventSaver) -> list[Any]:
    """The logs of runs r0, r1 and r2, each holding three unsaved events (n: 1, 2, 3)."""
    logs = [saver.log_for(f"r{number}", limit=100, first_id=1) for number in range(3)]
    for event_log in logs:
        for number in range(1, 4):
            event_log.append({"type": "Tick", "n": number})
    return logs


async def test_the_events_of_every_waiting_run_go_in_one_write(tmp_path: Path) -> None:
    store = CountingStore(tmp_path / "runs.db")
    try:
        saver = EventSaver(store)
        logs = _three_runs_of_three_events(saver)
        assert await saver.flush()

        assert store.writes == [["r0", "r1", "r2"]]  # one write, not one a run
        assert [event_log.last_id for event_log in logs] == [3, 3, 3]
        for number in range(3):
            assert [json.loads(text)["n"] for _, text in await store.get_events(f"r{number}")] == [1, 2, 3]
    finally:
        await store.close()


async def test_a_write_holds_at_most_a_batch_of_records_and_a_store_without_batches_gets_one_write_a_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from graphrt.serve import event_saver

    monkeypatch.setattr(event_saver, "_BATCH", 4)
    store = CountingStore(tmp_path / "runs.db")
    try:
        saver = EventSaver(store)
        logs = _three_runs_of_three_events(saver)
        assert await saver.flush()
        assert store.writes == [["r0"], ["r1"], ["r2"]]  # 3 records each: a second run's would pass 4

        monkeypatch.setattr(CountingStore, "add_event_batches", property(lambda self: None))  # a store without
        store.writes.clear()
        saver = EventSaver(GuardedStore(store))  # as a server gives it the store: one add_events a run in its place
        logs = [saver.log_for(f"r{number}", limit=100, first_id=4) for number in range(3)]
        for event_log in logs:
            event_log.append({"type": "Tick", "n": 4})
        assert await saver.flush()
        assert store.writes == [["r0"], ["r1"], ["r2"]] and [event_log.last_id for event_log in logs] == [4, 4, 4]
    finally:
        await store.close()


class RefusingStore(SQLiteStore):
    """A SQLite store that refuses, as a store several servers share does, every write holding events of a run in
    `taken` (another server holds it): the whole write, rolled back."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.taken: set[str] = set()

    async def add_event_batches(self, batches: Any) -> None:
        from graphrt.checkpoint.errors import LeaseLost

        refused = [run_id for run_id, _ in batches if run_id in self.taken]
        if refused:
            raise LeaseLost(f"run {refused[0]!r} is claimed by another graphrt serve; the write was refused")
        await super().add_event_batches(batches)


async def test_a_run_the_store_refuses_is_lost_and_holds_back_no_other_runs_events(tmp_path: Path) -> None:
    store = RefusingStore(tmp_path / "runs.db")
    store.taken.add("r1")
    lost: list[str] = []
    try:
        saver = EventSaver(store, max_unsaved=3, on_refused=lost.append)
        logs = _three_runs_of_three_events(saver)
        assert logs[1].full
        assert await saver.flush()  # the refusal of r1's write costs the others nothing

        assert lost == ["r1"] and saver.failure is None
        assert [logs[0].last_id, logs[2].last_id] == [3, 3]
        for number in (0, 2):
            assert [json.loads(text)["n"] for _, text in await store.get_events(f"r{number}")] == [1, 2, 3]
        assert logs[1].last_id == 0 and await store.get_events("r1") == []  # dropped, never shown as saved
        with anyio.fail_after(5):  # a guard against a hang: what waited on r1's log goes on
            await logs[1].room()
            await logs[1].all_saved()
        assert logs[1].closed
        logs[1].append({"type": "Tick", "n": 4})  # what the stopped run still does here is no event of its log
        assert logs[1].unsaved_count == 0 and await saver.flush() and lost == ["r1"]
    finally:
        await store.close()
