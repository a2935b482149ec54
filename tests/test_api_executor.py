"""`graphrt.run` and `graphrt.batch` given an executor's name made it: they open it once and close it once, around
their runs; an Executor object given to them is its maker's, which opens and closes it."""

from __future__ import annotations

import pytest

import graphrt
from graphrt.authoring.agent_info import AgentInfo
from graphrt.base.errors import AgentError


async def _echo(ctx):
    return ctx.inputs


async def _fail(ctx):
    raise ValueError("no")


AGENTS = [AgentInfo("echoAgent", _echo), AgentInfo("failAgent", _fail)]
GRAPH = {"version": 0.5, "nodes": {"v": {"value": 0},
                                   "n": {"agent": "echoAgent", "inputs": {"v": ":v"}, "isResult": True}}}


def test_an_executor_named_for_a_run_is_opened_before_it_and_closed_after(logged_executor):
    assert graphrt.run(GRAPH, agents=AGENTS, executor="logged") == {"n": {"v": 0}}
    assert logged_executor.LOG == ["open", ("call", "n"), "ended", "close"]


def test_an_executor_named_for_a_batch_is_opened_once_and_closed_once(logged_executor):
    outcomes = graphrt.batch(GRAPH, [{"v": 1}, {"v": 2}, {"v": 3}], agents=AGENTS, executor="logged", concurrency=1)
    assert [o.results for o in outcomes] == [{"n": {"v": 1}}, {"n": {"v": 2}}, {"n": {"v": 3}}]
    assert logged_executor.LOG == ["open", *[("call", "n"), "ended"] * 3, "close"]


def test_an_executor_object_is_its_makers_and_the_run_only_borrows_it(logged_executor):
    executor = logged_executor.LoggedExecutor()
    graphrt.run(GRAPH, agents=AGENTS, executor=executor)
    graphrt.batch(GRAPH, [{"v": 1}], agents=AGENTS, executor=executor)
    assert logged_executor.LOG == [("call", "n"), "ended"] * 2


def test_an_executor_named_by_the_environment_is_opened_and_closed_by_the_run(logged_executor, monkeypatch):
    monkeypatch.setenv("GRAPHRT_EXECUTOR", "logged")
    graphrt.run(GRAPH, agents=AGENTS)
    assert logged_executor.LOG == ["open", ("call", "n"), "ended", "close"]


def test_a_named_executor_is_closed_when_its_run_fails(logged_executor):
    failing = {"version": 0.5, "nodes": {"n": {"agent": "failAgent"}}}
    with pytest.raises(AgentError):
        graphrt.run(failing, agents=AGENTS, executor="logged")
    assert logged_executor.LOG == ["open", ("call", "n"), "ended", "close"]
