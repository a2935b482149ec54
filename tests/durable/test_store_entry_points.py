"""Checkpoint stores are found through the entry point group graphrt.checkpoint_stores, by the URL scheme they open."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from graphrt.base.entry_points import by_name
from graphrt.checkpoint import (
    STORE_GROUP,
    CheckpointError,
    SQLiteStore,
    describe_targets,
    location_of,
    open_store,
    store_class,
)
from graphrt.checkpoint.postgres import PostgresStore
from graphrt.cli import main

ROOT = Path(__file__).resolve().parents[2]

MEMO_STORE = '''
    from pathlib import Path

    from graphrt.checkpoint.sqlite import SQLiteStore

    FOLDER = Path(__file__).parent


    class MemoStore(SQLiteStore):
        """memo://NAME: a SQLite file NAME.memo next to this module."""

        schemes = ("memo",)
        extra = "demo-store[memo]"

        def __init__(self, target):
            super().__init__(FOLDER / (str(target).removeprefix("memo://") + ".memo"))
            self.location = self.shown(target)

        @classmethod
        def shown(cls, target):
            return str(target).split("@")[-1]
'''


@pytest.fixture
def memo_store(installed_package) -> Path:
    """A third-party store, installed by an entry point only."""
    return installed_package("demo-store", entry_points={STORE_GROUP: {"memo": "demo_memo_store:MemoStore"}},
                             demo_memo_store=MEMO_STORE)


def test_a_file_path_opens_a_sqlite_store(tmp_path: Path) -> None:
    for target in (str(tmp_path / "runs.db"), tmp_path / "runs.db", "runs.db", ":memory:"):
        store = open_store(target)
        assert type(store) is SQLiteStore and store.location == str(target)


@pytest.mark.needs("postgres")
def test_a_postgresql_url_opens_a_postgres_store_that_shows_no_password() -> None:
    for scheme in ("postgresql", "postgres"):
        store = open_store(f"{scheme}://me:hunter2@127.0.0.1:5432/graphrt")
        assert type(store) is PostgresStore and store.location == f"{scheme}://me:REDACTED@127.0.0.1:5432/graphrt"
        assert location_of(f"{scheme}://me:hunter2@127.0.0.1/db") == f"{scheme}://me:REDACTED@127.0.0.1/db"


def test_a_store_is_used_as_it_is() -> None:
    store = SQLiteStore(":memory:")
    assert open_store(store) is store and location_of(store) == ":memory:"


@pytest.mark.needs("postgres")  # store_class looks for the modules of the class's extra
def test_every_scheme_of_graphrt_is_an_entry_point_of_the_class_that_opens_it() -> None:
    builtin = {name: point for name, point in by_name(STORE_GROUP).items() if point.builtin}
    classes = {store_class(f"{name}://x") for name in builtin}
    assert classes == {SQLiteStore, PostgresStore}
    assert sorted(builtin) == sorted(scheme for cls in classes for scheme in cls.schemes) == ["file", "postgres", "postgresql"]


def test_an_unknown_scheme_names_the_installed_stores() -> None:
    with pytest.raises(CheckpointError) as caught:
        open_store("redis://127.0.0.1/0")
    assert str(caught.value) == (
        "no checkpoint store opens a redis:// URL; the installed stores open a file path or a postgres:// or "
        "postgresql:// URL"
    )


def test_a_target_of_another_type_is_refused() -> None:
    with pytest.raises(CheckpointError) as caught:
        open_store(42)  # type: ignore[arg-type]
    assert str(caught.value) == (
        "a checkpoint must be a file path or a postgres:// or postgresql:// URL, or a store; got int"
    )


def test_a_third_party_store_is_opened_by_its_scheme(memo_store: Path) -> None:
    store = open_store("memo://user:secret@runs")
    assert type(store).__name__ == "MemoStore" and store.location == "runs"
    assert location_of("memo://user:secret@runs") == "runs"
    assert describe_targets() == "a file path, a memo:// URL or a postgres:// or postgresql:// URL"


def test_a_run_saves_to_a_third_party_store(memo_store: Path, tmp_path: Path) -> None:
    graph = tmp_path / "hello.yaml"
    graph.write_text("version: 0.5\nnodes:\n  n:\n    value: 1\n  out:\n    agent: copyAgent\n"
                     "    inputs: {v: ':n'}\n    isResult: true\n")
    assert main(["run", str(graph), "-q", "--checkpoint", "memo://saved", "--run-id", "r1"]) == 0
    assert (memo_store / "saved.memo").exists()

    async def saved() -> list[tuple[str, str]]:
        store = open_store("memo://saved")
        try:
            return [(record.run_id, record.status) for record in await store.runs()]
        finally:
            await store.close()

    assert anyio.run(saved) == [("r1", "finished")]


def test_the_help_lists_the_installed_stores(memo_store: Path, capsys) -> None:
    with pytest.raises(SystemExit):
        main(["resume", "--help"])
    assert ("the store the run is saved in: a file path, a memo:// URL or a postgres:// or postgresql:// URL"
            in " ".join(capsys.readouterr().out.split()))


@pytest.mark.parametrize(("name", "value", "why"), [
    ("gone", "demo_missing_store:Store", "cannot be loaded: ModuleNotFoundError: No module named 'demo_missing_store'"),
    ("other", "demo_memo_store:MemoStore", "opens memo, not other"),
    ("plain", "os:sep", "is not a store class: it has no schemes, extra, requires, shown"),
], ids=["unloadable", "misnamed", "not-a-store"])
def test_a_bad_store_entry_point_is_named(memo_store: Path, installed_package, name: str, value: str, why: str) -> None:
    installed_package("demo-bad", entry_points={STORE_GROUP: {name: value}})
    with pytest.raises(CheckpointError) as caught:
        open_store(f"{name}://x")
    assert str(caught.value) == f"checkpoint store '{name} = {value}' (entry point group graphrt.checkpoint_stores) {why}"


MISSING_EXTRA = ("graphrt: a postgresql:// checkpoint store needs graphrt[postgres], which is not installed (no module "
                 "psycopg): pip install 'graphrt[postgres]'\n")


@pytest.mark.parametrize("command", [
    ["run", str(ROOT / "graphs" / "hello.yaml"), "--checkpoint", "URL"],
    ["run", str(ROOT / "graphs" / "hello.yaml"), "--checkpoint", "URL", "--run-id", "r1", "-q"],
    ["resume", "--checkpoint", "URL", "--run-id", "r1"],
    ["fork", "--checkpoint", "URL", "--run-id", "r1", "--from", "x"],
    ["batch", str(ROOT / "graphs" / "hello.yaml"), "rows.jsonl", "--checkpoint", "URL"],
], ids=["run", "run-quiet", "resume", "fork", "batch"])
def test_a_missing_extra_is_the_one_line_said(tmp_path: Path, command: list[str]) -> None:
    """Without psycopg (hidden from this process), a postgresql:// checkpoint says what to install, and nothing
    else: not that the run saves there, nor that nothing of it was saved."""
    (tmp_path / "rows.jsonl").write_text('{"id": 1}\n', encoding="utf-8")
    code = ("import sys; sys.modules['psycopg'] = None; from graphrt.cli import main; "
            "sys.exit(main(sys.argv[1:]))")
    url = "postgresql://me:hunter2@127.0.0.1/graphrt"
    done = subprocess.run([sys.executable, "-c", code, *(url if word == "URL" else word for word in command)],
                          capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}, timeout=120)
    assert (done.returncode, done.stderr, done.stdout) == (1, MISSING_EXTRA, "")


def test_the_store_class_of_a_target_says_when_its_extra_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphrt.base import extras

    monkeypatch.setattr(extras, "missing", lambda modules: tuple(modules))  # nothing is installed
    for chosen in (store_class, location_of, open_store):
        with pytest.raises(CheckpointError) as caught:
            chosen("postgresql://me:hunter2@127.0.0.1/graphrt")
        assert f"graphrt: {caught.value}\n" == MISSING_EXTRA
    assert store_class("runs.db") is SQLiteStore  # it needs nothing more
