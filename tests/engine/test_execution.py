"""Running a graph: readiness, conditions, results, failures, abort, inject and loops.

Agents here are small recorders defined next to the test that uses them. Tests
that need an order of events wait on anyio events, never on sleeps.
"""

from __future__ import annotations

import threading
from typing import Any

import anyio
import pytest

import graphrt
from graphrt import AgentContext, AgentInfo, Graph, Run
from graphrt.base.errors import (
    AgentError,
    GraphAbortedError,
    GraphError,
    NodeTimeoutError,
)

pytestmark = pytest.mark.anyio

CANCELLED = anyio.get_cancelled_exc_class


def agent(name: str, func: Any) -> AgentInfo:
    return AgentInfo(name=name, func=func)


def recorder(calls: list[str]) -> AgentInfo:
    """`recordAgent`: notes the node id, returns its inputs."""

    async def record(ctx: AgentContext) -> Any:
        calls.append(ctx.node_id)
        return ctx.inputs

    return agent("recordAgent", record)


async def fail(ctx: AgentContext) -> Any:
    raise ValueError(f"{ctx.node_id} broke")


FAIL = agent("failAgent", fail)


def node(agent_name: str = "recordAgent", **fields: Any) -> dict[str, Any]:
    return {"agent": agent_name, **fields}


# ----- readiness -----


async def test_a_node_runs_after_the_nodes_it_reads() -> None:
    calls: list[str] = []
    graph = {
        "nodes": {
            "c": node(inputs={"b": ":b"}),
            "b": node(inputs={"a": ":a"}),
            "a": node(inputs={"s": ":s"}),
            "s": {"value": 1},
        }
    }
    await graphrt.arun(graph, agents=[recorder(calls)])
    assert calls == ["a", "b", "c"]


async def test_a_diamond_joins_both_branches() -> None:
    graph = {
        "nodes": {
            "s": {"value": 1},
            "l": node("copyAgent", inputs={"v": ":s"}),
            "r": node("copyAgent", inputs={"v": ":s.add(1)"}),
            "j": node("copyAgent", inputs={"l": ":l.v", "r": ":r.v"}, isResult=True),
        }
    }
    assert await graphrt.arun(graph) == {"j": {"l": 1, "r": 2}}


async def test_a_node_starts_as_soon_as_its_own_inputs_are_ready() -> None:
    # `slow` waits until `after_fast` has run: only possible if `after_fast` does not wait for `slow`.
    fast_chain_done = anyio.Event()

    async def slow(ctx: AgentContext) -> str:
        await fast_chain_done.wait()
        return "slow"

    async def mark(ctx: AgentContext) -> str:
        fast_chain_done.set()
        return "marked"

    graph = {
        "nodes": {
            "s": {"value": 1},
            "slow": node("slowAgent", inputs={"s": ":s"}, isResult=True),
            "fast": node("copyAgent", inputs={"s": ":s"}),
            "after_fast": node("markAgent", inputs={"f": ":fast"}, isResult=True),
        }
    }
    with anyio.fail_after(5):  # a guard against a hang, not a timing check
        results = await graphrt.arun(graph, agents=[agent("slowAgent", slow), agent("markAgent", mark)])
    assert results == {"slow": "slow", "after_fast": "marked"}


async def test_a_node_without_inputs_runs_once() -> None:
    calls: list[str] = []
    await graphrt.arun({"nodes": {"solo": node()}}, agents=[recorder(calls)])
    assert calls == ["solo"]


async def test_sync_agents_run_too() -> None:
    def sync(ctx: AgentContext) -> dict[str, Any]:
        return {"got": ctx.inputs["x"]}

    graph = {"nodes": {"a": {"value": 1}, "s": node("syncAgent", inputs={"x": ":a"}, isResult=True)}}
    assert await graphrt.arun(graph, agents=[agent("syncAgent", sync)]) == {"s": {"got": 1}}


async def test_params_reach_the_agent_and_inputs_params_override_them() -> None:
    seen: list[dict[str, Any]] = []

    async def params(ctx: AgentContext) -> None:
        seen.append(ctx.params)

    graph = {
        "nodes": {
            "p": {"value": {"b": "from inputs"}},
            "n": node("paramsAgent", params={"a": 1, "b": "literal"}, inputs={"params": ":p"}),
        }
    }
    await graphrt.arun(graph, agents=[agent("paramsAgent", params)])
    assert seen == [{"a": 1, "b": "from inputs"}]


async def test_a_dynamic_agent_is_taken_from_a_node_result() -> None:
    graph = {
        "nodes": {
            "which": {"value": "copyAgent"},
            "n": {"agent": ":which", "inputs": {"x": 1}, "isResult": True},
        }
    }
    assert await graphrt.arun(graph) == {"n": {"x": 1}}


async def test_a_dynamic_agent_that_is_not_registered_fails_the_node() -> None:
    graph = {"nodes": {"which": {"value": "noSuchAgent"}, "n": {"agent": ":which", "inputs": {"x": ":which"}}}}
    with pytest.raises(GraphError, match=r"^node 'n', field 'agent': unknown agent 'noSuchAgent' \(known: "):
        await graphrt.arun(graph)


