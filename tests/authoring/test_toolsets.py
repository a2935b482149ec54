"""Toolsets: a class's @graphrt.tool methods as one agent with many functions."""

from __future__ import annotations

from typing import Any, Literal

import jsonschema
import pytest

import graphrt
from graphrt import RegistrationError, ToolCallError
from graphrt.authoring.tool_calls import tool_call_inputs


class Thermostat:
    """A thermostat the LLM can read and set.

    It remembers the target between calls.
    """

    def __init__(self, target: float = 20.0) -> None:
        self.target = target
        self.log: list[str] = []

    @graphrt.tool
    def set_target(self, celsius: float, mode: Literal["heat", "cool"] = "heat") -> str:
        """Sets the target temperature.

        Args:
            celsius: the new target, in degrees Celsius.
            mode: whether to heat or to cool.
        """
        self.target = celsius
        return f"target {celsius} ({mode})"

    @graphrt.tool
    async def read(self) -> dict:
        """Reads the target temperature."""
        return {"target": self.target}

    @graphrt.tool(name="history", description="Lists what was set.")
    def get_log(self, limit: int = 5) -> list[str]:
        return self.log[-limit:]

    @graphrt.tool
    def fail(self, reason: str) -> None:
        """Fails on purpose.

        Args:
            reason: why.
        """
        if reason == "retry":
            raise ToolCallError("the device is busy; try again in a minute")
        raise RuntimeError(reason)

    def calibrate(self) -> None:
        """Not a tool: the LLM never sees it."""


def call(func: str | None, arg: Any, agents: list[Any] | None = None, agent: str = "Thermostat") -> Any:
    inputs: dict[str, Any] = {"arg": arg, "tool_call": {"id": "call_1"}}
    if func is not None:
        inputs["func"] = func
    graph = {"version": 0.5, "nodes": {"t": {"agent": agent, "inputs": inputs, "isResult": True}}}
    return graphrt.run(graph, agents=agents or [Thermostat])["t"]


def test_a_toolset_class_has_this_exact_list_of_openai_tool_schemas() -> None:
    assert graphrt.as_agent(Thermostat).tools == (
        {"type": "function", "function": {
            "name": "Thermostat--set_target",
            "description": "Sets the target temperature.",
            "parameters": {
                "type": "object",
                "properties": {
                    "celsius": {"type": "number", "description": "the new target, in degrees Celsius."},
                    "mode": {"type": "string", "enum": ["heat", "cool"], "description": "whether to heat or to cool.",
                             "default": "heat"},
                },
                "required": ["celsius"],
                "additionalProperties": False,
            },
        }},
        {"type": "function", "function": {
            "name": "Thermostat--read",
            "description": "Reads the target temperature.",
            "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
        }},
        {"type": "function", "function": {
            "name": "Thermostat--history",
            "description": "Lists what was set.",
            "parameters": {"type": "object", "properties": {"limit": {"type": "integer", "default": 5}},
                           "additionalProperties": False},
        }},
        {"type": "function", "function": {
            "name": "Thermostat--fail",
            "description": "Fails on purpose.",
            "parameters": {"type": "object", "properties": {"reason": {"type": "string", "description": "why."}},
                           "required": ["reason"], "additionalProperties": False},
        }},
    )


def test_the_toolset_agent_is_named_and_described_by_its_class() -> None:
    info = graphrt.as_agent(Thermostat)
    assert (info.name, info.description) == ("Thermostat", "A thermostat the LLM can read and set.\n\nIt remembers the target between calls.")
    assert info.inputs["properties"]["func"]["enum"] == ["set_target", "read", "history", "fail"]
    jsonschema.Draft202012Validator.check_schema(info.inputs)


def test_unmarked_methods_are_not_tools() -> None:
    names = [tool["function"]["name"] for tool in graphrt.as_agent(Thermostat).tools]
    assert "Thermostat--calibrate" not in names
    assert call("calibrate", {})["error"].startswith("unknown tool 'Thermostat--calibrate'")


def test_a_call_dispatches_to_the_method_named_by_func() -> None:
    assert call("set_target", {"celsius": 18, "mode": "cool"}) == {"content": "target 18 (cool)"}


def test_a_registered_class_keeps_one_instance_between_calls_and_runs() -> None:
    registry = graphrt.Registry([Thermostat])
    call("set_target", {"celsius": 25}, agents=registry)
    assert call("read", {}, agents=registry) == {"content": '{"target":25}', "data": {"target": 25}}


def test_a_registered_instance_is_the_one_called() -> None:
    thermostat = Thermostat(target=12.5)
    assert call("read", None, agents=[thermostat]) == {"content": '{"target":12.5}', "data": {"target": 12.5}}
    call("set_target", '{"celsius": 30}', agents=[thermostat])
    assert thermostat.target == 30


