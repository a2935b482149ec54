"""References in graph files: `:node.a.b`, `$0`, `$last`, templates, `@loop` (graphrt/graphdata/refs.py)."""

from __future__ import annotations

from typing import Any

import pytest

import graphrt
from graphrt.base.jsvalue import UNDEFINED
from graphrt.graphdata.refs import (
    LOOP_COUNTER,
    compile_inputs,
    compile_output,
    compile_self_path,
    graph_references,
    node_references,
    parse_ref,
    template_refs,
)

RESULTS: dict[str, Any] = {
    "doc": {"title": "Hello", "meta": {"pages": 3, "tags": ["a", "b"]}},
    "list": [10, 20, 30],
    "empty": [],
    "text": "hi",
    "nothing": None,
    "flag": False,
    LOOP_COUNTER: 2,
}


def resolve(value: Any, results: dict[str, Any] = RESULTS) -> Any:
    return compile_inputs(value).resolve(results)


# ----- parse_ref -----


def test_parse_ref_splits_the_node_id_from_its_properties() -> None:
    ref = parse_ref(":doc.meta.pages")
    assert (ref.node_id, ref.props, ref.text) == ("doc", ("meta", "pages"), ":doc.meta.pages")


def test_parse_ref_keeps_a_dot_inside_a_prop_function_call() -> None:
    assert parse_ref(":text.split(.).$0").props == ("split(.)", "$0")


@pytest.mark.parametrize("value", ["doc", "doc.title", "", "@loop", 3, None, ["a"], {"a": ":b"}])
def test_parse_ref_gives_none_for_anything_that_is_not_a_reference(value: Any) -> None:
    assert parse_ref(value) is None


def test_template_refs_lists_each_placeholder_without_braces() -> None:
    assert template_refs("${:a.b} and ${@loop} but not ${plain} or :c") == [":a.b", "@loop"]


# ----- node references -----


def test_a_whole_node_reference_gives_the_node_result() -> None:
    assert resolve(":doc") == RESULTS["doc"]


def test_a_property_path_walks_into_nested_objects() -> None:
    assert resolve(":doc.meta.pages") == 3


def test_dollar_index_reads_an_array_item() -> None:
    assert resolve(":list.$1") == 20


def test_dollar_last_reads_the_last_array_item() -> None:
    assert resolve(":doc.meta.tags.$last") == "b"


def test_dollar_last_of_an_empty_array_is_missing() -> None:
    assert resolve(":empty.$last") is UNDEFINED


def test_an_index_past_the_end_is_missing() -> None:
    assert resolve(":list.$3") is UNDEFINED


def test_a_plain_number_does_not_index_an_array() -> None:
    assert resolve(":list.0") is UNDEFINED


def test_dollar_index_on_an_object_is_missing() -> None:
    assert resolve(":doc.$0") is UNDEFINED


def test_a_missing_property_is_absent_not_an_error() -> None:
    assert resolve(":doc.author") is UNDEFINED


def test_a_path_through_a_missing_property_is_absent_not_an_error() -> None:
    assert resolve(":doc.author.name.first") is UNDEFINED


def test_a_property_of_a_string_is_absent() -> None:
    assert resolve(":text.length") is UNDEFINED


def test_a_reference_to_a_node_without_a_result_is_absent() -> None:
    assert resolve(":later") is UNDEFINED


def test_a_null_result_stays_null() -> None:
    assert resolve(":nothing") is None


def test_a_false_result_stays_false() -> None:
    assert resolve(":flag") is False


# ----- structures in inputs -----


def test_an_object_in_inputs_resolves_each_value() -> None:
    assert resolve({"t": ":doc.title", "n": ":list.$0"}) == {"t": "Hello", "n": 10}


def test_an_object_in_inputs_keeps_a_missing_value_as_undefined() -> None:
    # GraphAI keeps `{gone: undefined}`: the key counts, JSON output drops it.
    assert resolve({"t": ":doc.title", "gone": ":doc.author"}) == {"t": "Hello", "gone": UNDEFINED}
    assert resolve({"outer": {"gone": ":doc.author"}}) == {"outer": {"gone": UNDEFINED}}


def test_an_array_in_inputs_turns_a_missing_item_into_null() -> None:
    assert resolve([":list.$0", ":doc.author", ":text"]) == [10, None, "hi"]


def test_nested_arrays_and_objects_resolve_recursively() -> None:
    assert resolve({"a": [{"b": ":text"}, [":list.$last"]]}) == {"a": [{"b": "hi"}, [30]]}


def test_literal_values_in_inputs_are_used_as_they_are() -> None:
    assert resolve({"n": 1, "s": "plain text", "b": True, "z": None, "e": {}}) == {
        "n": 1, "s": "plain text", "b": True, "z": None, "e": {},
    }  # fmt: skip


def test_the_same_node_can_be_referenced_many_times() -> None:
    assert resolve([":text", ":text", {"x": ":text"}]) == ["hi", "hi", {"x": "hi"}]


def test_node_references_lists_every_reference_of_the_inputs_in_order() -> None:
    node = {"agent": "copyAgent", "inputs": {"a": ":doc.title", "b": [":list", "${:text} ${:doc}"], "c": "literal"}}
    assert list(node_references(node)) == [
        ("inputs.a", ":doc.title"), ("inputs.b.0", ":list"), ("inputs.b.1", ":text"), ("inputs.b.1", ":doc"),
    ]  # fmt: skip


