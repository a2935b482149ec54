"""The Ray executor: the same graphs give the same results, with agent calls on Ray workers."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

import graphrt
from graphrt.authoring.agent_like import module_agents
from graphrt.base.errors import AgentError, GraphError, NodeTimeoutError
from graphrt.engine.graph import Graph, make_registry
from graphrt.observe.events import AgentProgress

from ..waiting import wait_until

AGENTS = module_agents(str(Path(__file__).with_name("ray_agents.py")))
DRIVER = os.getpid()


def _run(graph, executor, **options):
    return graphrt.run(graph, agents=AGENTS, executor=executor, **options)


def test_same_results_as_in_process(ray_executor):
    graph = {
        "version": 0.5,
        "loop": {"count": 3},
        "nodes": {
            "total": {"value": 0, "update": ":add"},
            "rows": {"value": [1, 2, 3]},
            "mapped": {"agent": "mapAgent", "inputs": {"rows": ":rows"}, "isResult": True,
                       "graph": {"nodes": {"double": {"agent": "copyAgent", "inputs": {"v": ":row"}, "isResult": True}}}},
            "add": {"agent": "dataSumTemplateAgent", "inputs": {"array": [":total", 1]}, "isResult": True},
            "text": {"agent": "stringTemplateAgent", "inputs": {"n": ":add"}, "params": {"template": "n=${n}"},
                     "isResult": True},
        },
    }
    assert _run(graph, ray_executor) == _run(graph, None)


def test_agent_calls_run_on_workers_and_map_rows_spread(ray_executor, tmp_path):
    graph = {
        "version": 0.5,
        "nodes": {
            "folder": {"value": str(tmp_path)},
            "rows": {"value": list(range(6))},
            "map": {"agent": "mapAgent", "inputs": {"rows": ":rows", "folder": ":folder"}, "isResult": True,
                    "graph": {"nodes": {"meet": {"agent": "meetAgent", "isResult": True,
                                                 "inputs": {"row": ":row", "folder": ":folder", "count": 2}}}}},
            "here": {"agent": "localAgent", "isResult": True},
        },
    }
    results = _run(graph, ray_executor)
    rows = [row["meet"] for row in results["map"]]
    assert [row["row"] for row in rows] == list(range(6))
    assert all(row["met"] for row in rows)  # two rows ran at once, in two worker processes
    pids = {row["pid"] for row in rows}
    assert len(pids) >= 2 and DRIVER not in pids
    assert results["here"]["pid"] == DRIVER  # runs_local: stays in the driver


def _held_files(folder: Path, node_id: str) -> dict[str, str]:
    """heldAgent's inputs: the files by which it tells it started, waits for its gate, and ends."""
    return {name: str(folder / f"{node_id}.{name}") for name in ("started", "gate", "finished", "cancelled")}


async def _most_calls_at_once(graph, executor, folder: Path, monkeypatch) -> int:
    """Runs a graph of heldAgent nodes on Ray, letting one held call go at a time; returns the most calls in flight.

    Each time a call is held on a worker, every driver task has run until it waits
    (`wait_all_tasks_blocked`): a node the scheduler let start has sent its call by then.
    """
    from graphrt.executors.ray import RayExecutor

    in_flight, most = [0], [0]
    call = RayExecutor.call

    async def counted(self, agent, ctx):
        in_flight[0] += 1
        try:
            return await call(self, agent, ctx)
        finally:
            in_flight[0] -= 1

    monkeypatch.setattr(RayExecutor, "call", counted)
    files = {node_id: _held_files(folder, node_id) for node_id in graph["nodes"]}
    for node_id, node in graph["nodes"].items():
        node["inputs"] = files[node_id]
    run = Graph(graph, agents=AGENTS, executor=executor).start()
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(run.wait)
            for _ in files:  # one held call at a time, whichever the scheduler started
                gate = await _next_held(files.values())
                await anyio.wait_all_tasks_blocked()
                most[0] = max(most[0], in_flight[0])
                gate.touch()
    finally:
        for held in files.values():  # a failed test leaves no call holding a worker
            Path(held["gate"]).touch()
    assert sorted(run.states().values()) == ["completed"] * len(files)
    return most[0]


