"""GraphAI's compare agent: evaluates `[left, operator, right]` expressions.

The operators follow JavaScript: `==` is strict equality (`===`), the ordering
operators compare `Number(...)` values, and `||`, `&&`, `XOR` use truthiness.
"""

from __future__ import annotations

from typing import Any, Callable

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.jsvalue import UNDEFINED, is_null, is_truthy, js_number

from ._js import strict_equal

__all__ = ["AGENTS", "compare_agent"]


_OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "==": strict_equal,
    "!=": lambda a, b: not strict_equal(a, b),
    ">": lambda a, b: js_number(a) > js_number(b),  # NaN compares false, as in JavaScript
    ">=": lambda a, b: js_number(a) >= js_number(b),
    "<": lambda a, b: js_number(a) < js_number(b),
    "<=": lambda a, b: js_number(a) <= js_number(b),
    "||": lambda a, b: is_truthy(a) or is_truthy(b),
    "&&": lambda a, b: is_truthy(a) and is_truthy(b),
    "XOR": lambda a, b: is_truthy(a) != is_truthy(b),
}


def _evaluate(expression: list[Any]) -> bool:
    """Evaluates one `[left, operator, right]` list; nested lists are evaluated first."""
    values = [_evaluate(item) if isinstance(item, list) else item for item in expression]
    left, operator, right = (values + [UNDEFINED] * 3)[:3]
    compare = _OPERATORS.get(operator) if isinstance(operator, str) else None
    if compare is None:
        raise ValueError("unknown compare operator")
    return compare(left, right)


def _expression(inputs: dict[str, Any], operator: Any) -> list[Any]:
    """Builds the top-level expression from `array`, or from `leftValue`/`rightValue` and the operator."""
    array = inputs.get("array")
    if is_null(array):
        array = []
    size = len(array) if isinstance(array, (list, str)) else None  # JS strings have a length too
    if size == 2 and is_truthy(operator):
        return [array[0], operator, array[1]]
    if size == 3:
        if not isinstance(array, list):
            raise TypeError("array.map is not a function")
        return array
    left = inputs.get("leftValue", UNDEFINED)
    right = inputs.get("rightValue", UNDEFINED)
    if size == 0 and not is_null(left) and not is_null(right) and is_truthy(operator):
        return [left, operator, right]
    raise ValueError("compare inputs is wrong.")


def _mapped_result(outcome: bool, mapping: Any) -> Any:
    """`params.value[outcome] ?? outcome`: a mapping lets the caller rename true and false."""
    if not isinstance(mapping, dict):
        return outcome
    mapped = mapping.get("true" if outcome else "false")
    return outcome if is_null(mapped) else mapped


async def compare_agent(ctx: AgentContext) -> dict[str, Any]:
    """Compares two values, or evaluates a nested comparison, and returns `{result}`.

    Graphs branch on the result (`if`/`unless`), so the JavaScript comparison
    rules are kept: `"10" == 10` is false while `"10" > "5"` is true.
    """
    params = ctx.params
    outcome = _evaluate(_expression(ctx.inputs, params.get("operator")))
    mapping = params.get("value")
    if is_truthy(mapping):
        return {"result": _mapped_result(outcome, mapping)}
    return {"result": outcome}


_INPUTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "array": {
            "type": "array",
            "description": "A 3-element array in the form [leftOperand, operator, rightOperand]. "
            "Used for direct comparison logic.",
            "items": {"type": ["string", "number", "boolean", "array"]},
        },
        "leftValue": {
            "type": ["string", "number", "boolean"],
            "description": "Left-hand operand used when 'array' is not provided. "
            "Used with 'rightValue' and 'params.operator'.",
        },
        "rightValue": {
            "type": ["string", "number", "boolean"],
            "description": "Right-hand operand used when 'array' is not provided. "
            "Used with 'leftValue' and 'params.operator'.",
        },
    },
    "additionalProperties": False,
}

_PARAMS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "operator": {
            "type": "string",
            "description": "The comparison operator to apply, such as '==', '!=', '>', '>=', '<', '<=', '||', "
            "'&&', or 'XOR'. Required if 'array' does not include the operator.",
        },
        "value": {
            "type": "object",
            "description": "An optional mapping for the comparison result. If provided, it must contain keys "
            "'true' and/or 'false' to return custom values instead of booleans.",
            "properties": {
                "true": {
                    "type": ["string", "number", "boolean"],
                    "description": "Custom result to return when the comparison evaluates to true.",
                },
                "false": {
                    "type": ["string", "number", "boolean"],
                    "description": "Custom result to return when the comparison evaluates to false.",
                },
            },
            "additionalProperties": False,
        },
    },
    "additionalProperties": False,
}

_AB = {"true": "a", "false": "b"}


def _sample(inputs: dict[str, Any], params: dict[str, Any], result: Any) -> Sample:
    return Sample(inputs=inputs, params=params, result={"result": result})


