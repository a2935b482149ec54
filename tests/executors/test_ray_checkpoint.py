"""A driver killed with SIGKILL while its agent calls run on Ray resumes from its checkpoint.

The driver is `graphrt run --executor ray --address ADDRESS`, a separate process
joining the test session's Ray. Nodes that completed on the cluster before the
kill are not run again on resume; the node that was running then runs again.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from ..commands import GRAPHRT
from ..waiting import wait_until

AGENTS = str(Path(__file__).with_name("ray_agents.py"))

GRAPH = """\
version: 0.5
nodes:
  log:
    value: ""
  gate:
    value: ""
  a:
    agent: logAgent
    inputs: {log: ":log"}
  b:
    agent: logAgent
    inputs: {log: ":log", after: ":a.node"}
  c:
    agent: logAgent
    inputs: {log: ":log", gate: ":gate", after: ":b.node"}
  d:
    agent: logAgent
    inputs: {log: ":log", after: ":c.node"}
    isResult: true
"""


def _graphrt(*args: str) -> subprocess.Popen:
    command = [*GRAPHRT, *args]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def test_a_killed_driver_resumes_and_completed_nodes_do_not_rerun(ray_executor, tmp_path):
    graph, db, log = tmp_path / "chain.yaml", str(tmp_path / "runs.db"), tmp_path / "calls.log"
    graph.write_text(GRAPH)
    import ray

    # The session's own cluster by its address ("auto" would take the newest Ray on the machine).
    address = ray.get_runtime_context().gcs_address
    common = ["--executor", "ray", "--address", address, "--agents", AGENTS, "--run-id", "r1"]
    gate = tmp_path / "gate"  # c waits until it exists
    driver = _graphrt("run", str(graph), "-q", "-i", f"log={log}", "-i", f"gate={gate}", "--checkpoint", db, *common)
    try:
        wait_until(lambda: log.exists() and "c" in log.read_text().split(), "the driver reaching node c")
    except AssertionError:
        driver.kill()
        pytest.fail(f"the driver never reached node c: {driver.communicate()[1][-2000:]}")
    os.killpg(driver.pid, signal.SIGKILL)
    driver.wait()
    assert driver.returncode == -signal.SIGKILL

    # c was held at its gate when the driver died: on resume it must run again (it was cut off), but not a or b.
    gate.touch()
    resumed = _graphrt("resume", "--checkpoint", db, "--force", *common)
    out, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err[-2000:]
    assert '"node": "d"' in out
    calls = Counter(log.read_text().split())
    assert calls == {"a": 1, "b": 1, "c": 2, "d": 1}
