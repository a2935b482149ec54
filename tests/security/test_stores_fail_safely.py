"""Stores under attack: a cancel, a broken connection, a reused run id, a store that saved nothing.

One PostgreSQL connection serves every run of a server, so what happens to one
run (a cancel in the middle of its write) must not break it for the others; a
connection that breaks anyway is replaced, and /health says when the store
does not answer. A run id used again continues that run only with exactly its
inputs. A hint to resume is given only for a run the store holds.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import uuid
from pathlib import Path

import anyio
import pytest

import graphrt
from graphrt.checkpoint.errors import CheckpointError
from graphrt.checkpoint.guard import GuardedStore
from graphrt.checkpoint.records import RunRecord
from graphrt.durable import arun_checkpointed

from ..serve.conftest import HELLO, wait_for_status
from ..waiting import wait_until

pytestmark = pytest.mark.anyio


def _admin(url: str):
    import psycopg

    return psycopg.connect(url, autocommit=True)


def _backends(admin, state_like: str = "%") -> list[int]:
    """The pids of the other connections to this database (the store's), whose wait is like `state_like`."""
    rows = admin.execute(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() "
        "AND backend_type = 'client backend' AND coalesce(wait_event_type, '') LIKE %s", (state_like,)).fetchall()
    return [pid for (pid,) in rows]


async def test_a_write_cancelled_mid_statement_leaves_the_postgres_connection_usable(postgres_url: str) -> None:
    from graphrt.checkpoint.postgres import PostgresStore

    store = PostgresStore(postgres_url)
    await store.create_run(RunRecord("held", None, "{}", "h"))
    await store.claim_run("held")
    with _admin(postgres_url) as admin:
        admin.execute("BEGIN")
        admin.execute("LOCK TABLE graphrt_runs IN ACCESS EXCLUSIVE MODE")  # the store's next write waits on it
        async with anyio.create_task_group() as tg:
            tg.start_soon(functools.partial(store.update_run, "held", status="cancelled"))
            await anyio.to_thread.run_sync(lambda: wait_until(lambda: _backends(admin, "Lock"), "the write waiting"))
            tg.cancel_scope.cancel()  # the run is cancelled while its write is in the server
            admin.execute("ROLLBACK")
    # The cancelled write finished (it was shielded) and the same connection answers.
    assert (await store.get_run("held")).status == "cancelled"
    with pytest.raises(CheckpointError, match="running elsewhere"):  # and still holds the run's claim
        await PostgresStore(postgres_url).claim_run("held")
    await store.close()


async def test_a_broken_postgres_connection_is_replaced_and_keeps_its_claims(postgres_url: str) -> None:
    from graphrt.checkpoint.postgres import PostgresStore

    store = PostgresStore(postgres_url)
    await store.create_run(RunRecord("r", None, "{}", "h"))
    await store.claim_run("r")
    with _admin(postgres_url) as admin:
        (pid,), = await store._read("SELECT pg_backend_pid()")  # the store's one connection
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        wait_until(lambda: pid not in _backends(admin), "the connection ending")
    with pytest.raises(CheckpointError):
        await GuardedStore(store).check()  # the call that finds it broken fails, as the statement did
    await GuardedStore(store).check()
    assert (await store.get_run("r")).run_id == "r"
    other = PostgresStore(postgres_url)
    with pytest.raises(CheckpointError, match="running elsewhere"):
        await other.claim_run("r")
    await other.close()
    await store.close()


SLOW = """\
version: 0.5
nodes:
  n:
    value: 0
  a:
    agent: countedAgent
    params: {ms: 1}
    inputs:
      n: :n
  b:
    agent: countedAgent
    params: {ms: 1}
    inputs:
      previous: :a
  c:
    agent: countedAgent
    params: {ms: 1}
    inputs:
      previous: :b
    isResult: true
"""


def test_serve_on_postgres_survives_cancels_and_says_when_the_store_is_down(serve, postgres_server) -> None:
    import psycopg

    from ..serve.count_agents import AGENTS

    database = f"d_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_server.url(), autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {database}")
    url = postgres_server.url().rsplit("/", 1)[0] + f"/{database}"
    served = serve({"hello.yaml": HELLO, "slow.yaml": SLOW}, agents=AGENTS, checkpoint=url)
    with served.client() as client:
        for _ in range(20):  # cancels land anywhere in the runs' writes
            run_id = client.post("/graphs/slow/runs").json()["id"]
            client.post(f"/runs/{run_id}/cancel")
        assert client.get("/runs?limit=5").status_code == 200
        done = client.post("/graphs/hello/runs?wait=true", json={"inputs": {"name": "Ada"}})
        assert done.status_code == 200 and done.json()["results"] == {"greeting": "Hello, Ada!"}
        assert client.get("/health").json()["store"] == "ok"

        with psycopg.connect(postgres_server.url(), autocommit=True) as admin:
            admin.execute(f"ALTER DATABASE {database} ALLOW_CONNECTIONS false")
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (database,))
            down = client.get("/health")
            assert down.status_code == 503, down.text
            assert down.json()["status"] == "unavailable" and database in down.json()["store"]
            refused = client.post("/graphs/hello/runs")
            assert refused.status_code == 503 and "error" in refused.json()
            admin.execute(f"ALTER DATABASE {database} ALLOW_CONNECTIONS true")
        assert client.get("/health").status_code == 200
        again = client.post("/graphs/hello/runs").json()["id"]
        assert wait_for_status(client, again)["results"] == {"greeting": "Hello, World!"}


