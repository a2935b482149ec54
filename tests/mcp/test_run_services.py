"""RunServices: one service per key, opened once, shared, failures kept, everything closed at the end."""

from __future__ import annotations

from contextlib import asynccontextmanager

import anyio
import pytest

from graphrt.authoring.services import RunServices, ServiceFailed

pytestmark = pytest.mark.anyio


class Recorder:
    def __init__(self) -> None:
        self.opened = 0
        self.closed = 0

    @asynccontextmanager
    async def service(self):
        self.opened += 1
        await anyio.sleep(0.01)
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


async def test_a_service_still_opening_is_cancelled_at_the_end_without_the_grace_wait():
    @asynccontextmanager
    async def never():
        await anyio.sleep(3600)
        yield  # pragma: no cover

    started = anyio.current_time()
    async with RunServices() as services:
        with anyio.move_on_after(0.1):
            await services.open("slow", never)
    assert anyio.current_time() - started < 2


async def test_open_outside_async_with_is_an_error():
    with pytest.raises(RuntimeError, match="not open"):
        await RunServices().open("a", Recorder().service)


async def test_a_run_without_config_opens_no_services_and_one_with_config_does():
    import graphrt

    seen = []

    async def record(ctx):
        seen.append((ctx.services.is_open, dict(ctx.services.config)))
        return {}

    agent = graphrt.AgentInfo(name="recordServices", func=record)
    graph = {"version": 0.5, "nodes": {"r": {"agent": "recordServices"}}}
    await graphrt.arun(graph, agents=[agent])
    await graphrt.arun(graph, agents=[agent], config={"mcp": {"mcpServers": {}}})
    assert seen == [(False, {}), (True, {"mcp": {"mcpServers": {}}})]
