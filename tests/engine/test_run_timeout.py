"""A whole run's time limit: `timeout=`, GRAPHRT_RUN_TIMEOUT, `graphrt run --timeout`.

GraphAI's own abort tests loop forever (`loop: {while: true}`) until the test aborts them;
a time limit ends such a run cleanly, with a RunTimeoutError and the results so far.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import anyio
import pytest

import graphrt
from graphrt.check.validate import collect_issues
from graphrt.durable import run_checkpointed
from graphrt.observe.events import LoopIteration

# GraphAI's packages/graphai/tests/units/test_abort.ts (graph_loop_data)
FOREVER = {"version": 0.5, "loop": {"while": True}, "nodes": {
    "message": {"value": "Hello World Loop"},
    "sleep1": {"agent": "sleeperAgent", "params": {"duration": 20}, "inputs": {"text": ":message"}},
    "sleep2": {"agent": "sleeperAgent", "params": {"duration": 20}, "inputs": {"text": ":sleep1.text"}},
}}


@pytest.mark.anyio
async def test_a_timeout_ends_an_endless_loop_with_a_graph_error() -> None:
    run = graphrt.Graph(FOREVER).start(timeout=0.3)
    with anyio.fail_after(60):  # a guard against the endless loop, not a timing check
        with pytest.raises(graphrt.RunTimeoutError, match=r"did not finish within 0\.3 s") as caught:
            await run.wait()
    assert isinstance(caught.value, graphrt.GraphAbortedError)  # a run stopped before its end
    assert "cut off in loop iteration" in str(caught.value)  # what it was doing when its time ran out
    assert run.results(all_results=True)["message"] == "Hello World Loop"


def test_a_run_that_ends_in_time_returns_its_results() -> None:
    graph = {"version": 0.5, "nodes": {"a": {"agent": "copyAgent", "inputs": {"x": 1}, "isResult": True}}}
    assert graphrt.run(graph, timeout=10) == {"a": {"x": 1}}


def test_the_environment_sets_the_default_and_an_argument_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHRT_RUN_TIMEOUT", "0.2")
    with pytest.raises(graphrt.RunTimeoutError, match="0.2 s"):
        graphrt.run(FOREVER)
    with pytest.raises(graphrt.RunTimeoutError, match="0.3 s"):
        graphrt.run(FOREVER, timeout=0.3)


@pytest.mark.parametrize("timeout", [0, -1, float("nan"), "soon", True])
def test_a_bad_timeout_is_a_graph_error(timeout: object) -> None:
    with pytest.raises(graphrt.GraphError, match="timeout must be a positive number of seconds"):
        graphrt.run(FOREVER, timeout=timeout)  # type: ignore[arg-type]


def test_a_bad_environment_value_is_a_graph_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHRT_RUN_TIMEOUT", "ten")
    with pytest.raises(graphrt.GraphError, match="GRAPHRT_RUN_TIMEOUT must be a number of seconds, got 'ten'"):
        graphrt.run(FOREVER)


@pytest.mark.anyio
async def test_abort_is_still_an_abort_under_a_timeout() -> None:
    runs: list[graphrt.Run] = []

    def abort_at_the_third_iteration(event: object) -> None:
        if isinstance(event, LoopIteration) and event.index == 2:
            runs[0].abort()

    runs.append(graphrt.Graph(FOREVER).start(timeout=3600, subscribe=[abort_at_the_third_iteration]))
    with pytest.raises(graphrt.GraphAbortedError) as caught:
        await runs[0].wait()
    assert not isinstance(caught.value, graphrt.RunTimeoutError)


def test_a_timeout_names_the_graph_file(tmp_path: Path) -> None:
    path = tmp_path / "forever.yaml"
    path.write_text("version: 0.5\nloop: {while: true}\nnodes:\n  a: {value: 1}\n"
                    "  b: {agent: sleeperAgent, inputs: {x: ':a'}, params: {duration: 20}}\n")
    for run in (lambda: graphrt.run(path, timeout=0.3),
                lambda: run_checkpointed(graphrt.Graph(path), tmp_path / "runs.sqlite", timeout=0.3)):
        with pytest.raises(graphrt.RunTimeoutError) as caught:
            run()
        assert caught.value.location is not None and caught.value.location.file == str(path)
        assert str(caught.value).startswith(f"{path}: the run did not finish within 0.3 s")


def test_a_saved_run_that_times_out_can_be_resumed(tmp_path: Path) -> None:
    hung = []

    async def step(ctx: graphrt.AgentContext) -> dict:
        if ctx.inputs["n"] == 5 and not hung:  # the first time it gets there, it hangs until the run times out
            hung.append(ctx.inputs["n"])
            await anyio.sleep_forever()
        return ctx.inputs

    agents = [graphrt.AgentInfo(name="stepAgent", func=step)]
    graph = {"version": 0.5, "loop": {"count": 12}, "nodes": {
        "n": {"value": 0, "update": ":step.n"},
        "step": {"agent": "stepAgent", "inputs": {"n": ":n.add(1)"}, "isResult": True},
    }}
    store = tmp_path / "runs.sqlite"
    with pytest.raises(graphrt.RunTimeoutError):
        run_checkpointed(graphrt.Graph(graph, agents=agents), store, run_id="r1", timeout=0.3)
    assert hung == [5]
    assert graphrt.resume(store, "r1", agents=agents) == {"step": {"n": 12}}


def test_the_cli_stops_at_its_timeout(tmp_path: Path) -> None:
    path = tmp_path / "forever.yaml"
    path.write_text("version: 0.5\nloop: {while: true}\nnodes:\n  a: {value: 1}\n"
                    "  b: {agent: sleeperAgent, inputs: {x: ':a'}, params: {duration: 20}}\n")
    done = subprocess.run([sys.executable, "-m", "graphrt", "run", "-q", "--timeout", "0.3", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"graphrt: {path}: the run did not finish within 0.3 s (timeout); 'b' cut off in loop iteration ")
    assert done.stdout == ""


def test_validate_warns_that_while_true_never_ends_by_itself() -> None:
    warnings = [issue.message for issue in collect_issues(FOREVER, graphrt.default_registry()) if issue.field == "loop"]
    assert warnings == ["'loop.while' is always true: the run ends only when a node fails or asks a question, "
                        "or when it is aborted or times out (graphrt run --timeout)"]
