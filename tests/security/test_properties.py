"""Property tests: whatever a graph file holds, the loader, references and prop functions give a
result or a GraphError, never another exception, and never hang (hypothesis; profiles in conftest.py)."""

from __future__ import annotations

import string

from hypothesis import given
from hypothesis import strategies as st

import graphrt
from graphrt.base.errors import GraphError
from graphrt.base.jsvalue import (
    js_number,
    js_string,
    json_stringify,
    to_json_compatible,
)
from graphrt.graphdata.loader import parse_graph_text
from graphrt.graphdata.propfuncs import apply_prop_function, is_prop_function
from graphrt.graphdata.refs import compile_inputs, compile_output, parse_ref

json_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=30,
)

KEYWORDS = ["nodes", "agent", "inputs", "params", "value", "update", "isResult", "loop", "count", "while",
            "version", "concurrency", "graph", "if", "unless", "anyInput", "retry", "timeout", "output",
            "passThrough", "defaultValue", "console", "priority", "graphLoader", "fileName", "repeatUntil",
            "copyAgent", "nestedAgent", "mapAgent", "rows", "a", "b", ":a", ":b.c", "@loop", "${:a}"]
graph_keys = st.sampled_from(KEYWORDS) | st.text(max_size=6)
graph_values = st.recursive(
    json_scalars | st.sampled_from(KEYWORDS),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(graph_keys, inner, max_size=5),
    max_leaves=40,
)
graph_like = st.fixed_dictionaries(
    {"version": st.sampled_from([0.5, 0.3, "x", None]),
     "nodes": st.dictionaries(st.sampled_from(["a", "b", "c", "d"]) | st.text(max_size=4), graph_values, max_size=5)},
    optional={"loop": graph_values, "concurrency": graph_values},
)

PROP_NAMES = ["length", "flat", "toJSON", "isEmpty", "average", "mean", "sum", "max", "min", "join", "keys",
              "values", "codeBlock", "codeBlockOrRaw", "jsonParse", "toNumber", "trim", "toLowerCase", "toUpperCase",
              "equal", "slice", "split", "toString", "add", "not", "default"]
prop_args = st.text(alphabet=string.printable, max_size=12)
props = st.builds(lambda name, arg: f"{name}({arg})", st.sampled_from(PROP_NAMES), prop_args) | st.text(max_size=12)
references = st.builds(lambda node, path: ":" + node + "".join("." + p for p in path),
                       st.sampled_from(["a", "b", "self"]) | st.text(max_size=4), st.lists(props, max_size=4))
reference_text = references | st.builds(lambda ref, pre: f"{pre}${{{ref}}}", references, st.text(max_size=5)) | st.text()


@given(st.text())
def test_any_text_loads_as_a_graph_or_raises_a_graph_error(text: str) -> None:
    try:
        data, _ = parse_graph_text(text, file="fuzz.yaml")
    except GraphError:
        return
    assert isinstance(data, dict)


@given(st.text(alphabet="{}[]:,-&*!|>'\"#\n ab1%@`?", max_size=60))
def test_yaml_punctuation_loads_or_raises_a_graph_error(text: str) -> None:
    try:
        parse_graph_text(text, file="fuzz.yaml")
    except GraphError:
        pass


@given(graph_like)
def test_any_graph_data_builds_a_graph_or_raises_a_graph_error(data: dict) -> None:
    try:
        graphrt.Graph(data)
    except GraphError:
        pass


@given(reference_text, st.dictionaries(st.sampled_from(["a", "b", "self"]), json_values))
def test_any_reference_resolves_or_raises_a_graph_error(text: str, results: dict) -> None:
    parse_ref(text)
    try:
        compile_inputs({"x": text, "y": [text]}).resolve(results)
    except GraphError:
        pass


@given(st.text(), json_values)
def test_any_output_path_resolves_or_raises_a_graph_error(text: str, result) -> None:
    try:
        compile_output({"x": text}).resolve({"self": result})
    except GraphError:
        pass


@given(json_values, props)
def test_any_prop_function_gives_a_value_or_raises_a_graph_error(value, prop: str) -> None:
    is_prop_function(prop)
    try:
        apply_prop_function(value, prop)
    except GraphError:
        pass


@given(json_values)
def test_js_conversions_accept_any_json_value(value) -> None:
    js_string(value)
    js_number(value)
    json_stringify(value)
    to_json_compatible(value)