async def _next_held(files) -> Path:
    """The gate of a call that is held on a worker and was not let go yet."""
    with anyio.fail_after(60):  # a guard against a hang: it polls files the workers write
        while True:
            for held in files:
                if Path(held["started"]).exists() and not Path(held["gate"]).exists():
                    return Path(held["gate"])
            await anyio.sleep(0.02)


@pytest.mark.anyio
async def test_global_concurrency_holds_on_the_cluster(ray_executor, tmp_path, monkeypatch):
    nodes = {f"n{i}": {"agent": "heldAgent", "isResult": True} for i in range(4)}
    graph = {"version": 0.5, "concurrency": 1, "nodes": nodes}
    assert await _most_calls_at_once(graph, ray_executor, tmp_path, monkeypatch) == 1


@pytest.mark.anyio
async def test_label_concurrency_holds_on_the_cluster(ray_executor, tmp_path, monkeypatch):
    nodes = {f"n{i}": {"agent": "heldAgent", "label": "cpu", "isResult": True} for i in range(4)}
    graph = {"version": 0.5, "concurrency": {"global": 4, "labels": {"cpu": 1}}, "nodes": nodes}
    assert await _most_calls_at_once(graph, ray_executor, tmp_path, monkeypatch) == 1


def test_a_stateful_toolset_lives_in_one_actor(ray_executor):
    counter = next(info for info in AGENTS if info.name == "Counter")
    assert counter.stateful
    nodes = {f"add{i}": {"agent": "Counter", "inputs": {"func": "add", "arg": {"n": 1}}, "isResult": True}
             for i in range(5)}
    results = _run({"version": 0.5, "concurrency": 2, "nodes": nodes}, ray_executor)
    counts = sorted(result["data"]["count"] for result in results.values())
    pids = {result["data"]["pid"] for result in results.values()}
    assert len(pids) == 1 and DRIVER not in pids
    again = _run({"version": 0.5, "nodes": {"add": nodes["add0"]}}, ray_executor)
    # One state for every call and every run: the counts follow on, none is lost or repeated.
    assert counts == sorted(counts) and len(set(counts)) == 5
    assert again["add"]["data"]["count"] == max(counts) + 1


def test_large_values_are_put_once_and_passed_by_reference(ray_executor, monkeypatch):
    import ray

    from graphrt.executors.ray.values import RunValues

    sent = []
    by_reference = RunValues.by_reference
    monkeypatch.setattr(RunValues, "by_reference",
                        lambda self, run_id, inputs: sent.append(by_reference(self, run_id, inputs)) or sent[-1])
    nodes = {"big": {"agent": "bigAgent", "params": {"size": 300_000}}}
    nodes.update({f"len{i}": {"agent": "lengthAgent", "inputs": {"text": ":big"}, "isResult": True} for i in range(4)})
    results = _run({"version": 0.5, "nodes": nodes}, ray_executor)
    assert {r["length"] for r in results.values()} == {300_000}
    refs = [inputs["text"] for inputs in sent if "text" in inputs]
    # The worker put the big result in the object store; all four edges pass that one ref, no copy.
    assert len(refs) == 4 and all(isinstance(ref, ray.ObjectRef) for ref in refs)
    assert len({ref.hex() for ref in refs}) == 1


