"""One server owns a SQLite store: a second `graphrt serve` on it refuses to start, naming the first.

Two real server processes on one SQLite file (a PostgreSQL store is shared by several
servers instead, each run claimed by one: tests/serve/test_many_servers.py). A
second server takes the store over only from one that is gone: at once from a
process of this machine that no longer exists (kill -9), and otherwise once its
lease expired (a frozen server, SIGSTOP); the frozen one, woken, finds its lease
taken and stops serving with one line instead of writing runs that are no
longer its own.
"""

from __future__ import annotations

import signal
import time
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from ..serve.conftest import ASK, HELLO, free_port, start_process
from ..waiting import wait_until


@pytest.fixture(params=["sqlite", "postgres"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "runs.db")
    return request.getfixturevalue("postgres_url")


@pytest.fixture
def owned(tmp_path: Path) -> str:
    """A store one server owns: SQLite's (PostgreSQL's is shared by several servers)."""
    return str(tmp_path / "runs.db")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    graphs = tmp_path / "graphs"
    graphs.mkdir()
    (graphs / "hello.yaml").write_text(HELLO)
    return graphs


def _start_refused(folder: Path, target: str, *extra: str) -> subprocess.CompletedProcess:
    """A second `graphrt serve` that is expected to refuse to start (it is killed if it serves instead)."""
    return subprocess.run([sys.executable, "-m", "graphrt", "serve", str(folder), "--port", str(free_port()),
                           "--checkpoint", target, *extra], capture_output=True, text=True, timeout=120)


def _stop(process: subprocess.Popen) -> str:
    if process.poll() is None:
        process.send_signal(signal.SIGCONT)
        process.terminate()
    process.wait(timeout=60)
    return process.stderr.read() if process.stderr else ""


def _greets(port: int) -> bool:
    answer = httpx.post(f"http://127.0.0.1:{port}/graphs/hello/runs?wait=true", json={}, timeout=60)
    return answer.status_code == 200 and answer.json()["results"] == {"greeting": "Hello, World!"}


def test_a_second_server_refuses_to_start_naming_the_owner(folder: Path, owned: str) -> None:
    target = owned
    port = free_port()
    first = start_process(folder, target, port)  # type: ignore[arg-type] - a URL is a target too
    try:
        second = _start_refused(folder, target)
        assert second.returncode == 1, second.stderr
        lines = [line for line in second.stderr.splitlines() if line.startswith("graphrt: ")]
        assert len(lines) == 1 and "Traceback" not in second.stderr, second.stderr
        assert "is served by another graphrt serve" in lines[0]
        assert f"pid {first.pid} on " in lines[0] and f"http://127.0.0.1:{port}/" in lines[0]
        assert _greets(port)  # the first one was not disturbed
    finally:
        assert "Traceback" not in _stop(first)
    # A server that stopped gives its lease up: the next one starts at once.
    third_port = free_port()
    third = start_process(folder, target, third_port)  # type: ignore[arg-type]
    try:
        assert _greets(third_port)
    finally:
        _stop(third)


def test_a_killed_servers_lease_is_taken_over_at_once(folder: Path, owned: str) -> None:
    target = owned
    first = start_process(folder, target, free_port())  # type: ignore[arg-type]
    first.kill()  # SIGKILL: its lease is still valid for 30 s, but its process is gone
    first.wait(timeout=60)
    port = free_port()
    second = start_process(folder, target, port)  # type: ignore[arg-type]
    try:
        assert _greets(port)
    finally:
        _stop(second)


def test_a_frozen_server_loses_its_store_once_its_lease_expired(folder: Path, owned: str) -> None:
    target = owned
    frozen_port = free_port()
    frozen = start_process(folder, target, frozen_port, "--lease-seconds", "1.5")  # type: ignore[arg-type]
    second: subprocess.Popen | None = None
    try:
        frozen.send_signal(signal.SIGSTOP)  # alive, but it renews nothing
        refusals: list[str] = []
        port = free_port()

        def taken_over() -> bool:
            nonlocal second
            try:
                second = start_process(folder, target, port, "--lease-seconds", "1.5")  # type: ignore[arg-type]
            except RuntimeError as refused:  # its lease had not expired yet: refused, in one line
                refusals.append(str(refused))
                assert "is served by another graphrt serve" in str(refused) and "Traceback" not in str(refused)
                return False
            return True

        wait_until(taken_over, "the second server taking over the expired lease")
        assert _greets(port)
        frozen.send_signal(signal.SIGCONT)  # woken: its next heartbeat finds the store taken over
        assert frozen.wait(timeout=60) == 1
        said = frozen.stderr.read()
        assert "Traceback" not in said
        assert "this server stopped serving: another graphrt serve took" in said and f"pid {second.pid}" in said
        assert _greets(port)  # the new owner goes on
    finally:
        _stop(frozen)
        if second is not None:
            _stop(second)


GATED = """\
version: 0.5
nodes:
  x:
    value: 1
  held:
    agent: gatedAgent
    inputs:
      x: :x
    isResult: true
"""


@pytest.mark.parametrize("frozen_for", [100, 0])
def test_a_server_woken_after_its_store_was_taken_over_writes_nothing(serve, frozen_for: float) -> None:
    # The freeze is the lease's clock moved on past the lease (a SIGSTOP keeps time.monotonic going), and the
    # takeover another owner's lease written into the store: then the held run's node ends, as a woken server's
    # would, before any heartbeat. Its result was written into a store another server owned by then.
    # frozen_for=100: the server's own check before the write finds the lease taken over. 0: frozen just after
    # that check (it sees a fresh lease and lets the write go): the store's check in the write's transaction
    # refuses it.
    import threading

    import anyio

    from graphrt.authoring.agent_info import AgentInfo
    from graphrt.checkpoint import open_store
    from graphrt.serve.lease import StoreLease

    started, go = threading.Event(), threading.Event()

    async def gated(ctx) -> dict:
        started.set()
        await anyio.to_thread.run_sync(go.wait)
        return {"done": True}

    now = [0.0]
    lease = StoreLease(30, clock=lambda: now[0])
    served = serve({"gated.yaml": GATED}, agents=[AgentInfo(name="gatedAgent", func=gated)], lease=lease)
    with served.client() as client:
        run_id = client.post("/graphs/gated/runs", json={}).json()["id"]
        assert started.wait(30), "the agent did not start"  # a guard against a hang
        rows_before = len(anyio.run(served.service.store.get_rows, run_id))

        async def take_over() -> None:
            store = open_store(served.checkpoint)
            try:
                taken = await store.take_lease("serve", "the-other-server", '{"pid": 1, "host": "elsewhere"}',
                                               until=time.time() + 300, now=time.time(), replacing=lease.owner)
                assert taken.owner == "the-other-server"
            finally:
                await store.close()

        anyio.run(take_over)
        now[0] += frozen_for  # a lease of 30 s
        go.set()
        wait_until(lambda: served.service.lease_lost is not None, "the server finding its store taken over")
        assert "another graphrt serve took" in served.service.lease_lost

        async def saved() -> tuple[int, str]:
            store = open_store(served.checkpoint)
            try:
                return len(await store.get_rows(run_id)), (await store.get_run(run_id)).status
            finally:
                await store.close()

        assert anyio.run(saved) == (rows_before, "running")  # nothing written: the other server's to resume


def test_the_command_line_does_not_resume_a_run_of_a_store_a_server_owns(folder: Path, target: str) -> None:
    """`graphrt resume` on a served store continued the run behind the server's back: the server went on showing
    it interrupted, and its API's resume then answered with the command's results (found by issue 42's walk)."""
    (folder / "ask.yaml").write_text(ASK)
    port = free_port()
    server = start_process(folder, target, port)  # type: ignore[arg-type]
    try:
        base = f"http://127.0.0.1:{port}"
        run_id = httpx.post(f"{base}/graphs/ask/runs", json={}, timeout=60).json()["id"]
        wait_until(lambda: httpx.get(f"{base}/runs/{run_id}", timeout=60).json()["status"] == "interrupted",
                   "the run asks its question")
        refused = subprocess.run([sys.executable, "-m", "graphrt", "resume", "--checkpoint", target, "--run-id", run_id,
                                  "--answer", "Bo", "-q"], capture_output=True, text=True, timeout=120)
        assert refused.returncode == 1 and refused.stdout == "" and "Traceback" not in refused.stderr
        assert refused.stderr.count("\n") == 1 and "is served by graphrt serve" in refused.stderr, refused.stderr
        assert f"pid {server.pid} on " in refused.stderr and f"POST /runs/{run_id}/resume" in refused.stderr
        assert httpx.get(f"{base}/runs/{run_id}", timeout=60).json()["status"] == "interrupted"
        answered = httpx.post(f"{base}/runs/{run_id}/resume?wait=true", json={"answer": "Cy"}, timeout=60).json()
        assert answered["results"] == {"greeting": "Hello, Cy!"}
    finally:
        assert "Traceback" not in _stop(server)
