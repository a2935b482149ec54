"""GraphAI's prop functions, one family at a time (graphrt/graphdata/propfuncs.py).

Each case resolves `:v.<prop>` against `{"v": value}`, as a node's input would.
"""

from __future__ import annotations

from typing import Any

import pytest

import graphrt
from graphrt.base.errors import ResolveError
from graphrt.base.jsvalue import UNDEFINED
from graphrt.graphdata.propfuncs import apply_prop_function, compile_prop_function, is_prop_function
from graphrt.graphdata.refs import compile_inputs


def prop(value: Any, path: str) -> Any:
    results = {} if value is UNDEFINED else {"v": value}
    return compile_inputs(f":v.{path}").resolve(results)


def cases(*rows: tuple[Any, str, Any]) -> Any:
    return pytest.mark.parametrize("value, path, expected", rows, ids=[f"{path}-{value!r}"[:40] for value, path, _ in rows])


@pytest.mark.parametrize("text", ["length()", "join(,)", "add(1)", "split(, )", "default(x)", "codeBlock()"])
def test_a_call_like_property_is_a_prop_function(text: str) -> None:
    assert is_prop_function(text)


@pytest.mark.parametrize("text", ["length", "$0", "join(a)b", "(x)", "to_json()", ""])
def test_other_properties_are_not_prop_functions(text: str) -> None:
    assert not is_prop_function(text)


@cases(
    ([1, 2, 3], "length()", 3),
    ([], "length()", 0),
    ([1, [2, [3]], 4], "flat()", [1, 2, [3], 4]),
    ([], "isEmpty()", True),
    ([0], "isEmpty()", False),
    ([1, 2, 3, 4], "sum()", 10),
    ([], "sum()", 0),
    ([1, 2], "average()", 1.5),
    ([1, 2], "mean()", 1.5),
    ([], "average()", 0),
    ([3, 1, 2], "max()", 3),
    ([3, 1, 2], "min()", 1),
    ([], "max()", 0),
    ([], "min()", 0),
    (["a", "b", "c"], "join(,)", "a,b,c"),
    (["a", "b"], "join(-)", "a-b"),
    (["a", "b"], "join( )", "a b"),
    (["a", "b"], "join()", "ab"),
    ([1, None, True, [2, 3]], "join(,)", "1,,true,2,3"),
    (["a", "b"], "join(;)", UNDEFINED),
    ([1, {"a": 2}], "toJSON()", '[\n  1,\n  {\n    "a": 2\n  }\n]'),
)
def test_array_functions(value: Any, path: str, expected: Any) -> None:
    assert prop(value, path) == expected


@cases(
    ({"a": 1, "b": 2}, "keys()", ["a", "b"]),
    ({"a": 1, "b": 2}, "values()", [1, 2]),
    ([5, 6], "keys()", ["0", "1"]),
    ([5, 6], "values()", [5, 6]),
    ({"a": [1]}, "toJSON()", '{\n  "a": [\n    1\n  ]\n}'),
    ({}, "keys()", []),
)
def test_object_functions(value: Any, path: str, expected: Any) -> None:
    assert prop(value, path) == expected


@cases(
    ("intro\n```python\nprint(1)\n```\nouter", "codeBlock()", "\nprint(1)"),
    ("```\nplain\n```", "codeBlock()", "\nplain"),
    ("no block here", "codeBlock()", UNDEFINED),
    ("no block here", "codeBlockOrRaw()", "no block here"),
    ("x\n```js\ny\n```", "codeBlockOrRaw()", "\ny"),
    ('{"a": [1, 2]}', "jsonParse()", {"a": [1, 2]}),
    ("null", "jsonParse()", UNDEFINED),
    ("1.5", "toNumber()", 1.5),
    ("42", "toNumber()", 42),
    ("", "toNumber()", 0),
    ("0x10", "toNumber()", 16),
    ("abc", "toNumber()", UNDEFINED),
    ("  padded \n", "trim()", "padded"),
    ("MiXed", "toLowerCase()", "mixed"),
    ("MiXed", "toUpperCase()", "MIXED"),
    ("abc", "equal(abc)", True),
    ("abc", "equal(abd)", False),
    ("a/b", "equal(a/b)", True),
    ("hello", "slice(1)", "ello"),
    ("hello", "slice(1,3)", "el"),
    ("hello", "slice(1, -1)", "ell"),
    ("hello", "slice(-2)", "lo"),
    ("a,b,c", "split(,)", ["a", "b", "c"]),
    ("a b", "split( )", ["a", "b"]),
    ("a, b", "split(, )", ["a", "b"]),
    ("a-b", "split(-)", ["a", "b"]),
    ("axb", "split(x)", UNDEFINED),
    ("abc", "length()", UNDEFINED),
    ("abc", "toJSON()", UNDEFINED),
)
def test_string_functions(value: Any, path: str, expected: Any) -> None:
    assert prop(value, path) == expected


