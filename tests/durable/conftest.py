"""Fixtures for durable runs: checkpoint stores (SQLite, and PostgreSQL on a throwaway server) and recording agents.

The PostgreSQL server is a cluster made with initdb in a temporary folder and
started with pg_ctl on a free 127.0.0.1 port, once per session; each test gets
its own schema. Without the server binaries (Debian: `apt-get install
postgresql`) or psycopg (`pip install -e '.[postgres]'`) the PostgreSQL tests
are skipped, and say why (tests/conftest.py's `need`); with GRAPHRT_REQUIRE_POSTGRES=1 they fail instead.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path
from typing import Any, Iterator

import anyio
import pytest

import graphrt
from graphrt.authoring.agent_info import AgentContext, AgentInfo
from graphrt.checkpoint import CheckpointStore, SQLiteStore

from ..conftest import need, pg_binary


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PostgresServer:
    """A throwaway PostgreSQL cluster; `url(schema)` connects to a schema of its own."""

    def __init__(self) -> None:
        self.initdb, self.pg_ctl = pg_binary("initdb"), pg_binary("pg_ctl")
        self.folder = Path(tempfile.mkdtemp(prefix="graphrt-pg-"))
        self.data = self.folder / "data"
        self.port = _free_port()
        self._as: list[str] = []
        if os.geteuid() == 0:  # initdb and postgres refuse to run as root
            user = "postgres" if _has_user("postgres") else "nobody"
            shutil.chown(self.folder, user)
            self._as = ["runuser", "-u", user, "--"]

    def start(self) -> "PostgresServer":
        subprocess.run([*self._as, self.initdb, "-D", str(self.data), "-A", "trust", "-U", "graphrt", "-E", "UTF8",
                        "--no-sync"], check=True, capture_output=True)
        options = f"-h 127.0.0.1 -p {self.port} -k {self.folder} -F -c fsync=off"
        subprocess.run([*self._as, self.pg_ctl, "-D", str(self.data), "-o", options, "-l", str(self.folder / "log"),
                        "-w", "start"], check=True, capture_output=True)
        return self

    def url(self, schema: str | None = None) -> str:
        base = f"postgresql://graphrt@127.0.0.1:{self.port}/postgres"
        return f"{base}?options=-csearch_path%3D{schema}" if schema else base

    def stop(self) -> None:
        subprocess.run([*self._as, self.pg_ctl, "-D", str(self.data), "-m", "immediate", "stop"], capture_output=True)
        shutil.rmtree(self.folder, ignore_errors=True)


def _has_user(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def started_postgres() -> Iterator[PostgresServer]:
    """A PostgreSQL server started, yielded and stopped (skipped without the binaries or psycopg)."""
    need("postgres", "initdb")
    server = PostgresServer()
    try:
        server.start()
    except subprocess.CalledProcessError as error:
        server.stop()
        pytest.fail(f"could not start PostgreSQL: {error.stderr.decode(errors='replace')[-500:]}")
    yield server
    server.stop()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server for this test session."""
    yield from started_postgres()


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    """A connection URL whose search_path is a fresh, empty schema."""
    import psycopg

    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_server.url(), autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {schema}")
    return postgres_server.url(schema)


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[CheckpointStore]:
    """Each checkpoint store, empty."""
    if request.param == "sqlite":
        opened: CheckpointStore = SQLiteStore(tmp_path / "runs.db")
    else:
        from graphrt.checkpoint.postgres import PostgresStore

        opened = PostgresStore(request.getfixturevalue("postgres_url"))
    yield opened
    anyio.run(opened.close)


class Recorder:
    """Agents that note each call in `calls`: `recordAgent` returns its inputs (and fails while its
    label is in `failing`), `askAgent` asks `params.question` and returns the answer."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.failing: set[str] = set()

    @staticmethod
    def label(ctx: AgentContext) -> str:
        """The node id, with `@i` when the node has an input `i` (the loop counter, say)."""
        return f"{ctx.node_id}@{ctx.inputs['i']}" if "i" in ctx.inputs else ctx.node_id

    async def record(self, ctx: AgentContext) -> Any:
        label = self.label(ctx)
        self.calls.append(label)
        if label in self.failing:
            raise RuntimeError(f"{label} is broken")
        return {"node": ctx.node_id, **ctx.inputs}

    async def ask(self, ctx: AgentContext) -> Any:
        self.calls.append(self.label(ctx))
        return {"answer": ctx.ask(ctx.params.get("question", "?"))}

    @property
    def agents(self) -> list[AgentInfo]:
        return [AgentInfo("recordAgent", self.record), AgentInfo("askAgent", self.ask)]

    def graph(self, data: Any, **options: Any) -> graphrt.Graph:
        return graphrt.Graph(data, agents=self.agents, **options)


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()
