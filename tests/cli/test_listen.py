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

pytest.importorskip("uvicorn")

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
        pytest.importorskip("mcp")
    done = subprocess.run([sys.executable, "-c", GRAPHRT, command, str(graphs), *port], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert lines[-1] == (f"graphrt: cannot listen on 127.0.0.1:{taken_port}: Address already in use; another "
                         "process listens there: choose another port, or 0 for a free one")
    assert "Traceback" not in done.stderr and "http://" not in done.stderr  # no URL for a server that never listened


def test_mcp_http_prints_the_url_it_listens_on(graphs: Path, tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    with started(GRAPHRT, "mcp", str(graphs), "--http", "0", cwd=tmp_path) as (_, url):
        assert url.endswith("/mcp") and ":0/" not in url  # the port it got, not the 0 it was given
        answer = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
            headers={"Accept": "application/json, text/event-stream"}, timeout=30)
        assert answer.status_code == 200


def test_mcp_without_the_sdk_says_which_extra_to_install(graphs: Path, tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", WITHOUT_MCP, "mcp", str(graphs)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr  # was a ModuleNotFoundError traceback
    assert done.stderr.strip() == "graphrt: 'graphrt mcp' needs the MCP SDK: pip install 'graphrt[mcp]'"
