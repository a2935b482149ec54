"""Command-line flags that used to end in a traceback, or were taken without complaint: one line each now.

Nonsense is refused by argparse (exit 2) before anything starts; a store that
cannot be used, a trace that cannot be written, a cluster that cannot be reached
are one `graphrt: ...` line (exit 1).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import NEEDS
from ..serve.conftest import HELLO


def _graphrt(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {name: value for name, value in os.environ.items() if name not in ("GRAPHRT_API_KEY", "RAY_ADDRESS")}
    return subprocess.run([sys.executable, "-m", "graphrt", *args], capture_output=True, text=True,
                          timeout=180, cwd=cwd, env=env)  # a guard against a hang


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "hello.yaml").write_text(HELLO)
    return tmp_path


@pytest.mark.parametrize(("args", "said"), [
    (("mcp", "g", "--http", "-5"), "a port is 0 to 65535, not -5"),
    (("mcp", "g", "--http", "99999"), "a port is 0 to 65535, not 99999"),
    (("serve", "g", "--port", "99999"), "a port is 0 to 65535"),
    (("serve", "g", "--port", "²"), "not a whole number"),
    (("serve", "g", "--max-body", "-1"), "--max-body: must be at least 1"),
    (("serve", "g", "--max-queue", "-1"), "--max-queue: must be at least 0"),
    (("serve", "g", "--max-runs", "0"), "--max-runs: must be at least 1"),
    (("serve", "g", "--checkpoint", ""), "--checkpoint: must not be empty"),
    (("run", "g/hello.yaml", "--checkpoint", ""), "--checkpoint: must not be empty"),
    (("resume", " "), "must not be empty"),
    (("resume", "--checkpoint", " "), "--checkpoint: must not be empty"),
    (("fork", "--run-id", "r", "--from", "n", "--checkpoint", ""), "--checkpoint: must not be empty"),
    (("batch", "g/hello.yaml", "rows.jsonl", "--checkpoint", ""), "--checkpoint: must not be empty"),
])
def test_nonsense_flags_are_refused_by_the_parser(folder: Path, args, said: str) -> None:
    result = _graphrt(*args, cwd=folder)
    assert result.returncode == 2 and said in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(("args", "said", "extras"), [
    (("serve", "g", "--port", "0", "--checkpoint", "no/such/folder/runs.db"), "cannot create checkpoint file",
     ["serve"]),
    (("serve", "g", "--port", "0", "--checkpoint", "."), "cannot open checkpoint file", ["serve"]),
    (("serve", "g", "--port", "0", "--checkpoint", "g/hello.yaml"), "file is not a database", ["serve"]),
    (("serve", "g", "--port", "0", "--checkpoint", "postgresql://me:pw0123secret@127.0.0.1:9/x"),
     "cannot use checkpoint database postgresql://me:REDACTED@127.0.0.1:9/x", ["serve", "postgres"]),
    (("run", "g/hello.yaml", "--trace", "/dev/full"), "cannot write the trace to /dev/full: No space left on device",
     []),
    (("run", "g/hello.yaml", "--mcp-config", "/dev/zero"), "not a regular file", []),
    (("run", "/dev/zero"), "not a regular file", []),
    (("run", "g/hello.yaml", "--executor", "ray://127.0.0.1:9"), "Ray", ["ray"]),
])
def test_what_cannot_be_used_is_one_line(folder: Path, args, said: str, extras: list[str]) -> None:
    """With an extra the command needs not installed, the one line names it instead (in the order they are needed)."""
    absent = [extra for extra in extras if NEEDS[extra].absent()]
    if absent:
        said = f"pip install 'graphrt[{absent[0]}]'"
    result = _graphrt(*args, cwd=folder)
    lines = [line for line in result.stderr.splitlines() if line.startswith("graphrt: ")]
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert any(said in line for line in lines), result.stderr[-2000:]
    assert "pw0123secret" not in result.stderr


def test_an_mcp_timeout_of_nan_is_refused(folder: Path) -> None:
    (folder / "mcp.json").write_text('{"mcpServers": {"t": {"command": "true", "timeout": NaN}}}')
    result = _graphrt("run", "g/hello.yaml", "--mcp-config", "mcp.json", cwd=folder)
    assert result.returncode == 1 and "'timeout' must be a positive number of seconds, got nan" in result.stderr
