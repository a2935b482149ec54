"""Fault injection into every checkpoint write and read: each fails once, in turn, and damaged rows and columns.

Whatever fails, the run ends with its results or a GraphError (a CheckpointError naming the store), never
another exception; and resuming with a healthy store then gives exactly the results of an uninterrupted run,
with no completed node run twice but the one that was running (no data lost).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import anyio
import pytest

import graphrt
from graphrt import AgentContext, AgentInfo
from graphrt.base.errors import GraphError
from graphrt.checkpoint import CheckpointError, SQLiteStore
from graphrt.durable import arun_checkpointed

pytestmark = pytest.mark.anyio

GRAPH = {
    "version": 0.5,
    "loop": {"count": 2},
    "nodes": {
        "seen": {"value": [], "update": ":push.array"},
        "token": {"value": "tok-ABCDEFGH12345"},
        "first": {"agent": "stepAgent", "inputs": {"i": "@loop", "token": ":token"}},
        "second": {"agent": "stepAgent", "inputs": {"i": "@loop", "before": ":first.node"}},
        "push": {"agent": "pushAgent", "inputs": {"array": ":seen", "item": ":second"}, "isResult": True},
    },
}

METHODS = ("claim_run", "get_run", "create_run", "update_run", "finish_run", "add_row", "add_rows", "get_rows",
           "release_run")


class FaultyStore:
    """A real SQLite store whose `fail_at`-th call (counting every method) raises a driver error once."""

    def __init__(self, path: Path, fail_at: int | None = None, damage: str | None = None) -> None:
        self.store = SQLiteStore(path)
        self.location = self.store.location
        self.calls: list[str] = []
        self.fail_at = fail_at

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.store, name)
        if name not in METHODS:
            return method

        async def call(*args: Any, **kwargs: Any) -> Any:
            self.calls.append(name)
            if len(self.calls) - 1 == self.fail_at:
                raise sqlite3.OperationalError("disk I/O error")
            return await method(*args, **kwargs)

        return call


def _agents(calls: list[str]) -> list[AgentInfo]:
    async def step(ctx: AgentContext) -> Any:
        calls.append(f"{ctx.node_id}@{ctx.inputs['i']}")
        return {"node": ctx.node_id, **ctx.inputs}

    return [AgentInfo("stepAgent", step)]


async def _plain() -> dict:
    return await graphrt.Graph(GRAPH, agents=_agents([])).arun()


async def _reference_calls(tmp_path: Path) -> list[str]:
    store = FaultyStore(tmp_path / "reference.db")
    await arun_checkpointed(graphrt.Graph(GRAPH, agents=_agents([])), store, run_id="r1")
    await graphrt.aresume(store, "r1", agents=_agents([]))  # reads of a completed run
    await store.close()
    return store.calls


async def test_every_write_and_read_can_fail_once_without_a_traceback_or_lost_data(tmp_path: Path) -> None:
    expected = await _plain()
    calls = await _reference_calls(tmp_path)
    assert set(calls) >= {"claim_run", "get_run", "create_run", "finish_run", "add_row", "add_rows", "release_run"}
    outcomes = {"results": 0, "clean errors": 0}
    for fail_at in range(len(calls) + 1):
        path = tmp_path / f"fault{fail_at}.db"
        faulty = FaultyStore(path, fail_at)
        ran: list[str] = []
        try:
            results = await arun_checkpointed(graphrt.Graph(GRAPH, agents=_agents(ran)), faulty, run_id="r1")
            assert results == expected
            results = await graphrt.aresume(faulty, "r1", agents=_agents(ran))  # a completed run reads its results
            outcomes["results"] += 1
        except GraphError as error:  # anything else fails the test: a traceback
            assert isinstance(error, CheckpointError), error
            # The failed call itself, or, after a failed release, the claim this store still holds.
            assert "disk I/O error" in str(error) or "is running elsewhere" in str(error), error
            outcomes["clean errors"] += 1
        finally:
            await faulty.close()

        healthy = SQLiteStore(path)
        try:
            saved = await healthy.get_run("r1")
            if saved is None:
                results = await arun_checkpointed(graphrt.Graph(GRAPH, agents=_agents(ran)), healthy, run_id="r1")
            else:
                results = await graphrt.aresume(healthy, "r1", agents=_agents(ran))
        finally:
            await healthy.close()
        assert results == expected, f"data lost when call {fail_at} ({calls[fail_at] if fail_at < len(calls) else '-'}) failed"
        repeated = [call for call in set(ran) if ran.count(call) > 1]
        assert len(repeated) <= 1, f"call {fail_at}: {repeated} ran twice"
    assert outcomes["clean errors"] > 0 and sum(outcomes.values()) == len(calls) + 1


async def _failed_run(path: Path) -> None:
    failing = {"second@1"}

    async def step(ctx: AgentContext) -> Any:
        label = f"{ctx.node_id}@{ctx.inputs['i']}"
        if label in failing:
            raise RuntimeError("down")
        return {"node": ctx.node_id, **ctx.inputs}

    with pytest.raises(graphrt.AgentError):
        await arun_checkpointed(graphrt.Graph(GRAPH, agents=[AgentInfo("stepAgent", step)]), path, run_id="r1")


@pytest.mark.parametrize("damage, what", [
    ("UPDATE graphrt_rows SET value = '{\"seen\": [' WHERE kind = 'iteration'", "run 'r1', iteration 1, 'iteration' row ''"),
    ("UPDATE graphrt_rows SET value = '[1, 2]' WHERE kind = 'iteration'", "run 'r1', iteration 1, 'iteration' row ''"),
    ("UPDATE graphrt_rows SET value = 'nan-sense' WHERE key = 'first'", "run 'r1', iteration 1, 'node' row 'first'"),
    ("UPDATE graphrt_rows SET kind = 'bogus' WHERE key = 'first'", "run 'r1', iteration 1, 'bogus' row 'first'"),
    ("UPDATE graphrt_runs SET config = '{oops'", "run 'r1', column 'config'"),
    ("UPDATE graphrt_runs SET injected = 'x'", "run 'r1', column 'injected'"),
    ("UPDATE graphrt_runs SET detail = '[]'", "run 'r1', column 'detail'"),
    ("UPDATE graphrt_runs SET status = 'weird'", "run 'r1'"),
])
async def test_a_damaged_row_or_column_says_the_checkpoint_is_damaged(tmp_path: Path, damage: str, what: str) -> None:
    path = tmp_path / "runs.db"
    await _failed_run(path)
    with sqlite3.connect(path) as db:
        db.execute(damage)

    with pytest.raises(CheckpointError, match=f"^checkpoint is damaged: {what}") as caught:
        await graphrt.aresume(path, "r1", agents=_agents([]))
    assert "cannot read" in str(caught.value) or "cannot be read" in str(caught.value)


def test_the_command_reports_a_damaged_checkpoint_in_one_line(tmp_path: Path, capsys) -> None:
    from graphrt.cli import main

    graph, path = tmp_path / "ask.yaml", tmp_path / "runs.db"
    graph.write_text("version: 0.5\nnodes:\n  s: {value: tea}\n  first: {agent: copyAgent, inputs: {x: ':s'}}\n"
                     "  ask: {agent: textInputAgent, inputs: {x: ':first.x'}, params: {message: 'More?'}, isResult: true}\n")
    assert main(["run", "-q", str(graph), "--checkpoint", str(path), "--run-id", "r1"]) != 0
    with sqlite3.connect(path) as db:
        db.execute("UPDATE graphrt_rows SET value = '{' WHERE key = 'first'")
    capsys.readouterr()

    assert main(["resume", "--checkpoint", str(path), "--run-id", "r1", "--answer", "yes"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("graphrt: checkpoint is damaged: run 'r1', iteration 0, 'node' row 'first' cannot be read")
    assert "Traceback" not in err