# ----- anyInput -----


async def test_any_input_runs_when_one_input_has_a_value() -> None:
    graph = {
        "nodes": {
            "off": {"value": False},
            "a": {"value": "A"},
            "skipped": node("copyAgent", inputs={"v": ":a"}, **{"if": ":off"}),
            "any": node("copyAgent", anyInput=True, inputs={"x": ":skipped", "y": ":a"}, isResult=True),
        }
    }
    assert await graphrt.arun(graph) == {"any": {"y": "A"}}


async def test_any_input_drops_missing_items_from_lists() -> None:
    graph = {
        "nodes": {
            "off": {"value": False},
            "a": {"value": "A"},
            "skipped": node("copyAgent", inputs={"v": ":a"}, **{"if": ":off"}),
            "any": node("copyAgent", anyInput=True, inputs={"l": [":skipped", ":a"]}, isResult=True),
        }
    }
    assert await graphrt.arun(graph) == {"any": {"l": ["A"]}}


async def test_any_input_takes_the_first_branch_that_finishes() -> None:
    release_right = anyio.Event()
    calls: list[str] = []

    async def gate(ctx: AgentContext) -> str:
        await release_right.wait()
        return "right"

    async def first(ctx: AgentContext) -> Any:
        calls.append(ctx.node_id)
        release_right.set()
        return ctx.inputs

    graph = {
        "nodes": {
            "s": {"value": 1},
            "left": node("copyAgent", inputs={"v": "left"}),
            "right": node("gateAgent", inputs={"s": ":s"}),
            "join": node("firstAgent", anyInput=True, inputs={"l": ":left.v", "r": ":right"}, isResult=True),
        }
    }
    with anyio.fail_after(5):
        results = await graphrt.arun(graph, agents=[agent("gateAgent", gate), agent("firstAgent", first)])
    assert (calls, results) == (["join"], {"join": {"l": "left"}})


# ----- if / unless / defaultValue -----


@pytest.mark.parametrize("value", [True, 1, "x", [0], {"k": 1}])
async def test_if_runs_the_node_when_the_value_is_truthy(value: Any) -> None:
    graph = {"nodes": {"c": {"value": value}, "n": node("copyAgent", inputs={"v": 1}, isResult=True, **{"if": ":c"})}}
    assert await graphrt.arun(graph) == {"n": {"v": 1}}


@pytest.mark.parametrize("value", [False, 0, "", None, []])
async def test_if_skips_the_node_when_the_value_is_falsy_or_an_empty_list(value: Any) -> None:
    graph = {"nodes": {"c": {"value": value}, "n": node("copyAgent", inputs={"v": 1}, isResult=True, **{"if": ":c"})}}
    assert await graphrt.arun(graph) == {}


async def test_if_on_a_missing_property_skips_the_node() -> None:
    graph = {"nodes": {"c": {"value": {}}, "n": node("copyAgent", inputs={"v": 1}, isResult=True, **{"if": ":c.flag"})}}
    assert await graphrt.arun(graph) == {}


async def test_unless_skips_the_node_when_the_value_is_truthy() -> None:
    graph = {"nodes": {"c": {"value": [1]}, "n": node("copyAgent", inputs={"v": 1}, isResult=True, unless=":c")}}
    assert await graphrt.arun(graph) == {}


async def test_unless_runs_the_node_on_an_empty_list() -> None:
    graph = {"nodes": {"c": {"value": []}, "n": node("copyAgent", inputs={"v": 1}, isResult=True, unless=":c")}}
    assert await graphrt.arun(graph) == {"n": {"v": 1}}


async def test_a_condition_on_a_computed_node_waits_for_it() -> None:
    graph = {
        "nodes": {
            "s": {"value": {"ok": True}},
            "check": node("copyAgent", inputs={"flag": ":s.ok"}),
            "n": node("copyAgent", inputs={"v": 1}, isResult=True, **{"if": ":check.flag"}),
        }
    }
    assert await graphrt.arun(graph) == {"n": {"v": 1}}


async def test_a_skipped_node_never_calls_its_agent_and_its_dependents_never_run() -> None:
    calls: list[str] = []
    graph = {
        "nodes": {
            "off": {"value": False},
            "skipped": node(inputs={"v": ":off"}, **{"if": ":off"}),
            "after": node(inputs={"v": ":skipped"}),
        }
    }
    run = Graph(graph, agents=[recorder(calls)]).start()
    await run.wait()
    assert (calls, run.states()) == ([], {"skipped": "skipped", "after": "waiting"})


@pytest.mark.parametrize("default", ["fallback", 0, False, "", None, []])
async def test_a_skipped_node_with_default_value_yields_it_even_when_falsy(default: Any) -> None:
    graph = {
        "nodes": {
            "off": {"value": False},
            "n": node("copyAgent", inputs={"v": ":off"}, defaultValue=default, isResult=True, **{"if": ":off"}),
        }
    }
    assert await graphrt.arun(graph) == {"n": default}


