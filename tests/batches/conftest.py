"""The batch tests' graph: static inputs (row, log, gate, hold, fail) into one rowAgent node."""

from __future__ import annotations

from pathlib import Path

import pytest

AGENTS_FILE = str(Path(__file__).with_name("batch_agents.py"))

GRAPH = """\
version: 0.5
nodes:
  row:
    value: 0
  log:
    value: ""
  gate:
    value: ""
  hold:
    value: false
  fail:
    value: ""
  work:
    agent: rowAgent
    inputs: {row: ":row", log: ":log", gate: ":gate", hold: ":hold", fail: ":fail"}
  answer:
    agent: copyAgent
    inputs: {double: ":work.double", row: ":work.row"}
    isResult: true
"""


@pytest.fixture
def batch_graph(tmp_path: Path) -> Path:
    path = tmp_path / "rows.yaml"
    path.write_text(GRAPH)
    return path
