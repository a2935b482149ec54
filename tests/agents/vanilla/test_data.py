"""GraphAI's vanilla data agents: total, dataSumTemplate, propertyFilter, copy, lookupDictionary, mergeObject."""

from __future__ import annotations

import pytest
from graphrt_agents.vanilla.data import (
    AGENTS,
    copy_agent,
    data_sum_template_agent,
    lookup_dictionary_agent,
    merge_object_agent,
    property_filter_agent,
    total_agent,
)

from graphrt.base.jsvalue import UNDEFINED, to_json_compatible
from graphrt.testing import SampleCase, parametrize_samples
from graphrt.testing import agent_context as context

pytestmark = pytest.mark.anyio


@parametrize_samples(*AGENTS)
def test_every_sample_gives_its_result(sample_case: SampleCase) -> None:
    sample_case.check()  # through a real one-node graph, as `graphrt test-agents` runs it


def test_the_module_has_graphai_s_data_agents() -> None:
    assert [info.name for info in AGENTS] == [
        "totalAgent",
        "dataSumTemplateAgent",
        "propertyFilterAgent",
        "copyAgent",
        "lookupDictionaryAgent",
        "mergeObjectAgent",
    ]


# --- totalAgent ------------------------------------------------------------------


async def test_total_adds_up_values_key_by_key_across_dicts_and_lists_of_dicts() -> None:
    result = await total_agent(context({"array": [{"a": 1}, [{"a": 2, "b": 1}, {"b": 2}]]}))
    assert result == {"data": {"a": 3, "b": 3}}


async def test_total_returns_the_bare_totals_with_flat_response() -> None:
    assert await total_agent(context({"array": [{"a": 1}]}, {"flatResponse": True})) == {"a": 1}


async def test_total_adds_like_javascript_so_text_concatenates() -> None:
    assert await total_agent(context({"array": [{"a": 1}, {"a": "2"}, {"a": 3}]})) == {"data": {"a": "123"}}


async def test_total_replaces_a_falsy_running_total_instead_of_adding_to_it() -> None:
    assert await total_agent(context({"array": [{"a": 0}, {"a": "x"}]})) == {"data": {"a": "x"}}


async def test_total_cannot_read_keys_of_null() -> None:
    with pytest.raises(TypeError, match="^Cannot convert undefined or null to object$"):
        await total_agent(context({"array": [None]}))


async def test_total_needs_an_array() -> None:
    with pytest.raises(ValueError) as failure:
        await total_agent(context({"other": 1}))
    assert str(failure.value) == "totalAgent: namedInputs.array is UNDEFINED! Set inputs: { array: :arrayNodeId }"


# --- dataSumTemplateAgent --------------------------------------------------------


async def test_data_sum_adds_the_numbers() -> None:
    assert await data_sum_template_agent(context({"array": [1, 2.5, None, True]})) == {"result": 4.5}


async def test_data_sum_of_an_empty_array_is_zero() -> None:
    assert await data_sum_template_agent(context({"array": []}, {"flatResponse": True})) == 0


async def test_data_sum_concatenates_once_text_comes_in_like_javascript() -> None:
    assert await data_sum_template_agent(context({"array": [1, "2", 3]}, {"flatResponse": True})) == "123"


async def test_data_sum_needs_named_inputs() -> None:
    with pytest.raises(ValueError) as failure:
        await data_sum_template_agent(context())
    assert str(failure.value) == "dataSumTemplateAgent: namedInputs is UNDEFINED! Set inputs: { array: :arrayNodeId }"


# --- propertyFilterAgent ---------------------------------------------------------

_CAR = {"color": "red", "model": "Model 3", "maker": "Tesla"}


async def test_property_filter_without_array_or_item_returns_false() -> None:
    assert await property_filter_agent(context({"other": 1})) is False


async def test_property_filter_leaves_an_included_but_missing_property_undefined() -> None:
    result = await property_filter_agent(context({"item": _CAR}, {"include": ["color", "wheels"]}))
    assert result == {"color": "red", "wheels": UNDEFINED}
    assert to_json_compatible(result) == {"color": "red"}


async def test_property_filter_with_an_empty_include_keeps_nothing() -> None:
    assert await property_filter_agent(context({"item": _CAR}, {"include": []})) == {}


async def test_property_filter_alters_a_value_only_to_a_truthy_replacement() -> None:
    alter = {"color": {"red": ""}, "maker": {"Tesla": "TSLA"}}
    result = await property_filter_agent(context({"item": _CAR}, {"alter": alter}))
    assert result == {**_CAR, "maker": "TSLA"}