@pytest.mark.anyio
async def test_a_runs_large_values_stay_by_reference_while_another_run_on_the_executor_ends(ray_executor, tmp_path,
                                                                                            monkeypatch):
    import ray

    put, large_puts = ray.put, []

    def counted(value, *args, **kwargs):
        if isinstance(value, str) and len(value) >= 100_000:
            large_puts.append(len(value))  # the driver put a large value: it did not know it already
        return put(value, *args, **kwargs)

    monkeypatch.setattr(ray, "put", counted)
    held = _held_files(tmp_path, "held")
    long = Graph({"version": 0.5, "nodes": {
        "big": {"agent": "bigAgent"},
        "first": {"agent": "lengthAgent", "inputs": {"text": ":big"}},
        "held": {"agent": "heldAgent", "inputs": {**held, "after": ":first"}},
        "second": {"agent": "lengthAgent", "inputs": {"text": ":big", "after": ":held"}, "isResult": True}}},
        agents=AGENTS, executor=ray_executor)
    short = Graph({"version": 0.5, "nodes": {
        "big": {"agent": "bigAgent"},
        "length": {"agent": "lengthAgent", "inputs": {"text": ":big"}, "isResult": True}}},
        agents=AGENTS, executor=ray_executor)
    run = long.start()
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(run.wait)
            gate = await _next_held([held])  # `long` holds: its `big` went by reference to `first`
            assert (await short.arun())["length"]["length"] == 300_000  # a run that ends while `long` goes on
            gate.touch()
    finally:
        Path(held["gate"]).touch()
    assert run.results()["second"]["length"] == 300_000
    assert large_puts == []  # `second` got `big` by the ref `first` got: the other run's end kept it


def test_an_agent_exception_is_the_same_graph_error(ray_executor):
    graph = "version: 0.5\nnodes:\n  bad:\n    agent: failAgent\n    inputs:\n      what: it\n"
    errors = []
    for executor in (None, ray_executor):
        with pytest.raises(AgentError) as caught:
            _run(graph, executor)
        errors.append(caught.value)
    local, remote = errors
    assert str(remote) == str(local)
    assert remote.node_id == "bad" and remote.location is not None and remote.location.line == 3
    assert isinstance(remote.__cause__, ValueError)


def test_a_timeout_cancels_the_remote_task(ray_executor, tmp_path):
    files = {name: Path(path) for name, path in _held_files(tmp_path, "slow").items()}
    graph = {"version": 0.5, "nodes": {"slow": {
        "agent": "heldAgent", "timeout": 2500, "isResult": True, "inputs": _held_files(tmp_path, "slow")}}}
    with pytest.raises(NodeTimeoutError) as caught:
        _run(graph, ray_executor)
    assert caught.value.node_id == "slow"
    assert files["started"].exists()  # it ran on a worker, held at its gate, until the timeout
    try:
        wait_until(files["cancelled"].exists, "the task being cancelled")  # ray.cancel interrupted it
    finally:
        files["gate"].touch()  # a task that was not cancelled ends, and frees its worker
    assert not files["finished"].exists()


def test_a_dead_worker_is_retried_under_the_nodes_retry(ray_executor, tmp_path):
    graph = {"version": 0.5, "nodes": {"flaky": {"agent": "dieOnceAgent", "retry": 1, "isResult": True,
                                                 "inputs": {"marker": str(tmp_path / "died")}}}}
    result = _run(graph, ray_executor)["flaky"]
    assert result["retry"] == 1 and (tmp_path / "died").exists()


def test_a_dead_worker_without_retry_fails_its_node_cleanly(ray_executor):
    graph = {"version": 0.5, "nodes": {
        "doomed": {"agent": "dieAlwaysAgent"},
        "fine": {"agent": "whereAgent", "isResult": True}}}
    run = Graph(graph, agents=AGENTS, executor=ray_executor).start()
    with pytest.raises(AgentError) as caught:
        run.wait_sync()
    assert caught.value.node_id == "doomed" and "died" in str(caught.value)
    assert run.states() == {"doomed": "failed", "fine": "completed"}


