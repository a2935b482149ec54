"""Joining a Ray cluster: one on loopback stays on loopback; an address that does not answer is one line, at once."""

from __future__ import annotations

import socket
import subprocess

import pytest
import ray

from graphrt.executors.loopback_ray import is_loopback

from ..commands import GRAPHRT


def test_a_cluster_on_loopback_stays_there(ray_executor, ray_cluster):
    # Ray would register 127.0.0.1 nodes under the machine's network address, and send the driver there.
    nodes = [node for node in ray.nodes() if node["Alive"]]
    assert len(nodes) == len(ray_cluster.nodes)  # the head and the worker nodes
    assert {node["NodeManagerAddress"] for node in nodes} == {"127.0.0.1"}
    assert ray.util.get_node_ip_address() == "127.0.0.1"
    assert ray.get_runtime_context().gcs_address == ray_cluster.address


def test_loopback_addresses():
    assert all(is_loopback(address) for address in ("127.0.0.1:6379", "ray://127.0.0.2:10001", "localhost:1", "[::1]:6379"))
    assert not any(is_loopback(address) for address in ("auto", "10.0.0.1:6379", "ray://head:10001"))


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # nothing listens once it is closed


def test_an_address_that_does_not_answer_is_a_one_line_error(tmp_path):
    graph = tmp_path / "g.yaml"
    graph.write_text("version: 0.5\nnodes:\n  a:\n    agent: copyAgent\n    inputs: {v: 1}\n    isResult: true\n")
    address = f"127.0.0.1:{_closed_port()}"
    command = [*GRAPHRT, "run", str(graph),
               "--executor", "ray", "--address", address]
    # Ray alone retries such an address for minutes; the guard here is only against that hang.
    result = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"graphrt: cannot reach the Ray cluster at {address}: Connection refused (is it running? start one "
        "with 'ray start --head', or use --address auto for the one on this machine)"]


def test_address_auto_is_the_one_cluster_on_the_machine_and_several_are_an_error(ray_cluster, monkeypatch):
    from graphrt.engine.executor import ExecutorError
    from graphrt.executors.local_cluster import LocalRayCluster
    from graphrt.executors.ray.connection import _the_machines_cluster

    monkeypatch.setenv("RAY_ADDRESS", ray_cluster.address)
    assert _the_machines_cluster() == ray_cluster.address  # RAY_ADDRESS says which
    monkeypatch.delenv("RAY_ADDRESS")
    with LocalRayCluster(head_cpus=0) as other:  # a second cluster: Ray's own "auto" would join the newest
        with pytest.raises(ExecutorError) as raised:
            _the_machines_cluster()
    message = str(raised.value)
    assert message.startswith("--address auto: ") and "Ray clusters run on this machine (" in message
    assert ray_cluster.address in message and other.address in message
    assert message.endswith("give the one to use with --address HOST:PORT (or RAY_ADDRESS)")
