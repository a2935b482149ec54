"""Checkpoint files that are not the user's own are refused; GET /runs reads a page, never the whole store."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

import graphrt
from graphrt.checkpoint import SQLiteStore
from graphrt.checkpoint.errors import CheckpointError
from graphrt.checkpoint.records import RunRecord
from graphrt.durable import arun_checkpointed

from ..serve.conftest import HELLO

pytestmark = pytest.mark.anyio

GRAPH = {"version": 0.5, "nodes": {"a": {"value": 1}, "b": {"agent": "copyAgent", "inputs": {"a": ":a"},
                                                             "isResult": True}}}


async def test_a_dangling_symlink_as_the_checkpoint_is_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere" / "stolen.db"
    target.parent.mkdir()
    (tmp_path / "runs.db").symlink_to(target)
    with pytest.raises(CheckpointError, match="is a symbolic link"):
        await arun_checkpointed(graphrt.Graph(GRAPH), str(tmp_path / "runs.db"))
    assert not target.exists()


async def test_a_checkpoint_file_of_another_user_or_writable_by_all_is_refused(tmp_path: Path) -> None:
    planted = tmp_path / "runs.db"
    planted.touch()
    os.chmod(planted, 0o666)
    with pytest.raises(CheckpointError, match="can be written by any user"):
        await arun_checkpointed(graphrt.Graph(GRAPH), str(planted))
    if os.geteuid() == 0:
        os.chown(planted, 65534, 65534)  # nobody's
        with pytest.raises(CheckpointError, match="belongs to another user"):
            await arun_checkpointed(graphrt.Graph(GRAPH), str(planted))
    own = tmp_path / "own.db"
    assert await arun_checkpointed(graphrt.Graph(GRAPH), str(own)) == {"b": {"a": 1}}
    assert await arun_checkpointed(graphrt.Graph(GRAPH), str(own)) == {"b": {"a": 1}}  # its own file again


def test_get_runs_reads_a_page_never_the_whole_store(serve, tmp_path: Path, monkeypatch) -> None:
    served = serve({"hello.yaml": HELLO})
    graph_file = str((served.folder / "hello.yaml").resolve())

    async def fill() -> None:
        store = SQLiteStore(tmp_path / "runs.db")
        for number in range(3000):
            await store.create_run(RunRecord(f"r{number:05d}", graph_file, HELLO, "h", status="completed",
                                             created_at=1000.0 + number, updated_at=1000.0 + number))
        await store.close()

    anyio.run(fill)

    async def whole_store(self):  # noqa: ANN001
        raise AssertionError("GET /runs read every run of the store")

    monkeypatch.setattr(SQLiteStore, "runs", whole_store)
    with served.client() as client:
        first = client.get("/runs", params={"limit": 1}).json()["runs"]
        assert [run["id"] for run in first] == ["r02999"]
        page = client.get("/runs", params={"limit": 3, "offset": 10}).json()["runs"]
        assert [run["id"] for run in page] == ["r02989", "r02988", "r02987"]
        assert client.get("/runs", params={"offset": "x"}).status_code == 400