def test_events_from_the_cluster_reach_subscribers(ray_executor):
    async def report(ctx):
        ctx.progress("half way", 50)
        return {"pid": os.getpid()}

    registry = make_registry([*AGENTS, graphrt.AgentInfo("reportAgent", report)])
    prepared = Graph({"version": 0.5, "nodes": {"r": {"agent": "reportAgent", "isResult": True}}},
                     agents=registry, executor=ray_executor)
    seen = []
    assert prepared.run(subscribe=[lambda event: seen.append(event) if isinstance(event, AgentProgress) else None])["r"]["pid"] != DRIVER
    assert [(e.node_id, e.message, e.data) for e in seen] == [("r", "half way", 50)]


def test_tokens_and_progress_stream_back_while_the_call_runs(ray_executor, tmp_path):
    from graphrt.observe.events import TokenDelta

    gate = tmp_path / "gate"
    seen = []

    def subscriber(event):
        if isinstance(event, (TokenDelta, AgentProgress)):
            seen.append(event)
        if len(seen) == 3:
            gate.touch()  # the call waits for this: it ends only if its events came while it ran

    graph = {"version": 0.5, "nodes": {"t": {"agent": "talkAgent", "inputs": {"gate": str(gate)}, "timeout": 60_000,
                                             "isResult": True}}}
    try:
        result = Graph(graph, agents=AGENTS, executor=ray_executor).run(subscribe=[subscriber])
    finally:
        gate.touch()
    assert result["t"]["pid"] != DRIVER
    assert [getattr(event, "token", None) or event.message for event in seen] == ["Hel", "lo", "said hello"]
    assert all(event.node_id == "t" for event in seen)


def test_trio_runs_too(ray_executor):
    graph = {"version": 0.5, "nodes": {"w": {"agent": "whereAgent", "inputs": {"a": 1}, "isResult": True}}}
    prepared = Graph(graph, agents=AGENTS, executor=ray_executor)
    result = prepared.run(backend="trio")["w"]
    assert result["a"] == 1 and result["pid"] != DRIVER


def test_executor_names():
    from graphrt.engine.executor import ExecutorError
    from graphrt.executors import executor_from_spec
    from graphrt.executors.ray import RayExecutor

    assert executor_from_spec("inprocess") is None
    assert isinstance(executor_from_spec("ray"), RayExecutor)
    assert executor_from_spec("ray://10.0.0.1:10001").address == "ray://10.0.0.1:10001"
    assert executor_from_spec("ray", address="auto").address == "auto"
    with pytest.raises(ExecutorError, match="unknown executor 'spark'"):
        executor_from_spec("spark")
    with pytest.raises(GraphError, match="needs a cluster executor"):
        executor_from_spec("inprocess", address="auto")


def test_an_exception_that_cannot_cross_keeps_its_type_name_and_text(ray_executor):
    graph = {"version": 0.5, "nodes": {"p": {"agent": "pickyAgent"}}}
    messages = []
    for executor in (None, ray_executor):
        with pytest.raises(AgentError) as caught:
            _run(graph, executor)
        messages.append(str(caught.value))
    assert messages[0] == messages[1] == "node 'p': PickyError: code 7: picky (agent pickyAgent)"


def test_run_resume_and_serve_take_the_executor_options():
    from graphrt.cli.main import build_parser

    parser = build_parser()
    for argv in (["run", "g.yaml"], ["resume", "--checkpoint", "runs.db"], ["serve", "graphs"]):
        args = parser.parse_args([*argv, "--executor", "ray", "--address", "auto"])
        assert (args.executor, args.address) == ("ray", "auto")


def test_graphrt_run_on_ray_from_the_command_line(ray_executor, tmp_path, capsys):
    import json

    import ray

    from graphrt.cli.main import main

    graph = tmp_path / "g.yaml"
    graph.write_text("version: 0.5\nnodes:\n  w:\n    agent: whereAgent\n    inputs: {a: 1}\n    isResult: true\n")
    address = ray.get_runtime_context().gcs_address
    agents = str(Path(__file__).with_name("ray_agents.py"))
    assert main(["run", str(graph), "-q", "--executor", "ray", "--address", address, "--agents", agents]) == 0
    result = json.loads(capsys.readouterr().out)["w"]
    assert result["a"] == 1 and result["pid"] != DRIVER
    assert ray.is_initialized()  # the command used the session's Ray and left it running