def _array_samples() -> list[Sample]:
    """GraphAI's samples with the operator inside `array`, in GraphAI's order."""
    cases: list[tuple[list[Any], dict[str, Any], Any]] = [
        (["abc", "==", "abc"], {"value": _AB}, "a"),
        (["abc", "==", "abca"], {"value": _AB}, "b"),
        (["abc", "==", "abc"], {}, True),
        (["abc", "==", "abcd"], {}, False),
        (["abc", "!=", "abc"], {}, False),
        (["abc", "!=", "abcd"], {}, True),
        (["10", ">", "5"], {}, True),
        (["10", ">", "15"], {}, False),
        ([10, ">", 5], {}, True),
        ([10, ">", 15], {}, False),
        (["10", ">=", "5"], {}, True),
        (["10", ">=", "10"], {}, True),
        (["10", ">=", "19"], {}, False),
        ([10, ">=", 5], {}, True),
        ([10, ">=", 10], {}, True),
        ([10, ">=", 19], {}, False),
        (["10", "<", "5"], {}, False),
        (["10", "<", "15"], {}, True),
        ([10, "<", 5], {}, False),
        ([10, "<", 15], {}, True),
        (["10", "<=", "5"], {}, False),
        (["10", "<=", "10"], {}, True),
        (["10", "<=", "19"], {}, True),
        ([10, "<=", 5], {}, False),
        ([10, "<=", 10], {}, True),
        ([10, "<=", 19], {}, True),
        ([True, "||", False], {}, True),
        ([False, "||", False], {}, False),
        ([True, "&&", False], {}, False),
        ([True, "&&", True], {}, True),
        ([True, "XOR", False], {}, True),
        ([False, "XOR", True], {}, True),
        ([False, "XOR", False], {}, False),
        ([True, "XOR", True], {}, False),
        ([["aaa", "==", "aaa"], "||", ["aaa", "==", "bbb"]], {}, True),
        ([["aaa", "==", "aaa"], "&&", ["aaa", "==", "bbb"]], {}, False),
        ([[["aaa", "==", "aaa"], "&&", ["bbb", "==", "bbb"]], "||", ["aaa", "&&", "bbb"]], {}, True),
    ]
    return [_sample({"array": array}, params, result) for array, params, result in cases]


def _operator_samples() -> list[Sample]:
    """GraphAI's samples with the operator in `params.operator`, in GraphAI's order."""
    cases: list[tuple[list[Any], str, Any]] = [
        (["abc", "abc"], "==", True),
        (["abc", "abcd"], "==", False),
        (["abc", "abc"], "!=", False),
        (["abc", "abcd"], "!=", True),
        (["10", "5"], ">", True),
        (["10", "15"], ">", False),
        ([10, 5], ">", True),
        ([10, 15], ">", False),
        (["10", "5"], ">=", True),
        (["10", "10"], ">=", True),
        (["10", "19"], ">=", False),
        ([10, 5], ">=", True),
        ([10, 10], ">=", True),
        ([10, 19], ">=", False),
        (["10", "5"], "<", False),
        (["10", "15"], "<", True),
        ([10, 5], "<", False),
        ([10, 15], "<", True),
        ([True, False], "||", True),
        ([False, False], "||", False),
        ([True, False], "&&", False),
        ([True, True], "&&", True),
        ([True, False], "XOR", True),
        ([False, True], "XOR", True),
        ([False, False], "XOR", False),
        ([True, True], "XOR", False),
    ]
    mapped = [
        _sample({"array": ["abc", "abc"]}, {"value": _AB, "operator": "=="}, "a"),
        _sample({"array": ["abc", "abca"]}, {"value": _AB, "operator": "=="}, "b"),
    ]
    return mapped + [_sample({"array": array}, {"operator": op}, result) for array, op, result in cases]


def _left_right_samples() -> list[Sample]:
    """GraphAI's samples with `leftValue` and `rightValue`."""
    params = {"value": _AB, "operator": "=="}
    return [
        _sample({"leftValue": "abc", "rightValue": "abc"}, params, "a"),
        _sample({"leftValue": "abc", "rightValue": "abca"}, params, "b"),
    ]


compare_agent_info = AgentInfo(
    name="compareAgent",
    runs_local=True,  # pure and quick: a trip to a cluster worker would cost more than the call
    func=compare_agent,
    description="compare",
    inputs=_INPUTS_SCHEMA,
    params=_PARAMS_SCHEMA,
    output={},
    samples=(*_array_samples(), *_operator_samples(), *_left_right_samples()),
    category=("compare",),
    author="Receptron team",
    repository="https://github.com/receptron/graphai",
    source="https://github.com/receptron/graphai/blob/main/agents/vanilla_agents/src/compare_agents/compare_agent.ts",
    package="@graphai/vanilla",
    license="MIT",
)

AGENTS: list[AgentInfo] = [compare_agent_info]