@cases(
    (5, "add(1)", 6),
    (5, "add(-7)", -2),
    (1.5, "add(1)", 2.5),
    (5, "add(1.5)", UNDEFINED),
    (1.0, "toString()", "1"),
    (1.5, "toString()", "1.5"),
    (3, "equal(3)", True),
    (3, "equal(4)", False),
    (1.5, "equal(1)", False),
    (True, "add(1)", UNDEFINED),
    ("1", "add(1)", UNDEFINED),
)
def test_number_functions(value: Any, path: str, expected: Any) -> None:
    assert prop(value, path) == expected


@cases(
    (True, "not()", False),
    (False, "not()", True),
    (1, "not()", UNDEFINED),
    ("", "not()", UNDEFINED),
)
def test_boolean_functions(value: Any, path: str, expected: Any) -> None:
    assert prop(value, path) == expected


@cases(
    (UNDEFINED, "default(fallback)", "fallback"),
    (UNDEFINED, "default(5)", 5),
    (UNDEFINED, "default(-3)", -3),
    (UNDEFINED, "length()", UNDEFINED),
    ("set", "default(fallback)", "set"),
    (0, "default(5)", 0),
    (False, "default(x)", False),
)
def test_default_on_undefined_and_on_existing_values(value: Any, path: str, expected: Any) -> None:
    assert prop(value, path) == expected


def test_default_applies_at_the_end_of_a_missing_path() -> None:
    assert prop({}, "a.b.default(none)") == "none"


def test_prop_functions_chain_left_to_right() -> None:
    assert prop(" a, b ,c ", "trim().split(,).length()") == 3


def test_an_index_after_a_prop_function_reads_its_result() -> None:
    assert prop("x-y-z", "split(-).$last") == "z"


def test_a_key_spelled_like_a_call_is_read_when_no_function_claims_it() -> None:
    assert prop({"length()": 9}, "length()") == 9


def test_json_parse_of_bad_json_raises_a_resolve_error() -> None:
    with pytest.raises(ResolveError, match=r"^jsonParse\(\) failed: Expecting property name"):
        apply_prop_function("{bad", "jsonParse()")


def test_an_unknown_function_gives_nothing() -> None:
    assert apply_prop_function([1, 2], "reverse()") is UNDEFINED


def test_prop_functions_run_in_node_inputs() -> None:
    graph = {
        "nodes": {
            "csv": {"value": "3,1,2"},
            "stats": {
                "agent": "copyAgent",
                "inputs": {"count": ":csv.split(,).length()", "upper": ":csv.toUpperCase()", "n": ":csv.split(,).$0.toNumber().add(1)"},
                "isResult": True,
            },
        }
    }
    assert graphrt.run(graph) == {"stats": {"count": 3, "upper": "3,1,2", "n": 4}}


def test_a_dot_inside_a_call_splits_the_path_as_in_graphai() -> None:
    assert prop("1.5", "equal(1.5)") is UNDEFINED


def test_bad_json_in_a_node_input_fails_the_run() -> None:
    graph = {"nodes": {"raw": {"value": "{bad"}, "parse": {"agent": "copyAgent", "inputs": {"v": ":raw.jsonParse()"}}}}
    with pytest.raises(ResolveError, match=r"jsonParse\(\) failed"):
        graphrt.run(graph)



def test_bad_json_in_a_node_input_names_the_node() -> None:
    graph = {"nodes": {"raw": {"value": "{bad"}, "parse": {"agent": "copyAgent", "inputs": {"v": ":raw.jsonParse()"}}}}
    with pytest.raises(ResolveError) as caught:
        graphrt.run(graph)
    assert caught.value.node_id == "parse"


_VALUES = [0, 3, -2, 1.5, 1000, 1e308, float("inf"), True, False, None, "3", "abc", "", [1, 2], [], {"a": 1}, {}]
_PROPS = ["add(1)", "add(-3)", "length()", "not()", "equal(3)", "equal(1.5)", "equal(abc)", "equal(1e3)", "equal(0x10)",
          "equal(Infinity)", "equal(3)x", "toString()", "join(,)", "keys()"]


@pytest.mark.parametrize("path", _PROPS)
def test_a_compiled_prop_function_gives_what_the_generic_one_gives(path: str) -> None:
    compiled = compile_prop_function(path)
    for value in _VALUES:
        assert repr(compiled(value)) == repr(apply_prop_function(value, path)), value