async def test_the_default_value_feeds_the_nodes_that_wait_for_it() -> None:
    graph = {
        "nodes": {
            "off": {"value": False},
            "n": node("copyAgent", inputs={"v": ":off"}, defaultValue={"v": "d"}, **{"if": ":off"}),
            "after": node("copyAgent", inputs={"got": ":n.v"}, isResult=True),
        }
    }
    assert await graphrt.arun(graph) == {"after": {"got": "d"}}


async def test_the_default_value_is_not_used_when_the_node_runs() -> None:
    graph = {"nodes": {"on": {"value": True}, "n": node("copyAgent", inputs={"v": 1}, defaultValue=0, isResult=True, **{"if": ":on"})}}
    assert await graphrt.arun(graph) == {"n": {"v": 1}}


async def test_a_skipped_node_with_default_value_does_not_call_its_agent() -> None:
    calls: list[str] = []
    graph = {"nodes": {"off": {"value": False}, "n": node(inputs={"v": ":off"}, defaultValue=1, **{"if": ":off"})}}
    await graphrt.arun(graph, agents=[recorder(calls)])
    assert calls == []


# ----- output and passThrough -----


async def test_output_reshapes_the_agent_result() -> None:
    graph = {
        "nodes": {
            "a": {"value": {"k": [1, 2]}},
            "x": node("copyAgent", inputs={"v": ":a"}, output={"first": ".v.k.$0", "n": ".v.k.length()", "lit": "text"}, isResult=True),
        }
    }
    assert await graphrt.arun(graph) == {"x": {"first": 1, "n": 2, "lit": "text"}}


async def test_output_is_what_other_nodes_read() -> None:
    graph = {
        "nodes": {
            "a": {"value": 5},
            "x": node("copyAgent", inputs={"v": ":a"}, output={"renamed": ".v"}),
            "y": node("copyAgent", inputs={"got": ":x.renamed"}, isResult=True),
        }
    }
    assert await graphrt.arun(graph) == {"y": {"got": 5}}


async def test_pass_through_adds_values_to_an_object_result() -> None:
    graph = {"nodes": {"a": {"value": 1}, "x": node("copyAgent", inputs={"v": ":a"}, passThrough={"p": ":a", "q": "lit"}, isResult=True)}}
    assert await graphrt.arun(graph) == {"x": {"v": 1, "p": 1, "q": "lit"}}


async def test_pass_through_adds_values_to_each_object_of_a_list_result() -> None:
    graph = {
        "nodes": {
            "a": {"value": [{"i": 1}, 2]},
            "x": node("copyAgent", params={"namedKey": "v"}, inputs={"v": ":a"}, passThrough={"p": "lit"}, isResult=True),
        }
    }
    assert await graphrt.arun(graph) == {"x": [{"i": 1, "p": "lit"}, 2]}


async def test_pass_through_leaves_a_scalar_result_alone() -> None:
    graph = {"nodes": {"a": {"value": 1}, "x": node("copyAgent", params={"namedKey": "v"}, inputs={"v": ":a"}, passThrough={"p": 2}, isResult=True)}}
    assert await graphrt.arun(graph) == {"x": 1}


async def test_pass_through_waits_for_the_computed_nodes_it_reads() -> None:
    graph = {
        "nodes": {
            "a": {"value": 1},
            "c": node("copyAgent", inputs={"late": ":a"}),
            "x": node("copyAgent", inputs={"v": ":a"}, passThrough={"p": ":c.late"}, isResult=True),
        }
    }
    assert await graphrt.arun(graph) == {"x": {"v": 1, "p": 1}}


@pytest.mark.parametrize("repeat_until", [None, {"exists": ".v"}])
async def test_a_pass_through_that_cannot_be_resolved_fails_its_node(repeat_until: Any) -> None:
    extra = {"repeatUntil": repeat_until} if repeat_until else {}
    graph = {"nodes": {"s": {"value": "not json"}, "x": node("copyAgent", inputs={"v": 1}, passThrough={"p": ":s.jsonParse()"}, **extra)}}
    with pytest.raises(GraphError) as caught:
        await graphrt.arun(graph)
    assert str(caught.value) == "node 'x': jsonParse() failed: Expecting value: line 1 column 1 (char 0)"


async def test_output_keeps_pass_through_values() -> None:
    graph = {"nodes": {"a": {"value": 1}, "x": node("copyAgent", inputs={"v": ":a"}, output={"w": ".v"}, passThrough={"p": 9}, isResult=True)}}
    assert await graphrt.arun(graph) == {"x": {"w": 1, "p": 9}}


# ----- results -----


async def test_only_is_result_nodes_are_returned() -> None:
    graph = {"nodes": {"a": {"value": 1, "isResult": True}, "b": node("copyAgent", inputs={"v": ":a"}), "c": node("copyAgent", inputs={"v": ":b.v"}, isResult=True)}}
    assert await graphrt.arun(graph) == {"a": 1, "c": {"v": 1}}


