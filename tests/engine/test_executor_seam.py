"""A run borrows its graph's executor: it sends the agent calls there and says when it has ended, and never opens
or closes it (its maker does: tests/test_api_executor.py, tests/cli/test_executor_option.py)."""

from __future__ import annotations

import pytest

from graphrt.authoring.agent_info import AgentInfo
from graphrt.base.errors import AgentError
from graphrt.engine.graph import Graph


async def _echo(ctx):
    return ctx.inputs


async def _fail(ctx):
    raise ValueError("no")


AGENTS = [AgentInfo("echoAgent", _echo), AgentInfo("failAgent", _fail)]


def test_a_run_borrows_its_executor_and_never_opens_or_closes_it(logged_executor):
    graph = Graph({"version": 0.5, "nodes": {"n": {"agent": "echoAgent", "inputs": {"v": 1}, "isResult": True}}},
                  agents=AGENTS, executor=logged_executor.LoggedExecutor())
    assert graph.run() == graph.run() == {"n": {"v": 1}}
    assert logged_executor.LOG == [("call", "n"), "ended", ("call", "n"), "ended"]


def test_a_failed_run_says_it_has_ended_too(logged_executor):
    graph = Graph({"version": 0.5, "nodes": {"bad": {"agent": "failAgent"}}}, agents=AGENTS,
                  executor=logged_executor.LoggedExecutor())
    with pytest.raises(AgentError):
        graph.run()
    assert logged_executor.LOG == [("call", "bad"), "ended"]
