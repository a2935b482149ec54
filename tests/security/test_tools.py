"""An LLM can call only the tools granted to its node: any other name runs nothing."""

from __future__ import annotations

from typing import Any

import pytest

import graphrt

pytestmark = pytest.mark.anyio

_RUN = {"type": "function", "function": {"name": "run", "parameters": {"type": "object", "properties": {}}}}
_READ = {"type": "function", "function": {"name": "read", "parameters": {"type": "object", "properties": {}}}}


class Tools:
    def __init__(self) -> None:
        self.ran: list[str] = []

    async def granted(self, ctx: graphrt.AgentContext) -> Any:
        self.ran.append(f"grantedAgent--{ctx.inputs['func']}")
        return {"content": "ok"}

    async def secret(self, ctx: graphrt.AgentContext) -> Any:
        self.ran.append(f"secretAgent--{ctx.inputs['func']}")
        return {"content": "the secret"}

    def agents(self) -> list[graphrt.AgentInfo]:
        return [graphrt.AgentInfo("grantedAgent", self.granted, tools=(_RUN,)),
                graphrt.AgentInfo("secretAgent", self.secret, tools=(_RUN, _READ))]


def _chat(tools: list[Any]) -> dict[str, Any]:
    inputs = {"tools": tools, "userInput": {"text": "go"}}
    return {"version": 0.5, "nodes": {"chat": {"agent": "toolsAgent", "inputs": inputs, "isResult": True}}}


@pytest.mark.parametrize("name", ["secretAgent--run", "secretAgent--read", "secretAgent", "nestedAgent", "copyAgent--run",
                                  "grantedAgent--read", "grantedagent--run", "grantedAgent--run--x"])
async def test_a_tool_that_was_not_granted_never_runs(openai_server, reply, name: str) -> None:
    tools = Tools()
    openai_server.script(reply.tool_calls((name, {})), reply.text("done"))

    await graphrt.Graph(_chat(["grantedAgent"]), agents=tools.agents()).arun()

    assert tools.ran == []
    tool_message = [m for m in openai_server.requests[1]["messages"] if m["role"] == "tool"][0]["content"]
    assert tool_message == f"Error: unknown tool '{name}'; the tools you can call are: grantedAgent--run"


async def test_granting_one_function_of_an_agent_grants_no_other(openai_server, reply) -> None:
    tools = Tools()
    openai_server.script(reply.tool_calls(("secretAgent--read", {}), ("secretAgent--run", {})), reply.text("done"))

    await graphrt.Graph(_chat([_RUN | {"function": {**_RUN["function"], "name": "secretAgent--run"}}]),
                        agents=tools.agents()).arun()

    assert tools.ran == ["secretAgent--run"]


async def test_the_llm_is_offered_only_the_granted_tools(openai_server, reply) -> None:
    openai_server.script(reply.text("done"))

    await graphrt.Graph(_chat(["grantedAgent"]), agents=Tools().agents()).arun()

    assert [tool["function"]["name"] for tool in openai_server.requests[0]["tools"]] == ["grantedAgent--run"]