async def test_all_results_returns_every_node_with_a_result_in_file_order() -> None:
    graph = {"nodes": {"a": {"value": 1}, "b": node("copyAgent", inputs={"v": ":a"}), "off": {"value": False}, "s": node("copyAgent", inputs={"v": 1}, **{"if": ":off"})}}
    results = await graphrt.arun(graph, all_results=True)
    assert list(results.items()) == [("a", 1), ("b", {"v": 1}), ("off", False)]


async def test_a_null_result_is_kept() -> None:
    async def none(ctx: AgentContext) -> None:
        return None

    graph = {"nodes": {"a": {"value": 1}, "n": node("noneAgent", inputs={"v": ":a"}, isResult=True)}}
    assert await graphrt.arun(graph, agents=[agent("noneAgent", none)]) == {"n": None}


# ----- retry and repeatUntil -----


def flaky(failures: int, attempts: list[int]) -> AgentInfo:
    """Fails `failures` times, then returns the attempt number."""

    async def func(ctx: AgentContext) -> dict[str, int]:
        attempts.append(ctx.retry_count)
        if ctx.retry_count < failures:
            raise RuntimeError(f"attempt {ctx.retry_count} failed")
        return {"attempt": ctx.retry_count}

    return agent("flakyAgent", func)


async def test_retry_runs_a_failing_agent_again_until_it_succeeds() -> None:
    attempts: list[int] = []
    graph = {"nodes": {"a": {"value": 1}, "f": node("flakyAgent", inputs={"x": ":a"}, retry=2, isResult=True)}}
    results = await graphrt.arun(graph, agents=[flaky(2, attempts)])
    assert (results, attempts) == ({"f": {"attempt": 2}}, [0, 1, 2])


async def test_retry_gives_up_after_its_count_with_the_last_error() -> None:
    attempts: list[int] = []
    graph = {"nodes": {"a": {"value": 1}, "f": node("flakyAgent", inputs={"x": ":a"}, retry=1)}}
    with pytest.raises(AgentError) as caught:
        await graphrt.arun(graph, agents=[flaky(5, attempts)])
    assert (str(caught.value), attempts) == ("node 'f': RuntimeError: attempt 1 failed (agent flakyAgent)", [0, 1])


async def test_without_retry_a_failing_agent_runs_once() -> None:
    attempts: list[int] = []
    graph = {"nodes": {"a": {"value": 1}, "f": node("flakyAgent", inputs={"x": ":a"})}}
    with pytest.raises(AgentError):
        await graphrt.arun(graph, agents=[flaky(1, attempts)])
    assert attempts == [0]


async def test_the_invoker_leaves_the_node_as_it_was_and_the_run_applies_the_attempts(monkeypatch) -> None:
    """The run owns every state change: the attempts a node took travel in its Outcome, and the run sets them."""
    from graphrt.engine.node import NodeInvoker

    seen: list[tuple[Any, int, int]] = []
    execute = NodeInvoker.execute

    async def spied(self, node, ticket, results):
        outcome = await execute(self, node, ticket, results)
        seen.append((node, node.attempts, outcome[4]))  # as the invoker left it, before the run applies it
        return outcome

    monkeypatch.setattr(NodeInvoker, "execute", spied)
    graph = {"nodes": {"a": {"value": 1}, "f": node("flakyAgent", inputs={"x": ":a"}, retry=2, isResult=True)}}
    await graphrt.arun(graph, agents=[flaky(2, [])])
    [(run_node, left, carried)] = seen
    assert (left, carried, run_node.attempts) == (0, 3, 3)


async def test_graph_level_retry_applies_to_every_node() -> None:
    attempts: list[int] = []
    graph = {"retry": 1, "nodes": {"a": {"value": 1}, "f": node("flakyAgent", inputs={"x": ":a"}, isResult=True)}}
    assert await graphrt.arun(graph, agents=[flaky(1, attempts)]) == {"f": {"attempt": 1}}


async def test_repeat_until_retries_until_the_path_exists() -> None:
    async def eventually(ctx: AgentContext) -> dict[str, Any]:
        return {"answer": 42} if ctx.retry_count == 2 else {"thinking": True}

    graph = {"nodes": {"a": {"value": 1}, "q": node("slowAgent", inputs={"x": ":a"}, retry=3, repeatUntil={"exists": ".answer"}, isResult=True)}}
    assert await graphrt.arun(graph, agents=[agent("slowAgent", eventually)]) == {"q": {"answer": 42}}


async def test_repeat_until_that_is_never_met_fails_naming_the_path() -> None:
    graph = {"nodes": {"a": {"value": 1}, "q": node("copyAgent", inputs={"x": ":a"}, retry=2, repeatUntil={"exists": ".y"})}}
    with pytest.raises(AgentError) as caught:
        await graphrt.arun(graph)
    assert str(caught.value) == "node 'q', field 'repeatUntil': repeatUntil: '.y' does not exist in the result (agent copyAgent)"


# ----- timeout -----


def hanging(cancelled: list[str], started: anyio.Event | None = None) -> AgentInfo:
    """`hangAgent`: waits forever and notes when it is cancelled."""

    async def hang(ctx: AgentContext) -> None:
        if started is not None:
            started.set()
        try:
            await anyio.sleep_forever()
        except CANCELLED():
            cancelled.append(ctx.node_id)
            raise

    return agent("hangAgent", hang)


