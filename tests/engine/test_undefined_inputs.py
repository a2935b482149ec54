"""Named inputs whose reference finds nothing: GraphAI keeps the key, with the value undefined.

`{v: ":node1.data.toNumber()"}` on "aa", `.codeBlock()` on text without a code block, or a
missing property give the agent `{v: undefined}`: a named input that counts (copyAgent does
not fail with "namedInputs is UNDEFINED!"), and that JSON output leaves out.
"""

from __future__ import annotations

from typing import Any

import pytest

import graphrt
from graphrt import UNDEFINED


def run_node(node: dict[str, Any], **statics: Any) -> Any:
    """Runs `node` as node `out` beside static nodes; returns what the agent returned (UNDEFINED kept)."""
    nodes = {name: {"value": value} for name, value in statics.items()}
    seen: dict[str, Any] = {}

    async def spy(ctx: graphrt.AgentContext, next: Any) -> Any:
        seen["inputs"] = dict(ctx.inputs)
        return await next(ctx)

    graph = graphrt.Graph({"version": 0.5, "nodes": {**nodes, "out": {**node, "isResult": True}}},
                          filters=[graphrt.AgentFilter(spy)])
    results = graph.run()
    return results.get("out", UNDEFINED), seen.get("inputs")


@pytest.mark.parametrize("reference, data", [
    (":node1.data.toNumber()", {"data": "aa"}),  # GraphAI: a text that is not a number gives undefined
    (":node1.text.codeBlock()", {"text": "no code block here"}),
    (":node1.missing", {"data": 1}),
])
def test_copy_agent_gets_the_key_with_an_undefined_value(reference: str, data: dict) -> None:
    result, inputs = run_node({"agent": "copyAgent", "inputs": {"v": reference}}, node1=data)
    assert inputs == {"v": UNDEFINED}
    assert result == {}  # {v: undefined} as JSON


def test_every_named_inputs_check_sees_an_undefined_key_as_a_named_input() -> None:
    # lookupDictionaryAgent, mergeObjectAgent, copy2ArrayAgent and the array agents make GraphAI's check too:
    # with one undefined input they get past it and fail (or not) on what the input holds, as in GraphAI.
    assert run_node({"agent": "copy2ArrayAgent", "inputs": {"v": ":n.missing"}, "params": {"count": 2}}, n={})[0] == [{}, {}]
    with pytest.raises(graphrt.AgentError, match="mergeObjectAgent: namedInputs.items is not array!"):
        run_node({"agent": "mergeObjectAgent", "inputs": {"items": ":n.missing"}}, n={})
    with pytest.raises(graphrt.AgentError, match="totalAgent: namedInputs.array is UNDEFINED!"):
        run_node({"agent": "totalAgent", "inputs": {"array": ":n.missing"}}, n={})
    with pytest.raises(graphrt.AgentError, match="lookupDictionaryAgent error: undefined is missing"):
        run_node({"agent": "lookupDictionaryAgent", "inputs": {"namedKey": ":n.missing"}, "params": {"a": 1}}, n={})


def test_an_undefined_value_stays_undefined_inside_an_object_input() -> None:
    result, inputs = run_node({"agent": "copyAgent", "inputs": {"o": {"a": ":n.missing", "b": 1}}}, n={})
    assert inputs == {"o": {"a": UNDEFINED, "b": 1}}
    assert result == {"o": {"b": 1}}


def test_a_template_shows_an_undefined_input_as_undefined() -> None:
    # "Hello ${name}".replace("${name}", undefined) in JavaScript
    node = {"agent": "stringTemplateAgent", "inputs": {"name": ":n.missing"}, "params": {"template": "Hello ${name}"}}
    assert run_node(node, n={})[0] == "Hello undefined"


def test_string_update_text_reads_an_undefined_new_text_as_empty() -> None:
    node = {"agent": "stringUpdateTextAgent", "inputs": {"newText": ":n.missing", "oldText": ":n.old"}}
    assert run_node(node, n={"old": "before"})[0] == {"text": "before"}


def test_a_nested_graph_keeps_its_own_value_for_an_undefined_input() -> None:
    node = {"agent": "nestedAgent", "inputs": {"keep": ":n.missing"}, "graph": {"nodes": {
        "keep": {"value": "kept"},
        "copy": {"agent": "copyAgent", "inputs": {"v": ":keep"}, "isResult": True},
    }}}
    assert run_node(node, n={})[0] == {"copy": {"v": "kept"}}


def test_an_undefined_input_that_makes_a_new_node_gives_it_no_value() -> None:
    # GraphAI adds `{value: undefined}`: the nodes that read it never run; not an error.
    node = {"agent": "nestedAgent", "inputs": {"x": ":n.missing", "y": ":n.y"}, "graph": {"nodes": {
        "a": {"agent": "copyAgent", "inputs": {"v": ":x"}, "isResult": True},
        "b": {"agent": "copyAgent", "inputs": {"v": ":y"}, "isResult": True},
    }}}
    assert run_node(node, n={"y": 2})[0] == {"b": {"v": 2}}


def test_map_agent_gives_an_existing_static_node_no_value_for_an_undefined_input() -> None:
    node = {"agent": "mapAgent", "inputs": {"rows": [1, 2], "keep": ":n.missing"}, "graph": {"nodes": {
        "keep": {"value": "kept"},
        "both": {"agent": "copyAgent", "inputs": {"v": ":keep", "r": ":row"}, "isResult": True},
        "row_only": {"agent": "copyAgent", "inputs": {"r": ":row"}, "isResult": True},
    }}}
    assert run_node(node, n={})[0] == [{"row_only": {"r": 1}}, {"row_only": {"r": 2}}]


def test_a_function_agent_uses_its_default_for_an_undefined_input() -> None:
    @graphrt.agent
    def greet(name: str = "stranger", punctuation: str = "!") -> str:
        """Greets someone."""
        return f"Hello, {name}{punctuation}"

    graph = {"version": 0.5, "nodes": {
        "n": {"value": {}},
        "out": {"agent": "greet", "inputs": {"name": ":n.name"}, "params": {"punctuation": "?"}, "isResult": True},
    }}
    assert graphrt.run(graph, agents=[greet]) == {"out": "Hello, stranger?"}


def test_input_validation_treats_an_undefined_input_as_absent() -> None:
    async def echo(ctx: graphrt.AgentContext) -> Any:
        return {"keys": sorted(ctx.inputs)}

    info = graphrt.AgentInfo(name="echoKeys", func=echo, inputs={
        "type": "object", "properties": {"text": {"type": "string"}, "count": {"type": "number"}}, "required": ["count"],
    })
    graph = {"version": 0.5, "nodes": {
        "n": {"value": {"count": 1}},
        "out": {"agent": "echoKeys", "inputs": {"text": ":n.missing", "count": ":n.count"}, "isResult": True},
    }}
    filters = [graphrt.input_validation_filter()]
    assert graphrt.run(graph, agents=[info], filters=filters) == {"out": {"keys": ["count", "text"]}}
    graph["nodes"]["out"]["inputs"]["count"] = ":n.missing"
    with pytest.raises(graphrt.AgentError, match="count"):
        graphrt.run(graph, agents=[info], filters=filters)


def test_an_undefined_func_and_arg_are_not_a_tool_call() -> None:
    from graphrt.authoring.tool_calls import is_tool_call

    assert not is_tool_call({"func": UNDEFINED, "arg": UNDEFINED})
    assert is_tool_call({"func": "search", "arg": {}})
