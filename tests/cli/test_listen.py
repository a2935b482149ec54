"""`graphrt serve` and `graphrt mcp --http` as a user starts them: the serve extra alone, a port already taken,
the URL printed once the server listens (graphrt/cli/listen.py)."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from ..conftest import need

pytestmark = pytest.mark.needs("serve")


HELLO = Path(__file__).parents[2] / "graphs" / "hello.yaml"

# The MCP SDK hidden as if `pip install 'graphrt[serve]'` alone had been run: importing it raises ImportError.
WITHOUT_MCP = ("import sys; sys.modules['mcp'] = None; sys.modules['mcp_types'] = None; "
               "from graphrt.cli.main import main; sys.exit(main())")
GRAPHRT = "from graphrt.cli.main import main; import sys; sys.exit(main())"


@pytest.fixture
def graphs(tmp_path: Path) -> Path:
    folder = tmp_path / "graphs"
    folder.mkdir()
    (folder / "hello.yaml").write_text(HELLO.read_text(encoding="utf-8"), encoding="utf-8")
    return folder


@contextmanager
def started(code: str, *args: str, cwd: Path) -> Iterator[tuple[subprocess.Popen, str]]:
    """The command running, once it printed a line with a URL: (process, URL); stopped after."""
    process = subprocess.Popen([sys.executable, "-c", code, *args], cwd=cwd, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    hang_guard = threading.Timer(60, process.kill)  # a server that neither starts nor exits ends the wait below
    hang_guard.start()
    printed: list[str] = []
    try:
        while (line := process.stderr.readline()) and "http://" not in line:
            printed.append(line)
        if not line:
            pytest.fail(f"exited with {process.wait()} before it listened: {''.join(printed)}")
        printed.append(line)
        yield process, line[line.index("http://"):].strip()
    finally:
        hang_guard.cancel()
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=30)
    assert "Traceback" not in "".join(printed) + process.stderr.read()


def test_serve_works_without_the_mcp_sdk(graphs: Path, tmp_path: Path) -> None:
    with started(WITHOUT_MCP, "serve", str(graphs), "--port", "0", "--checkpoint", str(tmp_path / "runs.db"),
                 cwd=tmp_path) as (_, url):
        run = httpx.post(f"{url}graphs/hello/runs?wait=true", json={"inputs": {"name": "Ada"}}, timeout=30).json()
        assert run["status"] == "finished" and run["results"] == {"greeting": "Hello, Ada!"}
        assert httpx.post(f"{url}mcp", json={}, timeout=30).status_code == 404  # no /mcp without the SDK


@pytest.fixture
def taken_port() -> Iterator[int]:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield holder.getsockname()[1]


@pytest.mark.parametrize("command", ["serve", "mcp"])
def test_a_port_already_taken_is_one_line(command: str, graphs: Path, tmp_path: Path, taken_port: int) -> None:
    port = ["--port", str(taken_port), "--checkpoint", str(tmp_path / "runs.db")] if command == "serve" \
        else ["--http", str(taken_port)]
    if command == "mcp":
        need("mcp")
    done = subprocess.run([sys.executable, "-c", GRAPHRT, command, str(graphs), *port], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert lines[-1] == (f"graphrt: cannot listen on 127.0.0.1:{taken_port}: Address already in use; another "
                         "process listens there: choose another port, or 0 for a free one")
    assert "Traceback" not in done.stderr and "http://" not in done.stderr  # no URL for a server that never listened


@pytest.mark.needs("mcp")
def test_mcp_http_prints_the_url_it_listens_on(graphs: Path, tmp_path: Path) -> None:
    with started(GRAPHRT, "mcp", str(graphs), "--http", "0", cwd=tmp_path) as (_, url):
        assert url.endswith("/mcp") and ":0/" not in url  # the port it got, not the 0 it was given
        answer = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
            headers={"Accept": "application/json, text/event-stream"}, timeout=30)
        assert answer.status_code == 200


@contextmanager
def serving(app, **options) -> Iterator[int]:
    """`app` served by listen.serve_app in a thread, on a free port: the port, once it listens."""
    from graphrt.cli.listen import bind, serve_app

    sock = bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    listening, stop = threading.Event(), threading.Event()
    thread = threading.Thread(target=serve_app, args=(app, sock), daemon=True,
                              kwargs={"on_listening": listening.set, "should_stop": stop.is_set, **options})
    thread.start()
    try:
        assert listening.wait(30), "the server did not start"
        yield port
    finally:
        stop.set()
        thread.join(30)


def _held_app(release: threading.Event):
    """An ASGI app answering 200 `ok`; a request for /held only once `release` is set."""
    import anyio

    async def app(scope, receive, send) -> None:
        if scope["type"] != "http":
            return
        if scope["path"] == "/held":
            await anyio.to_thread.run_sync(release.wait)
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"ok"})

    return app


def _until_closed(connection: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    connection.settimeout(60)  # a guard against a hang: the server closes it long before
    received = b""
    while chunk := connection.recv(65536):
        received += chunk
    return received


def test_a_request_head_that_never_ends_is_answered_408_and_its_connection_closed() -> None:
    release = threading.Event()
    with serving(_held_app(release), head_timeout=0.5) as port:
        # A request being answered slowly is not cut: its head was complete.
        slow = socket.create_connection(("127.0.0.1", port))
        slow.sendall(b"GET /held HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        # A head sent in part (slowloris), and one that never even starts its headers: both closed.
        for partial in (b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: 1\r\n", b"G"):
            with socket.create_connection(("127.0.0.1", port)) as lingering:
                lingering.sendall(partial)
                answer = _until_closed(lingering)
                assert answer.startswith(b"HTTP/1.1 408 Request Timeout\r\n"), answer
                assert answer.endswith(b"the request's headers did not arrive within 0.5 s\n")
        release.set()
        assert _until_closed_after_answer(slow).startswith(b"HTTP/1.1 200 OK\r\n")
        slow.close()
        # A connection kept alive gets the same time for each head, and a whole request goes through.
        with socket.create_connection(("127.0.0.1", port)) as kept:
            for _ in range(2):
                kept.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                assert _until_closed_after_answer(kept).endswith(b"\r\n\r\nok")


def _until_closed_after_answer(connection: socket.socket) -> bytes:
    """One whole answer of a kept-alive connection (its body is `ok`)."""
    connection.settimeout(60)
    received = b""
    while not received.endswith(b"ok"):
        chunk = connection.recv(65536)
        if not chunk:
            break
        received += chunk
    return received


def test_a_request_head_over_the_limit_is_answered_431() -> None:
    from graphrt.cli.listen import MAX_HEAD_BYTES

    with serving(_held_app(threading.Event())) as port, socket.create_connection(("127.0.0.1", port)) as client:
        start = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        lines = [b"X-Filler: " + b"x" * 988 + b"\r\n"] * (MAX_HEAD_BYTES // 1000)
        head = start + b"".join(lines)
        # One byte over, and no more: the server has read all of it when it closes (unread bytes would reset
        # the connection, and the answer with it).
        client.sendall(head + b"X-Last: " + b"x" * (MAX_HEAD_BYTES + 1 - len(head) - 8))
        answer = _until_closed(client)
        assert answer.startswith(b"HTTP/1.1 431 Request Header Fields Too Large\r\n"), answer[:200]


def test_a_whole_request_whose_head_is_over_the_limit_is_answered_431_before_the_app_sees_it() -> None:
    from graphrt.cli.listen import MAX_HEAD_BYTES

    seen: list[str] = []

    async def app(scope, receive, send) -> None:
        if scope["type"] == "http":
            seen.append(scope["path"])
            await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
            await send({"type": "http.response.body", "body": b"ok"})

    with serving(app) as port:
        for size, status in ((MAX_HEAD_BYTES - 100, b"200"), (MAX_HEAD_BYTES + 1, b"431")):
            with socket.create_connection(("127.0.0.1", port)) as client:
                # In one write, `size` bytes in all: the last one crosses the limit, so the server has read
                # every byte when it closes (unread ones would reset the connection, and the answer with it).
                start = b"GET /big HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nX-Big: "
                end = b"\r\n\r\n"
                client.sendall(start + b"a" * (size - len(start) - len(end)) + end)
                assert _until_closed(client).split(b" ", 2)[1] == status
        assert seen == ["/big"]  # only the one within the limit reached the app


def test_an_answer_sent_before_the_body_was_read_reaches_a_client_still_sending() -> None:
    # The app refuses the body unread (a 413 over the limit, with Connection: close): closed at once, the
    # bytes still coming would reset the connection and the answer with it; the server lingers instead.
    async def app(scope, receive, send) -> None:
        if scope["type"] == "http":
            read = 0
            while read <= 1024 * 1024:  # read up to a limit of 1 MiB, as serve's guard does
                read += len((await receive()).get("body", b""))
            await send({"type": "http.response.start", "status": 413,
                        "headers": [(b"content-length", b"8"), (b"connection", b"close")]})
            await send({"type": "http.response.body", "body": b"too long"})

    with serving(app) as port, httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
        for _ in range(300):  # a reset loses the answer in about one try of a hundred
            answer = client.post("/", content=iter([b"x" * 65536] * 40))  # 2.5 MiB, chunked
            assert (answer.status_code, answer.text) == (413, "too long")


def test_the_rest_of_a_body_answered_before_it_was_read_is_not_taken_for_the_next_requests_head() -> None:
    # /health answers a GET at once, its chunked body unread, and keeps the connection alive: the body's rest,
    # 100 KB with no blank line, is still that request's (the parser reads it as body), not a head over the
    # limit; the next request on the connection is answered. It was a 431 whenever the answer came first.
    with serving(_held_app(threading.Event())) as port, socket.create_connection(("127.0.0.1", port)) as client:
        client.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n")
        assert _until_closed_after_answer(client).startswith(b"HTTP/1.1 200 OK\r\n")  # answered, body unread
        for _ in range(100):
            client.sendall(b"400\r\n" + b"x" * 1024 + b"\r\n")
        client.sendall(b"0\r\n\r\nGET /next HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert _until_closed_after_answer(client).startswith(b"HTTP/1.1 200 OK\r\n")


def test_an_app_answering_after_the_server_refused_its_request_writes_nothing_and_fails_nothing() -> None:
    # The request's head went to the app; then its body broke the parser, so uvicorn answered 400 and closed
    # the connection, lingering. The app's own answer, later, has nowhere to go: it is dropped, not an error.
    release, answered = threading.Event(), threading.Event()
    outcomes: list[object] = []

    async def app(scope, receive, send) -> None:
        import anyio

        if scope["type"] != "http":
            return
        await anyio.to_thread.run_sync(release.wait)
        try:
            await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
            await send({"type": "http.response.body", "body": b"ok"})
            outcomes.append("sent")
        except Exception as error:  # noqa: BLE001 - what the test looks for
            outcomes.append(error)
        finally:
            answered.set()

    with serving(app) as port, socket.create_connection(("127.0.0.1", port)) as client:
        client.sendall(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n")
        client.sendall(b"zz\r\n")  # not a chunk size
        assert _until_closed(client).startswith(b"HTTP/1.1 400 Bad Request\r\n")
        release.set()
        assert answered.wait(60)
    assert outcomes == ["sent"]


OUT_OF_FILES = """\
import asyncio, os, resource, sys
from graphrt.cli.listen import _say_once_when_out_of_files