async def test_timeout_cancels_the_running_agent() -> None:
    cancelled: list[str] = []
    graph = {"nodes": {"a": {"value": 1}, "slow": node("hangAgent", inputs={"x": ":a"}, timeout=10)}}
    with pytest.raises(NodeTimeoutError) as caught:
        await graphrt.arun(graph, agents=[hanging(cancelled)])
    assert (str(caught.value), cancelled) == ("node 'slow', field 'timeout': timed out after 10 ms", ["slow"])


async def test_a_node_timeout_error_is_also_a_timeout_error() -> None:
    assert issubclass(NodeTimeoutError, TimeoutError) and issubclass(NodeTimeoutError, GraphError)


async def test_timeout_with_retry_cancels_every_attempt() -> None:
    cancelled: list[str] = []
    graph = {"nodes": {"a": {"value": 1}, "slow": node("hangAgent", inputs={"x": ":a"}, timeout=5, retry=2)}}
    run = Graph(graph, agents=[hanging(cancelled)]).start()
    with pytest.raises(NodeTimeoutError):
        await run.wait()
    assert (cancelled, run.states()) == (["slow", "slow", "slow"], {"slow": "timed-out"})


async def test_an_agent_within_its_timeout_returns_its_result() -> None:
    graph = {"nodes": {"a": {"value": 1}, "quick": node("copyAgent", inputs={"x": ":a"}, timeout=60_000, isResult=True)}}
    assert await graphrt.arun(graph) == {"quick": {"x": 1}}


async def test_a_timed_out_node_in_a_file_is_located_at_its_timeout(tmp_path) -> None:
    path = tmp_path / "slow.yaml"
    path.write_text("nodes:\n  a:\n    value: 1\n  slow:\n    agent: hangAgent\n    inputs:\n      x: :a\n    timeout: 10\n")
    with pytest.raises(NodeTimeoutError) as caught:
        await graphrt.arun(str(path), agents=[hanging([])])
    assert str(caught.value) == f"{path}:8:5: node 'slow', field 'timeout': timed out after 10 ms"



async def test_timeout_gives_up_on_a_blocking_sync_agent() -> None:
    release = threading.Event()

    def blocking(ctx: AgentContext) -> str:
        release.wait(5)
        return "late"

    watchdog = threading.Timer(0.3, release.set)  # frees the thread if the engine waits for it (the bug)
    watchdog.start()
    graph = {"nodes": {"a": {"value": 1}, "s": node("blockAgent", inputs={"a": ":a"}, timeout=10, isResult=True)}}
    try:
        with pytest.raises(NodeTimeoutError):
            await graphrt.arun(graph, agents=[agent("blockAgent", blocking)])
    finally:
        release.set()
        watchdog.cancel()


# ----- failures -----


async def test_an_agent_error_names_the_node_and_agent_and_chains_the_cause() -> None:
    graph = {"nodes": {"a": {"value": 1}, "bad": node("failAgent", inputs={"x": ":a"})}}
    with pytest.raises(AgentError) as caught:
        await graphrt.arun(graph, agents=[FAIL])
    error = caught.value
    assert (str(error), error.node_id, error.agent_id) == ("node 'bad': ValueError: bad broke (agent failAgent)", "bad", "failAgent")
    assert isinstance(error.__cause__, ValueError)


