"""Property tests of `graphrt serve` and `graphrt mcp --http` on the wire: raw HTTP/1.x bytes, as a client that
breaks the protocol sends them.

test_http_properties.py sends well-formed requests through an HTTP client to the app. Here the command
itself runs (their connection layer, graphrt/cli/listen.py, with uvicorn's parser behind it), and hypothesis
writes the bytes: request lines and headers that are wrong, lengths that lie, chunked bodies whose chunks
do not parse, heads over the limit, several requests in one write, all of it sent in pieces. The rule: every
connection the client half-closes is answered or closed, none of them a 5xx but 503, and the server's
log holds no traceback and no error; afterwards it still answers.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ..commands import GRAPHRT
from ..conftest import need

pytestmark = pytest.mark.needs("serve")


HELLO = Path(__file__).parents[2] / "graphs" / "hello.yaml"
_BODY = json.dumps({"inputs": {"name": "Ada"}}).encode()

_bodies = st.sampled_from([_BODY, b"", b"{", b"x" * 1000, b"y" * (1024 * 1024 + 1),
                           b'{"inputs": ' + b"[" * 3000 + b"}"]) | st.binary(max_size=300)
_targets = st.sampled_from(["/mcp", "/health", "/graphs", "/graphs/hello/runs", "/graphs/hello/runs?wait=true", "/runs",
                            "/runs?limit=1", "/", "*", "/static/../../etc/passwd", "http://127.0.0.1/health",
                            "/" + "a" * 9000, "/runs/%ff%fe", "/runs/\xff"])
_versions = st.sampled_from(["HTTP/1.1", "HTTP/1.1", "HTTP/1.0", "HTTP/2.0", "HTTP/1.x", "", "HTTP/0.9"])
_hosts = st.sampled_from(["{port}", "localhost", "evil.example", "", "127.0.0.1:80.evil.example", "a" * 300])
_extra_headers = st.lists(st.sampled_from([
    "Content-Type: application/json", "Content-Type: text/plain", "Origin: https://evil.example", "Origin: null",
    "Connection: close", "Connection: keep-alive", "Connection: Upgrade, HTTP2-Settings", "Upgrade: h2c",
    "Upgrade: websocket", "Expect: 100-continue", "Bad Header Name: x", " folded: continuation",
    "Last-Event-ID: \xb2", "Last-Event-ID: " + "9" * 4400, "X-Junk: \x00\x7f\xff", "X-Big: " + "b" * 70000,
    "Host: 127.0.0.1", "Transfer-Encoding: gzip",
]), max_size=4)


@st.composite
def _chunked(draw, body: bytes) -> bytes:
    """`body` in chunks whose sizes may lie or not parse, with an end that may be missing or carry trailers."""
    sizes = draw(st.lists(st.sampled_from([1, 7, 100, 65536]), min_size=1, max_size=8))
    out, at = [], 0
    for size in sizes:
        part = body[at:at + size]
        at += size
        line = draw(st.sampled_from([f"{len(part):x}", f"{len(part):X}", f"{len(part):x};ext=1", f"{len(part) + 1:x}",
                                     "zz", "-1", "f" * 20]))
        out.append(line.encode() + b"\r\n" + part + b"\r\n")
        if at >= len(body):
            break
    out.append(draw(st.sampled_from([b"0\r\n\r\n", b"0\r\nTrailer: x\r\n\r\n", b"", b"0\r\n"])))
    return b"".join(out)


@st.composite
def _request(draw, port: int) -> bytes:
    method = draw(st.sampled_from(["GET", "POST", "POST", "HEAD", "OPTIONS", "DELETE", "get", "G\x00T", ""]))
    line = f"{method} {draw(_targets)} {draw(_versions)}".strip()
    headers = []
    host = draw(_hosts).format(port=f"127.0.0.1:{port}")
    if draw(st.booleans()) or draw(st.booleans()):
        headers.append(f"Host: {host}")
    body = draw(_bodies)
    framing = draw(st.sampled_from(["length", "wrong length", "chunked", "both", "none"]))
    if framing in ("chunked", "both"):
        headers.append(draw(st.sampled_from(["Transfer-Encoding: chunked", "Transfer-Encoding: chunked, gzip",
                                             "Transfer-Encoding: xchunked", "Transfer-Encoding:  chunked"])))
        payload = draw(_chunked(body))
    else:
        payload = body
    if framing in ("length", "both"):
        headers.append(f"Content-Length: {len(body)}")
    elif framing == "wrong length":
        headers.append("Content-Length: " + draw(st.sampled_from(
            [str(len(body) + 10), str(max(0, len(body) - 1)), "-1", "abc", str(10 ** 30), "1, 2"])))
    headers += draw(_extra_headers)
    end = draw(st.sampled_from(["\r\n", "\r\n", "\n"]))
    return (line + end + "".join(header + end for header in headers) + end).encode("latin-1", "replace") + payload


@st.composite
def _wire(draw, port: int) -> list[bytes]:
    """What the client sends, in the pieces it sends it in: one to three requests, or bytes at random."""
    if draw(st.integers(0, 19)) == 0:
        data = draw(st.binary(min_size=1, max_size=2000))
    else:
        data = b"".join(draw(st.lists(_request(port), min_size=1, max_size=3)))
    cuts = sorted(set(draw(st.lists(st.integers(0, len(data)), max_size=6))))
    return [data[start:end] for start, end in zip([0, *cuts], [*cuts, len(data)]) if data[start:end]]


@pytest.fixture(scope="module", params=["serve", "mcp"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    """`graphrt serve` or `graphrt mcp --http` as a user starts it, on a free port: its port and its log so far."""
    folder = tmp_path_factory.mktemp("wire")
    (folder / "graphs").mkdir()
    (folder / "graphs" / "hello.yaml").write_text(HELLO.read_text(encoding="utf-8"), encoding="utf-8")
    if request.param == "mcp":
        need("mcp")
        listen = ["mcp", str(folder / "graphs"), "--http", "0"]
    else:
        listen = ["serve", str(folder / "graphs"), "--port", "0", "--checkpoint", str(folder / "runs.db")]
    process = subprocess.Popen([*GRAPHRT, *listen], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    log: list[str] = []
    hang_guard = threading.Timer(60, process.kill)  # a server that neither starts nor exits ends the wait below
    hang_guard.start()
    while (line := process.stderr.readline()) and "http://" not in line:
        log.append(line)
    hang_guard.cancel()
    if not line:
        pytest.fail(f"graphrt serve exited with {process.wait()} before it listened: {''.join(log)}")
    threading.Thread(target=lambda: log.extend(process.stderr), daemon=True).start()
    try:
        yield {"port": int(re.search(r":(\d+)", line[line.index("http://") + 7:]).group(1)), "log": log}
    finally:
        process.terminate()
        process.wait(timeout=30)


def _exchange(port: int, pieces: list[bytes], *, half_close: bool = True) -> bytes:
    """Sends the pieces, half-closes (a request still unread is then dropped: uvicorn closes a connection at
    its end of file), and returns all the server sent until it closed the connection."""
    with socket.create_connection(("127.0.0.1", port)) as client:
        client.settimeout(60)  # a guard against a hang: the server closes a half-closed connection at once
        try:
            for piece in pieces:
                client.sendall(piece)
            if half_close:
                client.shutdown(socket.SHUT_WR)
        except OSError:  # a broken pipe, a reset, not connected: the server answered and closed before the rest came
            pass
        received = b""
        try:
            while chunk := client.recv(65536):
                received += chunk
        except ConnectionResetError:
            pass
        return received


def _served_errors(log: list[str]) -> list[str]:
    return [line for line in log if "Traceback" in line or "ERROR" in line]


def test_any_bytes_get_an_answer_or_a_close_and_no_error(server: dict) -> None:
    port = server["port"]

    @settings(deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.data())
    def check(data: st.DataObject) -> None:
        answer = _exchange(port, data.draw(_wire(port)))
        statuses = re.findall(rb"HTTP/1\.[01] (\d{3}) ", answer)
        assert all(status < b"500" or status == b"503" for status in statuses), answer[:500]
        assert b"Traceback" not in answer
        assert not _served_errors(server["log"]), "".join(server["log"])[-3000:]

    check()
    still = _exchange(port, [f"GET /health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode()],
                      half_close=False)
    assert still.startswith((b"HTTP/1.1 200 OK\r\n", b"HTTP/1.1 404 Not Found\r\n")), still[:300]  # mcp: no /health
