"""Ways into `graphrt serve` from a browser or a network: no run and no data without being allowed.

With no key (the loopback default) the server is reachable by every page its
user opens: a foreign page's POST (a `text/plain` fetch, an HTML form) must not
start a run, and a page whose DNS name was rebound to 127.0.0.1 must not read
runs. Beyond loopback the server refuses to start without a key. A served
graph file replaced after start-up by a symlink out of the folder, or by a
FIFO, is not read.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ..serve.conftest import HELLO, wait_for_status


def _runs(client) -> list:
    return client.get("/runs").json()["runs"]


@pytest.mark.parametrize(("content_type", "body"), [
    ("text/plain", '{"inputs": {"name": "evil"}}'),  # a "simple" fetch: no preflight
    ("application/x-www-form-urlencoded", ""),  # an empty HTML <form method=post>
    ("multipart/form-data; boundary=x", "--x--"),
])
@pytest.mark.parametrize("origin", ["https://evil.example", "null", "http://127.0.0.1.evil.example"])
def test_a_foreign_page_cannot_start_a_run(serve, content_type, body, origin) -> None:
    served = serve({"hello.yaml": HELLO})
    with served.client() as client:
        response = client.post("/graphs/hello/runs", content=body,
                               headers={"Content-Type": content_type, "Origin": origin})
        assert response.status_code == 403 and "other web pages" in response.json()["error"]
        assert "access-control-allow-origin" not in response.headers
        assert _runs(client) == []
        for path in ("/runs", "/graphs", "/runs/x/events"):  # nor read what the server holds
            assert client.get(path, headers={"Origin": origin}).status_code == 403


def test_the_servers_own_page_and_plain_clients_are_served(serve) -> None:
    served = serve({"hello.yaml": HELLO})
    with served.client() as client:
        own = client.post("/graphs/hello/runs", json={}, headers={"Origin": served.url})
        assert own.status_code == 202
        plain = client.post("/graphs/hello/runs", json={"inputs": {"name": "Ada"}})  # curl, a script: no Origin
        assert wait_for_status(client, plain.json()["id"])["results"] == {"greeting": "Hello, Ada!"}
        localhost = served.url.replace("127.0.0.1", "localhost")
        assert client.get("/runs", headers={"Host": localhost.split("//")[1], "Origin": localhost}).status_code == 200


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.nip.io", "[::2]:80", "10.0.0.1"])
def test_a_rebound_dns_name_reads_nothing(serve, host) -> None:
    served = serve({"hello.yaml": HELLO})
    with served.client() as client:
        run_id = client.post("/graphs/hello/runs?wait=true", json={}).json()["id"]
        for path in ("/runs", f"/runs/{run_id}", f"/runs/{run_id}/events", "/graphs", "/", "/openapi.json"):
            response = client.get(path, headers={"Host": host})
            assert response.status_code == 421, (path, response.status_code)
            assert "Hello" not in response.text
        assert client.post("/graphs/hello/runs", json={}, headers={"Host": host}).status_code == 421


@pytest.mark.parametrize(("version", "status"), [("1.1", b"400"), ("1.0", b"200")])
def test_an_http_1_1_request_without_a_host_is_refused(serve, version: str, status: bytes) -> None:
    import socket
    from urllib.parse import urlsplit

    served = serve({"hello.yaml": HELLO})
    with socket.create_connection((urlsplit(served.url).hostname, urlsplit(served.url).port)) as raw:
        raw.settimeout(60)  # a guard against a hang: the answer comes at once
        raw.sendall(f"GET /runs HTTP/{version}\r\nConnection: close\r\n\r\n".encode())
        answer = b""
        while chunk := raw.recv(65536):
            answer += chunk
    assert answer.split(b" ", 2)[1] == status, answer[:300]
    if status == b"400":
        assert b"the request names no Host (HTTP/1.1 requires one)" in answer


def test_allowed_hosts_and_cors_origins_let_the_configured_ones_in(serve) -> None:
    served = serve({"hello.yaml": HELLO}, allowed_hosts=["graphs.internal"], cors_origins=["https://app.example"])
    with served.client() as client:
        assert client.get("/runs", headers={"Host": "graphs.internal:8000"}).status_code == 200
        preflight = client.options("/graphs/hello/runs", headers={
            "Origin": "https://app.example", "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type, authorization"})
        assert preflight.status_code == 200
        assert preflight.headers["access-control-allow-origin"] == "https://app.example"
        assert "authorization" in preflight.headers["access-control-allow-headers"].lower()
        started = client.post("/graphs/hello/runs", json={}, headers={"Origin": "https://app.example"})
        assert started.status_code == 202 and started.headers["access-control-allow-origin"] == "https://app.example"
        assert "location" in started.headers["access-control-expose-headers"].lower()
        assert client.post("/graphs/hello/runs", json={}, headers={"Origin": "https://other.example"}).status_code == 403


def test_a_key_is_still_asked_of_an_allowed_origin(serve) -> None:
    served = serve({"hello.yaml": HELLO}, api_key="k" * 32, cors_origins=["https://app.example"])
    with served.client() as client:
        assert client.post("/graphs/hello/runs", json={}, headers={"Origin": "https://app.example"}).status_code == 401
        assert client.post("/graphs/hello/runs", json={}, headers={"Origin": "https://app.example",
                                                                   "Authorization": "Bearer " + "k" * 32}).status_code == 202


def _graphrt(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "graphrt", *args], capture_output=True, text=True,
                          timeout=120, env={**{k: v for k, v in os.environ.items() if k != "GRAPHRT_API_KEY"},
                                            **(env or {})})


@pytest.mark.needs("serve")
@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.1"])
def test_serve_beyond_loopback_without_a_key_refuses_to_start(tmp_path: Path, host: str) -> None:
    (tmp_path / "hello.yaml").write_text(HELLO)
    result = _graphrt("serve", str(tmp_path), "--host", host, "--port", "0", "--checkpoint", str(tmp_path / "r.db"))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"serving on {host} needs an API key" in result.stderr


def test_a_graph_file_replaced_by_a_symlink_out_of_the_folder_is_not_read(serve, tmp_path: Path) -> None:
    secret = tmp_path / "outside.yaml"
    secret.write_text(HELLO.replace("World", "the secret outside"))
    served = serve({"hello.yaml": HELLO, "other.yaml": HELLO})
    (served.folder / "hello.yaml").unlink()
    (served.folder / "hello.yaml").symlink_to(secret)
    os.unlink(served.folder / "other.yaml")
    os.mkfifo(served.folder / "other.yaml")  # opened for reading, a FIFO would wait for a writer for ever
    with served.client() as client:
        response = client.post("/graphs/hello/runs?wait=true", json={})
        assert response.status_code == 404  # a symlink out of the folder is not a graph of it (as at start-up)
        assert "secret outside" not in response.text and "secret outside" not in client.get("/graphs").text
        fifo = client.post("/graphs/other/runs?wait=true", json={})
        assert fifo.status_code == 400 and "not a regular file" in fifo.json()["error"]
        assert client.get("/health").status_code == 200


@pytest.mark.parametrize("target", ["/dev/zero", "fifo"])
def test_a_device_or_fifo_as_a_graph_is_refused_at_once(tmp_path: Path, target: str) -> None:
    if target == "fifo":
        target = str(tmp_path / "g.yaml")
        os.mkfifo(target)
    for command in (("run", target), ("validate", target), ("viz", target)):
        result = _graphrt(*command)
        output = result.stdout + result.stderr  # validate reports on stdout
        assert result.returncode == 1 and "not a regular file" in output and "Traceback" not in output


def test_a_file_swapped_between_the_scan_and_the_read_is_not_read(tmp_path: Path) -> None:
    """The check is made on the file opened (its real path), not on the path as it was seen before."""
    from graphrt.base.errors import GraphLoadError
    from graphrt.engine.graph import Graph
    from graphrt.graphdata.loader import GraphFile, read_graph_file

    folder = tmp_path / "graphs"
    folder.mkdir()
    secret = tmp_path / "outside.yaml"
    secret.write_text(HELLO.replace("World", "the secret outside"))
    (folder / "hello.yaml").symlink_to(secret)  # what a scan found to be hello.yaml, a regular file, is now this
    with pytest.raises(GraphLoadError, match="leads outside its folder"):
        read_graph_file(folder / "hello.yaml", folder)
    with pytest.raises(GraphLoadError, match="leads outside its folder"):
        Graph(GraphFile(folder / "hello.yaml", folder))
    assert "the secret outside" in read_graph_file(folder / "hello.yaml")  # no folder given: the CLI's own files
