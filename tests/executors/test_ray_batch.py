"""A batch on Ray: each row one whole run, a Ray task on the cluster's worker nodes; the driver only schedules rows.

The session's cluster (conftest.py) has two worker nodes of one declared CPU each.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import anyio
import pytest

import graphrt
from graphrt.authoring.agent_like import module_agents

from ..batches.conftest import AGENTS_FILE as BATCH_AGENTS_FILE, GRAPH as ROW_GRAPH
from ..commands import GRAPHRT
from ..waiting import wait_until
from .conftest import WORKER_NODES

AGENTS = module_agents(str(Path(__file__).with_name("ray_agents.py")))
DRIVER = os.getpid()

MEET = """\
version: 0.5
nodes:
  row:
    value: 0
  folder:
    value: ""
  meet:
    agent: meetAgent
    inputs: {row: ":row", folder: ":folder", count: 2}
  where:
    agent: whereAgent
    inputs: {row: ":meet.row"}
  answer:
    agent: copyAgent
    inputs: {row: ":where.row", meet: ":meet", where: ":where.pid"}
    isResult: true
"""


def test_rows_are_whole_runs_spread_over_the_worker_nodes(ray_executor, tmp_path):
    graph = tmp_path / "meet.yaml"
    graph.write_text(MEET)
    folders = [tmp_path / f"pair{i // 2}" for i in range(6)]
    for folder in set(folders):
        folder.mkdir()
    rows = [{"row": i, "folder": str(folder)} for i, folder in enumerate(folders)]
    assert ray_executor.whole_run_slots() == WORKER_NODES  # the default concurrency: a row per declared CPU
    outcomes = graphrt.batch(graph, rows, agents=AGENTS, executor=ray_executor)
    answers = [outcome.results["answer"] for outcome in outcomes]
    assert [answer["row"] for answer in answers] == list(range(6))
    assert all(answer["meet"]["met"] for answer in answers)  # rows ran two at a time: one on each node
    for pair in range(3):
        first, second = answers[2 * pair]["meet"], answers[2 * pair + 1]["meet"]
        assert first["node"] != second["node"]
    # The whole run is on the worker: every node of a row ran in the process of its first.
    assert all(answer["where"] == answer["meet"]["pid"] != DRIVER for answer in answers)


def test_each_row_run_on_the_cluster_says_what_it_spent_and_the_batch_sums_them(ray_executor, openai_server, reply,
                                                                               openai_api_key):
    from graphrt.batches import BatchProgress

    # The worker processes started before this test's environment: the graph itself names the scripted server.
    ask = {"version": 0.5, "nodes": {
        "question": {"value": ""},
        "ask": {"agent": "openAIAgent", "inputs": {"prompt": ":question"}, "isResult": True,
                "params": {"baseURL": openai_server.url, "apiKey": openai_api_key, "model": "gpt-4o-mini"}},
    }}
    openai_server.script(*(reply.text(f"answer {n}") for n in range(20)))
    progress = BatchProgress()
    outcomes = graphrt.batch(ask, [{"question": f"q{n}"} for n in range(20)], executor=ray_executor,
                             progress=progress)  # 20 rows: sent several a task (run_wholes), and one a task at the end
    assert all(outcome.ok for outcome in outcomes)
    assert [outcome.usage.llm_calls for outcome in outcomes] == [1] * 20
    assert all(outcome.usage.tokens > 0 for outcome in outcomes)
    assert progress.usage.llm_calls == 20 and progress.usage.tokens == sum(outcome.usage.tokens for outcome in outcomes)


def test_a_failed_row_on_ray_has_the_located_error_it_has_in_process(ray_executor, tmp_path):
    batch_graph = tmp_path / "rows.yaml"
    batch_graph.write_text(ROW_GRAPH)
    agents = module_agents(BATCH_AGENTS_FILE)
    rows = [{"row": 1, "log": str(tmp_path / "calls.log")}, {"row": 2, "log": str(tmp_path / "calls.log"), "fail": "no"}]
    here = graphrt.batch(batch_graph, rows, agents=agents)
    there = graphrt.batch(batch_graph, rows, agents=agents, executor=ray_executor)
    assert [o.record() for o in there] == [o.record() for o in here]
    assert there[1].record()["error"]["line"] == 13 and there[1].record()["error"]["node"] == "work"


def _batch(*args: str) -> subprocess.Popen:
    command = [*GRAPHRT, "batch", *args]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_graphrt_batch_on_a_cluster_killed_with_sigkill_skips_its_done_rows_when_run_again(ray_cluster, tmp_path):
    graph, rows_file, out = tmp_path / "rows.yaml", tmp_path / "rows.jsonl", tmp_path / "out.jsonl"
    log, gate = tmp_path / "calls.log", tmp_path / "gate"
    graph.write_text(ROW_GRAPH)
    rows = [{"row": i, "log": str(log), "gate": str(gate), "hold": i in (3, 4)} for i in range(6)]
    rows_file.write_text("".join(json.dumps(row) + "\n" for row in rows))
    # A driver of its own, joining the session's cluster by its loopback address (as a user's would by theirs).
    command = [str(graph), str(rows_file), "-o", str(out), "--agents", BATCH_AGENTS_FILE, "-q",
               "--executor", "ray", "--address", ray_cluster.address]
    batch = _batch(*command)
    try:
        wait_until(lambda: Path(f"{log}.3.held").exists() and Path(f"{log}.4.held").exists() and len(_lines(out)) == 3,
                   "rows 1-3 written and rows 4 and 5 held on the cluster", seconds=180)
    except AssertionError:
        batch.kill()
        pytest.fail(f"the batch never got there: {batch.communicate()[1][-2000:]}")
    os.killpg(batch.pid, signal.SIGKILL)
    batch.wait()
    gate.touch()
    again = _batch(*command)
    stdout, stderr = again.communicate(timeout=300)
    assert again.returncode == 0, stderr[-2000:]
    assert Counter(int(line) for line in log.read_text().split()) == {0: 1, 1: 1, 2: 1, 3: 2, 4: 2, 5: 1}
    lines = _lines(out)
    assert [line["row"] for line in lines] == [1, 2, 3, 4, 5, 6]
    assert [line["results"]["answer"] for line in lines] == [{"double": 2 * i, "row": i} for i in range(6)]


def test_rows_go_to_the_cluster_several_a_task_and_each_is_still_its_own_saved_run(ray_executor, tmp_path, monkeypatch):
    from graphrt.checkpoint import open_store
    from graphrt.executors.ray import RayExecutor

    sent: list[int] = []
    run_wholes = RayExecutor.run_wholes

    async def counted(self, graph, options):
        sent.append(len(options))
        return await run_wholes(self, graph, options)

    run_whole = RayExecutor.run_whole

    async def one(self, graph, options):
        sent.append(1)
        return await run_whole(self, graph, options)

    monkeypatch.setattr(RayExecutor, "run_wholes", counted)
    monkeypatch.setattr(RayExecutor, "run_whole", one)
    batch_graph = tmp_path / "rows.yaml"
    batch_graph.write_text(ROW_GRAPH)
    log = str(tmp_path / "calls.log")
    rows = [{"row": i, "log": log, **({"fail": "no good"} if i == 9 else {})} for i in range(40)]
    store = tmp_path / "runs.db"
    outcomes = graphrt.batch(batch_graph, rows, agents=module_agents(BATCH_AGENTS_FILE), executor=ray_executor,
                             checkpoint=str(store), batch_id="b")
    assert max(sent) == ray_executor.rows_per_task and sum(sent) == 40 and sent[-1] == 1  # fewer a task at the end
    assert [outcome.index for outcome in outcomes] == list(range(40))  # in input order
    assert [outcome.ok for outcome in outcomes] == [i != 9 for i in range(40)]  # the failed row fails alone
    assert outcomes[9].record()["error"]["node"] == "work" and outcomes[10].results["answer"] == {"double": 20, "row": 10}

    async def saved():
        opened = open_store(str(store))
        try:
            return {record.run_id: record.status for record in await opened.runs()}
        finally:
            await opened.close()

    statuses = anyio.run(saved)
    assert statuses == {f"b/{i + 1}": ("failed" if i == 9 else "finished") for i in range(40)}  # each row its own run
    again = graphrt.batch(batch_graph, rows, agents=module_agents(BATCH_AGENTS_FILE), executor=ray_executor,
                          checkpoint=str(store), batch_id="b")
    assert [outcome.before for outcome in again] == [i != 9 for i in range(40)]  # only the failed row ran again


STREAMING_AGENTS = '''\
"""An --agents file: an async generator agent and a toolset class whose tool streams."""
import os

import graphrt
from graphrt import Progress


async def steps_agent(ctx):
    for step in range(ctx.inputs["n"]):
        ctx.progress(f"step {step}", step)
        yield {"step": step, "pid": os.getpid()}


class Counter:
    """Counts."""

    @graphrt.tool
    async def bump(self, by: int = 1) -> dict:
        """Bumps.

        Args:
            by: how much.
        """
        yield Progress("bumping", 0)
        yield {"count": by, "pid": os.getpid()}


AGENTS = [graphrt.AgentInfo("stepsAgent", steps_agent), Counter]
'''

STREAMING_GRAPH = """\
version: 0.5
nodes:
  n:
    value: 1
  steps:
    agent: stepsAgent
    inputs: {n: ":n"}
    isResult: true
  bumped:
    agent: Counter
    inputs: {func: bump, arg: {by: ":n"}}
    isResult: true
"""


def test_async_generator_and_class_agents_from_an_agents_file_run_rows_on_the_cluster(ray_cluster, tmp_path):
    # The driver runs in a folder of its own, as a user's would: graphrt is found by its install's own
    # import finder (editable installs), not on sys.path; once, this made Ray pickle graphrt itself by value
    # and fail ("Could not pickle object as excessively deep recursion required").
    (tmp_path / "streaming_agents.py").write_text(STREAMING_AGENTS)
    (tmp_path / "g.yaml").write_text(STREAMING_GRAPH)
    (tmp_path / "rows.jsonl").write_text('{"n": 2}\n{"n": 3}\n')
    command = [*GRAPHRT, "batch", "g.yaml", "rows.jsonl", "--no-checkpoint", "-q",
               "--agents", "streaming_agents.py", "--executor", "ray", "--address", ray_cluster.address]
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["results"]["steps"]["step"] for line in lines] == [1, 2]
    assert [line["results"]["bumped"]["data"]["count"] for line in lines] == [2, 3]
    assert DRIVER not in {line["results"]["steps"]["pid"] for line in lines}
