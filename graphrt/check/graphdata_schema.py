"""The GraphData JSON Schema that graphrt ships (graphdata.schema.json), a graph checked against it, and a schema
error said in graphrt's words.

GraphAI checks none of the schema, so what it finds are warnings (lint.py runs it
among graphrt's checks). A place that GraphAI's rules (rules.py) or a nested graph's
check already reported is not reported again. `explain` turns a jsonschema error into
`(path, message)` pairs, never showing a credential's value; an agent's schemas are
explained the same way (agent_schemas.py).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from graphrt.base.errors import ValidationIssue
from graphrt.base.schema import quick_check_of
from graphrt.base.secrets import SECRET_KEY, hide_credentials
from graphrt.graphdata.loader import GraphSource

if TYPE_CHECKING:
    import jsonschema

__all__ = ["SCHEMA_FILE", "Reported", "explain", "graphdata_schema", "schema_issues"]

SCHEMA_FILE = Path(__file__).with_name("graphdata.schema.json")


@functools.cache
def graphdata_schema() -> dict[str, Any]:
    """The JSON Schema of GraphData that graphrt ships (graphdata.schema.json)."""
    return json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


@functools.cache
def _graph_validators() -> tuple[Any, Any]:
    """Validators of the graph without its nodes' insides, and of one node (the `$defs/node` of the same schema).

    A graph is checked as a whole and then node by node, so that nodes of the
    same shape (see `_node_shape`) are checked once.
    """
    schema = graphdata_schema()
    top = {**schema, "properties": {**schema["properties"], "nodes": {"type": "object", "minProperties": 1}}}
    import jsonschema  # on first use: importing it costs ~50 ms at start

    cls = jsonschema.validators.validator_for(schema)
    return cls(top), cls(schema).evolve(schema=schema["$defs"]["node"])


_ANY, _TYPE = "any", "type"


@functools.cache
def _node_properties() -> dict[bool, dict[str, str]]:
    """Per kind of node (computed: True), what the schema looks at in each property's value.

    `any`: nothing (only a description); `type`: only its JSON type. Every other
    property's value is looked at whole.
    """
    defs = graphdata_schema()["$defs"]
    kinds = {}
    for computed, name in ((True, "computedNode"), (False, "staticNode")):
        kinds[computed] = {
            key: _ANY if set(sub) <= {"description"} else _TYPE if set(sub) <= {"type", "description"} else ""
            for key, sub in defs[name]["properties"].items()
        }
    return kinds


def _node_shape(node: Any) -> tuple[Any, ...] | None:
    """All that the node schema can see of a node: nodes of one shape are valid or invalid together.

    A value the schema checks beyond its type is part of the shape as it is
    (as JSON text); None when that cannot be (a value that is not JSON).
    """
    if not isinstance(node, dict):
        return None
    computed = "agent" in node
    properties = _node_properties()[computed]
    parts: list[Any] = [computed]
    for key, value in node.items():
        how = properties.get(key, _ANY)  # an unknown key is an error whatever its value
        if how == _ANY:
            parts.append(key)
        elif how == _TYPE and not isinstance(value, float):  # 1.0 is an integer to JSON Schema, 1.5 is not
            parts.append((key, type(value)))
        else:
            try:
                parts.append((key, json.dumps(value, sort_keys=True, allow_nan=False)))
            except (TypeError, ValueError):
                return None
    return tuple(parts)


def _schema_errors(data: dict[str, Any]) -> Iterator[tuple[tuple[Any, ...], jsonschema.ValidationError]]:
    """Every error of the GraphData schema, with the path its error is under: `("nodes", id)` for a node's."""
    quick = quick_check_of(graphdata_schema())
    if quick is not None and quick(data):
        return  # valid, and jsonschema not even imported
    top, node_validator = _graph_validators()
    for error in top.iter_errors(data):
        yield (), error
    nodes = data.get("nodes")
    if not isinstance(nodes, dict):
        return
    valid_shapes: set[tuple[Any, ...]] = set()
    for node_id, node in nodes.items():
        shape = _node_shape(node)
        if shape is not None and shape in valid_shapes:
            continue
        found = False
        for error in node_validator.iter_errors(node):
            found = True
            yield ("nodes", node_id), error
        if not found and shape is not None:
            valid_shapes.add(shape)


