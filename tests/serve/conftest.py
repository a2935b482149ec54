"""Fixtures for graphrt serve: a real server (uvicorn) on a free loopback port, in a thread or a process.

Without the serve extra (`pip install -e '.[serve]'`) the fixtures that start a server skip their tests
(tests/conftest.py's `need`); the constants and helpers here need nothing more.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from graphrt.engine.graph import make_registry

from ..conftest import need
from ..waiting import wait_until

HERE = Path(__file__).parent

# `slow` stands for work that takes a while; no test depends on its length (the viewer's holds its node at a gate).
SLOW_ASK = """\
version: 0.5
nodes:
  topic:
    value: graphs
  slow:
    agent: sleeperAgent
    params:
      duration: 1200
    inputs:
      topic: :topic
  name:
    agent: textInputAgent
    inputs:
      after: :slow
    params:
      message: What is your name?
  greeting:
    agent: stringTemplateAgent
    inputs:
      name: :name.text
      topic: :slow.topic
    params:
      template: Hello, ${name}! Welcome to ${topic}.
    isResult: true
"""

# A run that stops to ask a person (textInputAgent), then greets them.
ASK = """\
version: 0.5
nodes:
  name:
    agent: textInputAgent
    params:
      message: What is your name?
  greeting:
    agent: stringTemplateAgent
    inputs:
      name: :name.text
    params:
      template: Hello, ${name}!
    isResult: true
"""

HELLO = """\
version: 0.5
nodes:
  name:
    value: World
  greeting:
    agent: stringTemplateAgent
    inputs:
      name: :name
    params:
      template: Hello, ${name}!
    isResult: true
"""


@dataclass
class Served:
    url: str
    app: Any
    server: Any
    thread: threading.Thread
    folder: Path
    checkpoint: Any = None

    @property
    def service(self) -> Any:
        return self.app.state.service

    def client(self, **options: Any) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=30, **options)


@pytest.fixture(scope="session")
def serve_postgres() -> Iterator[Any]:
    """A throwaway PostgreSQL server for serve's tests (tests/durable/conftest.py's, started for this session)."""
    from ..durable.conftest import started_postgres

    yield from started_postgres()


@pytest.fixture(params=["sqlite", "postgres"])
def checkpoint(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a test's server saves its runs: a SQLite file, or a fresh schema of a PostgreSQL server."""
    if request.param == "sqlite":
        return str(tmp_path / "runs.db")
    import uuid

    server = request.getfixturevalue("serve_postgres")  # skipped here without PostgreSQL
    import psycopg

    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server.url(), autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {schema}")
    return server.url(schema)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., Served]]:
    """`serve({"name.yaml": text}, agents=[...], config={...}, extensions=..., lease=..., **ServerSettings fields)`:
    a server in a thread, stopped after the test."""
    need("serve")
    import uvicorn

    from graphrt.serve import GraphCatalog, create_app
    from graphrt.serve.settings import ServerSettings

    started: list[Served] = []

    def start(graphs: dict[str, str], *, agents: Any = None, checkpoint: Any = None, extensions: Any = (),
              lease: Any = None, config: Any = None, **settings: Any) -> Served:
        folder = tmp_path / "graphs"
        for name, text in graphs.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(text, encoding="utf-8")
        catalog = GraphCatalog([folder], make_registry(agents), config=config)
        checkpoint = checkpoint or str(tmp_path / "runs.db")
        app = create_app(catalog, checkpoint, ServerSettings(**settings), extensions=extensions, lease=lease)
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=free_port(), log_level="warning",
                                               timeout_graceful_shutdown=2))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        wait_until(lambda: server.started or not thread.is_alive(), "the server starting")
        if not server.started:
            raise RuntimeError("the server did not start")
        served = Served(f"http://127.0.0.1:{server.config.port}", app, server, thread, folder, checkpoint)
        started.append(served)
        return served

    yield start
    for served in started:
        served.server.should_exit = True
        served.thread.join(15)


def wait_for_status(client: httpx.Client, run_id: str, statuses: tuple[str, ...] = ("finished", "failed", "cancelled")
                    ) -> dict[str, Any]:
    """The run as `GET /runs/{id}` shows it once its event stream says it reached one of `statuses` (or ended).

    Waits on the run's Server-Sent Events; the client's read timeout guards against a hang.
    """
    seen = []
    with client.stream("GET", f"/runs/{run_id}/events") as response:
        for _, name, data in sse_events(response):
            if name == "RunStatus":
                seen.append(data["status"])
                if data["status"] in statuses:
                    return client.get(f"/runs/{run_id}").json()
    raise AssertionError(f"run {run_id} ended without being {' or '.join(statuses)} (it was {', '.join(seen)})")


def sse_events(response: httpx.Response) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(id, event name, data) of each Server-Sent Event of a streamed response."""
    import json

    event_id, name, data = "", "message", ""
    for line in response.iter_lines():
        if line == "":
            if data:
                yield event_id, name, json.loads(data)
            name, data = "message", ""
        elif line.startswith("id: "):
            event_id = line[4:]
        elif line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            data += line[6:]


def start_process(folder: Path, checkpoint: Path, port: int, *extra: str, env: dict[str, str] | None = None
                  ) -> subprocess.Popen:
    """`graphrt serve` as its own process (for kill -9), once it listens."""
    need("serve")
    process = subprocess.Popen(
        [sys.executable, "-m", "graphrt", "serve", str(folder), "--port", str(port),
         "--checkpoint", str(checkpoint), *extra],
        env={**os.environ, **(env or {})}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    def answers() -> bool:
        try:
            return httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    try:
        wait_until(lambda: process.poll() is not None or answers(), "graphrt serve answering /health")
    except AssertionError:
        process.kill()
        raise
    if process.poll() is not None:
        raise RuntimeError(f"graphrt serve exited: {process.stderr.read()}")
    return process
