"""sttOpenaiAgent: text from speech through OpenAI's audio API (Whisper), GraphAI's way.

As GraphAI's (@graphai/stt_openai_agent): `inputStream` (inputs over params) is transcribed by
`model` (params over config; default whisper-1) with the request's `language`, `prompt`,
`response_format`, `temperature` and `timestamp_granularities` when given, and the result is
`{text}`. With `supressError` a failed request gives `{onError: {message: "SST OpenAI Error",
error}}` (GraphAI's words) instead of failing the node; a missing key fails it all the same. The
key is `apiKey`, else OPENAI_API_KEY; `baseURL`, else OPENAI_BASE_URL. The audio is an open
binary file or its bytes (audio.py). Its provider is an `OpenAIProvider`: the one retry loop, and
Azure OpenAI as openAIAgent's.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.jsvalue import defined, is_null, is_truthy
from graphrt_agents.llm.errors import LLMRequestError, MalformedReplyError
from graphrt_agents.llm.openai_provider import OpenAIProvider
from graphrt_agents.llm.provider import LlmCall
from graphrt_agents.llm.retries import ask
from graphrt_agents.llm.settings import RetryPolicy

from .audio import audio_upload
from .mock_wav import silent_wav, wav_comment

if TYPE_CHECKING:
    import openai

__all__ = ["AGENTS", "TRANSCRIPTIONS", "stt_openai_agent"]

DEFAULT_TRANSCRIPTION_MODEL = "whisper-1"  # GraphAI's
TRANSCRIPTIONS = OpenAIProvider(agent="sttOpenaiAgent", system="openai", host="api.openai.com",
                                default_model=DEFAULT_TRANSCRIPTION_MODEL, keys=("OPENAI_API_KEY",),
                                base_urls=("OPENAI_BASE_URL",))
"""sttOpenaiAgent's provider: OpenAI's audio API, a server that speaks it (`baseURL`), or Azure OpenAI's."""
_FIELDS = ("language", "prompt", "response_format", "temperature", "timestamp_granularities")
_FIELD = "inputs.inputStream"


async def _transcription(client: "openai.AsyncOpenAI", upload: tuple[str, bytes], model: str,
                         fields: dict[str, Any]) -> str:
    """The text of the audio: the transcription's `text`, or the whole reply for the text formats (text, srt, vtt).

    Raises:
        MalformedReplyError: a reply that is not a transcription.
    """
    try:
        answer = await client.audio.transcriptions.create(file=upload, model=model, **fields)
    except json.JSONDecodeError as error:  # a body cut short
        raise MalformedReplyError(f"the reply is not valid JSON ({error})") from None
    text = answer if isinstance(answer, str) else getattr(answer, "text", None)
    if not isinstance(text, str):
        raise MalformedReplyError(f"the reply is not a transcription: {str(answer)[:80]!r}")
    return text


async def stt_openai_agent(ctx: AgentContext) -> dict[str, Any]:
    """Transcribes the audio of `inputStream` with OpenAI's speech to text.

    Args:
        ctx: inputs over params `inputStream` (an open binary file or bytes), `language`,
            `prompt`, `response_format`, `temperature`, `timestamp_granularities`,
            `supressError`; params over config `model`, `apiKey`, `baseURL`, and `timeout`,
            `maxRetries`, `retryDelay` as openAIAgent's.

    Returns:
        `{text}`; with `supressError`, `{onError}` when the request failed.

    Raises:
        LLMRequestError: no key, or (without supressError) the request was refused or failed on every attempt.
        TypeError: `inputStream` is not audio.
    """
    options = {**ctx.params, **defined(ctx.inputs)}
    settings = {**ctx.config, **ctx.params}
    server = TRANSCRIPTIONS.server(settings)
    model = server.model or DEFAULT_TRANSCRIPTION_MODEL
    upload = audio_upload(options.get("inputStream"), "sttOpenaiAgent", _FIELD)
    fields = {key: options[key] for key in _FIELDS if not is_null(options.get(key))}
    policy = RetryPolicy.of(settings)
    async with TRANSCRIPTIONS.client(server, policy.timeout) as client:

        async def attempt(call: LlmCall) -> str:
            text = await _transcription(client, upload, model, fields)
            call.finished(model=model)
            return text

        try:
            return {"text": await ask(ctx, TRANSCRIPTIONS, server, model, policy, attempt)}
        except LLMRequestError as error:
            if is_truthy(options.get("supressError")):
                return {"onError": {"message": "SST OpenAI Error", "error": error.message}}
            raise


async def stt_openai_mock_agent(ctx: AgentContext) -> dict[str, Any]:
    """Transcribes as the API would, without a server: the text ttsOpenaiAgent's mock put in its WAV's comment
    ("" for any other audio)."""
    _, audio = audio_upload({**ctx.params, **defined(ctx.inputs)}.get("inputStream"), "sttOpenaiAgent", _FIELD)
    return {"text": wav_comment(audio) or ""}


stt_openai_agent_info = AgentInfo(
    name="sttOpenaiAgent",
    outside=True,
    func=stt_openai_agent,
    mock=stt_openai_mock_agent,
    description="OpenAI speech to text agent: the text of audio (an open binary file or its bytes) through OpenAI's "
                "audio API",
    inputs={"type": "object", "properties": {
        "inputStream": {"description": "the audio: an open binary file (fileReadAgent with outputType 'stream') or "
                                       "its bytes"},
        "language": {"type": "string", "description": "ISO-639-1 language of the audio"},
        "prompt": {"type": "string", "description": "text to guide the transcription's style"},
        "response_format": {"type": "string", "enum": ["json", "text", "srt", "verbose_json", "vtt"]},
        "temperature": {"type": "number"},
        "timestamp_granularities": {"type": "array", "items": {"type": "string", "enum": ["word", "segment"]}},
    }},
    params={"type": "object", "properties": {
        "model": {"type": "string", "description": f"default {DEFAULT_TRANSCRIPTION_MODEL}"},
        "supressError": {"type": "boolean", "description": "a failed request gives {onError} instead of failing"},
        "apiKey": {"type": "string"},
        "baseURL": {"type": "string"},
        "timeout": {"type": "number"},
        "maxRetries": {"type": "integer"},
        "retryDelay": {"type": "number"},
    }},
    output={"type": "object", "properties": {
        "text": {"type": "string"},
        "onError": {"type": "object", "properties": {"message": {"type": "string"}, "error": {"type": "string"}}},
    }},
    samples=(
        Sample(inputs={"inputStream": silent_wav("hello")}, params={}, result={"text": "hello"},
               description="run with the mock (no server): it reads back what ttsOpenaiAgent's mock said"),
    ),
    runs_local=True,  # holds an HTTP client to the API
    category=("voice",),
    author="receptron team (GraphAI), graphrt",
    repository="https://github.com/receptron/graphai-agents",
    source="https://github.com/receptron/graphai-agents/tree/main/voice/stt-openai-agent/src/stt_openai_agent.ts",
    package="@graphai/stt_openai_agent",
    license="MIT",
    environment_variables=("OPENAI_API_KEY", "OPENAI_BASE_URL"),
)

AGENTS: list[AgentInfo] = [stt_openai_agent_info]
