"""GraphAI's vanilla matrix agents: dot products and sorting by scores.

Together they rank items by embedding similarity: `dotProductAgent` scores each
row against a query vector, `sortByValuesAgent` orders the items by the scores.
Arithmetic follows JavaScript: values are converted with `Number()`, and a
missing vector component makes the product NaN (null in JSON).
"""

from __future__ import annotations

import functools
import math
from typing import Any, Sequence

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.jsvalue import UNDEFINED, is_null, is_truthy, js_number

from ._js import read_error

__all__ = ["AGENTS", "dot_product_agent", "sort_by_values_agent"]

_META: dict[str, Any] = {
    "category": ("matrix",),
    "author": "Receptron team",
    "repository": "https://github.com/receptron/graphai",
    "package": "@graphai/vanilla",
    "license": "MIT",
}
_SOURCE = "https://github.com/receptron/graphai/blob/main/agents/vanilla_agents/src/matrix_agents/"


def _at(values: Sequence[Any], index: int) -> Any:
    """`values[index]`: undefined past the end."""
    return values[index] if index < len(values) else UNDEFINED


def _read(value: Any, reading: str) -> Any:
    """Returns value, failing like JavaScript reading `value[reading]` when it is null or undefined."""
    if is_null(value):
        raise read_error(value, reading)
    return value


def _dot(row: Sequence[Any], vector: Sequence[Any]) -> int | float:
    return sum((js_number(value) * js_number(_at(vector, i)) for i, value in enumerate(row)), 0)


async def dot_product_agent(ctx: AgentContext) -> list[int | float]:
    """Returns the dot product of each row of `matrix` with `vector`.

    With normalised embeddings these are cosine similarities. The first row must
    be as long as the vector.
    """
    matrix = ctx.inputs.get("matrix", UNDEFINED)
    vector = ctx.inputs.get("vector", UNDEFINED)
    width = len(_read(_at(_read(matrix, "0"), 0), "length"))
    if width != len(_read(vector, "length")):
        raise ValueError(f"dotProduct: Length of vectors do not match. {width}, {len(vector)}")
    return [_dot(row, vector) for row in matrix]


def _compare_values(a: tuple[Any, Any], b: tuple[Any, Any]) -> int:
    """JavaScript's comparator `(b.value - a.value)`: higher values first, NaN compares equal."""
    difference = js_number(b[1]) - js_number(a[1])
    if math.isnan(difference) or difference == 0:
        return 0
    return 1 if difference > 0 else -1


async def sort_by_values_agent(ctx: AgentContext) -> list[Any]:
    """Orders `array` by the number at the same position in `values`, highest first.

    `params.assendant` (GraphAI's spelling) sorts lowest first. The sort is
    stable, so items with equal values keep their order.
    """
    array = ctx.inputs.get("array")
    values = ctx.inputs.get("values")
    if not is_truthy(array):
        raise ValueError("sortByValue: namedInputs.array is UNDEFINED!")
    if not is_truthy(values):
        raise ValueError("sortByValue: namedInputs.values is UNDEFINED!")
    if not isinstance(array, (list, tuple)):
        raise TypeError("namedInputs.array.map is not a function")
    direction = -1 if is_truthy(ctx.params.get("assendant")) else 1
    pairs = [(item, _at(values, i)) for i, item in enumerate(array)]
    pairs.sort(key=functools.cmp_to_key(lambda a, b: direction * _compare_values(a, b)))
    return [item for item, _ in pairs]


# --- function info -------------------------------------------------------------

DOT_PRODUCT_AGENT = AgentInfo(
    name="dotProductAgent",
    func=dot_product_agent,
    description="dotProduct Agent",
    inputs={
        "type": "object",
        "properties": {
            "matrix": {
                "type": "array",
                "description": "A two-dimensional array of numbers. Each inner array represents a vector to be "
                "compared.",
                "items": {
                    "type": "array",
                    "items": {"type": "number", "description": "A numeric value within a vector."},
                    "description": "A vector of numbers (row in the matrix).",
                },
            },
            "vector": {
                "type": "array",
                "description": "A single vector of numbers to compute dot products with each vector in the matrix.",
                "items": {"type": "number", "description": "A numeric component of the target vector."},
            },
        },
        "required": ["matrix", "vector"],
        "additionalProperties": False,
    },
    params={
        "type": "object",
        "description": "No parameters are used in this agent.",
        "properties": {},
        "additionalProperties": False,
    },
    output={
        "type": "array",
        "description": "An array of numbers representing the dot products between each vector in 'matrix' and the "
        "input 'vector'.",
        "items": {
            "type": "number",
            "description": "The result of a dot product between a matrix row and the input vector.",
        },
    },
    samples=(
        Sample(inputs={"matrix": [[1, 2], [3, 4], [5, 6]], "vector": [3, 2]}, params={}, result=[7, 17, 27]),
        Sample(inputs={"matrix": [[1, 2], [2, 3]], "vector": [1, 2]}, params={}, result=[5, 8]),
    ),
    source=_SOURCE + "dot_product_agent.ts",
    **_META,
)

_FRUITS = {"array": ["banana", "orange", "lemon", "apple"], "values": [2, 5, 6, 4]}

# GraphAI's output schema says `"type": "any"`, which JSON Schema does not know; kept as is.
SORT_BY_VALUES_AGENT = AgentInfo(
    name="sortByValuesAgent",
    runs_local=True,  # pure and quick: a trip to a cluster worker would cost more than the call
    func=sort_by_values_agent,
    description="sortByValues Agent",
    inputs={
        "type": "object",
        "properties": {
            "array": {
                "type": "array",
                "description": "The array of items to be sorted. Each item will be paired with a corresponding "
                "numeric value from the 'values' array.",
            },
            "values": {
                "type": "array",
                "description": "An array of numeric values used to determine the sort order of the 'array' items. "
                "Must be the same length as 'array'.",
                "items": {"type": "number"},
            },
        },
        "required": ["array", "values"],
        "additionalProperties": False,
    },
    params={
        "type": "object",
        "properties": {
            "assendant": {
                "type": "boolean",
                "description": "If true, sorts in ascending order; otherwise, in descending order (default).",
            }
        },
        "additionalProperties": False,
    },
    output={
        "type": "array",
        "description": "A new array where items from 'array' are sorted based on their corresponding values in "
        "'values'.",
        "items": {"type": "any"},
    },
    samples=(
        Sample(inputs=_FRUITS, params={}, result=["lemon", "orange", "apple", "banana"]),
        Sample(inputs=_FRUITS, params={"assendant": True}, result=["banana", "apple", "orange", "lemon"]),
    ),
    source=_SOURCE + "sort_by_values_agent.ts",
    **_META,
)

AGENTS: list[AgentInfo] = [DOT_PRODUCT_AGENT, SORT_BY_VALUES_AGENT]
