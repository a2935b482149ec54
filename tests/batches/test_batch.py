"""graphrt.batch: one run per row, a concurrency limit, failed rows alone, input order, and rows saved to resume."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

import graphrt
from graphrt.authoring.agent_like import module_agents
from graphrt.batches import BatchProgress
from graphrt.checkpoint import open_store

from .conftest import AGENTS_FILE

AGENTS = module_agents(AGENTS_FILE)


def _rows(tmp_path: Path, count: int, **extra) -> list[dict]:
    return [{"row": i, "log": str(tmp_path / "calls.log"), **extra} for i in range(count)]


def _ran(tmp_path: Path) -> list[int]:
    log = tmp_path / "calls.log"
    return [int(line) for line in log.read_text().split()] if log.exists() else []


def test_one_run_per_row_in_input_order(batch_graph, tmp_path):
    outcomes = graphrt.batch(batch_graph, _rows(tmp_path, 20), agents=AGENTS, concurrency=4)
    assert [o.id for o in outcomes] == list(range(1, 21))  # a row's id: its place, from 1
    assert [o.results["answer"] for o in outcomes] == [{"double": 2 * i, "row": i} for i in range(20)]
    assert sorted(_ran(tmp_path)) == list(range(20))


def test_a_failed_row_is_recorded_with_its_located_error_and_the_others_run(batch_graph, tmp_path):
    rows = _rows(tmp_path, 5)
    rows[2]["fail"] = "row two is bad"
    rows[3] = {"rwo": 3}
    outcomes = graphrt.batch(batch_graph, rows, agents=AGENTS)
    assert [o.status for o in outcomes] == ["finished", "finished", "failed", "failed", "finished"]
    failed = outcomes[2].record()["error"]
    assert failed["node"] == "work" and failed["type"] == "AgentError"
    assert failed["file"] == str(batch_graph) and failed["line"] == 13  # the node `work` in the graph file
    assert "ValueError: row two is bad" in failed["message"]
    assert "'rwo' is not a node of this graph (did you mean row?)" in outcomes[3].record()["error"]["message"]


def test_rows_from_a_jsonl_file_with_a_bad_line(batch_graph, tmp_path):
    rows = tmp_path / "rows.jsonl"
    log = str(tmp_path / "calls.log")
    rows.write_text(f'{{"row": 1, "log": "{log}"}}\n\n{{"row": 2,\n[1, 2]\n{{"row": 4, "log": "{log}"}}\n')
    outcomes = graphrt.batch(batch_graph, rows, agents=AGENTS)
    records = [o.record() for o in outcomes]
    assert [r["row"] for r in records] == [1, 3, 4, 5]  # line numbers; the blank line is no row
    assert [r["status"] for r in records] == ["finished", "failed", "failed", "finished"]
    assert records[1]["error"]["file"] == str(rows) and records[1]["error"]["line"] == 3
    assert records[1]["error"]["message"].startswith(f"{rows}:3:")
    assert "must be a JSON object" in records[2]["error"]["message"]


def test_ids_from_a_field_must_be_there_and_unique(batch_graph, tmp_path):
    log = str(tmp_path / "calls.log")
    rows = [{"id": "a", "row": 1, "log": log}, {"row": 2, "log": log}, {"id": "a", "row": 3, "log": log}]
    outcomes = graphrt.batch(batch_graph, rows, agents=AGENTS, id_field="id")
    assert [(o.id, o.status) for o in outcomes] == [("a", "finished"), (2, "failed"), ("a", "failed")]
    assert "has no 'id'" in str(outcomes[1].error)
    assert "also the id of an earlier row" in str(outcomes[2].error)


@pytest.mark.anyio
async def test_concurrency_bounds_the_rows_at_once(batch_graph, tmp_path):
    gate = tmp_path / "gate"
    rows = _rows(tmp_path, 6, hold=True, gate=str(gate))
    progress = BatchProgress(total=6)
    held = lambda: sorted(int(p.name.split(".")[-2]) for p in tmp_path.glob("calls.log.*.held"))  # noqa: E731
    async with anyio.create_task_group() as group:
        group.start_soon(lambda: graphrt.abatch(batch_graph, rows, agents=AGENTS, concurrency=2, progress=progress))
        with anyio.fail_after(60):  # a guard against a hang: the rows' files are polled
            while len(held()) < 2:
                await anyio.sleep(0.02)
            await anyio.wait_all_tasks_blocked()
        assert held() == [0, 1] and progress.running == 2  # the third row waits for a slot
        gate.touch()
    assert progress.completed == 6 and progress.running == 0


def test_unordered_outcomes_come_as_rows_finish(batch_graph, tmp_path):
    rows = _rows(tmp_path, 3)
    rows[0]["hold"], rows[0]["gate"] = True, str(tmp_path / "gate")
    seen = []

    def on_row(outcome):
        seen.append(outcome.id)
        if len(seen) == 2:  # rows 2 and 3 are done while row 1 waits: let it go
            (tmp_path / "gate").touch()

    graphrt.batch(batch_graph, rows, agents=AGENTS, ordered=False, on_row=on_row, concurrency=3)
    assert seen[-1] == 1 and sorted(seen) == [1, 2, 3]


def test_a_batch_run_again_skips_the_rows_that_completed(batch_graph, tmp_path):
    db = str(tmp_path / "runs.db")
    rows = _rows(tmp_path, 4)
    rows[1]["fail"] = "not yet"
    first = graphrt.batch(batch_graph, rows, agents=AGENTS, checkpoint=db, batch_id="b")
    assert [o.status for o in first] == ["finished", "failed", "finished", "finished"]
    rows[1].pop("fail")
    # Changing a row is not the same row: it must be given a new batch id (or be left as it was).
    changed = graphrt.batch(batch_graph, rows, agents=AGENTS, checkpoint=db, batch_id="b")
    assert changed[1].status == "failed" and "the input changed since" in str(changed[1].error)
    rows[1]["fail"] = "not yet"
    (tmp_path / "calls.log").unlink()
    progress = BatchProgress()
    again = graphrt.batch(batch_graph, rows, agents=AGENTS, checkpoint=db, batch_id="b", progress=progress)
    assert _ran(tmp_path) == [1]  # only the failed row ran again
    assert [o.before for o in again] == [True, False, True, True]
    assert [o.record() for o in again if o.ok] == [o.record() for o in first if o.ok]
    assert (progress.before, progress.failed, progress.completed) == (3, 1, 0)

    async def saved():
        store = open_store(db)
        try:
            return {record.run_id: record.status for record in await store.runs()}
        finally:
            await store.close()

    assert anyio.run(saved) == {"b/1": "finished", "b/2": "failed", "b/3": "finished", "b/4": "finished"}


def test_an_outcome_line_is_json_whatever_the_results(batch_graph, tmp_path):
    outcome = graphrt.batch(batch_graph, _rows(tmp_path, 1), agents=AGENTS)[0]
    assert json.loads(outcome.json_line()) == {"row": 1, "status": "finished",
                                               "results": {"answer": {"double": 0, "row": 0}}}


def test_a_concurrency_far_above_the_rows_starts_no_more_tasks_than_rows(batch_graph, tmp_path):
    import asyncio

    from graphrt.authoring.agent_info import AgentInfo

    tasks: list[int] = []

    async def count_tasks(ctx) -> dict:
        tasks.append(len(asyncio.all_tasks()))
        return {"row": ctx.inputs["row"], "double": 0}

    outcomes = graphrt.batch(batch_graph, _rows(tmp_path, 2), agents=[AgentInfo("rowAgent", count_tasks)],
                             concurrency=200_000)
    assert [o.status for o in outcomes] == ["finished", "finished"]
    assert max(tasks) < 50, tasks  # a task per running row and the run's own, not one per unused slot


def test_a_batch_borrows_its_executor_and_never_opens_or_closes_it(batch_graph, tmp_path, logged_executor):
    # rowAgent on the executor (copyAgent is runs_local: it stays here); each row one whole run on it.
    outcomes = graphrt.batch(batch_graph, _rows(tmp_path, 3), agents=AGENTS, concurrency=1,
                             executor=logged_executor.LoggedExecutor())
    assert [o.results["answer"]["row"] for o in outcomes] == [0, 1, 2]
    assert logged_executor.LOG == [("call", "work"), "ended"] * 3