async def test_property_filter_swaps_pairs_one_after_the_other() -> None:
    item = {"a": 1, "b": 2, "c": 3}
    assert await property_filter_agent(context({"item": item}, {"swap": {"a": "b", "b": "c"}})) == {
        "a": 2,
        "b": 3,
        "c": 1,
    }


async def test_property_filter_injects_into_the_object_at_index_only() -> None:
    inputs = {"array": [[{"n": 1}, {"n": 2}], "x"]}
    result = await property_filter_agent(context(inputs, {"inject": [{"propId": "tag", "from": 1, "index": 1}]}))
    assert result == [{"n": 1}, {"n": 2, "tag": "x"}]


async def test_property_filter_inspects_with_strict_equality() -> None:
    inputs = {"array": [{"n": 1}, 5]}
    rules = [{"propId": "isFive", "equal": 5}, {"propId": "isText", "equal": "5"}, {"propId": "other", "notEqual": 4}]
    result = await property_filter_agent(context(inputs, {"inspect": rules}))
    assert result == {"n": 1, "isFive": True, "isText": False, "other": True}


async def test_property_filter_cannot_filter_a_missing_first_element() -> None:
    with pytest.raises(TypeError, match="^Cannot convert undefined or null to object$"):
        await property_filter_agent(context({"array": []}))


async def test_property_filter_makes_a_property_per_character_of_a_text_as_javascript_does() -> None:
    assert await property_filter_agent(context({"item": "ab"}, {"exclude": ["1"]})) == {"0": "a"}


async def test_property_filter_refuses_a_text_of_more_characters_than_it_makes_properties() -> None:
    # ten million characters would be ten million properties: seconds to build, and gigabytes
    from graphrt.base.limits import MAX_ITEMS

    with pytest.raises(ValueError, match=r"^a text of 1,000,001 characters has a property per character, "
                                         r"more than the 1,000,000 properties"):
        await property_filter_agent(context({"item": "x" * (MAX_ITEMS + 1)}))


# --- copyAgent -------------------------------------------------------------------


async def test_copy_returns_a_copy_of_the_named_inputs() -> None:
    inputs = {"a": 1, "b": [2]}
    result = await copy_agent(context(inputs))
    assert result == inputs and result is not inputs


async def test_copy_returns_the_input_named_by_named_key() -> None:
    assert await copy_agent(context({"a": 1, "b": 2}, {"namedKey": "b"})) == 2


async def test_copy_reads_a_numeric_named_key_as_text() -> None:
    assert await copy_agent(context({"1": "one"}, {"namedKey": 1})) == "one"


async def test_copy_of_a_missing_named_key_has_no_result() -> None:
    assert await copy_agent(context({"a": 1}, {"namedKey": "b"})) is UNDEFINED


async def test_copy_needs_named_inputs() -> None:
    with pytest.raises(ValueError, match="^copyAgent: namedInputs is UNDEFINED!$"):
        await copy_agent(context())


# --- lookupDictionaryAgent -------------------------------------------------------


async def test_lookup_returns_a_null_entry() -> None:
    assert await lookup_dictionary_agent(context({"namedKey": "x"}, {"x": None})) is None


async def test_lookup_of_a_missing_entry_fails() -> None:
    with pytest.raises(ValueError, match="^lookupDictionaryAgent error: y is missing$"):
        await lookup_dictionary_agent(context({"namedKey": "y"}, {"x": 1}))


async def test_lookup_of_a_missing_entry_has_no_result_with_supress_error() -> None:
    result = await lookup_dictionary_agent(context({"namedKey": "y"}, {"x": 1, "supressError": True}))
    assert result is UNDEFINED


async def test_lookup_needs_named_inputs() -> None:
    with pytest.raises(ValueError, match="^lookupDictionaryAgent: namedInputs is UNDEFINED!$"):
        await lookup_dictionary_agent(context({}, {"x": 1}))


# --- mergeObjectAgent ------------------------------------------------------------


async def test_merge_lets_later_keys_win() -> None:
    result = await merge_object_agent(context({"items": [{"a": 1, "b": 1}, {"b": 2}]}))
    assert result == {"a": 1, "b": 2}


async def test_merge_skips_null_and_scalar_items() -> None:
    assert await merge_object_agent(context({"items": [None, {"a": 1}, 5, True]})) == {"a": 1}


async def test_merge_needs_items_to_be_a_list() -> None:
    with pytest.raises(ValueError, match="^mergeObjectAgent: namedInputs.items is not array!$"):
        await merge_object_agent(context({"items": {"a": 1}}))