def test_agent_options_reach_ray(ray_executor):
    from graphrt.executors.ray import RayExecutor

    # A task asking for 3 CPUs on a 2-CPU Ray could never start; a quarter CPU runs at once.
    light = RayExecutor(agent_options={"whereAgent": {"num_cpus": 0.25}})
    graph = {"version": 0.5, "nodes": {"w": {"agent": "whereAgent", "isResult": True}}}
    assert _run(graph, light)["w"]["pid"] != DRIVER
    assert light._options("whereAgent") == {"num_cpus": 0.25, "max_retries": 0}
    assert light._options("copyAgent") == {"num_cpus": 1, "max_retries": 0}


ASYNC_GENERATOR_AGENTS = '''\
"""An --agents file whose agents stream: an async generator, and one decorated with @graphrt.agent."""
import os

import graphrt
from graphrt import Progress


async def steps_agent(ctx):
    for step in range(3):
        ctx.progress(f"step {step}", step)
        yield {"step": step, "pid": os.getpid()}


@graphrt.agent(name="countAgent")
async def count(ctx: graphrt.AgentContext, n: int = 2) -> dict:
    """Counts to n, reporting each step.

    Args:
        n: how far.
    """
    for step in range(n):
        yield Progress(f"count {step}", step)
    yield {"counted": n, "pid": os.getpid()}


AGENTS = [graphrt.AgentInfo("stepsAgent", steps_agent), count]
'''


def test_async_generator_agents_from_an_agents_file_run_on_workers(ray_executor, tmp_path, capsys):
    import json

    import ray

    from graphrt.cli.main import main

    agents = tmp_path / "streaming_agents.py"
    agents.write_text(ASYNC_GENERATOR_AGENTS)
    graph = tmp_path / "g.yaml"
    graph.write_text("version: 0.5\nnodes:\n  s:\n    agent: stepsAgent\n    isResult: true\n"
                     "  c:\n    agent: countAgent\n    inputs: {n: 3}\n    isResult: true\n")
    address = ray.get_runtime_context().gcs_address
    assert main(["run", str(graph), "-q", "--executor", "ray", "--address", address, "--agents", str(agents)]) == 0
    results = json.loads(capsys.readouterr().out)
    assert results["s"]["step"] == 2 and results["c"]["counted"] == 3
    assert DRIVER not in (results["s"]["pid"], results["c"]["pid"])


def test_cheap_pure_agents_stay_in_the_driver(ray_executor, monkeypatch):
    from graphrt.executors.ray import RayExecutor

    sent: list[str] = []
    call = RayExecutor.call

    async def counted(self, agent, ctx):
        sent.append(ctx.node_id)
        return await call(self, agent, ctx)

    monkeypatch.setattr(RayExecutor, "call", counted)
    graph = {"version": 0.5, "nodes": {
        "person": {"value": {"name": "Ada", "born": 1815, "secret": "x"}},
        "kept": {"agent": "propertyFilterAgent", "inputs": {"item": ":person"}, "params": {"include": ["name", "born"]}},
        "copy": {"agent": "copyAgent", "inputs": {"p": ":kept"}},
        "text": {"agent": "stringTemplateAgent", "inputs": {"n": ":copy.p.name"}, "params": {"template": "hi ${n}"},
                 "isResult": True},
        "away": {"agent": "whereAgent", "inputs": {"text": ":text"}, "isResult": True},
    }}
    results = _run(graph, ray_executor)
    assert results["text"] == "hi Ada" and results["away"]["pid"] != DRIVER
    assert sent == ["away"]  # only the agent that is not runs_local went to the cluster
