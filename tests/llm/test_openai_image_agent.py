"""openAIImageAgent through the real `openai` SDK against the scripted images server on 127.0.0.1, which serves
the image at the URL it answers with."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from graphrt import AgentError

from .scripted_providers import IMAGE_BYTES, Garbage

pytestmark = pytest.mark.anyio


def image_node(**node: Any) -> dict[str, Any]:
    return {"version": 0.5, "nodes": {"image": {"agent": "openAIImageAgent", "isResult": True, **node}}}


async def test_one_image_of_the_system_and_prompt_is_asked_for_as_a_url(media_api, reply, run_graph):
    media_api.script(reply.text("A lighthouse at dawn, in watercolor."))
    results = await run_graph(image_node(inputs={"prompt": "a lighthouse at dawn"}, params={"system": "watercolor"}))
    sent = media_api.requests[0]
    assert sent.path == "/v1/images/generations"
    assert sent.body == {"model": "dall-e-3", "prompt": "watercolor\na lighthouse at dawn", "n": 1,
                         "response_format": "url"}
    assert sent.headers["authorization"] == "Bearer sk-media-secret"
    image = results["image"]
    assert image["created"] == 1700000000
    assert image["data"][0]["revised_prompt"] == "A lighthouse at dawn, in watercolor."
    async with httpx.AsyncClient() as client:
        assert (await client.get(image["data"][0]["url"])).content == IMAGE_BYTES


async def test_mergeable_prompts_are_joined_as_in_graphai(media_api, reply, run_graph):
    media_api.script(reply.text(""))
    await run_graph(image_node(inputs={"mergeablePrompts": ["a fox", "in snow"]}, params={"mergeablePrompts": "4k"}))
    assert media_api.requests[0].body["prompt"] == "a fox\nin snow\n4k"


async def test_the_model_comes_from_params_and_the_key_from_config_over_params(media_api, reply, run_graph):
    media_api.script(reply.text(""))
    await run_graph(image_node(inputs={"prompt": "x", "model": "ignored"}, params={"model": "gpt-image-1",
                                                                                    "apiKey": "sk-params"}),
                    config={"openAIImageAgent": {"apiKey": "sk-config", "model": "ignored-too"}})
    assert media_api.requests[0].body["model"] == "gpt-image-1"
    assert media_api.requests[0].headers["authorization"] == "Bearer sk-config"


async def test_without_a_prompt_nothing_is_asked(media_api, run_graph):
    with pytest.raises(AgentError) as caught:
        await run_graph(image_node(inputs={"prompt": ""}))
    assert caught.value.message == "openAIImageAgent: nothing to draw: give inputs.prompt (or system)"
    assert media_api.requests == []


async def test_without_a_key_the_error_says_where_to_give_one(media_api, run_graph, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(AgentError) as caught:
        await run_graph(image_node(inputs={"prompt": "x"}))
    assert caught.value.message == ("openAIImageAgent: no API key: set OPENAI_API_KEY, or give apiKey in params or "
                                    "config")
    assert media_api.requests == []


async def test_an_answer_without_an_image_is_no_answer_and_is_asked_again(media_api, reply, run_graph):
    media_api.script(Garbage(b'{"created": 1, "data": []}', "application/json"), reply.text(""))
    results = await run_graph(image_node(inputs={"prompt": "x"}, params={"retryDelay": 0}))
    assert results["image"]["data"][0]["url"].endswith("/files/image.png?request=2")
    assert len(media_api.requests) == 2


async def test_a_refusal_fails_at_once_in_the_server_s_words(media_api, reply, run_graph):
    media_api.script(reply.error(400, "Your request was rejected by the safety system."))
    with pytest.raises(AgentError) as caught:
        await run_graph(image_node(inputs={"prompt": "x"}))
    assert caught.value.message == (f"openAIImageAgent: {media_api.url}/v1 HTTP 400: Your request was rejected by "
                                    "the safety system.")
