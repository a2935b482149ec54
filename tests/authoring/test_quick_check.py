"""The quick check agrees with jsonschema: it never calls an invalid value valid."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from graphrt.base.quick_check import compile_check
from graphrt.check.graphdata_schema import graphdata_schema
from graphrt.base.schema import violations

GRAPHS = Path(__file__).resolve().parents[2] / "graphs"

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(-5, 5, allow_nan=False) | st.sampled_from(["", "a", "red"]),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.sampled_from(["a", "b", "c"]), children, max_size=3),
    max_leaves=8,
)

leaf_schemas = st.sampled_from([
    {}, {"type": "string"}, {"type": "integer"}, {"type": "number"}, {"type": "boolean"}, {"type": "null"},
    {"type": ["integer", "null"]}, {"type": "string", "enum": ["red", "a"]}, {"enum": [None, "a"]},
    {"type": "array"}, {"type": "object"},
    {"minimum": 0}, {"type": "number", "minimum": 1.5}, {"type": "string", "minLength": 1}, {"pattern": "^r"},
    {"type": "object", "minProperties": 1},
])

schemas = st.recursive(
    leaf_schemas,
    lambda children: st.one_of(
        st.builds(lambda items: {"type": "array", "items": items}, children),
        st.builds(lambda props, req, extra: {"type": "object", "properties": props, "required": req,
                                             "additionalProperties": extra},
                  st.dictionaries(st.sampled_from(["a", "b"]), children, max_size=2),
                  st.lists(st.sampled_from(["a", "b", "c"]), max_size=2, unique=True),
                  st.one_of(st.booleans(), children)),
        st.builds(lambda options: {"anyOf": options}, st.lists(children, min_size=1, max_size=3)),
        st.builds(lambda condition, then, otherwise: {"if": condition, "then": then, "else": otherwise},
                  st.sampled_from([{"type": "string"}, {"type": "object"}, {"required": ["a"]}, {}]), children, children),
    ),
    max_leaves=6,
)
# `$ref`s point into the root schema: to a definition, or to the root itself (a recursive schema).
schemas = st.one_of(
    schemas,
    st.builds(lambda target: {"$defs": {"t": target}, "anyOf": [{"$ref": "#/$defs/t"}, {"type": "null"}]}, schemas),
    st.builds(lambda target: {"anyOf": [target, {"type": "array", "items": {"$ref": "#"}}]}, schemas),
)


@settings(max_examples=400, deadline=None)
@given(schemas, json_values)
def test_the_quick_check_says_valid_exactly_when_jsonschema_does(schema: dict[str, Any], value: Any) -> None:
    check = compile_check(schema)
    assert check is not None
    assert check(value) == jsonschema.Draft202012Validator(schema).is_valid(value)


def test_a_schema_with_an_unknown_keyword_gets_no_quick_check() -> None:
    assert compile_check({"type": "integer", "maximum": 0}) is None
    assert compile_check({"type": "object", "properties": {"n": {"type": "integer", "maximum": 0}}}) is None
    assert compile_check({"enum": [1, True]}) is None
    assert compile_check({"$ref": "https://example.com/schema"}) is None
    assert compile_check({"if": {"minimum": 1}, "then": {}}) is None  # an `if` must be decided both ways


def test_the_graphdata_schema_has_a_quick_check_that_agrees_with_jsonschema() -> None:
    """`graphrt run` and `validate` check a valid graph without importing jsonschema (lint.py)."""
    schema = graphdata_schema()
    check = compile_check(schema)
    validator = jsonschema.Draft202012Validator(schema)
    graphs = [yaml.safe_load(path.read_text(encoding="utf-8")) for path in sorted(GRAPHS.glob("*.yaml"))]
    graphs += [
        {"nodes": {}}, {"nodes": {"a": {"value": 1, "agent": "x"}}}, {"nodes": {"a": {"agent": ""}}},
        {"nodes": {"a": {"agent": "x", "graph": {"nodes": {"b": {"valu": 1}}}}}},
        {"nodes": {"a": {"agent": "x", "graph": ":g"}}, "loop": {"count": -1}},
        {"nodes": {"a": {"agent": "x", "graph": "g"}}}, {"nodes": {"a": {"value": 1, "update": "a"}}},
        {"nodes": {"a": {"value": 1}}, "concurrency": {"global": 0}}, {"nodes": {"a": {"value": 1}}, "concurrency": 2},
        {"nodes": {"a": {"value": 1, "console": {"before": True}}}}, {"nodes": {"a": {"value": 1, "console": "x"}}},
    ]
    assert check is not None
    for graph in graphs:
        assert check(graph) == validator.is_valid(graph), graph


def test_violations_still_come_from_jsonschema_when_the_quick_check_says_no() -> None:
    assert [v.message for v in violations({"type": "integer", "minimum": 0}, -1)] == ["-1 is less than the minimum of 0"]
    assert [v.message for v in violations({"type": "integer"}, 1.5)] == ["1.5 is not of type 'integer'"]
