"""Authored agents as toolsAgent's tools: schemas in, tool calls dispatched, results back to the LLM."""

from __future__ import annotations

import json
from typing import Any

import graphrt
from graphrt import AgentContext, AgentInfo


class Lamp:
    """A lamp."""

    def __init__(self) -> None:
        self.on = False

    @graphrt.tool
    def switch(self, on: bool) -> dict:
        """Switches the lamp on or off.

        Args:
            on: the new state.
        """
        self.on = on
        return {"content": f"the lamp is {'on' if on else 'off'}", "data": {"on": on}}


@graphrt.agent
def add(a: float, b: float) -> float:
    """Adds two numbers.

    Args:
        a: the first.
        b: the second.
    """
    return a + b


def scripted_llm(replies: list[dict[str, Any]], seen: list[Any]) -> AgentInfo:
    """An LLM agent that answers from a script and records the tools and messages it was given."""
    async def llm(ctx: AgentContext) -> dict[str, Any]:
        seen.append({"tools": ctx.inputs["tools"], "messages": ctx.inputs["messages"]})
        return replies[len(seen) - 1]

    return AgentInfo(name="scriptedLLM", func=llm)


def tool_call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "name": name, "arguments": json.dumps(arguments)}


def test_tools_agent_calls_a_toolset_method_and_a_decorated_function() -> None:
    seen: list[Any] = []
    # toolsAgent shows a one-function agent's tool as add--add (its toolbox names every tool agent--func)
    calls = [tool_call("c1", "Lamp--switch", {"on": True}), tool_call("c2", "add--add", {"a": 2, "b": 3})]
    llm = scripted_llm([
        {"message": {"role": "assistant", "content": None, "tool_calls": []}, "tool_calls": calls},
        {"message": {"role": "assistant", "content": "done"}, "text": "done"},
    ], seen)
    lamp = Lamp()
    graph = {"version": 0.5, "nodes": {"chat": {
        "agent": "toolsAgent", "isResult": True,
        "inputs": {"llmAgent": "scriptedLLM", "tools": ["Lamp", "add"], "userInput": {"text": "light on, add 2+3"}},
    }}}
    result = graphrt.run(graph, agents=[llm, lamp, add])["chat"]

    assert [tool["function"]["name"] for tool in seen[0]["tools"]] == ["Lamp--switch", "add--add"]
    assert lamp.on is True
    tool_messages = [message for message in seen[1]["messages"] if message.get("role") == "tool"]
    assert [(message["tool_call_id"], message["content"]) for message in tool_messages] == [
        ("c1", "the lamp is on"),
        ("c2", "5"),
    ]
    assert result["text"] == "done"
    assert result["data"]["Lamp--switch"] == {"content": "the lamp is on", "data": {"on": True}}
