"""Event-stream readers are bounded: past `max_streams` a reader gets 503 at once, the server keeps serving."""

from __future__ import annotations

import pytest

from ..serve.conftest import HELLO, SLOW_ASK, wait_for_status
from ..waiting import wait_until


def test_readers_past_the_limit_get_503_and_the_server_still_serves(serve) -> None:
    served = serve({"ask.yaml": SLOW_ASK.replace("duration: 1200", "duration: 1")}, max_streams=2)
    readers = served.app.state.readers
    with served.client() as client, served.client() as one, served.client() as two:
        run_id = client.post("/graphs/ask/runs", json={}).json()["id"]
        wait_for_status(client, run_id, ("interrupted",))  # a run that waits: its stream stays open
        wait_until(lambda: readers.open == 0, "the status reader gone")
        with one.stream("GET", f"/runs/{run_id}/events"), two.stream("GET", f"/runs/{run_id}/events"):
            wait_until(lambda: readers.open == 2, "two readers streaming")
            refused = client.get(f"/runs/{run_id}/events")
            assert refused.status_code == 503 and refused.headers["retry-after"] == "5"
            assert client.get("/health").status_code == 200
            assert client.post("/graphs/ask/runs", json={}).status_code == 202
        wait_until(lambda: readers.open == 0, "the readers gone")
        done = client.post(f"/runs/{run_id}/resume?wait=true", json={"answer": "Ada"}).json()
        assert done["status"] == "finished"


def test_a_burst_of_readers_gets_no_more_streams_than_the_limit(serve) -> None:
    """Readers that all arrive at once are counted as they are let in, not once they stream (1,089 of 1,100
    got a stream past a limit of 256 when the count began with the stream)."""
    import socket

    served = serve({"ask.yaml": SLOW_ASK.replace("duration: 1200", "duration: 1")}, max_streams=5)
    readers = served.app.state.readers
    with served.client() as client:
        run_id = client.post("/graphs/ask/runs", json={}).json()["id"]
        wait_for_status(client, run_id, ("interrupted",))
        host, port = served.url.split("//")[1].rstrip("/").split(":")
        sockets = []
        for _ in range(60):
            reader = socket.create_connection((host, int(port)), timeout=30)
            reader.sendall(f"GET /runs/{run_id}/events HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
            sockets.append(reader)
        statuses = [reader.recv(64).decode("latin-1").split(" ")[1] for reader in sockets]
        assert statuses.count("200") == 5 and statuses.count("503") == 55, statuses
        for reader in sockets:
            reader.close()
        wait_until(lambda: readers.open == 0, "every place given back")


# ----- every connection: a file descriptor -----

def _open_files_limit(soft: int, hard: int | None = None):
    """For a child process: a soft limit of open files (the hard one kept, unless given)."""
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard or resource.getrlimit(resource.RLIMIT_NOFILE)[1]))

    return limit


def _serve_process(folder, checkpoint, *flags: str, preexec_fn=None):
    import subprocess
    import sys

    from ..serve.conftest import free_port

    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "graphrt", "serve", str(folder), "--port", str(port),
         "--checkpoint", str(checkpoint), *flags],
        preexec_fn=preexec_fn, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return process, port


def _listening(process, port: int) -> None:
    import httpx

    def answers() -> bool:
        try:
            return httpx.get(f"http://127.0.0.1:{port}/health", timeout=5).status_code == 200
        except httpx.TransportError:
            return False

    wait_until(lambda: process.poll() is not None or answers(), "graphrt serve answering")
    assert process.poll() is None, process.stderr.read()


def _limits(pid: int) -> tuple[int, int]:
    """The soft and hard limit of open files of process `pid`, as the kernel says."""
    with open(f"/proc/{pid}/limits", encoding="ascii") as limits:
        line = next(line for line in limits if line.startswith("Max open files"))
    soft, hard = line.split()[3:5]
    return int(soft), int(hard)


