"""JSON Schemas from type hints, conversion to dataclasses and Enums, and violations."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import (
    Annotated,
    Any,
    Callable,
    Literal,
    Mapping,
    Optional,
    Sequence,
    TypedDict,
    Union,
)

import pytest

from graphrt.base.schema import (
    UnsupportedType,
    coerce,
    format_path,
    type_schema,
    violations,
)


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclass
class Point:
    x: float
    y: float = 0.0
    tags: list[str] = field(default_factory=list)


class Movie(TypedDict, total=False):
    title: str
    year: int


class Node(TypedDict):
    children: list["Node"]


@pytest.mark.parametrize(
    "hint, schema",
    [
        (str, {"type": "string"}),
        (int, {"type": "integer"}),
        (float, {"type": "number"}),
        (bool, {"type": "boolean"}),
        (None, {"type": "null"}),
        (Any, {}),
        (list, {"type": "array"}),
        (dict, {"type": "object"}),
        (list[int], {"type": "array", "items": {"type": "integer"}}),
        (Sequence[str], {"type": "array", "items": {"type": "string"}}),
        (set[str], {"type": "array", "items": {"type": "string"}}),
        (tuple[int, ...], {"type": "array", "items": {"type": "integer"}}),
        (tuple[int, str], {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}],
                           "minItems": 2, "maxItems": 2}),
        (dict[str, float], {"type": "object", "additionalProperties": {"type": "number"}}),
        (Mapping[str, list[int]], {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "integer"}}}),
        (Optional[int], {"type": ["integer", "null"]}),
        (int | str | None, {"type": ["integer", "string", "null"]}),
        (Union[int, list[str]], {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"type": "string"}}]}),
        (Optional[Any], {}),
        (Literal["a", "b"], {"type": "string", "enum": ["a", "b"]}),
        (Literal[1, "one"], {"enum": [1, "one"]}),
        (Color, {"type": "string", "enum": ["red", "blue"]}),
        (Annotated[int, "how many", {"minimum": 0}], {"type": "integer", "description": "how many", "minimum": 0}),
        (Movie, {"type": "object", "properties": {"title": {"type": "string"}, "year": {"type": "integer"}}}),
        (Point, {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number", "default": 0.0},
                                                  "tags": {"type": "array", "items": {"type": "string"}}},
                 "required": ["x"]}),
    ],
    ids=str,
)
def test_a_type_hint_gives_its_json_schema(hint, schema) -> None:
    assert type_schema(hint) == schema


@pytest.mark.parametrize(
    "hint, message",
    [
        (Callable[[], int], "no JSON Schema for type Callable[[], int]"),
        (bytes, "no JSON Schema for type bytes"),
        (dict[int, str], "no JSON Schema for type dict[int, str] (object keys are strings)"),
        (Node, "no JSON Schema for type Node (it refers to itself)"),
    ],
    ids=str,
)
def test_a_type_without_json_schema_is_named(hint, message) -> None:
    with pytest.raises(UnsupportedType) as caught:
        type_schema(hint)
    assert str(caught.value) == message


def test_json_values_become_dataclasses_and_enum_members() -> None:
    assert coerce({"x": 1, "tags": ["a"]}, Point) == Point(1, 0.0, ["a"])
    assert coerce([{"x": 2}], list[Point]) == [Point(2)]
    assert coerce({"p": {"x": 3}}, dict[str, Point]) == {"p": Point(3)}
    assert coerce(None, Optional[Point]) is None
    assert coerce("blue", Color) is Color.BLUE
    assert coerce([1, "a"], tuple[int, str]) == (1, "a")


def test_violations_name_each_bad_value_by_its_path() -> None:
    schema = {
        "type": "object",
        "properties": {"n": {"type": "integer"}, "items": {"type": "array", "items": {"type": "string"}}},
        "required": ["n", "name"],
        "additionalProperties": False,
    }
    found = violations(schema, {"items": ["a", 2], "extra": True})
    assert [(format_path(v.path, "inputs"), v.message) for v in found] == [
        ("inputs.extra", "unexpected: the schema has no such property"),
        ("inputs.items[1]", "2 is not of type 'string'"),
        ("inputs.n", "a required value is missing"),
        ("inputs.name", "a required value is missing"),
    ]


def test_a_valid_value_has_no_violations() -> None:
    assert violations({"type": "object", "required": ["a"]}, {"a": 1}) == []