async def main():
    loop = asyncio.get_running_loop()
    _say_once_when_out_of_files(loop)
    said, tries = loop.get_exception_handler(), []
    third = asyncio.Event()

    def counted(loop, context):  # asyncio tries to accept again a second after each failure
        tries.append(context.get("message"))
        said(loop, context)
        if len(tries) == 3:
            third.set()

    loop.set_exception_handler(counted)
    server = await loop.create_server(asyncio.Protocol, "127.0.0.1", 0)
    resource.setrlimit(resource.RLIMIT_NOFILE, (len(os.listdir("/proc/self/fd")) + 2,
                                                resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
    print(server.sockets[0].getsockname()[1], flush=True)
    await third.wait()

asyncio.run(main())
"""


def test_a_server_out_of_file_descriptors_says_so_once_not_a_traceback_per_try() -> None:
    process = subprocess.Popen([sys.executable, "-c", OUT_OF_FILES], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    clients = []
    try:
        port = int(process.stdout.readline())
        clients = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(10)]
        _, errors = process.communicate(timeout=60)
    finally:
        process.kill()
        for client in clients:
            client.close()
    assert process.returncode == 0, errors
    assert errors.count("graphrt: this process has no file descriptors left (it may open ") == 1, errors
    assert "Traceback" not in errors and "out of system resource" not in errors, errors
