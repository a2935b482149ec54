"""images2messageAgent: vision messages from base64 data or URLs."""

from __future__ import annotations

from typing import Any

import pytest
from graphrt_agents.vanilla.images import AGENTS, images2message_agent

from graphrt.testing import SampleCase, parametrize_samples
from graphrt.testing import agent_context as context

pytestmark = pytest.mark.anyio


async def to_message(inputs: dict[str, Any], params: dict[str, Any]) -> Any:
    return await images2message_agent(context(inputs, params))


@parametrize_samples(*AGENTS)
def test_every_sample_gives_its_result(sample_case: SampleCase) -> None:
    sample_case.check()  # through a real one-node graph, as `graphrt test-agents` runs it


async def test_http_images_keep_their_url_and_get_no_detail() -> None:
    result = await to_message({"array": ["http://x/1.png"]}, {"imageType": "http", "detail": "high"})
    assert result["message"]["content"] == [{"type": "image_url", "image_url": {"url": "http://x/1.png"}}]


async def test_an_empty_prompt_adds_no_text_part() -> None:
    result = await to_message({"array": ["abc"], "prompt": ""}, {"imageType": "png"})
    assert [part["type"] for part in result["message"]["content"]] == ["image_url"]


async def test_an_empty_array_gives_a_message_without_content() -> None:
    result = await to_message({"array": []}, {"imageType": "png"})
    assert result == {"message": {"role": "user", "content": []}}


async def test_no_inputs_raise() -> None:
    with pytest.raises(ValueError, match="^images2messageAgent: namedInputs is UNDEFINED!$"):
        await to_message({}, {"imageType": "png"})


async def test_a_missing_array_raises() -> None:
    with pytest.raises(ValueError, match="^images2messageAgent: namedInputs.array is UNDEFINED!$"):
        await to_message({"prompt": "hi"}, {"imageType": "png"})


async def test_an_array_that_is_not_a_list_raises() -> None:
    with pytest.raises(ValueError, match=r"^images2messageAgent: namedInputs.array is not Array\.$"):
        await to_message({"array": "abc"}, {"imageType": "png"})


async def test_a_missing_image_type_raises() -> None:
    message = r"^images2messageAgent: params.imageType is UNDEFINED! Set Type: png, jpg\.\.\.$"
    with pytest.raises(ValueError, match=message):
        await to_message({"array": ["abc"]}, {})
