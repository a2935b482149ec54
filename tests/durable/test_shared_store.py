"""Runs at once given the same file path share one store: one connection, their writes one commit; each still
claims its run, and the file is closed when the last ends (graphrt/checkpoint/shared.py)."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import anyio
import pytest

import graphrt
from graphrt import AgentContext, AgentInfo
from graphrt.checkpoint import CheckpointError, SQLiteStore
from graphrt.checkpoint import sqlite as sqlite_store
from graphrt.durable import arun_checkpointed

pytestmark = pytest.mark.anyio

CHAIN = {"version": 0.5, "nodes": {
    "n": {"value": 0},
    "first": {"agent": "holdAgent", "inputs": {"n": ":n"}},
    "second": {"agent": "copyAgent", "inputs": {"first": ":first"}, "isResult": True}}}


def _holding(inside: list[int], both_in: anyio.Event) -> list[AgentInfo]:
    """An agent that waits until `len(inside)` runs are in it: the runs are at once, not in turn."""

    async def hold(ctx: AgentContext) -> Any:
        inside.append(ctx.inputs["n"])
        if len(inside) == 2:
            both_in.set()
        await both_in.wait()
        return {"n": ctx.inputs["n"]}

    return [AgentInfo("holdAgent", hold)]


def _counting_connections(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files the SQLite stores made from now on open, one entry per connection."""
    opened: list[str] = []
    connect = sqlite_store._connect

    def counted(path: str, *args: Any) -> Any:
        opened.append(path)
        return connect(path, *args)

    monkeypatch.setattr(sqlite_store, "_connect", counted)
    return opened


@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_runs_at_once_given_one_path_share_one_connection(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened = _counting_connections(monkeypatch)
    inside: list[int] = []
    graph = graphrt.Graph(CHAIN, agents=_holding(inside, anyio.Event()))
    results: dict[int, Any] = {}

    async def one(n: int) -> None:
        results[n] = await arun_checkpointed(graph, tmp_path / "runs.db", run_id=f"r{n}", inject={"n": n})

    async with anyio.create_task_group() as group:
        group.start_soon(one, 1)
        group.start_soon(one, 2)

    assert results == {1: {"second": {"first": {"n": 1}}}, 2: {"second": {"first": {"n": 2}}}}
    assert len(opened) == 1  # one connection for both runs (each opened its own before)
    # Each run's record and rows are committed, and the file was closed with the last run: another store reads them.
    other = SQLiteStore(tmp_path / "runs.db")
    try:
        for n in (1, 2):
            record = await other.get_run(f"r{n}")
            assert record is not None and record.status == "finished"
            assert {row.key for row in await other.get_rows(f"r{n}") if row.kind == "node"} == {"first", "second"}
    finally:
        await other.close()
    assert not (tmp_path / "runs.db-wal").exists()  # SQLite removes the WAL when its last connection closes


async def test_a_run_after_the_last_one_ended_opens_the_file_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened = _counting_connections(monkeypatch)
    graph = graphrt.Graph({"version": 0.5, "nodes": {"a": {"value": 1}, "b": {"agent": "copyAgent",
                                                                              "inputs": {"a": ":a"}, "isResult": True}}})
    for n in range(2):
        assert await arun_checkpointed(graph, tmp_path / "runs.db", run_id=f"r{n}") == {"b": {"a": 1}}
    assert len(opened) == 2  # closed by the first run, opened again by the second


async def test_the_same_run_at_once_through_one_shared_store_is_refused(tmp_path: Path) -> None:
    inside: list[int] = []
    both_in = anyio.Event()
    graph = graphrt.Graph(CHAIN, agents=_holding(inside, both_in))
    outcomes: list[Any] = []

    async def one() -> None:
        try:
            outcomes.append(await arun_checkpointed(graph, tmp_path / "runs.db", run_id="r1", inject={"n": 1}))
        except CheckpointError as error:
            outcomes.append(str(error))
            both_in.set()  # the first run goes on alone

    async with anyio.create_task_group() as group:
        group.start_soon(one)
        group.start_soon(one)

    refused = [outcome for outcome in outcomes if isinstance(outcome, str)]
    assert [outcome for outcome in outcomes if not isinstance(outcome, str)] == [{"second": {"first": {"n": 1}}}]
    assert len(refused) == 1 and f"run 'r1' in {tmp_path / 'runs.db'} is running elsewhere" in refused[0]
    assert inside == [1]


# ----- a finished run is freed at once -----

CHAIN_YAML = """\
version: 0.5
nodes:
  n:
    value: 0
  a:
    agent: copyAgent
    inputs:
      n: :n
  b:
    agent: copyAgent
    inputs:
      a: :a
    isResult: true
"""


async def test_a_finished_checkpointed_run_leaves_no_garbage_cycles(tmp_path: Path) -> None:
    """A run, its Graph (built per run) and its checkpoint writer are freed when the run returns, by reference
    counting: cycles among them waited for the garbage collector, which 50 runs at once made collect the older
    generations (issue 44)."""
    (tmp_path / "chain.yaml").write_text(CHAIN_YAML, encoding="utf-8")
    store = SQLiteStore(tmp_path / "runs.db")

    async def one(n: int) -> None:
        graph = graphrt.Graph(tmp_path / "chain.yaml")
        assert await arun_checkpointed(graph, store, inject={"n": n}) == {"b": {"a": {"n": n}}}
        assert await arun_checkpointed(graph, tmp_path / "other.db", inject={"n": n}) == {"b": {"a": {"n": n}}}

    try:
        await one(0)  # what a first run makes once (compiled patterns, the store's connection)
        gc.collect()
        gc.disable()
        try:
            for n in range(1, 4):
                await one(n)
            assert gc.collect() == 0
        finally:
            gc.enable()
    finally:
        await store.close()


# ----- a Graph built per run -----


async def test_graphs_built_again_from_one_file_are_saved_with_their_own_config_and_file(tmp_path: Path) -> None:
    """What a record holds of its graph is worked out once per text and config (issue 44): a Graph of the same text
    with another config saves that config, its credentials left out, and each record names its own file."""
    for folder in ("one", "two"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "chain.yaml").write_text(CHAIN_YAML, encoding="utf-8")
    store = SQLiteStore(tmp_path / "runs.db")
    configs = [{}, {"openAIAgent": {"apiKey": "sk-config-secret-1234"}}, {}]
    files = [tmp_path / "one" / "chain.yaml", tmp_path / "one" / "chain.yaml", tmp_path / "two" / "chain.yaml"]
    try:
        for n, (config, file) in enumerate(zip(configs, files)):
            graph = graphrt.Graph(file, config=config)
            assert await arun_checkpointed(graph, store, run_id=f"r{n}", inject={"n": n}) == {"b": {"a": {"n": n}}}
        records = [await store.get_run(f"r{n}") for n in range(3)]
    finally:
        await store.close()
    assert [record.config for record in records] == [{}, {"openAIAgent": {"apiKey": "REDACTED"}}, {}]
    assert [record.graph_file for record in records] == [str(file.resolve()) for file in files]
    assert len({record.graph_hash for record in records}) == 1
