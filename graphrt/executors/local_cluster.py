"""A real multi-node Ray cluster on this machine, on loopback: a head and worker nodes, each its own `ray start`.

    with LocalRayCluster() as cluster:               # the head (no CPUs: it only schedules)
        cluster.add_nodes(2, num_cpus=2)             # two worker nodes of 2 declared CPUs each
        graphrt.batch("g.yaml", rows, executor=RayExecutor(cluster.address))

    python -m graphrt.executors.local_cluster --nodes 2 --cpus 2     # one to try out, until Ctrl-C

For tests, benchmarks and trying a cluster out. Every node is a separate
`ray start --block` process (its raylet, object store and workers) that joins the
head over 127.0.0.1, as the nodes of a real cluster join over the network; each
declares its own `num_cpus`, so Ray schedules across nodes as it would across
machines. Nothing listens beyond loopback, token authentication is off (nothing
outside this machine can reach it), and the cluster's files live in a temporary
folder of its own: it never becomes the machine's "current" Ray (`--address auto`
of other programs is not pointed at it). `stop()` (or leaving the `with`) ends
every process it started, and only those.

Ray rewrites a node's 127.0.0.1 to the machine's network address (so that other
machines can reach it); the nodes here are started through `loopback_ray`, which
keeps the address they are given.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from graphrt.engine.executor import ExecutorError
from graphrt.executors.loopback_ray import LOOPBACK

__all__ = ["LocalRayCluster", "LOOPBACK"]

_STOP_SECONDS = 30
_ATTEMPTS = 3


@dataclass
class _Node:
    process: subprocess.Popen
    num_cpus: float
    log: Path


class LocalRayCluster:
    """A head node, then worker nodes added one by one; `address` is the head's `127.0.0.1:PORT`.

    Args:
        head_cpus: CPUs the head declares (0: tasks run on worker nodes only, as on a cluster whose
            head only schedules).
        env: more environment for every node's processes (e.g. PYTHONPATH for the workers' imports).
        system_config: Ray's `_system_config` for the head (e.g. `{"worker_niceness": 0}`).
        start_timeout: seconds a node may take to join before `ExecutorError`.
    """

    def __init__(self, *, head_cpus: float = 0, env: Mapping[str, str] | None = None,
                 system_config: Mapping[str, Any] | None = None, start_timeout: float = 180) -> None:
        self.head_cpus = head_cpus
        self.env = {**os.environ, **(env or {}), "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
        self.env.pop("RAY_ADDRESS", None)
        self.system_config = dict(system_config or {})
        self.start_timeout = start_timeout
        self.folder = Path(tempfile.mkdtemp(prefix="grt-ray-"))  # short: Ray's socket paths must fit in 107 bytes
        self.port = _free_port()
        self.address = f"{LOOPBACK}:{self.port}"
        self.nodes: list[_Node] = []

    # ----- starting and stopping -----

    def start(self) -> "LocalRayCluster":
        """Starts the head and waits until it answers."""
        head = ["--head", f"--port={self.port}", f"--num-cpus={self.head_cpus:g}", "--include-dashboard=false"]
        if self.system_config:
            import json

            head.append(f"--system-config={json.dumps(self.system_config)}")
        self._launch(head, self.head_cpus, "head")
        self._wait(lambda: _started(self.nodes[0]), "the head to start")
        return self

    def add_node(self, num_cpus: float) -> None:
        """Starts a worker node that declares `num_cpus` and waits until it has joined the head.

        Ray gives a node 30 s to register with the head; on a machine busy enough to miss that,
        the node is started again (up to `_ATTEMPTS` times).
        """
        for attempt in range(1, _ATTEMPTS + 1):
            node = self._launch([f"--address={self.address}", f"--num-cpus={num_cpus:g}"], num_cpus,
                                f"node{len(self.nodes)}")
            try:
                self._wait(lambda: _started(node), f"worker node {len(self.nodes) - 1} to join")
                return
            except ExecutorError:
                self.nodes.remove(node)
                _stop(node)
                if attempt == _ATTEMPTS or "timed out during startup" not in node.log.read_text(errors="replace"):
                    raise

    def add_nodes(self, count: int, num_cpus: float) -> None:
        """Starts `count` worker nodes, one after the other (joining together, they would slow each other down)."""
        for _ in range(count):
            self.add_node(num_cpus)

    def remove_node(self) -> None:
        """Stops the newest worker node (its processes end, its tasks fail as on a machine that died)."""
        if len(self.nodes) < 2:
            raise ValueError("the cluster has no worker node to remove")
        _stop(self.nodes.pop())

    def stop(self) -> None:
        """Ends every node's processes (workers first, then the head), and removes the cluster's folder."""
        while self.nodes:
            _stop(self.nodes.pop())
        import shutil

        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> "LocalRayCluster":
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc_info: Any) -> None:
        self.stop()

    # ----- what the cluster is -----

    @property
    def cpus(self) -> float:
        """The CPUs the nodes declare, all together."""
        return sum(node.num_cpus for node in self.nodes)

    # ----- inside -----

    def _launch(self, arguments: list[str], num_cpus: float, name: str) -> _Node:
        log = self.folder / f"{name}.log"
        command = [sys.executable, "-m", "graphrt.executors.loopback_ray", "start", *arguments,
                   f"--node-ip-address={LOOPBACK}", f"--temp-dir={self.folder}", "--block", "--disable-usage-stats",
                   "--dashboard-agent-listen-port=0", "--metrics-export-port=0"]
        with open(log, "w", encoding="utf-8") as out:
            process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=self.env,
                                       start_new_session=True)  # its own group: stop() ends it and its children
        node = _Node(process, num_cpus, log)
        self.nodes.append(node)
        return node

    def _wait(self, condition: Any, what: str) -> None:
        deadline = time.monotonic() + self.start_timeout
        while not condition():
            dead = [node for node in self.nodes if node.process.poll() is not None]  # a node that ended
            if dead or time.monotonic() > deadline:
                tail = dead[0].log.read_text(errors="replace")[-1500:] if dead else ""
                reason = "a node ended" if dead else f"not within {self.start_timeout:g} s"
                raise ExecutorError(f"the local Ray cluster did not start: waiting for {what}, {reason}\n{tail}")
            time.sleep(0.2)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return probe.getsockname()[1]


def _started(node: _Node) -> bool:
    """Whether `ray start` has said the node's runtime started (its raylet registered with the head)."""
    try:
        return "Ray runtime started" in node.log.read_text(errors="replace")
    except OSError:
        return False


def _stop(node: _Node) -> None:
    """SIGTERM to `ray start --block` (it ends the node's processes), then SIGKILL to what is left of its group."""
    process = node.process
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(_STOP_SECONDS)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(process.pid, signal.SIGKILL)  # the group this cluster started for the node, by its id
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m graphrt.executors.local_cluster",
                                     description="Run a Ray cluster of separate node processes on 127.0.0.1 until Ctrl-C.")
    parser.add_argument("--nodes", type=int, default=2, help="worker nodes (default: 2)")
    parser.add_argument("--cpus", type=float, default=2, help="CPUs each worker node declares (default: 2)")
    args = parser.parse_args(argv)
    with LocalRayCluster() as cluster:
        cluster.add_nodes(args.nodes, args.cpus)
        print(f"Ray cluster at {cluster.address}: a head and {args.nodes} nodes of {args.cpus:g} CPUs "
              f"(graphrt batch ... --executor ray --address {cluster.address}); Ctrl-C stops it", flush=True)
        try:
            signal.pause()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
