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


# ----- outputs and rows files that are not what a batch expects: one located line each, never a traceback -----


def _simple(tmp_path: Path) -> Path:
    graph = tmp_path / "g.yaml"
    graph.write_text("version: 0.5\nnodes:\n  x:\n    value: 0\n  out:\n    agent: copyAgent\n"
                     "    inputs: {x: \":x\"}\n    isResult: true\n")
    return graph


@pytest.mark.parametrize("target", ["rows", "graph", "store", "claims"])
def test_an_output_naming_a_file_the_batch_reads_or_its_store_is_refused_before_anything_is_written(
        tmp_path, capsys, monkeypatch, target):
    monkeypatch.chdir(tmp_path)
    graph = _simple(tmp_path)
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"x": 1}\n{"x": 2}\n')
    store = tmp_path / "runs.db"
    output = {"rows": "./rows.jsonl", "graph": str(graph), "store": "runs.db", "claims": "runs.db-claims"}[target]
    assert main(["batch", str(graph), str(rows), "-o", output, "--checkpoint", str(store), "-q"]) == 1
    err = capsys.readouterr().err
    what = {"rows": "the rows", "graph": "the graph", "store": "the checkpoint store",
            "claims": "the checkpoint store's -claims file"}[target]
    assert err.startswith(f"graphrt: -o {output}: it is {what} (") and err.count("\n") == 1, err
    assert rows.read_text() == '{"x": 1}\n{"x": 2}\n' and graph.read_text().startswith("version: 0.5")
    assert not store.exists() and not Path("runs.db-claims").exists()  # refused before the store was opened


def test_a_row_that_is_not_utf8_fails_alone_at_its_line_and_the_rows_around_it_run(tmp_path, capsys):
    graph, rows, out = _simple(tmp_path), tmp_path / "rows.jsonl", tmp_path / "out.jsonl"
    rows.write_bytes(b'{"x": 1}\n{"x": "caf\xe9"}\n{"x": 3}\n')
    assert main(["batch", str(graph), str(rows), "-o", str(out), "--no-checkpoint", "-q"]) == 1
    lines = _lines(out)
    assert [(line["row"], line["status"]) for line in lines] == [(1, "finished"), (2, "failed"), (3, "finished")]
    assert lines[1]["error"] == {
        "message": f"{rows}:2:11: not UTF-8 text (invalid continuation byte at byte 11 of the line): "
                   "save the file as UTF-8",
        "type": "GraphLoadError", "file": str(rows), "line": 2, "column": 11}
    assert capsys.readouterr().err == ""


def test_a_utf8_byte_order_mark_is_not_part_of_the_first_row(tmp_path):
    graph, rows, out = _simple(tmp_path), tmp_path / "rows.jsonl", tmp_path / "out.jsonl"
    rows.write_bytes(b'\xef\xbb\xbf{"x": 1}\n{"x": 2}\n')
    assert main(["batch", str(graph), str(rows), "-o", str(out), "--no-checkpoint", "-q"]) == 0
    assert [line["results"] for line in _lines(out)] == [{"out": {"x": 1}}, {"out": {"x": 2}}]


def test_utf16_rows_are_one_located_line(tmp_path, capsys):
    graph, rows, out = _simple(tmp_path), tmp_path / "rows.jsonl", tmp_path / "out.jsonl"
    rows.write_bytes('{"x": 1}\n{"x": 2}\n'.encode("utf-16"))
    assert main(["batch", str(graph), str(rows), "-o", str(out), "--no-checkpoint", "-q"]) == 1
    assert capsys.readouterr().err == f"graphrt: {rows}:1: the rows are UTF-16 text, not UTF-8: save the file as UTF-8\n"
    assert out.read_text() == ""


def test_rows_without_line_ends_stop_the_batch_with_one_line_after_the_rows_before_them(tmp_path, capsys, monkeypatch):
    from graphrt.batches import rows as rows_module

    monkeypatch.setattr(rows_module, "MAX_ROW_BYTES", 1000)
    graph, rows, out = _simple(tmp_path), tmp_path / "rows.jsonl", tmp_path / "out.jsonl"
    rows.write_bytes(b'{"x": 1}\n{"x": 2}\n' + b"0" * 5000)
    assert main(["batch", str(graph), str(rows), "-o", str(out), "--no-checkpoint", "-q"]) == 1
    assert capsys.readouterr().err == (f"graphrt: {rows}:3: line 3 is longer than 0 MiB, the most a row may be "
                                       "(is this a JSONL file?); the rows before it ran\n")
    assert [line["row"] for line in _lines(out)] == [1, 2]


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero on this system")
def test_rows_from_dev_zero_are_one_line(tmp_path, capsys):
    graph = _simple(tmp_path)
    assert main(["batch", str(graph), "/dev/zero", "--no-checkpoint", "-q"]) == 1
    assert capsys.readouterr() == ("", "graphrt: /dev/zero:1: line 1 is longer than 64 MiB, the most a row may be "
                                       "(is this a JSONL file?)\n")


