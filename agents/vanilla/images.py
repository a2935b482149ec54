"""GraphAI's image agent: turns images into an OpenAI vision chat message."""

from __future__ import annotations

from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.jsvalue import UNDEFINED, is_null, is_truthy, js_string

from ._arrays import require_array

__all__ = ["AGENTS", "images2message_agent"]


def _image_url(data: Any, image_type: Any, detail: Any) -> dict[str, Any]:
    """An `image_url` part: the URL itself for "http", else a base64 data URL with a detail level."""
    if image_type == "http":
        return {"url": data}
    return {
        "url": f"data:image/{js_string(image_type)};base64,{js_string(data)}",
        "detail": "auto" if is_null(detail) else detail,
    }


async def images2message_agent(ctx: AgentContext) -> dict[str, Any]:
    """Builds a user message whose content is the optional prompt followed by the images.

    Vision models take images as `image_url` content parts; this agent saves a
    graph from assembling them by hand.
    """
    image_type = ctx.params.get("imageType", UNDEFINED)
    detail = ctx.params.get("detail", UNDEFINED)
    require_array("images2messageAgent", ctx.inputs)
    if not is_truthy(image_type):
        raise ValueError("images2messageAgent: params.imageType is UNDEFINED! Set Type: png, jpg...")

    content: list[dict[str, Any]] = [
        {"type": "image_url", "image_url": _image_url(data, image_type, detail)} for data in ctx.inputs["array"]
    ]
    prompt = ctx.inputs.get("prompt")
    if is_truthy(prompt):
        content.insert(0, {"type": "text", "text": prompt})
    return {"message": {"role": "user", "content": content}}


_TEXT_PART: dict[str, Any] = {
    "properties": {
        "type": {"type": "string", "const": "text"},
        "text": {"type": "string", "description": "Prompt message text."},
    },
    "required": ["type", "text"],
    "additionalProperties": False,
}

_IMAGE_PART: dict[str, Any] = {
    "properties": {
        "type": {"type": "string", "const": "image_url"},
        "image_url": {
            "type": "object",
            "properties": {
                "url": {"type": "string", "description": "URL or data URL of the image."},
                "detail": {
                    "type": "string",
                    "description": "Image detail level (e.g., 'high', 'low', 'auto'). Optional for base64.",
                },
            },
            "required": ["url"],
            "additionalProperties": False,
        },
    },
    "required": ["type", "image_url"],
    "additionalProperties": False,
}

_OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "message": {
            "type": "object",
            "description": "OpenAI-compatible chat message including images and optional prompt text.",
            "properties": {
                "role": {"type": "string", "enum": ["user"], "description": "Message role, always 'user' for this agent."},
                "content": {
                    "type": "array",
                    "description": "The array of message content elements, including optional text and one or more images.",
                    "items": {"type": "object", "oneOf": [_TEXT_PART, _IMAGE_PART]},
                },
            },
            "required": ["role", "content"],
            "additionalProperties": False,
        },
    },
    "required": ["message"],
    "additionalProperties": False,
}


def _image_part(url: str, detail: str | None = None) -> dict[str, Any]:
    image_url = {"url": url} if detail is None else {"url": url, "detail": detail}
    return {"type": "image_url", "image_url": image_url}


images2message_agent_info = AgentInfo(
    name="images2messageAgent",
    runs_local=True,  # pure and quick: a trip to a cluster worker would cost more than the call
    func=images2message_agent,
    description="Returns the message data for llm include image",
    inputs={
        "type": "object",
        "properties": {
            "array": {
                "type": "array",
                "description": "An array of base64-encoded image data strings or image URLs. "
                "These will be converted into OpenAI Vision-compatible image message format.",
                "items": {"type": "string", "description": "Base64 image string or HTTP URL depending on 'imageType'."},
            },
            "prompt": {
                "type": "string",
                "description": "Optional prompt text to include as the first message content before images.",
            },
        },
        "required": ["array"],
        "additionalProperties": False,
    },
    params={
        "type": "object",
        "properties": {
            "imageType": {
                "type": "string",
                "description": "The type of image input: 'png', 'jpg', etc. for base64, or 'http' for image URLs.",
            },
            "detail": {
                "type": "string",
                "description": "The level of image detail requested by the model (e.g., 'auto', 'low', 'high'). Optional.",
            },
        },
        "required": ["imageType"],
        "additionalProperties": False,
    },
    output=_OUTPUT_SCHEMA,
    samples=(
        Sample(
            inputs={"array": ["abcabc", "122123"]},
            params={"imageType": "png"},
            result={
                "message": {
                    "role": "user",
                    "content": [
                        _image_part("data:image/png;base64,abcabc", "auto"),
                        _image_part("data:image/png;base64,122123", "auto"),
                    ],
                }
            },
        ),
        Sample(
            inputs={"array": ["abcabc", "122123"], "prompt": "hello"},
            params={"imageType": "jpg", "detail": "high"},
            result={
                "message": {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "hello"},
                        _image_part("data:image/jpg;base64,abcabc", "high"),
                        _image_part("data:image/jpg;base64,122123", "high"),
                    ],
                }
            },
        ),
        Sample(
            inputs={"array": ["http://example.com/1.jpg", "http://example.com/2.jpg"]},
            params={"imageType": "http"},
            result={
                "message": {
                    "role": "user",
                    "content": [
                        _image_part("http://example.com/1.jpg"),
                        _image_part("http://example.com/2.jpg"),
                    ],
                }
            },
        ),
    ),
    category=("image",),
    author="Receptron team",
    repository="https://github.com/receptron/graphai",
    source="https://github.com/receptron/graphai/blob/main/agents/vanilla_agents/src/images_agents/image_to_message_agent.ts",
    package="@graphai/vanilla",
    license="MIT",
)

AGENTS: list[AgentInfo] = [images2message_agent_info]
