"""JavaScript value rules that graph results depend on (graphrt/base/jsvalue.py).

Expected values are what Node.js prints for the same input.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from graphrt.base.jsvalue import (
    UNDEFINED,
    is_logically_true,
    is_named_inputs,
    is_null,
    is_truthy,
    js_number,
    js_string,
    json_stringify,
    to_json_compatible,
    without_undefined,
)


@pytest.mark.parametrize(
    "value, text",
    [
        (UNDEFINED, "undefined"),
        (None, "null"),
        (True, "true"),
        (False, "false"),
        (1, "1"),
        (1.0, "1"),
        (-0.0, "0"),
        (1.5, "1.5"),
        (0.1 + 0.2, "0.30000000000000004"),
        (1e16, "10000000000000000"),
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (1.5e300, "1.5e+300"),
        (1e-7, "1e-7"),
        (1.5e-7, "1.5e-7"),
        (0.000001, "0.000001"),
        (5e-324, "5e-324"),
        (math.nan, "NaN"),
        (math.inf, "Infinity"),
        (-math.inf, "-Infinity"),
        ([1, [2, [3, None]], UNDEFINED], "1,2,3,,"),
        ({"a": 1}, "[object Object]"),
        ("text", "text"),
    ],
)
def test_js_string_prints_values_as_javascript_does(value: Any, text: str) -> None:
    assert js_string(value) == text


@pytest.mark.parametrize(
    "value, text",
    [
        (2.0**60, "1152921504606847000"),
        (1.2345678901234568e20, "123456789012345680000"),
        (-1.2345678901234568e20, "-123456789012345680000"),
        (12345678901234567890.0, "12345678901234567000"),
    ],
)
def test_js_string_prints_integer_floats_past_2_53_with_their_shortest_digits(value: float, text: str) -> None:
    assert js_string(value) == text


@pytest.mark.parametrize(
    "value, number",
    [
        ("", 0),
        ("  ", 0),
        (" 12 ", 12),
        ("+5", 5),
        ("1e3", 1000),
        (".5", 0.5),
        ("5.", 5),
        ("0x1F", 31),
        ("0X1f", 31),
        ("0b101", 5),
        ("0o17", 15),
        ("Infinity", math.inf),
        ("-Infinity", -math.inf),
        (None, 0),
        (True, 1),
        (False, 0),
        (7, 7),
    ],
)
def test_js_number_converts_as_javascript_does(value: Any, number: float) -> None:
    assert js_number(value) == number


@pytest.mark.parametrize("value", ["abc", "1,5", "1_000", "-0x10", "0x", "0x1_0", "0x 1", "0b102", "١٢", UNDEFINED, [1], {}])
def test_js_number_gives_nan_where_javascript_does(value: Any) -> None:
    assert math.isnan(js_number(value))


@pytest.mark.parametrize("value", [True, 1, -1, "0", "false", [], {}, [0]])
def test_truthy_values(value: Any) -> None:
    assert is_truthy(value)


@pytest.mark.parametrize("value", [False, 0, 0.0, "", None, UNDEFINED, math.nan])
def test_falsy_values(value: Any) -> None:
    assert not is_truthy(value)


def test_an_empty_list_is_truthy_but_not_logically_true() -> None:
    assert is_truthy([]) and not is_logically_true([])


def test_a_non_empty_list_is_logically_true() -> None:
    assert is_logically_true([0])


def test_null_and_undefined_are_null_and_nothing_else_is() -> None:
    assert [is_null(v) for v in (None, UNDEFINED, 0, "", False, [])] == [True, True, False, False, False, False]


def test_named_inputs_are_non_empty_dicts() -> None:
    assert [is_named_inputs(v) for v in ({"a": 1}, {}, [1], "a")] == [True, False, False, False]


def test_undefined_is_a_falsy_singleton() -> None:
    assert type(UNDEFINED)() is UNDEFINED and not UNDEFINED and repr(UNDEFINED) == "UNDEFINED"


def test_json_stringify_drops_undefined_keys_and_nulls_undefined_items() -> None:
    assert json_stringify({"a": UNDEFINED, "b": [UNDEFINED, 1.0, math.nan], "c": "é"}) == '{"b":[null,1,null],"c":"é"}'


def test_json_stringify_indents_like_javascript() -> None:
    assert json_stringify({"a": [1, 2]}, indent=2) == '{\n  "a": [\n    1,\n    2\n  ]\n}'


def test_json_stringify_of_undefined_is_the_word_undefined() -> None:
    assert json_stringify(UNDEFINED) == "undefined"


def test_to_json_compatible_is_what_a_json_round_trip_gives() -> None:
    assert to_json_compatible({"a": UNDEFINED, 1: (2.0, math.inf), "b": None}) == {"1": [2, None], "b": None}


def test_without_undefined_removes_undefined_but_keeps_everything_else() -> None:
    assert without_undefined({"a": UNDEFINED, "b": [UNDEFINED, 1.5, {"c": UNDEFINED}]}) == {"b": [None, 1.5, {}]}
