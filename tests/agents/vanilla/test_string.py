"""GraphAI's vanilla string agents: splitter, template, JSON parser, case variants, update text, console."""

from __future__ import annotations

import logging

import pytest
from graphrt_agents.vanilla.string import (
    AGENTS,
    console_agent,
    json_parser_agent,
    string_case_variants_agent,
    string_splitter_agent,
    string_template_agent,
    string_update_text_agent,
)

from graphrt.base.jsvalue import UNDEFINED, to_json_compatible
from graphrt.testing import SampleCase, parametrize_samples
from graphrt.testing import agent_context as context

pytestmark = pytest.mark.anyio


@parametrize_samples(*AGENTS)
def test_every_sample_gives_its_result(sample_case: SampleCase) -> None:
    sample_case.check()  # through a real one-node graph, as `graphrt test-agents` runs it


def test_the_module_has_graphai_s_string_agents() -> None:
    assert [info.name for info in AGENTS] == [
        "stringSplitterAgent",
        "stringTemplateAgent",
        "jsonParserAgent",
        "stringCaseVariantsAgent",
        "stringUpdateTextAgent",
        "consoleAgent",
    ]


# --- stringSplitterAgent ---------------------------------------------------------


async def test_splitter_defaults_to_2048_characters_with_an_eighth_overlap() -> None:
    result = await string_splitter_agent(context({"text": "short"}))
    assert result == {"contents": ["short"], "count": 1, "chunkSize": 2048, "overlap": 256}


async def test_splitter_chunks_overlap_by_the_given_amount() -> None:
    result = await string_splitter_agent(context({"text": "abcdefg"}, {"chunkSize": 4, "overlap": 2}))
    assert result["contents"] == ["abcd", "cdef", "efg", "g"]


async def test_splitter_counts_an_emoji_as_two_characters_like_javascript() -> None:
    result = await string_splitter_agent(context({"text": "😀😀"}, {"chunkSize": 2, "overlap": 0}))
    assert result["contents"] == ["😀", "😀", ""]


async def test_splitter_rejects_an_overlap_as_large_as_the_chunk() -> None:
    with pytest.raises(ValueError, match="^Invalid array length$"):
        await string_splitter_agent(context({"text": "abc"}, {"chunkSize": 3, "overlap": 3}))


async def test_splitter_without_text_fails_like_javascript() -> None:
    with pytest.raises(TypeError, match=r"^Cannot read properties of undefined \(reading 'length'\)$"):
        await string_splitter_agent(context())


# --- stringTemplateAgent ---------------------------------------------------------


async def test_template_replaces_only_the_first_placeholder_in_a_string() -> None:
    result = await string_template_agent(context({"a": "x"}, {"template": "${a} and ${a}"}))
    assert result == "x and ${a}"


async def test_template_keeps_the_value_s_type_when_the_string_is_just_the_placeholder() -> None:
    result = await string_template_agent(context({"a": [1, {"b": 2}]}, {"template": {"k": "${a}"}}))
    assert result == {"k": [1, {"b": 2}]}


async def test_template_writes_values_inside_text_as_javascript_strings() -> None:
    inputs = {"n": None, "l": [1, None, [2, 3]], "o": {"x": 1}, "t": True, "f": 2.0}
    result = await string_template_agent(context(inputs, {"template": "${n}|${l}|${o}|${t}|${f}"}))
    assert result == "null|1,,2,3|[object Object]|true|2"


async def test_template_expands_dollar_patterns_in_values_like_javascript_replace() -> None:
    result = await string_template_agent(context({"a": "[$&|$$|$`|$'|$1]"}, {"template": "<${a}>"}))
    assert result == "<[${a}|$|<|>|$1]>"


async def test_template_substitutes_placeholders_that_an_earlier_value_brought_in() -> None:
    result = await string_template_agent(context({"a": "${b}", "b": "B"}, {"template": "${a}"}))
    assert result == "B"


async def test_template_substitutes_index_like_input_names_first_as_javascript_orders_keys() -> None:
    result = await string_template_agent(context({"b": "${1}", "1": "one"}, {"template": "${b}"}))
    assert result == "${1}"


async def test_template_without_template_returns_the_text_input() -> None:
    assert await string_template_agent(context({"text": "hi", "x": 1})) == "hi"


async def test_template_without_template_or_text_has_no_result_and_warns(caplog) -> None:
    with caplog.at_level(logging.WARNING):
        result = await string_template_agent(context({"text": ""}))
    assert result is UNDEFINED
    assert caplog.messages == ["stringTemplateAgent: no template"]


# --- jsonParserAgent -------------------------------------------------------------


