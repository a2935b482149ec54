"""ttsOpenaiAgent: speech from text through OpenAI's audio API, GraphAI's way.

As GraphAI's (@graphai/tts_openai_agent): `inputs.text` is said by `params.model` (default
tts-1) in `params.voice` (default shimmer), and the result is `{buffer}`, the audio's bytes (mp3;
graphrt's Buffer, which fileWriteAgent writes). With `params.supressError` (GraphAI's spelling) a
failed request gives `{onError: {message: "TTS OpenAI Error", error}}` instead of failing the
node; a missing key fails it all the same, as in GraphAI, whose client is made outside that
guard. The key is `apiKey`, else OPENAI_API_KEY. Beyond GraphAI, whose client reads the base URL
from the environment alone, `baseURL` (else OPENAI_BASE_URL) and the run's config are read too.
Its provider is an `OpenAIProvider`: the one retry loop, and Azure OpenAI as openAIAgent's. A
reply that is not audio is no reply (MalformedReplyError, asked again).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.jsvalue import is_truthy
from graphrt_agents.llm.errors import LLMRequestError, MalformedReplyError
from graphrt_agents.llm.openai_provider import OpenAIProvider
from graphrt_agents.llm.provider import LlmCall
from graphrt_agents.llm.retries import ask
from graphrt_agents.llm.settings import RetryPolicy

from .mock_wav import silent_wav

if TYPE_CHECKING:
    import openai

__all__ = ["AGENTS", "SPEECH", "tts_openai_agent"]

DEFAULT_SPEECH_MODEL = "tts-1"  # GraphAI's
DEFAULT_VOICE = "shimmer"  # GraphAI's
SPEECH = OpenAIProvider(agent="ttsOpenaiAgent", system="openai", host="api.openai.com",
                        default_model=DEFAULT_SPEECH_MODEL, keys=("OPENAI_API_KEY",), base_urls=("OPENAI_BASE_URL",))
"""ttsOpenaiAgent's provider: OpenAI's audio API, a server that speaks it (`baseURL`), or Azure OpenAI's."""


def _text(ctx: AgentContext) -> str:
    text = ctx.inputs.get("text")
    if not isinstance(text, str) or not text:
        raise ValueError(f"ttsOpenaiAgent: inputs.text must be the text to say, got {type(text).__name__}")
    return text


async def _speech(client: "openai.AsyncOpenAI", model: str, voice: str, text: str) -> bytes:
    """The audio of `text`, when the reply is audio.

    Raises:
        MalformedReplyError: a reply that is empty, text or JSON.
    """
    reply = await client.audio.speech.create(model=model, voice=voice, input=text)
    kind = reply.response.headers.get("content-type", "")
    audio = reply.content
    if kind.startswith("text/") or "json" in kind:
        raise MalformedReplyError(f"the reply is not audio ({kind}): {audio[:80]!r}")
    if not audio:
        raise MalformedReplyError("the reply holds no audio")
    return audio


async def tts_openai_agent(ctx: AgentContext) -> dict[str, Any]:
    """Says `inputs.text` with OpenAI's text to speech.

    Args:
        ctx: `inputs.text`; params (over config) `model`, `voice`, `supressError`, `apiKey`,
            `baseURL`, and `timeout`, `maxRetries`, `retryDelay` as openAIAgent's.

    Returns:
        `{buffer}`: the audio's bytes; with `supressError`, `{onError}` when the request failed.

    Raises:
        LLMRequestError: no key, or (without supressError) the request was refused or failed on every attempt.
        ValueError: no text to say.
    """
    options = {**ctx.config, **ctx.params}
    server = SPEECH.server(options)
    model = server.model or DEFAULT_SPEECH_MODEL
    voice = options.get("voice") if isinstance(options.get("voice"), str) else DEFAULT_VOICE
    text = _text(ctx)
    policy = RetryPolicy.of(options)
    async with SPEECH.client(server, policy.timeout) as client:

        async def attempt(call: LlmCall) -> bytes:
            try:
                audio = await _speech(client, model, voice, text)
            except json.JSONDecodeError as error:
                raise MalformedReplyError(f"the reply is not valid JSON ({error})") from None
            call.finished(model=model)
            return audio

        try:
            return {"buffer": await ask(ctx, SPEECH, server, model, policy, attempt)}
        except LLMRequestError as error:
            if is_truthy(options.get("supressError")):
                return {"onError": {"message": "TTS OpenAI Error", "error": error.message}}
            raise


async def tts_openai_mock_agent(ctx: AgentContext) -> dict[str, Any]:
    """Speaks as the API would, without a server: a WAV of silence as long as the text, the text in its comment."""
    return {"buffer": silent_wav(_text(ctx))}


tts_openai_agent_info = AgentInfo(
    name="ttsOpenaiAgent",
    outside=True,
    func=tts_openai_agent,
    mock=tts_openai_mock_agent,
    description="OpenAI TTS agent: speech from text (mp3 bytes) through OpenAI's audio API",
    inputs={"type": "object", "properties": {"text": {"type": "string", "description": "what to say"}},
            "required": ["text"]},
    params={"type": "object", "properties": {
        "model": {"type": "string", "description": f"default {DEFAULT_SPEECH_MODEL}"},
        "voice": {"type": "string", "description": f"default {DEFAULT_VOICE}"},
        "supressError": {"type": "boolean", "description": "a failed request gives {onError} instead of failing"},
        "apiKey": {"type": "string"},
        "baseURL": {"type": "string"},
        "timeout": {"type": "number"},
        "maxRetries": {"type": "integer"},
        "retryDelay": {"type": "number"},
    }},
    output={"type": "object", "properties": {
        "buffer": {"description": "the audio's bytes (a Buffer)"},
        "onError": {"type": "object", "properties": {"message": {"type": "string"}, "error": {"type": "string"}}},
    }},
    samples=(
        Sample(inputs={"text": "hello"}, params={}, result={"buffer": silent_wav("hello")},
               description="run with the mock (no server): 50 ms of silence, 'hello' in the WAV's comment"),
    ),
    runs_local=True,  # holds an HTTP client to the API
    category=("voice",),
    author="Receptron team (GraphAI), graphrt",
    repository="https://github.com/receptron/graphai-agents",
    source="https://github.com/receptron/graphai-agents/tree/main/voice/tts-openai-agent/src/tts_openai_agent.ts",
    package="@graphai/tts_openai_agent",
    license="MIT",
    environment_variables=("OPENAI_API_KEY", "OPENAI_BASE_URL"),
)

AGENTS: list[AgentInfo] = [tts_openai_agent_info]