@pytest.mark.needs("serve")
def test_past_the_connection_cap_a_new_client_is_refused_and_the_connected_ones_are_served(tmp_path) -> None:
    """1,100 event-stream readers used up the server's file descriptors: new runs waited unanswered. Now the
    soft limit is raised to the hard one, and past --max-connections a new connection is a 503 at once."""
    import resource
    import socket

    import httpx

    folder = tmp_path / "graphs"
    folder.mkdir()
    (folder / "ask.yaml").write_text(SLOW_ASK.replace("duration: 1200", "duration: 1"), encoding="utf-8")
    server, port = _serve_process(folder, tmp_path / "runs.db", "--max-connections", "40",
                                  preexec_fn=_open_files_limit(256))
    readers: list[socket.socket] = []
    try:
        _listening(server, port)
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        assert _limits(server.pid)[0] == (hard if hard != resource.RLIM_INFINITY else _limits(server.pid)[1])
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            run_id = client.post("/graphs/ask/runs", json={}).json()["id"]
            wait_for_status(client, run_id, ("interrupted",))  # a run that waits: its readers stay
            for number in range(38):  # with the client's: 39 connections
                reader = socket.create_connection(("127.0.0.1", port), timeout=30)
                readers.append(reader)
                if number < 20:  # half of the connections may stream
                    reader.sendall(f"GET /runs/{run_id}/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
                    assert reader.recv(12) == b"HTTP/1.1 200"  # accepted, counted and streaming
                # the others hold their connections without a request yet (accepted in the order they came)
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as fortieth:
                assert fortieth.get("/health").status_code == 200
                with socket.create_connection(("127.0.0.1", port), timeout=30) as refused:  # the 41st
                    answer = b""
                    while chunk := refused.recv(4096):  # answered, then closed by the server
                        answer += chunk
                assert answer.startswith(b"HTTP/1.1 503 ") and b"too many connections (at most 40" in answer
                with pytest.raises(httpx.HTTPStatusError):  # a client that is not connected yet: a clean 503
                    httpx.get(f"http://127.0.0.1:{port}/health", timeout=30).raise_for_status()
                # The connected clients are served meanwhile: /health, a new run, an answer.
                assert fortieth.get("/health").status_code == 200
                assert fortieth.post("/graphs/ask/runs", json={}).status_code == 202
                done = client.post(f"/runs/{run_id}/resume?wait=true", json={"answer": "Ada"}).json()
                assert done["status"] == "finished"
            for reader in readers:
                reader.close()
            readers.clear()
            wait_until(lambda: _health(port) == 200, "a new client served once the readers left")
    finally:
        for reader in readers:
            reader.close()
        server.terminate()
        _, errors = server.communicate(timeout=30)
    assert "Traceback" not in errors, errors


def _health(port: int) -> int | None:
    import httpx

    try:
        return httpx.get(f"http://127.0.0.1:{port}/health", timeout=30).status_code
    except httpx.TransportError:
        return None


@pytest.mark.needs("serve")
def test_a_cap_past_the_files_the_process_may_open_is_lowered_in_one_line(tmp_path) -> None:
    folder = tmp_path / "graphs"
    folder.mkdir()
    (folder / "hello.yaml").write_text(HELLO, encoding="utf-8")
    server, port = _serve_process(folder, tmp_path / "runs.db", preexec_fn=_open_files_limit(300, 300))
    try:
        _listening(server, port)
    finally:
        server.terminate()
        _, errors = server.communicate(timeout=30)
    assert "graphrt: at most 172 connections at once, not 1,024: this process may open only 300 files" in errors
    assert "Traceback" not in errors, errors


@pytest.mark.needs("serve")
def test_a_burst_of_readers_past_the_files_the_process_may_open_is_refused_in_one_line(tmp_path) -> None:
    """1,100 event-stream readers past ulimit -n were 1,371 tracebacks ("socket.accept() out of system
    resource", at each try), and a new run's POST failed while they held the descriptors. Now the readers past
    the streams' limit (half the connections) and the connections past the cap get 503 and are closed, the
    limit is said once, and a new run is taken while the readers stream."""
    import socket

    import httpx

    folder = tmp_path / "graphs"
    folder.mkdir()
    (folder / "ask.yaml").write_text(SLOW_ASK.replace("duration: 1200", "duration: 1"), encoding="utf-8")
    server, port = _serve_process(folder, tmp_path / "runs.db", preexec_fn=_open_files_limit(256, 256))
    readers: list[socket.socket] = []
    try:
        _listening(server, port)
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            run_id = client.post("/graphs/ask/runs", json={}).json()["id"]
            wait_for_status(client, run_id, ("interrupted",))  # a run that waits: its readers stay
        request = f"GET /runs/{run_id}/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
        for _ in range(400):  # as fast as they connect: the server accepts them while more come
            reader = socket.create_connection(("127.0.0.1", port), timeout=30)
            reader.sendall(request)
            readers.append(reader)
        answers = [reader.recv(12) for reader in readers]
        assert answers.count(b"HTTP/1.1 200") == 64  # 128 connections (256 files less 128 kept), half streams
        assert answers.count(b"HTTP/1.1 200") + answers.count(b"HTTP/1.1 503") == 400, set(answers)
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:  # the readers still stream
            assert client.post("/graphs/ask/runs", json={}).status_code == 202
    finally:
        for reader in readers:
            reader.close()
        server.terminate()
        _, errors = server.communicate(timeout=30)
    assert "Traceback" not in errors and "out of system resource" not in errors, errors[:2000]
    assert errors.count("64 event streams are open, the most this server keeps at once") == 1, errors
    assert errors.count("graphrt: 128 connections are open, the most this server takes at once") <= 1, errors
