"""RunServices: one service per key, opened once, shared, failures kept, everything closed at the end."""

from __future__ import annotations

from contextlib import asynccontextmanager

import anyio
import pytest

from graphrt.authoring import services as services_module
from graphrt.authoring.services import RunServices, ServiceFailed

pytestmark = pytest.mark.anyio


class Recorder:
    def __init__(self) -> None:
        self.opened = 0
        self.closed = 0

    @asynccontextmanager
    async def service(self):
        self.opened += 1
        await anyio.sleep(0.01)  # an opening that takes a while, so that callers wait for it; its length does not matter
        try:
            yield f"service {self.opened}"
        finally:
            self.closed += 1


async def test_concurrent_callers_share_one_service_closed_when_the_services_close():
    recorder = Recorder()
    got = []
    async with RunServices({"mcp": {}}) as services:
        assert services.config == {"mcp": {}}
        async with anyio.create_task_group() as group:
            for _ in range(5):
                group.start_soon(lambda: _append(got, services.open("a", recorder.service)))
        assert got == ["service 1"] * 5 and recorder.closed == 0
    assert (recorder.opened, recorder.closed) == (1, 1)


async def _append(target, awaitable):
    target.append(await awaitable)


async def test_a_failed_open_fails_every_caller_and_is_not_retried():
    calls = []

    @asynccontextmanager
    async def failing():
        calls.append(1)
        raise OSError("no such command")
        yield  # pragma: no cover

    async with RunServices() as services:
        for _ in range(2):
            with pytest.raises(ServiceFailed) as caught:
                await services.open("x", failing)
            assert isinstance(caught.value.__cause__, OSError)
    assert calls == [1]


async def test_a_service_still_opening_is_cancelled_at_the_end_without_the_grace_wait(monkeypatch):
    monkeypatch.setattr(services_module, "CLOSE_GRACE_SECONDS", 3600)
    opening, released, cancelled = anyio.Event(), anyio.Event(), anyio.Event()

    @asynccontextmanager
    async def never():
        opening.set()
        try:
            await released.wait()  # only the hang guard below releases it
        except anyio.get_cancelled_exc_class():
            cancelled.set()
            raise
        yield "opened after all"

    async def hang_guard() -> None:
        await anyio.sleep(60)  # a close that waited out the grace would hang (it is shielded): end the opening
        released.set()

    async with anyio.create_task_group() as guard:
        guard.start_soon(hang_guard)
        async with RunServices() as services:
            async with anyio.create_task_group() as callers:
                callers.start_soon(services.open, "slow", never)
                await opening.wait()
                callers.cancel_scope.cancel()  # the caller gives up; the opening goes on until the end
            assert not cancelled.is_set()
        guard.cancel_scope.cancel()
    assert cancelled.is_set() and not released.is_set()


async def test_a_caller_waiting_when_the_services_close_is_told_the_service_never_opened():
    opening = anyio.Event()

    @asynccontextmanager
    async def never():
        opening.set()
        await anyio.sleep_forever()
        yield  # pragma: no cover

    caught: list[BaseException] = []

    async def wait_for_it(services: RunServices) -> None:
        try:
            await services.open("slow", never)
        except ServiceFailed as error:
            caught.append(error)

    with anyio.fail_after(30):  # a guard against a hang, not a timing check
        async with anyio.create_task_group() as group:
            async with RunServices() as services:
                group.start_soon(wait_for_it, services)
                await opening.wait()
    assert [str(error) for error in caught] == ["the run ended while the service was opening"]


async def test_open_outside_async_with_is_an_error():
    with pytest.raises(RuntimeError, match="not open"):
        await RunServices().open("a", Recorder().service)


@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_a_third_party_agent_opens_a_service_in_a_run_without_config(anyio_backend):
    import graphrt

    recorder = Recorder()

    async def use_service(ctx):
        return {"service": await ctx.services.open("mine", recorder.service), "closed": recorder.closed}

    agent = graphrt.AgentInfo(name="useService", func=use_service)
    graph = {"version": 0.5, "nodes": {
        "first": {"agent": "useService", "isResult": True},
        "second": {"agent": "useService", "inputs": {"after": ":first"}, "isResult": True},
    }}
    results = await graphrt.arun(graph, agents=[agent])
    # One service for both nodes, open while they ran, closed when the run ended.
    assert results == {"first": {"service": "service 1", "closed": 0}, "second": {"service": "service 1", "closed": 0}}
    assert (recorder.opened, recorder.closed) == (1, 1)


async def test_every_run_has_its_config_in_its_services():
    import graphrt

    seen = []

    async def record(ctx):
        seen.append((ctx.services.is_open, dict(ctx.services.config)))
        return {}

    agent = graphrt.AgentInfo(name="recordServices", func=record)
    graph = {"version": 0.5, "nodes": {"r": {"agent": "recordServices"}}}
    await graphrt.arun(graph, agents=[agent])
    await graphrt.arun(graph, agents=[agent], config={"mcp": {"mcpServers": {}}})
    assert seen == [(True, {}), (True, {"mcp": {"mcpServers": {}}})]


async def test_a_record_of_a_service_outlives_its_restarts_and_is_kept_by_its_services_alone():
    recorder = Recorder()
    async with RunServices() as services:
        record = services.record("a", list)
        record.append("failed once")
        await services.open("a", recorder.service)
        services.forget("a")  # the service ended: the next open starts it again, its record stays
        assert services.record("a", list) is record == ["failed once"]
    assert RunServices().record("a", list) == []  # other services, other records