def schema_issues(data: dict[str, Any], source: GraphSource, reported: Iterable[ValidationIssue],
                  nested: set[str]) -> list[ValidationIssue]:
    """The warnings of the GraphData schema about `data` at places not among the issues `reported` already.

    `nested` names the nodes whose `graph:` is checked on its own (lint.py), with the values it is given.
    """
    covered = Reported()
    for issue in reported:
        covered.add(issue.node_id, issue.field)
    issues = []
    for under, error in _schema_errors(data):
        if callable(error.instance):
            continue  # an agent given as a Python function
        for path, message in explain(error, under):
            if len(path) > 3 and path[0] == "nodes" and path[2] == "graph" and path[1] in nested:
                continue  # the nested graph's own check reports it, with its injected nodes
            node_id = str(path[1]) if len(path) > 1 and path[0] == "nodes" else None
            parts = path[2:] if node_id is not None else path
            field = ".".join(str(part) for part in parts) or None
            if not covered.covers(node_id, field):
                issues.append(ValidationIssue(message, node_id, field, source.locate_field(node_id, field), "warning"))
                covered.add(node_id, field)
    return issues


class Reported:
    """The places already reported (by validate.py, a nested graph's check, or this one), by node: a place is
    covered when it, a field it is under, or a field under it was reported (`console` covers `console.k1`, and
    `console.k1` covers `console`). Each question costs the field's depth, not the issues so far: a node with
    200,000 unknown keys was quadratic (the campaign's `validate` of a wide `console` ran for minutes)."""

    def __init__(self) -> None:
        self._fields: dict[str | None, set[str | None]] = {}
        self._above: dict[str | None, set[str]] = {}  # fields that a reported field is under

    def add(self, node_id: str | None, field: str | None) -> None:
        self._fields.setdefault(node_id, set()).add(field)
        if field is not None:
            parts = field.split(".")
            self._above.setdefault(node_id, set()).update(".".join(parts[:end]) for end in range(1, len(parts)))

    def covers(self, node_id: str | None, field: str | None) -> bool:
        fields = self._fields.get(node_id)
        if not fields:
            return False
        if field is None:
            return None in fields
        if field in fields or field in self._above.get(node_id, ()):
            return True
        parts = field.split(".")
        return any(".".join(parts[:end]) in fields for end in range(1, len(parts)))


# ----- a schema error in graphrt's words -----


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr) if not isinstance(value, str) else repr(value)
    text = hide_credentials(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _is_secret(path: list[str | int]) -> bool:
    """A value under a key such as `apiKey`: a message shows its type, never the value."""
    return any(isinstance(key, str) and SECRET_KEY.search(key) for key in path)


def explain(error: jsonschema.ValidationError, under: tuple[Any, ...] = ()) -> Iterator[tuple[list[str | int], str]]:
    """A schema error as `(path, message)` pairs, in graphrt's words; `under` is where the validated value is."""
    path = [*under, *error.absolute_path]
    kind, expected, instance = error.validator, error.validator_value, error.instance
    if _is_secret(path) and kind not in ("additionalProperties", "required", "minProperties"):
        wanted = f"must be {' or '.join(expected) if isinstance(expected, list) else expected}" if kind == "type" else (
            f"does not fit the schema ({kind})")
        yield path, f"{wanted}, got {_json_type(instance)} (a credential: its value is not shown)"
        return
    if kind == "additionalProperties" and isinstance(instance, dict):
        known = error.schema.get("properties", {})
        for key in instance:
            if key not in known:
                yield [*path, key], f"unknown attribute '{key}' (allowed: {', '.join(known)})"
    elif kind == "type":
        types = " or ".join(expected) if isinstance(expected, list) else expected
        article = "an" if types[0] in "aeiou" else "a"
        yield path, f"must be {article} {types}, got {_json_type(instance)} {_short(instance)}"
    elif kind in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        words = {"minimum": "at least", "exclusiveMinimum": "more than", "maximum": "at most",
                 "exclusiveMaximum": "less than"}
        yield path, f"must be {words[kind]} {expected}, got {_short(instance)}"
    elif kind == "pattern" and expected == "^:.+":
        yield path, f"must be a reference like ':node.prop', got {_short(instance)}"
    elif kind == "minProperties" and expected == 1:
        yield path, "must not be empty"
    elif kind == "required":
        missing = [key for key in expected if isinstance(instance, dict) and key not in instance]
        yield path, f"'{missing[0] if missing else expected[0]}' is required"
    else:
        message = hide_credentials(error.message)
        yield path, message if len(message) <= 200 else message[:197] + "..."