def test_the_toolset_decorator_and_as_agent_rename_the_agent_and_its_tools() -> None:
    @graphrt.toolset(name="climate", category=["home"])
    class Climate(Thermostat):
        """Climate control."""

    info = graphrt.as_agent(Climate)
    assert (info.name, info.category, info.tools[0]["function"]["name"]) == ("climate", ("home",), "climate--set_target")
    assert graphrt.as_agent(Thermostat(), name="hall").tools[1]["function"]["name"] == "hall--read"
    assert call("read", {}, agents=[Climate], agent="climate") == {"content": '{"target":20}', "data": {"target": 20.0}}


def test_bad_arguments_become_a_message_for_the_llm_not_a_crash() -> None:
    message = ("invalid arguments for Thermostat--set_target: celsius: 'warm' is not of type 'number'; "
               "mode: 'dry' is not one of ['heat', 'cool']")
    assert call("set_target", {"celsius": "warm", "mode": "dry"}) == {"content": message, "error": message}


def test_an_unknown_function_lists_the_tools() -> None:
    message = ("unknown tool 'Thermostat--open'; the tools are: Thermostat--set_target, Thermostat--read, "
               "Thermostat--history, Thermostat--fail")
    assert call("open", {}) == {"content": message, "error": message}


def test_arguments_that_are_not_an_object_become_a_message() -> None:
    message = "the arguments for Thermostat--read must be a JSON object, got [1,2]"
    assert call("read", [1, 2]) == {"content": message, "error": message}


def test_a_tool_call_error_raised_by_the_tool_goes_back_to_the_llm() -> None:
    message = "the device is busy; try again in a minute"
    assert call("fail", {"reason": "retry"}) == {"content": message, "error": message}


def test_any_other_exception_fails_the_node() -> None:
    with pytest.raises(graphrt.AgentError) as caught:
        call("fail", {"reason": "broken wire"})
    assert str(caught.value) == "node 't': RuntimeError: broken wire (agent Thermostat)"


def test_a_node_without_func_is_a_graph_mistake() -> None:
    graph = {"version": 0.5, "nodes": {"t": {"agent": "Thermostat", "inputs": {"celsius": 3}, "isResult": True}}}
    with pytest.raises(graphrt.AgentError) as caught:
        graphrt.run(graph, agents=[Thermostat])
    assert str(caught.value) == (
        "node 't', field 'inputs.func': toolset Thermostat needs inputs.func "
        "(one of: set_target, read, history, fail) and inputs.arg (agent Thermostat)"
    )


def test_tool_call_inputs_are_what_graphais_tools_agent_sends() -> None:
    tool_call = {"id": "call_9", "name": "Thermostat--set_target", "arguments": '{"celsius": 21}'}
    assert tool_call_inputs(tool_call, data={"k": 1}) == {
        "func": "set_target", "arg": '{"celsius": 21}', "tool_call": tool_call, "data": {"k": 1}}
    graph = {"version": 0.5, "nodes": {"t": {"agent": "Thermostat", "inputs": tool_call_inputs(tool_call), "isResult": True}}}
    assert graphrt.run(graph, agents=[Thermostat]) == {"t": {"content": "target 21 (heat)"}}


# ----- registration problems -----


def test_a_class_that_needs_constructor_arguments_must_be_registered_as_an_instance() -> None:
    class Needy:
        def __init__(self, key: str) -> None:
            self.key = key

        @graphrt.tool
        def ping(self) -> str:
            """Pings."""
            return "pong"

    with pytest.raises(RegistrationError) as caught:
        graphrt.as_agent(Needy)
    assert str(caught.value) == (
        "toolset Needy: cannot construct "
        "test_a_class_that_needs_constructor_arguments_must_be_registered_as_an_instance.<locals>.Needy() "
        "(TypeError: test_a_class_that_needs_constructor_arguments_must_be_registered_as_an_instance.<locals>."
        "Needy.__init__() missing 1 required positional argument: 'key'); register an instance instead"
    )
    assert graphrt.as_agent(Needy("k")).name == "Needy"


def test_every_method_problem_is_listed() -> None:
    class Broken:
        @graphrt.tool
        def one(self, x: bytes) -> None:
            """One."""

        @graphrt.tool
        def two(self, y: int) -> None:
            """Two.

            Args:
                z: nothing.
            """

    with pytest.raises(RegistrationError) as caught:
        graphrt.as_agent(Broken)
    assert str(caught.value) == (
        "tool 'Broken--one': parameter 'x': no JSON Schema for type bytes\n"
        "tool 'Broken--two': docstring describes 'z', which is not a parameter (parameters: y)"
    )


def test_a_plain_class_is_not_an_agent() -> None:
    class Plain:
        def method(self) -> None:
            """Nothing."""

    with pytest.raises(RegistrationError, match=r"^cannot make an agent of <class '.*Plain'>: expected an AgentInfo"):
        graphrt.as_agent(Plain)