# ----- a run id keeps exactly its inputs -----

VALUED = {"version": 0.5, "nodes": {"v": {"value": "World"},
                                    "out": {"agent": "copyAgent", "inputs": {"v": ":v"}, "isResult": True}}}


@pytest.mark.parametrize(("first", "then"), [
    ({}, {"v": "Bob"}),  # a default run, then a value: not that run
    ({"v": True}, {"v": 1}),  # True == 1 in Python, not in a graph
    ({"v": 1}, {"v": 1.0}),
    ({"v": [1, {"a": False}]}, {"v": [1, {"a": 0}]}),
])
async def test_a_reused_run_id_with_other_inputs_is_refused(tmp_path: Path, first, then) -> None:
    store = str(tmp_path / "runs.db")
    graph = graphrt.Graph(VALUED)
    await arun_checkpointed(graph, store, run_id="r", inject=first)
    with pytest.raises(CheckpointError, match="was started .* for 'v'; use a new run id"):
        await arun_checkpointed(graph, store, run_id="r", inject=then)
    assert await arun_checkpointed(graph, store, run_id="r", inject=first) == {"out": {"v": first.get("v", "World")}}


def _graphrt(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    import os

    return subprocess.run([sys.executable, "-m", "graphrt", *args], capture_output=True, text=True,
                          timeout=120, env={**os.environ, **(env or {})})  # a guard against a hang


def test_the_cli_refuses_a_reused_run_id_with_another_input(tmp_path: Path) -> None:
    graph = tmp_path / "hello.yaml"
    graph.write_text(HELLO)
    checkpoint = str(tmp_path / "runs.db")
    assert json.loads(_graphrt("run", str(graph), "--checkpoint", checkpoint, "--run-id", "x").stdout) == {
        "greeting": "Hello, World!"}
    again = _graphrt("run", str(graph), "--checkpoint", checkpoint, "--run-id", "x", "-i", "name=Bob")
    assert again.returncode == 1 and "Hello" not in again.stdout
    assert "started without a value for 'name'" in again.stderr


def test_no_resume_hint_when_nothing_was_saved(tmp_path: Path, postgres_server) -> None:
    graph = tmp_path / "hello.yaml"
    graph.write_text(HELLO)
    missing = _graphrt("run", str(graph), "--checkpoint", str(tmp_path / "no" / "such" / "runs.db"))
    assert missing.returncode == 1 and "Traceback" not in missing.stderr
    assert "the run is saved" not in missing.stderr and "nothing of run" in missing.stderr

    down = f"postgresql://graphrt@127.0.0.1:{postgres_server.port}/no_such_db?password=hunter2secret"
    unreachable = _graphrt("run", str(graph), "--checkpoint", down)
    assert unreachable.returncode == 1 and "the run is saved" not in unreachable.stderr
    assert "hunter2secret" not in unreachable.stderr and "Traceback" not in unreachable.stderr


FAILING = """\
version: 0.5
nodes:
  text:
    value: "{"
  parsed:
    agent: jsonParserAgent
    inputs:
      text: :text
    isResult: true
"""


FETCH = """\
version: 0.5
nodes:
  url:
    value: http://127.0.0.1:9/TOPSECRET-0123456789
  got:
    agent: vanillaFetchAgent
    inputs:
      url: :url
    isResult: true
"""


def test_an_env_key_in_an_agents_error_is_hidden_with_checkpoint(tmp_path: Path) -> None:
    graph = tmp_path / "fetch.yaml"
    graph.write_text(FETCH)
    result = _graphrt("run", str(graph), "--checkpoint", str(tmp_path / "runs.db"),
                      env={"MY_SERVICE_TOKEN": "TOPSECRET-0123456789"})
    assert result.returncode == 1 and "node 'got': fetch failed: http://127.0.0.1:9/REDACTED" in result.stderr
    assert "TOPSECRET" not in result.stderr and "the run is saved" in result.stderr


# ----- every text pass is linear: a megabyte of letters is no freeze -----

ECHO = """\
version: 0.5
nodes:
  text:
    value: ""
  echo:
    agent: copyAgent
    inputs:
      text: :text
    isResult: true
"""


def test_a_megabyte_of_letters_through_serve_is_answered(serve) -> None:
    served = serve({"echo.yaml": ECHO, "fail.yaml": FAILING}, max_body=4 * 1024 * 1024)
    letters = "x" * (1024 * 1024)
    with served.client() as client:  # the client's timeout guards against the freeze quadratic redaction was
        done = client.post("/graphs/echo/runs?wait=true", json={"inputs": {"text": letters}})
        assert done.status_code == 200 and done.json()["results"]["echo"]["text"] == letters
        failed = client.post("/graphs/fail/runs?wait=true", json={"inputs": {"text": "{" + letters}})
        assert failed.json()["status"] == "failed" and "node 'parsed'" in failed.json()["error"]
        assert client.get("/health").status_code == 200


def test_a_long_run_of_letters_through_the_cli_error_path_and_trace(tmp_path: Path) -> None:
    graph = tmp_path / "fail.yaml"
    graph.write_text(FAILING)
    letters = "x" * 100_000  # near the kernel's limit on one argument
    result = _graphrt("run", str(graph), "-i", f"text={letters}", "--trace", str(tmp_path / "t.jsonl"),
                      "--checkpoint", str(tmp_path / "runs.db"))
    assert result.returncode == 1 and "node 'parsed'" in result.stderr and "Traceback" not in result.stderr
    assert letters in (tmp_path / "t.jsonl").read_text()


# ----- a full disk -----

def _file_size_cap(size: int):
    """For a child process: its files can grow to `size` bytes and no further (RLIMIT_FSIZE), as on a full disk.

    The kernel refuses the write past it (EFBIG; Python ignores SIGXFSZ), so SQLite fails its write for real;
    the soft limit only, so that the test can lift it (the disk freed) with prlimit."""
    import resource

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

    return cap


@pytest.mark.needs("serve")
def test_a_full_disk_fails_the_run_keeps_the_server_up_and_health_says_the_store_takes_no_writes(tmp_path: Path
                                                                                              ) -> None:
    import resource

    import httpx

    from ..serve.conftest import free_port

    folder = tmp_path / "graphs"
    folder.mkdir()
    (folder / "hello.yaml").write_text(HELLO, encoding="utf-8")
    # A result ten times its input: every write that holds it (the node's row, the run's end, its events) is past
    # what the disk has left, whatever order they come in, while the run's record (its input) still fits.
    copies = "abcdefghij"
    (folder / "echo.yaml").write_text(
        "version: 0.5\nnodes:\n  name:\n    value: World\n  echo:\n    agent: stringTemplateAgent\n    inputs:\n"
        + "".join(f"      {copy}: :name\n" for copy in copies)
        + "    params:\n      template: \"" + "".join(f"${{{copy}}}" for copy in copies) + "\"\n    isResult: true\n",
        encoding="utf-8")
    store, port = tmp_path / "runs.db", free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "graphrt", "serve", str(folder), "--port", str(port), "--checkpoint", str(store)],
        preexec_fn=_file_size_cap(256 * 1024), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            def health() -> httpx.Response | None:
                try:
                    return client.get("/health")
                except httpx.TransportError:
                    return None

            wait_until(lambda: server.poll() is not None or health() is not None, "graphrt serve answering")
            assert health().json()["store"] == "ok"
            failed = None
            for _ in range(40):  # runs of 30 KB, each with a result of 300 KB: past the 256 KB the files may grow to
                answer = client.post("/graphs/echo/runs?wait=true", json={"inputs": {"name": "x" * 30_000}})
                if answer.status_code == 503:  # the disk was full before the run could be created
                    assert f"checkpoint store {store}" in answer.json()["error"], answer.text
                    break
                assert answer.status_code == 200, answer.text
                if answer.json()["status"] == "failed":
                    failed = answer.json()
                    break
            assert failed is not None, "no run failed on the full disk"
            assert f"could not save run {failed['id']!r} to {store}" in failed["error"]  # which run, which store
            assert "Traceback" not in failed["error"]

            full = health()  # the server is up, and says what is wrong
            assert full is not None and full.status_code == 503, full
            assert full.json()["status"] == "unavailable"
            assert f"checkpoint store {store} takes no writes" in full.json()["store"]

            resource.prlimit(server.pid, resource.RLIMIT_FSIZE,  # the disk freed
                             (resource.RLIM_INFINITY, resource.prlimit(server.pid, resource.RLIMIT_FSIZE)[1]))
            again = client.post("/graphs/hello/runs?wait=true", json={"inputs": {"name": "Ada"}})  # not refused
            assert again.json()["status"] == "finished" and again.json()["results"] == {"greeting": "Hello, Ada!"}
            assert health().status_code == 200  # a run's writes succeed again
        assert server.poll() is None
    finally:
        server.terminate()
        _, errors = server.communicate(timeout=30)
    assert "Traceback" not in errors, errors
