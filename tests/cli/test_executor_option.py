"""`--executor NAME`: the command made the executor, so it opens it once before its runs and closes it once after;
the runs and the batch's rows borrow it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphrt.cli.main import main

from ..batches.conftest import AGENTS_FILE, GRAPH

REFUSING_EXECUTOR = '''
    from graphrt.engine.executor import Executor


    class RefusingExecutor(Executor):
        """An executor whose cluster library refuses to connect, in its own words."""

        name = "refusing"
        schemes = ("refusing",)

        async def open(self):
            raise RuntimeError("no cluster here\\nand a second line")
'''


@pytest.fixture
def graph(tmp_path: Path) -> Path:
    path = tmp_path / "rows.yaml"
    path.write_text(GRAPH)
    return path


def test_graphrt_run_opens_the_executor_it_made_before_the_run_and_closes_it_after(graph, tmp_path, logged_executor,
                                                                                   capsys):
    log = tmp_path / "calls.log"
    assert main(["run", str(graph), "-q", "--agents", AGENTS_FILE, "-i", f"log={json.dumps(str(log))}",
                 "--executor", "logged"]) == 0
    assert json.loads(capsys.readouterr().out) == {"answer": {"double": 0, "row": 0}}
    assert logged_executor.LOG == ["open", ("call", "work"), "ended", "close"]


def test_graphrt_batch_opens_the_executor_once_for_all_its_rows(graph, tmp_path, logged_executor, capsys):
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({"row": i, "log": str(tmp_path / "calls.log")}) + "\n" for i in range(3)))
    assert main(["batch", str(graph), str(rows), "-q", "--no-checkpoint", "--agents", AGENTS_FILE,
                 "--concurrency", "1", "--executor", "logged"]) == 0
    assert [json.loads(line)["row"] for line in capsys.readouterr().out.splitlines()] == [1, 2, 3]
    assert logged_executor.LOG == ["open", *[("call", "work"), "ended"] * 3, "close"]


def test_an_executor_that_cannot_open_is_one_line_and_nothing_runs(graph, tmp_path, installed_package, capsys):
    installed_package("demo-refusing-executor",
                      entry_points={"graphrt.executors": {"refusing": "refusing:RefusingExecutor"}},
                      refusing=REFUSING_EXECUTOR)
    log = tmp_path / "calls.log"
    assert main(["run", str(graph), "--agents", AGENTS_FILE, "-i", f"log={json.dumps(str(log))}",
                 "--executor", "refusing"]) == 1
    assert capsys.readouterr().err == "graphrt: --executor refusing: RuntimeError: no cluster here\n"
    assert not log.exists()