async def test_json_parser_writes_data_as_json_indented_by_two() -> None:
    result = await json_parser_agent(context({"data": {"a": [1, None]}}))
    assert result == {"text": '{\n  "a": [\n    1,\n    null\n  ]\n}'}


async def test_json_parser_parses_text_when_data_is_falsy() -> None:
    assert await json_parser_agent(context({"data": 0, "text": "[1, 2]"})) == {"data": [1, 2]}


async def test_json_parser_parses_the_first_markdown_code_block() -> None:
    text = 'Here:\n```json\n{"a": 1}\n```\nand\n```\n[2]\n```'
    assert await json_parser_agent(context({"text": text})) == {"data": {"a": 1}}


async def test_json_parser_reads_large_integers_as_doubles_like_javascript() -> None:
    result = await json_parser_agent(context({"text": "12345678901234567890"}))
    assert result == {"data": 1.2345678901234567e19}


async def test_json_parser_rejects_nan_which_javascript_json_does_not_know() -> None:
    with pytest.raises(ValueError, match="^NaN is not valid JSON$"):
        await json_parser_agent(context({"text": "NaN"}))


async def test_json_parser_without_text_fails_to_parse() -> None:
    with pytest.raises(ValueError):
        await json_parser_agent(context())


# --- stringCaseVariantsAgent -----------------------------------------------------


async def test_case_variants_treat_hyphens_underscores_and_spaces_as_word_breaks() -> None:
    result = await string_case_variants_agent(context({"text": "  Hello-World_foo   BAR  "}))
    assert result == {
        "lowerCamelCase": "helloWorldFooBar",
        "snakeCase": "hello_world_foo_bar",
        "kebabCase": "hello-world-foo-bar",
        "normalized": "hello world foo bar",
    }


async def test_case_variants_do_not_repeat_a_suffix_the_text_ends_with() -> None:
    result = await string_case_variants_agent(context({"text": "user agent"}, {"suffix": "agent"}))
    assert result["lowerCamelCase"] == "userAgent"


async def test_case_variants_keep_the_empty_word_a_trailing_separator_leaves() -> None:
    result = await string_case_variants_agent(context({"text": "foo_"}, {"suffix": "agent"}))
    assert result == {
        "lowerCamelCase": "fooAgent",
        "snakeCase": "foo_agent",
        "kebabCase": "foo-agent",
        "normalized": "foo  agent",
    }


async def test_case_variants_use_javascript_s_set_of_white_space() -> None:
    result = await string_case_variants_agent(context({"text": "\ufeffa\u2003b\x85c"}))
    assert result["normalized"] == "a b\x85c"


async def test_case_variants_need_a_text() -> None:
    with pytest.raises(TypeError, match=r"^Cannot read properties of undefined \(reading 'trim'\)$"):
        await string_case_variants_agent(context())


# --- stringUpdateTextAgent -------------------------------------------------------


async def test_update_text_prefers_the_new_text() -> None:
    assert await string_update_text_agent(context({"newText": "new", "oldText": "old"})) == {"text": "new"}


async def test_update_text_falls_back_to_the_old_text_when_the_new_one_is_empty() -> None:
    assert await string_update_text_agent(context({"newText": [], "oldText": "old"})) == {"text": "old"}


async def test_update_text_drops_nulls_from_a_list_like_graphai_s_any_input_nodes() -> None:
    result = await string_update_text_agent(context({"newText": ["a", None, {"b": None}]}))
    assert result == {"text": ["a", {}]}


@pytest.mark.parametrize("old_text", [None, []])
async def test_update_text_has_no_result_when_the_chosen_text_is_null_or_an_empty_list(old_text) -> None:
    assert await string_update_text_agent(context({"newText": "", "oldText": old_text})) is UNDEFINED


# --- consoleAgent ----------------------------------------------------------------


async def test_console_prints_the_text_and_passes_it_on(capsys) -> None:
    assert await console_agent(context({"text": "hello"})) == {"text": "hello"}
    assert capsys.readouterr().out == "hello\n"


async def test_console_prints_other_values_the_way_node_inspects_them(capsys) -> None:
    await console_agent(context({"text": {"a": 1, "b-c": "it's", "d": [None, {"e": {"f": {}}}]}}))
    assert capsys.readouterr().out == """{ a: 1, 'b-c': "it's", d: [ null, { e: [Object] } ] }\n"""


async def test_console_without_text_prints_undefined_and_passes_nothing_on(capsys) -> None:
    result = await console_agent(context())
    assert capsys.readouterr().out == "undefined\n"
    assert to_json_compatible(result) == {}