@pytest.mark.parametrize("output", ["folder", "missing/out.jsonl"])
def test_an_output_that_cannot_be_opened_is_one_line_and_no_store_is_made(tmp_path, capsys, monkeypatch, output):
    monkeypatch.chdir(tmp_path)
    graph, rows = _simple(tmp_path), tmp_path / "rows.jsonl"
    rows.write_text('{"x": 1}\n')
    (tmp_path / "folder").mkdir()
    assert main(["batch", str(graph), str(rows), "-o", output, "-q"]) == 1
    reason = "Is a directory" if output == "folder" else "No such file or directory"
    assert capsys.readouterr().err == f"graphrt: {output}: cannot write the rows' outcomes there: {reason}\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["folder", "g.yaml", "rows.jsonl"]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
def test_an_output_that_cannot_be_written_is_one_line_and_the_rows_stay_saved(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    graph, rows, store = _simple(tmp_path), tmp_path / "rows.jsonl", tmp_path / "runs.db"
    rows.write_text('{"x": 1}\n')
    assert main(["batch", str(graph), str(rows), "-o", "/dev/full", "--checkpoint", str(store), "-q"]) == 1
    assert capsys.readouterr().err == ("graphrt: /dev/full: cannot write the rows' outcomes: No space left on device "
                                       f"(the rows that ran are saved in {store}: run the command again)\n")
    out = tmp_path / "out.jsonl"
    assert main(["batch", str(graph), str(rows), "-o", str(out), "--checkpoint", str(store), "-q"]) == 0
    assert _lines(out) == [{"row": 1, "status": "finished", "results": {"out": {"x": 1}}}]
    # Without --checkpoint, the store goes to ROWS.runs.db here, not beside a device (/dev/full.runs.db).
    assert main(["batch", str(graph), str(rows), "-o", "/dev/full", "-q"]) == 1
    capsys.readouterr()
    assert (tmp_path / "rows.runs.db").exists() and not Path("/dev/full.runs.db").exists()


def test_ids_1_and_the_text_1_are_one_id_and_the_second_fails_at_its_line(tmp_path):
    graph, rows, out = _simple(tmp_path), tmp_path / "rows.jsonl", tmp_path / "out.jsonl"
    rows.write_text('{"id": 1, "x": 1}\n{"id": "1", "x": 2}\n{"id": 2, "x": 3}\n')
    assert main(["batch", str(graph), str(rows), "-o", str(out), "--id-field", "id", "-q"]) == 1
    lines = _lines(out)
    assert [(line["row"], line["status"]) for line in lines] == [(1, "finished"), ("1", "failed"), (2, "finished")]
    assert lines[1]["error"] == {
        "message": f"{rows}:2: field 'id': row id '1' is also the id of an earlier row ({rows}:1): 1 and '1' are "
                   "one id, as the saved run's name; each row needs its own id",
        "type": "GraphError", "field": "id", "file": str(rows), "line": 2}


def test_a_batch_says_what_its_rows_spent_together(tmp_path, capsys, openai_server, reply):
    openai_server.script(reply.text("one"), reply.text("two"), reply.text("three"))
    graph = tmp_path / "ask.yaml"
    graph.write_text("version: 0.5\nnodes:\n  q: {value: ''}\n"
                     "  ask: {agent: openAIAgent, inputs: {prompt: ':q'}, isResult: true}\n", encoding="utf-8")
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({"q": q}) + "\n" for q in ("a", "b", "c")), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    code = main(["batch", str(graph), str(rows), "-o", str(out), "--no-checkpoint", "--budget", "tokens=1000"])
    assert code == 0
    assert [json.loads(line)["usage"]["total_tokens"] for line in out.read_text().splitlines()] == [18, 18, 18]
    assert capsys.readouterr().err.splitlines()[-1] == (
        "graphrt: usage: 3 LLM calls, 54 tokens (33 in, 21 out), cost unknown (no price for openai:scripted-model)")
