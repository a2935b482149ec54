"""GraphAI's test agents: echo, counting, copies, node-id merge and the stream mock."""

from __future__ import annotations

import pytest
from graphrt_agents.vanilla.testing import (
    AGENTS,
    copy2_array_agent,
    copy_message_agent,
    counting_agent,
    echo_agent,
    merge_node_id_agent,
    stream_mock_agent,
)

from graphrt.testing import SampleCase, parametrize_samples
from graphrt.testing import agent_context as context

pytestmark = pytest.mark.anyio


@parametrize_samples(*AGENTS)
def test_every_sample_gives_its_result(sample_case: SampleCase) -> None:
    sample_case.check()  # through a real one-node graph, as `graphrt test-agents` runs it


async def test_echo_returns_the_filter_params_when_asked() -> None:
    result = await echo_agent(context(params={"filterParams": True}, filter_params={"userId": "u1"}))
    assert result == {"userId": "u1"}


async def test_counting_with_zero_gives_an_empty_list() -> None:
    assert await counting_agent(context(params={"count": 0})) == {"list": []}


async def test_counting_without_a_count_gives_one_number_as_new_array_does() -> None:
    assert await counting_agent(context()) == {"list": [0]}


async def test_counting_with_a_fractional_count_raises() -> None:
    with pytest.raises(ValueError, match="^Invalid array length$"):
        await counting_agent(context(params={"count": 1.5}))


async def test_copy_message_without_a_message_repeats_null() -> None:
    assert await copy_message_agent(context(params={"count": 2})) == {"messages": [None, None]}


async def test_copy2_array_copies_all_inputs_when_the_item_is_falsy() -> None:
    result = await copy2_array_agent(context({"item": 0, "other": 1}, {"count": 2}))
    assert result == [{"item": 0, "other": 1}, {"item": 0, "other": 1}]


async def test_copy2_array_without_inputs_raises() -> None:
    with pytest.raises(ValueError, match="^copy2ArrayAgent: namedInputs is UNDEFINED!$"):
        await copy2_array_agent(context(params={"count": 2}))


async def test_merge_node_id_lets_the_inputs_override_the_node_id_key() -> None:
    result = await merge_node_id_agent(context({"array": [{"test": "bye", "a": 1}]}))
    assert result == {"test": "bye", "a": 1}


async def test_merge_node_id_spreads_strings_by_index_and_skips_null() -> None:
    result = await merge_node_id_agent(context({"array": ["ab", None, 3]}))
    assert result == {"test": "hello", "0": "a", "1": "b"}


async def test_merge_node_id_without_an_array_raises() -> None:
    with pytest.raises(ValueError, match=r"^mergeNodeIdAgent: namedInputs.array is not Array\.$"):
        await merge_node_id_agent(context({"array": {"a": 1}}))


async def test_stream_mock_sends_each_character_to_a_sync_callback() -> None:
    tokens: list[str] = []
    result = await stream_mock_agent(
        context(params={"message": "hey", "sleep": 1}, filter_params={"streamTokenCallback": tokens.append})
    )
    assert (tokens, result) == (["h", "e", "y"], {"message": "hey"})


async def test_stream_mock_awaits_an_async_callback() -> None:
    tokens: list[str] = []

    async def on_token(token: str) -> None:
        tokens.append(token)

    await stream_mock_agent(context(params={"message": "ok", "sleep": 1}, filter_params={"streamTokenCallback": on_token}))
    assert tokens == ["o", "k"]


async def test_stream_mock_prefers_params_message_over_inputs() -> None:
    result = await stream_mock_agent(context({"message": "from inputs"}, {"message": "p", "sleep": 1}))
    assert result == {"message": "p"}


async def test_stream_mock_without_a_message_returns_an_empty_one() -> None:
    assert await stream_mock_agent(context()) == {"message": ""}


async def test_stream_mock_rejects_a_message_that_is_not_a_string() -> None:
    with pytest.raises(TypeError, match="^message.split is not a function$"):
        await stream_mock_agent(context(params={"message": 42}))
