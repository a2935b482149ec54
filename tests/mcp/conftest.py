"""Fixtures for the MCP tests: real MCP servers, started by the tests on stdio and on loopback HTTP.

`tool_server.py` (written with the SDK) is the server the client side talks to; its
configs are in the `mcpServers` shape, as a user writes them. Nothing here is mocked.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import httpx
import pytest


SERVER = Path(__file__).parent / "tool_server.py"


def stdio_server(mode: str = "tools", **extra: Any) -> dict[str, Any]:
    """The config entry of a stdio tool server."""
    return {"command": sys.executable, "args": [str(SERVER), mode], **extra}


def mcp_config(**servers: dict[str, Any]) -> dict[str, Any]:
    """`config=` for a run with these servers."""
    return {"mcp": {"mcpServers": servers}}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_http(url: str, process: subprocess.Popen, seconds: float = 90.0) -> None:
    """Waits until `url` answers; the deadline guards against a hang only (a loaded machine took 31 s to start one)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        try:
            httpx.get(url, timeout=0.5)
            return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise RuntimeError(f"no answer from {url}")


@pytest.fixture(scope="module")
def http_server() -> Iterator[str]:
    """The tool server over streamable HTTP on 127.0.0.1 (a free port); yields its URL."""
    port = free_port()
    process = subprocess.Popen([sys.executable, str(SERVER), "--http", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        wait_for_http(url, process)
        yield url
    finally:
        process.terminate()
        process.wait(10)


def alive(pid: int) -> bool:
    """Whether a process runs (a zombie counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False


@pytest.fixture
def kit() -> Any:
    """The helpers above, for the tests (test modules cannot import conftest)."""
    from types import SimpleNamespace

    return SimpleNamespace(stdio=stdio_server, config=mcp_config, free_port=free_port, alive=alive,
                           wait_for_http=wait_for_http, server_script=SERVER)