async def test_an_agent_error_in_a_file_names_file_line_and_node(tmp_path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("nodes:\n  a:\n    value: 1\n  bad:\n    agent: failAgent\n    inputs:\n      x: :a\n")
    with pytest.raises(AgentError) as caught:
        await graphrt.arun(path, agents=[FAIL])
    assert str(caught.value) == f"{path}:4:3: node 'bad': ValueError: bad broke (agent failAgent)"


async def test_a_failing_node_does_not_stop_independent_nodes() -> None:
    failed = anyio.Event()

    async def fail_and_signal(ctx: AgentContext) -> None:
        failed.set()
        raise ValueError("first")

    async def after_failure(ctx: AgentContext) -> str:
        await failed.wait()  # finishes only after the other node failed
        return "done"

    graph = {
        "nodes": {
            "a": {"value": 1},
            "bad": node("signalFailAgent", inputs={"x": ":a"}),
            "ok": node("afterAgent", inputs={"x": ":a"}),
            "ok_next": node("copyAgent", inputs={"v": ":ok"}),
        }
    }
    run = Graph(graph, agents=[agent("signalFailAgent", fail_and_signal), agent("afterAgent", after_failure)]).start()
    with anyio.fail_after(5), pytest.raises(AgentError):
        await run.wait()
    assert run.results(all_results=True) == {"a": 1, "ok": "done", "ok_next": {"v": "done"}}


async def test_the_dependents_of_a_failed_node_never_run() -> None:
    calls: list[str] = []
    graph = {"nodes": {"a": {"value": 1}, "bad": node("failAgent", inputs={"x": ":a"}), "dep": node(inputs={"x": ":bad"}), "dep2": node(inputs={"x": ":dep"})}}
    run = Graph(graph, agents=[FAIL, recorder(calls)]).start()
    with pytest.raises(AgentError):
        await run.wait()
    assert (calls, run.states()) == ([], {"bad": "failed", "dep": "waiting", "dep2": "waiting"})


async def test_the_run_raises_the_first_error_in_file_order() -> None:
    # `late` fails first in time but comes second in the file; the run names `early`.
    late_failed = anyio.Event()

    async def fail_early(ctx: AgentContext) -> None:
        await late_failed.wait()
        raise ValueError("early")

    async def fail_late(ctx: AgentContext) -> None:
        late_failed.set()
        raise ValueError("late")

    graph = {"nodes": {"a": {"value": 1}, "early": node("earlyAgent", inputs={"x": ":a"}), "late": node("lateAgent", inputs={"x": ":a"})}}
    with anyio.fail_after(5), pytest.raises(AgentError) as caught:
        await graphrt.arun(graph, agents=[agent("earlyAgent", fail_early), agent("lateAgent", fail_late)])
    assert caught.value.node_id == "early"


async def test_graph_errors_lists_every_failed_node() -> None:
    graph = {"nodes": {"a": {"value": 1}, "x": node("failAgent", inputs={"v": ":a"}), "y": node("failAgent", inputs={"v": ":a"}), "z": node("copyAgent", inputs={"v": ":a"})}}
    run = Graph(graph, agents=[FAIL]).start()
    with pytest.raises(AgentError):
        await run.wait()
    assert {node_id: str(error) for node_id, error in run.errors().items()} == {
        "x": "node 'x': ValueError: x broke (agent failAgent)",
        "y": "node 'y': ValueError: y broke (agent failAgent)",
    }


async def test_graph_states_tell_how_each_computed_node_ended() -> None:
    graph = {
        "nodes": {
            "a": {"value": 1},
            "off": {"value": False},
            "done": node("copyAgent", inputs={"v": ":a"}),
            "bad": node("failAgent", inputs={"v": ":a"}),
            "skipped": node("copyAgent", inputs={"v": ":a"}, **{"if": ":off"}),
            "blocked": node("copyAgent", inputs={"v": ":bad"}),
        }
    }
    run = Graph(graph, agents=[FAIL]).start()
    with pytest.raises(AgentError):
        await run.wait()
    assert run.states() == {"done": "completed", "bad": "failed", "skipped": "skipped", "blocked": "waiting"}


async def test_a_run_that_has_not_started_has_no_errors_states_or_results() -> None:
    run = Graph({"nodes": {"a": {"value": 1}, "b": node("copyAgent", inputs={"v": ":a"})}}).start()
    assert (run.errors(), run.states(), run.results(), run.done) == ({}, {}, {}, False)


async def test_a_run_awaited_twice_runs_once() -> None:
    calls: list[str] = []
    run = Graph({"nodes": {"a": {"value": 1}, "b": node(inputs={"v": ":a"}, isResult=True)}}, agents=[recorder(calls)]).start()
    assert [await run, await run.wait()] == [{"b": {"v": 1}}, {"b": {"v": 1}}] and calls == ["b"]


async def test_a_graph_does_not_change_once_made() -> None:
    g = Graph({"nodes": {"a": {"value": 1}, "b": node("copyAgent", inputs={"v": ":a"})}})
    with pytest.raises(AttributeError, match="graph.replace"):
        g.config = {"x": 1}  # type: ignore[misc]


async def test_a_graph_can_run_twice() -> None:
    g = Graph({"nodes": {"a": {"value": 1}, "b": node("copyAgent", inputs={"v": ":a"}, isResult=True)}})
    assert [await g.arun(), await g.arun()] == [{"b": {"v": 1}}, {"b": {"v": 1}}]


# ----- abort -----


async def run_and_abort_once_started(run: Run, started: anyio.Event) -> GraphAbortedError:
    """Runs `run`, aborts it as soon as `started` is set, and returns the error the run raised."""

    async def abort_once_started() -> None:
        await started.wait()
        run.abort()

    with anyio.fail_after(5):  # a guard against a hang, not a timing check
        async with anyio.create_task_group() as task_group:
            task_group.start_soon(abort_once_started)
            with pytest.raises(GraphAbortedError) as caught:
                await run.wait()
    return caught.value


async def test_abort_cancels_running_agents_and_raises_graph_aborted_error() -> None:
    cancelled: list[str] = []
    started = anyio.Event()
    graph = {"nodes": {"a": {"value": 1}, "w": node("hangAgent", inputs={"x": ":a"})}}
    run = Graph(graph, agents=[hanging(cancelled, started)]).start()
    error = await run_and_abort_once_started(run, started)
    assert (str(error), cancelled) == ("the run was aborted", ["w"])


async def test_abort_before_a_run_starts_aborts_it_at_its_start() -> None:
    calls: list[str] = []
    run = Graph({"nodes": {"a": {"value": 1}, "b": node(inputs={"v": ":a"}, isResult=True)}}, agents=[recorder(calls)]).start()
    run.abort()
    with pytest.raises(GraphAbortedError):
        await run.wait()
    assert calls == []


async def test_abort_marks_the_running_nodes_aborted() -> None:
    started = anyio.Event()
    graph = {"nodes": {"a": {"value": 1}, "w": node("hangAgent", inputs={"x": ":a"})}}
    run = Graph(graph, agents=[hanging([], started)]).start()
    await run_and_abort_once_started(run, started)
    assert run.states() == {"w": "abort"}


# ----- inject -----


async def test_inject_replaces_a_static_value() -> None:
    graph = {"nodes": {"name": {"value": "World"}, "hi": node("copyAgent", inputs={"n": ":name"}, isResult=True)}}
    assert await graphrt.arun(graph, inject={"name": "Ada"}) == {"hi": {"n": "Ada"}}


async def test_inject_gives_a_value_to_a_static_node_without_one() -> None:
    graph = {"nodes": {"name": {}, "hi": node("copyAgent", inputs={"n": ":name.first"}, isResult=True)}}
    assert await graphrt.arun(graph, inject={"name": {"first": "Ada"}}) == {"hi": {"n": "Ada"}}


async def test_an_injected_value_is_checked_once(monkeypatch) -> None:
    import graphrt.engine.execution
    import graphrt.engine.run
    from graphrt.graphdata.spec import check_injectable

    checked: list[str] = []

    def counted(spec, node_id):
        checked.append(node_id)
        check_injectable(spec, node_id)

    for module in (graphrt.engine.run, graphrt.engine.execution):
        monkeypatch.setattr(module, "check_injectable", counted)
    graph = {"nodes": {"name": {"value": "World"}, "hi": node("copyAgent", inputs={"n": ":name"}, isResult=True)}}
    assert await graphrt.arun(graph, inject={"name": "Ada"}) == {"hi": {"n": "Ada"}}
    assert checked == ["name"]


async def test_an_injected_value_is_for_that_run_only() -> None:
    g = Graph({"nodes": {"name": {"value": "World"}, "hi": node("copyAgent", inputs={"n": ":name"}, isResult=True)}})
    assert [await g.arun(inject={"name": "Ada"}), await g.arun()] == [{"hi": {"n": "Ada"}}, {"hi": {"n": "World"}}]


async def test_inject_refuses_a_computed_node() -> None:
    g = Graph({"nodes": {"a": {"value": 1}, "hi": node("copyAgent", inputs={"n": ":a"})}})
    with pytest.raises(graphrt.GraphValidationError, match="^node 'hi': cannot inject a value: 'hi' is a computed node$"):
        g.start(inject={"hi": 1})


async def test_an_injected_static_node_with_is_result_is_returned() -> None:
    graph = {"nodes": {"a": {"value": 1, "isResult": True}, "b": node("copyAgent", inputs={"v": ":a"})}}
    assert await graphrt.arun(graph, inject={"a": 2}) == {"a": 2}


# ----- loops -----


async def test_a_count_loop_runs_the_graph_that_many_times() -> None:
    calls: list[str] = []
    graph = {"loop": {"count": 3}, "nodes": {"a": {"value": 1}, "r": node(inputs={"x": ":a"})}}
    await graphrt.arun(graph, agents=[recorder(calls)])
    assert calls == ["r", "r", "r"]


async def test_static_nodes_take_their_update_from_the_previous_iteration() -> None:
    graph = {
        "loop": {"count": 3},
        "nodes": {
            "n": {"value": 0, "update": ":next"},
            "next": node("copyAgent", params={"namedKey": "t"}, inputs={"t": ":n.add(1)"}),
        },
    }
    assert await graphrt.arun(graph, all_results=True) == {"n": 3, "next": 3}


async def test_a_while_loop_runs_while_its_condition_holds() -> None:
    graph = {
        "loop": {"while": ":fruits"},
        "nodes": {
            "fruits": {"value": ["apple", "lemon", "cherry"], "update": ":pop.array"},
            "eaten": {"value": [], "update": ":push.array", "isResult": True},
            "pop": node("popAgent", inputs={"array": ":fruits"}),
            "push": node("pushAgent", inputs={"array": ":eaten", "item": ":pop.item"}),
        },
    }
    assert await graphrt.arun(graph) == {"eaten": ["cherry", "lemon", "apple"]}


async def test_a_while_loop_with_prop_functions_in_its_condition() -> None:
    graph = {
        "loop": {"while": ":n.equal(3).not()"},
        "nodes": {
            "n": {"value": 0, "update": ":next"},
            "next": node("copyAgent", params={"namedKey": "t"}, inputs={"t": ":n.add(1)"}),
        },
    }
    assert await graphrt.arun(graph, all_results=True) == {"n": 3, "next": 3}


async def test_a_while_loop_that_is_false_at_once_still_runs_one_iteration() -> None:
    calls: list[str] = []
    graph = {"loop": {"while": ":go"}, "nodes": {"go": {"value": False}, "r": node(inputs={"g": ":go"})}}
    await graphrt.arun(graph, agents=[recorder(calls)])
    assert calls == ["r"]


async def test_computed_nodes_are_fresh_in_each_iteration() -> None:
    # `once` runs in the first iteration only; the second starts without its result.
    # (`first` is True again at the end: as in GraphAI, static nodes update after the last iteration too.)
    graph = {
        "loop": {"count": 2},
        "nodes": {
            "first": {"value": True, "update": ":first.not()"},
            "once": node("copyAgent", inputs={"v": 1}, **{"if": ":first"}),
            "seen": node("copyAgent", anyInput=True, inputs={"first": ":first", "once": ":once"}, isResult=True),
        },
    }
    assert await graphrt.arun(graph, all_results=True) == {"first": True, "seen": {"first": False}}


async def test_injected_values_survive_iterations() -> None:
    graph = {
        "loop": {"count": 3},
        "nodes": {
            "base": {"value": 10},
            "acc": {"value": [], "update": ":push.array"},
            "push": node("pushAgent", inputs={"array": ":acc", "item": ":base"}, isResult=True),
        },
    }
    assert await graphrt.arun(graph, inject={"base": 7}) == {"push": {"array": [7, 7, 7]}}


async def test_an_injected_value_is_replaced_by_its_update_in_later_iterations() -> None:
    graph = {
        "loop": {"count": 3},
        "nodes": {
            "n": {"value": 0, "update": ":n.add(1)"},
            "seen": {"value": [], "update": ":push.array", "isResult": True},
            "push": node("pushAgent", inputs={"array": ":seen", "item": ":n"}),
        },
    }
    assert await graphrt.arun(graph, inject={"n": 100}) == {"seen": [100, 101, 102]}


async def test_a_failure_stops_the_loop() -> None:
    calls: list[str] = []
    graph = {
        "loop": {"count": 5},
        "nodes": {"a": {"value": 1}, "r": node(inputs={"x": ":a"}), "bad": node("failAgent", inputs={"x": ":r"})},
    }
    with pytest.raises(AgentError):
        await graphrt.arun(graph, agents=[recorder(calls), FAIL])
    assert calls == ["r"]


async def test_a_loop_count_of_one_runs_once() -> None:
    calls: list[str] = []
    await graphrt.arun({"loop": {"count": 1}, "nodes": {"a": {"value": 1}, "r": node(inputs={"x": ":a"})}}, agents=[recorder(calls)])
    assert calls == ["r"]


async def test_at_loop_is_the_iteration_index() -> None:
    graph = {
        "loop": {"count": 3},
        "nodes": {
            "seen": {"value": [], "update": ":push.array", "isResult": True},
            "push": node("pushAgent", inputs={"array": ":seen", "item": "@loop"}),
        },
    }
    assert await graphrt.arun(graph) == {"seen": [0, 1, 2]}


async def test_the_loop_counter_is_not_among_all_results() -> None:
    graph = {"loop": {"count": 2}, "nodes": {"a": {"value": 1}, "b": node("copyAgent", inputs={"i": "@loop"})}}
    assert await graphrt.arun(graph, all_results=True) == {"a": 1, "b": {"i": 1}}


# ----- console -----


async def test_console_before_and_after_print_inputs_and_result_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    graph = {"nodes": {"a": {"value": 1}, "b": node("copyAgent", inputs={"v": ":a"}, console={"before": True, "after": True})}}
    await graphrt.arun(graph)
    assert capsys.readouterr().out == '{\n  "v": 1\n}\n{\n  "v": 1\n}\n'


async def test_console_texts_and_an_after_mapping_are_printed(capsys: pytest.CaptureFixture[str]) -> None:
    graph = {"nodes": {"a": {"value": 1}, "b": node("copyAgent", inputs={"v": ":a"}, console={"before": "starting b", "after": {"got": ".v"}})}}
    await graphrt.arun(graph)
    assert capsys.readouterr().out == 'starting b\n{\n  "got": 1\n}\n'


async def test_console_true_prints_a_string_result_as_it_is(capsys: pytest.CaptureFixture[str]) -> None:
    graph = {"nodes": {"a": {"value": "text"}, "b": node("copyAgent", params={"namedKey": "v"}, inputs={"v": ":a"}, console=True)}}
    await graphrt.arun(graph)
    assert capsys.readouterr().out == '{\n  "v": "text"\n}\ntext\n'


async def test_a_static_node_console_prints_its_updated_value_in_later_iterations(capsys: pytest.CaptureFixture[str]) -> None:
    graph = {"loop": {"count": 3}, "nodes": {"n": {"value": 0, "update": ":n.add(1)", "console": True}, "b": node("copyAgent", inputs={"v": ":n"})}}
    await graphrt.arun(graph)
    assert capsys.readouterr().out == "1\n2\n"


def test_an_output_list_gives_an_object_keyed_by_index_as_in_graphai() -> None:
    graph = {"nodes": {"a": {"value": {"p": 1, "q": 2}}, "b": node("copyAgent", inputs={"x": ":a"}, output=[".x.p", ".x.q"], isResult=True)}}
    assert graphrt.run(graph) == {"b": {"0": 1, "1": 2}}
