"""Checkpointed runs and resuming them: completed nodes never run twice (graphrt/durable/)."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

import graphrt
from graphrt.checkpoint import CheckpointError, CheckpointStore, RunStatus, SQLiteStore
from graphrt.durable import arun_checkpointed, run_checkpointed

pytestmark = pytest.mark.anyio

CHAIN = {
    "version": 0.5,
    "nodes": {
        "who": {"value": "Ada"},
        "first": {"agent": "recordAgent", "inputs": {"who": ":who"}},
        "second": {"agent": "recordAgent", "inputs": {"before": ":first.node"}},
        "third": {"agent": "recordAgent", "inputs": {"before": ":second.node"}, "isResult": True},
    },
}

LOOP = {
    "version": 0.5,
    "loop": {"count": 4},
    "nodes": {
        "seen": {"value": [], "update": ":push.array"},
        "step": {"agent": "recordAgent", "inputs": {"i": "@loop"}},
        "push": {"agent": "pushAgent", "inputs": {"array": ":seen", "item": ":step.i"}},
    },
}


async def test_a_checkpointed_run_gives_the_results_of_a_plain_run(recorder, store: CheckpointStore) -> None:
    plain = await recorder.graph(CHAIN).arun()

    saved = await arun_checkpointed(recorder.graph(CHAIN), store, run_id="r1")

    assert saved == plain == {"third": {"node": "third", "before": "second"}}
    assert (await store.get_run("r1")).status == RunStatus.FINISHED


async def test_a_failed_run_resumes_without_running_completed_nodes_again(recorder, store: CheckpointStore) -> None:
    recorder.failing.add("second")
    with pytest.raises(graphrt.AgentError, match="second is broken"):
        await arun_checkpointed(recorder.graph(CHAIN), store, run_id="r1")
    recorder.failing.clear()

    results = await graphrt.aresume(store, "r1", agents=recorder.agents)

    assert results == {"third": {"node": "third", "before": "second"}}
    assert recorder.calls == ["first", "second", "second", "third"]


async def test_a_failed_run_is_saved_as_failed_with_its_error(recorder, store: CheckpointStore) -> None:
    recorder.failing.add("second")
    with pytest.raises(graphrt.AgentError):
        await arun_checkpointed(recorder.graph(CHAIN), store, run_id="r1")

    saved = await store.get_run("r1")

    assert (saved.status, saved.detail["node_id"]) == ("failed", "second")
    assert saved.detail["error"] == "node 'second': RuntimeError: second is broken (agent recordAgent)"


async def test_a_loop_resumes_in_the_iteration_it_stopped_in(recorder, store: CheckpointStore) -> None:
    recorder.failing.add("step@2")
    with pytest.raises(graphrt.AgentError):
        await arun_checkpointed(recorder.graph(LOOP), store, run_id="r1", all_results=True)
    recorder.failing.clear()

    results = await graphrt.aresume(store, "r1", agents=recorder.agents)

    assert results["seen"] == [0, 1, 2, 3]
    assert recorder.calls == ["step@0", "step@1", "step@2", "step@2", "step@3"]


async def test_a_store_keeps_only_the_rows_of_the_latest_iteration(recorder, store: CheckpointStore) -> None:
    await arun_checkpointed(recorder.graph(LOOP), store, run_id="r1")

    rows = await store.get_rows("r1")

    assert {row.iteration for row in rows} == {3}
    assert [(row.kind, row.key) for row in rows] == [("iteration", ""), ("node", "step"), ("node", "push")]


async def test_each_completed_node_adds_one_row(recorder, tmp_path: Path) -> None:
    nodes = {"n0": {"value": 0}} | {
        f"n{i}": {"agent": "recordAgent", "inputs": {"before": f":n{i - 1}"}} for i in range(1, 51)
    }
    store = SQLiteStore(tmp_path / "runs.db")

    await arun_checkpointed(recorder.graph({"version": 0.5, "nodes": nodes}), store, run_id="r1")

    assert [row.kind for row in await store.get_rows("r1")] == ["iteration"] + ["node"] * 50


async def test_resuming_a_completed_run_returns_its_results_without_running(recorder, store: CheckpointStore) -> None:
    first = await arun_checkpointed(recorder.graph(CHAIN), store, run_id="r1")
    recorder.calls.clear()

    again = await graphrt.aresume(store, "r1", agents=recorder.agents)

    assert (again, recorder.calls) == (first, [])


async def test_injected_values_are_saved_and_used_on_resume(recorder, store: CheckpointStore) -> None:
    graph = recorder.graph(CHAIN)
    recorder.failing.add("third")
    with pytest.raises(graphrt.AgentError):
        await arun_checkpointed(graph, store, run_id="r1", all_results=True, inject={"who": "Grace"})
    recorder.failing.clear()

    results = await graphrt.aresume(store, "r1", agents=recorder.agents)

    assert results["first"] == {"node": "first", "who": "Grace"}
    assert (await store.get_run("r1")).injected == {"who": "Grace"}


async def test_resume_without_a_run_id_continues_the_latest_unfinished_run(recorder, store: CheckpointStore) -> None:
    await arun_checkpointed(recorder.graph(CHAIN), store, run_id="done")
    recorder.failing.add("third")
    with pytest.raises(graphrt.AgentError):
        await arun_checkpointed(recorder.graph(CHAIN), store, run_id="broken")
    recorder.failing.clear()
    recorder.calls.clear()

    await graphrt.aresume(store, agents=recorder.agents)

    assert recorder.calls == ["third"]
    assert (await store.get_run("broken")).status == RunStatus.FINISHED


async def test_resuming_an_unknown_run_lists_the_saved_runs(recorder, tmp_path: Path) -> None:
    await arun_checkpointed(recorder.graph(CHAIN), tmp_path / "runs.db", run_id="r1")

    with pytest.raises(CheckpointError, match=r"no run 'r2' in .*runs.db \(saved runs: r1\)"):
        await graphrt.aresume(tmp_path / "runs.db", "r2", agents=recorder.agents)


async def test_resuming_when_every_run_completed_says_so(recorder, tmp_path: Path) -> None:
    await arun_checkpointed(recorder.graph(CHAIN), tmp_path / "runs.db", run_id="r1")

    with pytest.raises(CheckpointError, match=r"every run in .*runs.db has completed \(latest: r1\)"):
        await graphrt.aresume(tmp_path / "runs.db", agents=recorder.agents)


async def _broken_file_run(recorder, tmp_path: Path) -> Path:
    import yaml

    file = tmp_path / "chain.yaml"
    file.write_text(yaml.safe_dump(CHAIN))
    recorder.failing.add("third")
    with pytest.raises(graphrt.AgentError):
        await arun_checkpointed(recorder.graph(file), tmp_path / "runs.db", run_id="r1")
    recorder.failing.clear()
    return file


async def test_resume_refuses_a_graph_file_that_changed(recorder, tmp_path: Path) -> None:
    file = await _broken_file_run(recorder, tmp_path)
    file.write_text(file.read_text() + "\n# edited\n")

    with pytest.raises(CheckpointError) as caught:
        await graphrt.aresume(tmp_path / "runs.db", "r1", agents=recorder.agents)

    assert str(caught.value) == (f"{file} changed since run 'r1' was saved in {tmp_path / 'runs.db'}; "
                                 "resume with force=True (--force) to run the changed graph")


async def test_resume_with_force_runs_the_changed_graph(recorder, tmp_path: Path) -> None:
    file = await _broken_file_run(recorder, tmp_path)
    file.write_text(file.read_text().replace("before: :second.node", "before: :first.node"))

    results = await graphrt.aresume(tmp_path / "runs.db", "r1", agents=recorder.agents, force=True)

    assert results == {"third": {"node": "third", "before": "first"}}


async def test_resume_refuses_a_graph_file_that_is_gone(recorder, tmp_path: Path) -> None:
    file = await _broken_file_run(recorder, tmp_path)
    file.unlink()

    with pytest.raises(CheckpointError, match="chain.yaml is gone since run 'r1' was saved in"):
        await graphrt.aresume(tmp_path / "runs.db", "r1", agents=recorder.agents)


async def test_with_force_a_graph_file_that_is_gone_runs_from_the_saved_copy(recorder, tmp_path: Path) -> None:
    file = await _broken_file_run(recorder, tmp_path)
    file.unlink()

    results = await graphrt.aresume(tmp_path / "runs.db", "r1", agents=recorder.agents, force=True)

    assert results == {"third": {"node": "third", "before": "second"}}


async def test_as_started_resumes_the_graph_the_run_started_with_whatever_the_file_became(recorder, tmp_path: Path
                                                                                        ) -> None:
    file = await _broken_file_run(recorder, tmp_path)
    file.write_text(file.read_text().replace("before: :second.node", "before: :first.node"))

    results = await graphrt.aresume(tmp_path / "runs.db", "r1", agents=recorder.agents, as_started=True)

    assert results == {"third": {"node": "third", "before": "second"}}  # the saved copy's wiring, not the edit


async def test_as_started_takes_the_file_while_it_is_unchanged(recorder, tmp_path: Path) -> None:
    from graphrt.durable.resume import graph_as_started

    file = await _broken_file_run(recorder, tmp_path)
    store = SQLiteStore(tmp_path / "runs.db")
    record = await store.get_run("r1")
    await store.close()
    assert graph_as_started(record) == file  # graphLoader and error locations keep working from the file
    file.unlink()
    assert graph_as_started(record) == record.graph_text


async def test_arun_with_a_saved_run_id_continues_that_run(recorder, store: CheckpointStore) -> None:
    recorder.failing.add("third")
    with pytest.raises(graphrt.AgentError):
        await arun_checkpointed(recorder.graph(CHAIN), store, run_id="r1")
    recorder.failing.clear()

    await arun_checkpointed(recorder.graph(CHAIN), store, run_id="r1")

    assert recorder.calls == ["first", "second", "third", "third"]


async def test_arun_refuses_to_continue_a_run_of_another_graph(recorder, store: CheckpointStore) -> None:
    await arun_checkpointed(recorder.graph(CHAIN), store, run_id="r1")

    with pytest.raises(CheckpointError, match="the graph changed since run 'r1' was saved"):
        await arun_checkpointed(recorder.graph(LOOP), store, run_id="r1")


async def test_a_node_result_json_cannot_hold_runs_again_on_resume(recorder, tmp_path: Path) -> None:
    async def raw(ctx):
        recorder.calls.append(ctx.node_id)
        return b"bytes"

    agents = [*recorder.agents, graphrt.AgentInfo("rawAgent", raw)]
    data = {"version": 0.5, "nodes": {"raw": {"agent": "rawAgent"},
                                      "after": {"agent": "recordAgent", "inputs": {"x": ":raw"}, "isResult": True}}}
    recorder.failing.add("after")
    with pytest.raises(graphrt.AgentError):
        await arun_checkpointed(graphrt.Graph(data, agents=agents), tmp_path / "runs.db", run_id="r1")
    recorder.failing.clear()

    await graphrt.aresume(tmp_path / "runs.db", "r1", agents=agents)

    assert recorder.calls == ["raw", "after", "raw", "after"]


async def test_an_injected_value_json_cannot_hold_is_refused_before_the_run(recorder, tmp_path: Path) -> None:
    graph = recorder.graph(CHAIN)

    with pytest.raises(CheckpointError, match="cannot save the value injected into 'who' in a checkpoint: a bytes"):
        await arun_checkpointed(graph, tmp_path / "runs.db", inject={"who": b"Ada"})
    assert recorder.calls == []


class _BrokenStore(SQLiteStore):
    async def add_row(self, row) -> None:
        if row.kind == "node" and row.key == "second":
            raise OSError("disk full")
        await super().add_row(row)


async def test_a_store_that_fails_stops_the_run_with_a_checkpoint_error(recorder, tmp_path: Path) -> None:
    store = _BrokenStore(tmp_path / "runs.db")

    with pytest.raises(CheckpointError, match=r"could not save run 'r1' to .*: OSError: disk full"):
        await arun_checkpointed(recorder.graph(CHAIN), store, run_id="r1")

    assert (await store.get_run("r1")).status == RunStatus.RUNNING  # not marked done: resuming runs 'second' again


async def test_a_cancelled_run_is_saved_as_stopped(recorder, store: CheckpointStore) -> None:
    async def cancel(ctx):
        scope.cancel()
        await anyio.sleep_forever()

    agents = [*recorder.agents, graphrt.AgentInfo("cancelAgent", cancel)]
    data = {"version": 0.5, "nodes": {"first": {"agent": "recordAgent"}, "hold": {"agent": "cancelAgent", "inputs": {"x": ":first"}}}}
    graph = graphrt.Graph(data, agents=agents)

    with anyio.CancelScope() as scope:
        await arun_checkpointed(graph, store, run_id="r1")
    assert scope.cancelled_caught

    assert (await store.get_run("r1")).status == RunStatus.CANCELLED
    assert [row.key for row in await store.get_rows("r1")] == ["", "first"]


def test_checkpointed_runs_work_on_trio(recorder, tmp_path: Path) -> None:
    recorder.failing.add("third")
    with pytest.raises(graphrt.AgentError):
        run_checkpointed(recorder.graph(CHAIN), tmp_path / "runs.db", run_id="r1", backend="trio")
    recorder.failing.clear()

    results = graphrt.resume(tmp_path / "runs.db", "r1", agents=recorder.agents, backend="trio")

    assert results == {"third": {"node": "third", "before": "second"}}
    assert recorder.calls == ["first", "second", "third", "third"]


async def test_a_run_saved_by_save_new_run_starts_from_its_record_unread_and_resumes_as_any(
        recorder, tmp_path: Path) -> None:
    """A server's queued run (save_new_run, then arun_checkpointed with new_record=) is not read back at its
    start; it is saved as any run is: a failed one resumes without running its completed nodes again."""
    from graphrt.durable import save_new_run

    class Reads(SQLiteStore):
        reads = 0

        async def get_run(self, run_id: str):  # noqa: ANN201
            Reads.reads += 1
            return await super().get_run(run_id)

    store = Reads(tmp_path / "runs.db")
    try:
        graph = recorder.graph(CHAIN)
        record = await save_new_run(graph, store, "r1", inject={"who": "Grace"})
        recorder.failing.add("second")
        with pytest.raises(graphrt.AgentError, match="second is broken"):
            await arun_checkpointed(graph, store, run_id="r1", new_record=record)
        assert Reads.reads == 0 and (await store.get_run("r1")).status == RunStatus.FAILED
        with pytest.raises(ValueError, match="new_record"):  # another run's record
            await arun_checkpointed(graph, store, run_id="r2", new_record=record)
        recorder.failing.clear()

        assert await graphrt.aresume(store, "r1", agents=recorder.agents) == {
            "third": {"node": "third", "before": "second"}}
        assert recorder.calls == ["first", "second", "second", "third"]
        assert (await store.get_run("r1")).injected == {"who": "Grace"}
    finally:
        await store.close()