def test_node_references_reads_conditions_agent_graph_and_pass_through_after_the_inputs() -> None:
    node = {"agent": ":pick", "inputs": {"x": ":a"}, "if": ":b.ok", "unless": ":c", "graph": ":g",
            "passThrough": {"p": ":d"}, "params": {"q": ":not_a_reference_in_params"}}
    assert [field for field, _ in node_references(node)] == ["inputs.x", "if", "unless", "agent", "graph", "passThrough.p"]


def test_node_references_ignores_what_the_run_does_not_read() -> None:
    assert list(node_references({"agent": "copyAgent", "passThrough": ":a"})) == []  # passThrough must be a mapping
    assert list(node_references({"agent": "copyAgent", "inputs": {"t": "${@loop} and ${plain}"}})) == []
    assert list(node_references({"value": 1, "update": ":a.add(1)"})) == [("update", ":a.add(1)")]
    assert list(node_references({"value": ":a"})) == []


def test_graph_references_starts_with_the_loop_condition() -> None:
    graph = {"loop": {"while": ":go"}, "nodes": {"go": {"value": True, "update": ":n"}, "n": {"agent": "copyAgent", "inputs": {"v": ":go"}}}}
    found = [(owner, field, ref.node_id) for owner, field, ref in graph_references(graph)]
    assert found == [(None, "loop.while", "go"), ("go", "update", "n"), ("n", "inputs.v", "go")]


# ----- templates -----


def test_a_template_replaces_each_placeholder_with_its_value() -> None:
    assert resolve("${:doc.title}, ${:text}!") == "Hello, hi!"


def test_a_template_prints_values_as_javascript_does() -> None:
    assert resolve("${:list} ${:flag} ${:nothing} ${:doc.meta.pages}") == "10,20,30 false null 3"


def test_a_template_prints_an_object_as_javascript_does() -> None:
    assert resolve("${:doc.meta}") == "[object Object]"


def test_a_template_prints_a_missing_value_as_undefined() -> None:
    assert resolve("x=${:doc.author}") == "x=undefined"


def test_a_template_replaces_a_repeated_placeholder_everywhere() -> None:
    assert resolve("${:text}-${:text}") == "hi-hi"


def test_text_that_only_looks_like_a_placeholder_is_kept() -> None:
    assert resolve("${name} costs $5 and {:text}") == "${name} costs $5 and {:text}"


def test_a_template_can_mix_loop_and_node_placeholders() -> None:
    assert resolve("${@loop}:${:text}") == "2:hi"


def test_prop_functions_work_inside_a_template() -> None:
    assert resolve("${:list.length()} items") == "3 items"


# ----- @ utilities -----


def test_at_loop_is_the_loop_counter() -> None:
    assert resolve("@loop") == 2


def test_an_unknown_at_utility_is_an_empty_string() -> None:
    assert resolve("@nope") == ""


def test_at_now_is_milliseconds_and_at_now_s_is_seconds() -> None:
    now_ms, now_s = resolve("@now"), resolve("@now_s")
    assert isinstance(now_ms, int) and isinstance(now_s, int)
    assert abs(now_ms // 1000 - now_s) <= 1


def test_at_loop_counts_the_iterations_of_a_looping_graph() -> None:
    graph = {
        "version": 0.5,
        "loop": {"count": 3},
        "nodes": {
            "seen": {"value": [], "update": ":push.array"},
            "push": {"agent": "pushAgent", "inputs": {"array": ":seen", "item": "@loop"}, "isResult": True},
        },
    }
    assert graphrt.run(graph) == {"push": {"array": [0, 1, 2]}}


def test_a_template_in_a_looping_graph_sees_loop_and_node_values() -> None:
    graph = {
        "version": 0.5,
        "loop": {"count": 2},
        "nodes": {
            "name": {"value": "x"},
            "say": {"agent": "copyAgent", "inputs": {"text": "${@loop}/${:name}"}, "isResult": True},
        },
    }
    assert graphrt.run(graph) == {"say": {"text": "1/x"}}


def test_references_resolve_in_a_running_graph() -> None:
    graph = {
        "nodes": {
            "doc": {"value": {"items": [{"name": "a"}, {"name": "b"}]}},
            "pick": {
                "agent": "copyAgent",
                "inputs": {"first": ":doc.items.$0.name", "last": ":doc.items.$last.name", "none": ":doc.x.y"},
                "isResult": True,
            },
        }
    }
    assert graphrt.run(graph) == {"pick": {"first": "a", "last": "b"}}


# ----- output and repeatUntil paths -----


def test_output_paths_read_the_node_own_result() -> None:
    output = compile_output({"title": ".doc.title", "first": ".list.$0", "plain": "text", "ref": ":doc"})
    assert output.resolve({"self": RESULTS}) == {"title": "Hello", "first": 10, "plain": "text", "ref": ":doc"}


def test_output_paths_can_call_prop_functions() -> None:
    assert compile_output(".list.length()").resolve({"self": RESULTS}) == 3


def test_repeat_until_paths_do_not_call_prop_functions() -> None:
    assert compile_self_path(".list.length()").resolve({"self": RESULTS}) is UNDEFINED


def test_a_template_that_starts_with_a_colon_is_a_template_not_a_reference() -> None:
    graph = {"nodes": {"name": {"value": "Ada"}, "b": {"agent": "copyAgent", "inputs": {"m": ":) hello ${:name}"}, "isResult": True}}}
    assert graphrt.run(graph) == {"b": {"m": ":) hello Ada"}}
