"""One run, one runner: a second resume of a running run is refused; a run id keeps its inputs; results are kept or
resuming says why not (graphrt/checkpoint, graphrt/durable)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import anyio
import pytest

import graphrt
from graphrt import AgentContext, AgentInfo
from graphrt.checkpoint import CheckpointError, CheckpointStore, SQLiteStore
from graphrt.durable import arun_checkpointed

pytestmark = pytest.mark.anyio

# ----- the store's claims -----


def _second(store: CheckpointStore, tmp_path: Path) -> CheckpointStore:
    """Another connection to the same store, as another process would open it."""
    if isinstance(store, SQLiteStore):
        return SQLiteStore(store.location)
    from graphrt.checkpoint.postgres import PostgresStore

    return PostgresStore(store._url)


async def test_a_claimed_run_is_refused_to_another_connection_until_released(store: CheckpointStore, tmp_path: Path) -> None:
    other = _second(store, tmp_path)
    try:
        await store.claim_run("r1")
        with pytest.raises(CheckpointError, match="run 'r1' in .* is running elsewhere"):
            await other.claim_run("r1")
        await other.claim_run("r2")  # other runs are free
        await store.release_run("r1")
        await other.claim_run("r1")
        with pytest.raises(CheckpointError, match="running elsewhere"):
            await store.claim_run("r1")
    finally:
        await other.close()
    await store.claim_run("r1")  # closing a store ends its claims


async def test_a_store_refuses_its_own_second_claim(store: CheckpointStore) -> None:
    await store.claim_run("r1")
    with pytest.raises(CheckpointError, match="running elsewhere"):
        await store.claim_run("r1")


async def test_a_claim_ends_with_the_process_that_held_it(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    for target in ("sqlite", "postgres"):
        if target == "sqlite":
            location = str(tmp_path / "runs.db")
        else:
            location = request.getfixturevalue("postgres_url")
        holder = subprocess.Popen(
            [sys.executable, "-c", "import sys, anyio; from graphrt.checkpoint import open_store; "
             "store = open_store(sys.argv[1]); anyio.run(store.claim_run, 'r1'); print('held', flush=True); "
             "sys.stdin.read()", location],  # it holds the claim until it is killed
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert holder.stdout.readline() == "held\n"
        store = graphrt.checkpoint.open_store(location)
        try:
            with pytest.raises(CheckpointError, match="running elsewhere"):
                await store.claim_run("r1")
            holder.send_signal(signal.SIGKILL)
            holder.wait()
            # The database notices the closed connection at once, or nearly; the limit only guards against a hang.
            with anyio.move_on_after(60) as waited:
                while True:
                    try:
                        await store.claim_run("r1")
                        break
                    except CheckpointError:
                        await anyio.sleep(0.05)
            if waited.cancelled_caught:
                pytest.fail(f"{target}: the claim of a killed process was never released")
        finally:
            await store.close()
            holder.kill()


# ----- concurrent resumes -----

CHAIN = {
    "version": 0.5,
    "nodes": {
        "who": {"value": "Ada"},
        "first": {"agent": "stepAgent", "inputs": {"who": ":who"}},
        "second": {"agent": "stepAgent", "inputs": {"before": ":first.node"}},
        "third": {"agent": "stepAgent", "inputs": {"before": ":second.node"}, "isResult": True},
    },
}


def _steps(calls: list[str], before: Callable[[str], Any]) -> list[AgentInfo]:
    async def step(ctx: AgentContext) -> Any:
        calls.append(ctx.node_id)
        await before(ctx.node_id)
        return {"node": ctx.node_id}

    return [AgentInfo("stepAgent", step)]


async def test_a_second_resume_of_a_running_run_is_refused_and_runs_nothing(store: CheckpointStore, tmp_path: Path) -> None:
    calls: list[str] = []
    failing = {"second"}

    async def fail_second(node_id: str) -> None:
        if node_id in failing:
            raise RuntimeError("down")

    with pytest.raises(graphrt.AgentError):
        await arun_checkpointed(graphrt.Graph(CHAIN, agents=_steps(calls, fail_second)), store, run_id="r1")
    failing.clear()
    started, go_on = anyio.Event(), anyio.Event()

    async def hold_second(node_id: str) -> None:
        if node_id == "second":
            started.set()
            await go_on.wait()

    other = _second(store, tmp_path)
    try:
        async with anyio.create_task_group() as group:
            first_results: list[dict] = []

            async def first_resume() -> None:
                first_results.append(await graphrt.aresume(store, "r1", agents=_steps(calls, hold_second)))

            group.start_soon(first_resume)
            await started.wait()
            with pytest.raises(CheckpointError, match="running elsewhere"):
                await graphrt.aresume(other, "r1", agents=_steps(calls, hold_second))
            go_on.set()
    finally:
        await other.close()

    assert first_results == [{"third": {"node": "third"}}]
    assert calls == ["first", "second", "second", "third"]  # nothing ran twice but the failed node


# ----- a run id keeps its inputs -----

NAMED = {"version": 0.5, "nodes": {"name": {"value": "nobody"},
                                   "hello": {"agent": "copyAgent", "inputs": {"to": ":name"}, "isResult": True}}}


async def test_a_run_id_used_again_with_other_inputs_is_an_error(store: CheckpointStore) -> None:
    graph = graphrt.Graph(NAMED)
    assert await arun_checkpointed(graph, store, run_id="x", inject={"name": "Ada"}) == {"hello": {"to": "Ada"}}

    with pytest.raises(CheckpointError, match="run 'x' in .* was started with other values for 'name'; use a new run id"):
        await arun_checkpointed(graph, store, run_id="x", inject={"name": "Bob"})

    assert await arun_checkpointed(graph, store, run_id="x", inject={"name": "Ada"}) == {"hello": {"to": "Ada"}}
    assert await arun_checkpointed(graphrt.Graph(NAMED), store, run_id="x") == {"hello": {"to": "Ada"}}


# ----- results JSON cannot hold -----


async def test_results_that_could_not_be_saved_make_resume_say_so(tmp_path: Path) -> None:
    async def deep(ctx: AgentContext) -> Any:
        value: Any = "bottom"
        for _ in range(300):
            value = [value]
        return value

    agents = [AgentInfo("deepAgent", deep)]
    graph = graphrt.Graph({"version": 0.5, "nodes": {"d": {"agent": "deepAgent", "isResult": True}}}, agents=agents)
    results = await arun_checkpointed(graph, tmp_path / "runs.db", run_id="r1")
    assert isinstance(results["d"], list)

    with pytest.raises(CheckpointError, match="run 'r1' completed, but its results were not saved: JSON cannot hold "
                                              r"them \(nested more than 200 levels deep\); run the graph again"):
        await graphrt.aresume(tmp_path / "runs.db", "r1", agents=agents)
