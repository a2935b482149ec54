"""openAIImageAgent: one image from OpenAI's images API (DALL·E), GraphAI's way.

As GraphAI's (@graphai/openai_agent): the prompt sent is `system` and `prompt` (or
`mergeableSystem`, `mergeablePrompts`) joined by a newline, inputs over params; the model is
`params.model` alone (default dall-e-3); one image is asked for, as a URL; the result is the
API's answer as it is, `{created, data: [{url, revised_prompt}]}`. `apiKey` and `baseURL` come
from config over params (GraphAI's order for this agent), else OPENAI_API_KEY and OPENAI_BASE_URL.
Its provider is an `OpenAIProvider`, so its request goes through the one retry loop and, as
openAIAgent's, to Azure OpenAI when the server is Azure's. An answer without an image is no
answer (MalformedReplyError, asked again).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.jsvalue import defined

from .chat import system_prompt, user_prompt
from .errors import LLMRequestError, MalformedReplyError
from .openai_provider import OpenAIProvider
from .provider import LlmCall
from .retries import ask
from .settings import DEFAULT_RETRIES, DEFAULT_RETRY_DELAY, DEFAULT_TIMEOUT, RetryPolicy

if TYPE_CHECKING:
    import openai

__all__ = ["AGENTS", "IMAGES", "image_prompt", "openai_image_agent"]

DEFAULT_IMAGE_MODEL = "dall-e-3"  # GraphAI's
IMAGES = OpenAIProvider(agent="openAIImageAgent", system="openai", host="api.openai.com",
                        default_model=DEFAULT_IMAGE_MODEL, keys=("OPENAI_API_KEY",), base_urls=("OPENAI_BASE_URL",))
"""openAIImageAgent's provider: OpenAI's images API, a server that speaks it (`baseURL`), or Azure OpenAI's."""
MOCK_IMAGE_URL = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kg"
                  "AAAABJRU5ErkJggg==")
"""The image the mock gives: one transparent pixel, as a data URL."""


def image_prompt(ctx: AgentContext) -> str:
    """What is sent as the prompt: the system prompt and the prompt, joined by a newline (GraphAI's)."""
    options = {**ctx.params, **defined(ctx.inputs)}
    return "\n".join(part for part in (system_prompt(options, ctx), user_prompt(options, ctx)) if part)


def _checked(answer: dict[str, Any]) -> dict[str, Any]:
    """The API's answer, when it holds an image (a URL or base64 data).

    Raises:
        MalformedReplyError: it holds none.
    """
    data = answer.get("data")
    first = data[0] if isinstance(data, list) and data else None
    if not isinstance(first, dict) or not (first.get("url") or first.get("b64_json")):
        raise MalformedReplyError(f"the reply holds no image: {json.dumps(answer)[:80]!r}")
    return answer


async def _generate(client: "openai.AsyncOpenAI", model: str, prompt: str) -> dict[str, Any]:
    try:
        response = await client.images.generate(model=model, prompt=prompt, n=1, response_format="url")
    except json.JSONDecodeError as error:  # a body cut short
        raise MalformedReplyError(f"the reply is not valid JSON ({error})") from None
    return _checked(response.model_dump(exclude_none=True))


async def openai_image_agent(ctx: AgentContext) -> dict[str, Any]:
    """Asks OpenAI's images API for one image of the prompt.

    Args:
        ctx: inputs and params `prompt`, `system` (or `mergeablePrompts`, `mergeableSystem`);
            params `model`; config over params `apiKey`, `baseURL` (else OPENAI_API_KEY,
            OPENAI_BASE_URL), Azure OpenAI's options as openAIAgent's, `timeout`, `maxRetries`
            and `retryDelay`.

    Returns:
        The API's answer: `{created, data: [{url, revised_prompt}]}`.

    Raises:
        LLMRequestError: no key, no prompt, or the API refused the request or failed on every attempt.
    """
    options = {**ctx.params, **ctx.config, "model": ctx.params.get("model")}  # GraphAI's: config over params
    server = IMAGES.server(options)
    model = server.model or DEFAULT_IMAGE_MODEL
    prompt = image_prompt(ctx)
    if not prompt:
        raise LLMRequestError("openAIImageAgent: nothing to draw: give inputs.prompt (or system)",
                              agent_id="openAIImageAgent")
    policy = RetryPolicy.of(options)
    async with IMAGES.client(server, policy.timeout) as client:

        async def attempt(call: LlmCall) -> dict[str, Any]:
            answer = await _generate(client, model, prompt)
            call.finished(model=model)
            return answer

        return await ask(ctx, IMAGES, server, model, policy, attempt)


async def openai_image_mock_agent(ctx: AgentContext) -> dict[str, Any]:
    """Answers as the images API would, without a server: one transparent pixel, the prompt it was sent as its
    revised prompt."""
    return {"created": 0, "data": [{"url": MOCK_IMAGE_URL, "revised_prompt": image_prompt(ctx)}]}


_TEXT_OR_LIST = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}
_PROMPTS = {
    "prompt": {**_TEXT_OR_LIST, "description": "what to draw"},
    "system": {**_TEXT_OR_LIST, "description": "sent before the prompt, on its own line"},
    "mergeablePrompts": {**_TEXT_OR_LIST, "description": "prompts of inputs and params, joined (instead of prompt)"},
    "mergeableSystem": {**_TEXT_OR_LIST, "description": "system prompts of inputs and params, joined"},
}

openai_image_agent_info = AgentInfo(
    name="openAIImageAgent",
    outside=True,
    func=openai_image_agent,
    mock=openai_image_mock_agent,
    description="OpenAI Image Agent: one image of the prompt from OpenAI's images API (DALL·E), as a URL",
    inputs={"type": "object", "properties": _PROMPTS},
    params={"type": "object", "properties": {
        **_PROMPTS,
        "model": {"type": "string", "description": f"default {DEFAULT_IMAGE_MODEL}"},
        "apiKey": {"type": "string"},
        "baseURL": {"type": "string"},
        "timeout": {"type": "number", "description": f"seconds per attempt (default {DEFAULT_TIMEOUT:g})"},
        "maxRetries": {"type": "integer", "description": f"retries on 429, 5xx, timeouts (default {DEFAULT_RETRIES})"},
        "retryDelay": {"type": "number", "description": f"first backoff in seconds (default {DEFAULT_RETRY_DELAY:g})"},
    }},
    output={"type": "object", "properties": {
        "created": {"type": "integer"},
        "data": {"type": "array", "items": {"type": "object", "properties": {
            "url": {"type": "string"}, "revised_prompt": {"type": "string"}, "b64_json": {"type": "string"}}}},
    }},
    samples=(
        Sample(inputs={"prompt": "a lighthouse at dawn"}, params={"system": "watercolor"},
               result={"created": 0, "data": [{"url": MOCK_IMAGE_URL,
                                               "revised_prompt": "watercolor\na lighthouse at dawn"}]},
               description="run with the mock (no server): the prompt sent is the system prompt, then the prompt"),
    ),
    runs_local=True,  # holds an HTTP client to the API
    category=("llm",),
    author="Receptron team (GraphAI), graphrt",
    repository="https://github.com/receptron/graphai",
    source="https://github.com/receptron/graphai/blob/main/llm_agents/openai_agent/src/openai_image_agent.ts",
    package="@graphai/openai_agent",
    license="MIT",
    environment_variables=("OPENAI_API_KEY", "OPENAI_BASE_URL"),
)

AGENTS: list[AgentInfo] = [openai_image_agent_info]
