"""`graphrt batch`: rows' outcomes as JSONL, a progress line, exit code; killed with SIGKILL, run again, done rows skipped."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from graphrt.cli.main import main

from ..batches.conftest import AGENTS_FILE, GRAPH
from ..commands import GRAPHRT
from ..waiting import wait_until


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    graph = tmp_path / "rows.yaml"
    graph.write_text(GRAPH)
    return {"graph": graph, "rows": tmp_path / "rows.jsonl", "out": tmp_path / "out.jsonl",
            "log": tmp_path / "calls.log", "gate": tmp_path / "gate"}


def _write_rows(files: dict[str, Path], count: int, **by_index: dict) -> None:
    lines = [json.dumps({"row": i, "log": str(files["log"]), "gate": str(files["gate"]), **by_index.get(f"r{i}", {})})
             for i in range(count)]
    files["rows"].write_text("\n".join(lines) + "\n")


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_outcomes_progress_and_exit_code(files, capsys):
    _write_rows(files, 20, r4={"fail": "no good"})
    code = main(["batch", str(files["graph"]), str(files["rows"]), "-o", str(files["out"]), "--agents", AGENTS_FILE,
                 "--concurrency", "3"])
    assert code == 1  # a row failed
    lines = _lines(files["out"])
    assert [line["row"] for line in lines] == list(range(1, 21))
    assert lines[0] == {"row": 1, "status": "finished", "results": {"answer": {"double": 0, "row": 0}}}
    assert lines[4]["status"] == "failed" and lines[4]["error"]["node"] == "work"
    err = capsys.readouterr().err.splitlines()
    # Piped, a progress line at each tenth of the rows (one line for two tenths passed at once), then the summary.
    progress = [line for line in err if line.startswith("batch: ") and "rows/s" in line]
    done = [int(line.split()[1].split("/")[0]) for line in progress]
    assert 2 <= len(progress) <= 10 and done == sorted(set(done)) and all(n >= 2 for n in done)
    assert progress[-1].startswith("batch: 20/20 rows, 1 failed, ")
    assert err[-2].startswith("batch: 20 rows in ") and err[-2].endswith(": 19 completed, 1 failed")
    assert err[-1] == f"graphrt: 1 of 20 rows failed; run the command again to retry them (saved in {files['out']}.runs.db)"
    assert Path(f"{files['out']}.runs.db").exists()


def test_results_on_stdout_and_what_agents_print_on_stderr(files, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    _write_rows(files, 2)
    assert main(["batch", str(files["graph"]), str(files["rows"]), "-q", "--no-checkpoint", "--agents", AGENTS_FILE]) == 0
    out, err = capsys.readouterr()
    assert [json.loads(line)["row"] for line in out.splitlines()] == [1, 2] and err == ""
    assert not (tmp_path / "rows.runs.db").exists()


def test_a_broken_graph_is_one_line_and_no_row_runs(files, capsys):
    files["graph"].write_text("version: 0.5\nnodes:\n  a:\n    agent: nosuchAgent\n")
    _write_rows(files, 2)
    assert main(["batch", str(files["graph"]), str(files["rows"]), "-q", "--no-checkpoint"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"graphrt: {files['graph']}:4:") and "nosuchAgent" in err and not files["log"].exists()


def _batch(*args: str) -> subprocess.Popen:
    command = [*GRAPHRT, "batch", *args]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def test_killed_with_sigkill_and_run_again_the_done_rows_are_skipped(files):
    held = {"hold": True}
    _write_rows(files, 6, r3=held, r4=held)  # at 2 rows at a time, rows 4 and 5 hold both slots at their gate
    command = [str(files["graph"]), str(files["rows"]), "-o", str(files["out"]), "--agents", AGENTS_FILE,
               "--concurrency", "2", "-q"]
    batch = _batch(*command)
    try:
        wait_until(lambda: Path(f"{files['log']}.3.held").exists() and Path(f"{files['log']}.4.held").exists()
                   and len(_lines(files["out"])) == 3, "rows 1-3 written and rows 4 and 5 held")
    except AssertionError:
        batch.kill()
        pytest.fail(f"the batch never got there: {batch.communicate()[1][-2000:]}")
    os.killpg(batch.pid, signal.SIGKILL)
    batch.wait()
    assert batch.returncode == -signal.SIGKILL
    assert [line["row"] for line in _lines(files["out"])] == [1, 2, 3]

    files["gate"].touch()
    again = _batch(*command)
    out, err = again.communicate(timeout=120)
    assert again.returncode == 0, err[-2000:]
    ran = Counter(int(line) for line in files["log"].read_text().split())
    assert ran == {0: 1, 1: 1, 2: 1, 3: 2, 4: 2, 5: 1}  # the rows cut off ran again, the done ones did not
    resumed = _lines(files["out"])

    uninterrupted = files["out"].with_name("plain.jsonl")
    plain = _batch(*command[:2], "-o", str(uninterrupted), "--agents", AGENTS_FILE, "-q", "--no-checkpoint")
    assert plain.communicate(timeout=120)[0] == "" and plain.returncode == 0
    assert resumed == _lines(uninterrupted)
    assert [line["row"] for line in resumed] == [1, 2, 3, 4, 5, 6]


def test_rows_from_stdin_run_as_they_come_and_a_rerun_skips_the_done_ones(files):
    command = [str(files["graph"]), "-", "-o", str(files["out"]), "--agents", AGENTS_FILE, "-q"]
    first = [json.dumps({"row": i, "log": str(files["log"])}) for i in range(2)]
    batch = _batch_fed(*command)
    try:
        batch.stdin.write("\n".join(first) + "\n")
        batch.stdin.flush()
        # The pipe is still open: the first rows' outcomes are written before the rest of the rows exist.
        wait_until(lambda: len(_lines(files["out"])) == 2, "the first two rows written while stdin is open")
        batch.stdin.write("[1, 2]\n" + json.dumps({"row": 3, "log": str(files["log"])}) + "\n")
        batch.stdin.close()
        batch.wait(timeout=120)
    finally:
        batch.kill()
    assert batch.returncode == 1  # the line that is not an object failed
    lines = _lines(files["out"])
    assert [(line["row"], line["status"]) for line in lines] == [(1, "finished"), (2, "finished"), (3, "failed"),
                                                                 (4, "finished")]
    assert lines[2]["error"]["file"] == "<stdin>" and lines[2]["error"]["line"] == 3
    assert lines[3]["results"] == {"answer": {"double": 6, "row": 3}}

    again = _batch_fed(*command)
    again.communicate("\n".join(first) + "\n", timeout=120)
    assert again.returncode == 0
    assert Counter(int(line) for line in files["log"].read_text().split()) == {0: 1, 1: 1, 3: 1}  # saved: not rerun
    assert [line["row"] for line in _lines(files["out"])] == [1, 2]


def _batch_fed(*args: str) -> subprocess.Popen:
    command = [*GRAPHRT, "batch", *args]
    return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
