"""ttsNijivoiceAgent: speech from text through Nijivoice's API (にじボイス), GraphAI's way.

As GraphAI's (@graphai/tts_nijivoice_agent 2.0.0, re-exported by @graphai/agents): POST
`{base}/voice-actors/{params.voice}/generate-voice` with the key in `x-api-key` and
`{format: "mp3", speed: "1.0", script: inputs.text}`; the answer's
`generatedVoice.audioFileDownloadUrl` is then downloaded (without the key), and the result is
`{buffer, generatedVoice}`: the audio's bytes (graphrt's Buffer, which fileWriteAgent writes)
and what the service said of it. Any failure is "TTS Nijivoice Error"; with `params.supressError`
(GraphAI's spelling) it is `{onError: {message: "TTS Nijivoice Error", error}}` instead, `error`
being the service's answer (or what went wrong). The key is `params.apiKey`, the agent's config
`apiKey`, or NIJIVOICE_API_KEY; the base is `params.baseURL`, the config's `baseURL`, or
https://api.nijivoice.com/api/platform/v1. Requests keep to the agent's config limits
(`timeout`, `maxBytes`, `maxRedirects`: graphrt_agents._http).

Where graphrt differs: without a key nothing is sent (GraphAI sends an empty one, which the
service refuses); no text or no voice actor fails at once, whatever `supressError` says (GraphAI
asks for voice actor "undefined"); the voice actor is one path segment, escaped; a download that
answers an error status is a failure (GraphAI keeps its body as the audio); the error says why
(GraphAI's says only "TTS Nijivoice Error" and prints the answer).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.errors import AgentError
from graphrt.base.jsvalue import is_truthy
from graphrt.base.limits import cut

from .._http import FetchFailed, Limits, request_url, response_json, send
from .._loopback import stand_in_mock
from .._services import SERVICE_CONFIG, base_url, credential, error_text, service_params
from .nijivoice_standin import SAMPLE_KEY, SAMPLE_VOICE, NijivoiceStandIn

__all__ = ["AGENTS", "NIJIVOICE_URL", "tts_nijivoice_agent"]

NIJIVOICE_URL = "https://api.nijivoice.com/api/platform/v1"
_AGENT = "ttsNijivoiceAgent"
_ERROR = "TTS Nijivoice Error"  # GraphAI's words


@dataclass(frozen=True)
class _NoSpeech:
    """Why no speech came: `detail` for the error's message, `error` for onError (the service's answer if any),
    `cause` what went wrong underneath, if anything did. A value, not an exception: the agent decides whether
    it becomes onError or an AgentError."""

    detail: str
    error: Any
    cause: BaseException | None = None


def _checked(ctx: AgentContext) -> tuple[str, str]:
    """The text to say and the voice actor's id.

    Raises:
        AgentError: no text, or no voice actor.
    """
    text, voice = ctx.inputs.get("text"), ctx.params.get("voice")
    if not isinstance(text, str) or not text:
        raise AgentError(f"{_AGENT}: inputs.text must be the text to say, got {type(text).__name__}",
                         field="inputs.text")
    if not isinstance(voice, str) or not voice:
        raise AgentError(f"{_AGENT}: params.voice must be the id of a Nijivoice voice actor, got "
                         f"{type(voice).__name__}", field="params.voice")
    return text, voice


async def _speech(ctx: AgentContext, text: str, voice: str) -> dict[str, Any] | _NoSpeech:
    """The generated voice and its audio, or why none came: no key, no answer, an answer without a download URL,
    or a failed download."""
    key = credential(ctx, "NIJIVOICE_API_KEY")
    if key is None:
        return _NoSpeech("no API key: set NIJIVOICE_API_KEY, or give apiKey in params or config", "no API key")
    limits = Limits.from_config(ctx.config, _AGENT)
    url = f"{base_url(ctx, NIJIVOICE_URL)}/voice-actors/{quote(voice, safe='')}/generate-voice"
    headers = {"x-api-key": key, "accept": "application/json", "content-type": "application/json"}
    body = json.dumps({"format": "mp3", "speed": "1.0", "script": text}, ensure_ascii=False)
    try:
        response = await send("POST", request_url(url, None), headers, body, limits)
        answer = response_json(response)
    except (FetchFailed, TypeError, ValueError) as error:
        return _NoSpeech(str(error), error_text(error), error)
    generated = answer.get("generatedVoice") if isinstance(answer, dict) else None
    download = generated.get("audioFileDownloadUrl") if isinstance(generated, dict) else None
    if not response.ok or not isinstance(download, str) or not download:
        said = cut(json.dumps(answer, ensure_ascii=False), 300)
        return _NoSpeech(f"HTTP {response.status}: the service gave no audio to download: {said}", answer)
    try:
        audio = await send("GET", request_url(download, None), {}, None, limits)
    except (FetchFailed, TypeError) as error:
        return _NoSpeech(f"the audio's download failed: {error}", error_text(error), error)
    if not audio.ok:
        return _NoSpeech(f"the audio's download answered HTTP {audio.status}", f"audio download: HTTP {audio.status}")
    return {"buffer": audio.content, "generatedVoice": generated}


async def tts_nijivoice_agent(ctx: AgentContext) -> dict[str, Any]:
    """Says `inputs.text` in the voice of `params.voice` with Nijivoice's text to speech.

    Returns:
        `{buffer, generatedVoice}`; with `params.supressError`, `{onError: {message, error}}` when it failed.

    Raises:
        AgentError: no text or no voice actor; "TTS Nijivoice Error: ..." (without supressError) when no speech came.
    """
    text, voice = _checked(ctx)
    spoken = await _speech(ctx, text, voice)
    if not isinstance(spoken, _NoSpeech):
        return spoken
    if is_truthy(ctx.params.get("supressError")):
        return {"onError": {"message": _ERROR, "error": spoken.error}}
    raise AgentError(f"{_ERROR}: {spoken.detail}") from spoken.cause


AGENTS: list[AgentInfo] = [
    AgentInfo(
        name="ttsNijivoiceAgent",
        outside=True,
        func=tts_nijivoice_agent,
        mock=stand_in_mock(tts_nijivoice_agent, NijivoiceStandIn, SAMPLE_KEY),
        description="TTS nijivoice agent: speech from text (mp3 bytes) through Nijivoice's API",
        inputs={"type": "object", "properties": {"text": {"type": "string", "description": "what to say"}},
                "required": ["text"]},
        params={"type": "object", "properties": {
            "voice": {"type": "string", "description": "the id of a Nijivoice voice actor"},
            **service_params("Nijivoice API key (else the config's apiKey, else NIJIVOICE_API_KEY)", NIJIVOICE_URL),
        }, "required": ["voice"]},
        output={"type": "object", "properties": {
            "buffer": {"description": "the audio's bytes (a Buffer)"},
            "generatedVoice": {"type": "object", "description": "the service's audioFileUrl, audioFileDownloadUrl, "
                                                                "duration and remainingCredits"},
            "onError": {"type": "object", "properties": {"message": {"type": "string"}, "error": {}}},
        }},
        config=SERVICE_CONFIG,
        samples=(
            Sample(inputs={"text": "こんにちは"}, params={"voice": "no-such-voice-actor", "supressError": True},
                   result={"onError": {"message": _ERROR,
                                       "error": {"message": "voice actor no-such-voice-actor not found"}}},
                   description="an unknown voice actor, with supressError: the service's answer in onError (a "
                               "stand-in of Nijivoice on 127.0.0.1; its audio links name its address, so the "
                               "tests show a voice generated, with voice " + SAMPLE_VOICE + ")"),
        ),
        category=("voice",),
        author="Receptron Team",
        repository="https://github.com/receptron/graphai-agents/tree/main/tts/tts-nijivoice-agent",
        source="https://github.com/receptron/graphai-agents/tree/main/voice/tts-nijivoice-agent/src/"
               "tts_nijivoice_agent.ts",
        package="@graphai/tts_nijivoice_agent",
        license="MIT",
        environment_variables=("NIJIVOICE_API_KEY",),
    ),
]
