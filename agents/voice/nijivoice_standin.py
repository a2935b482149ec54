"""A stand-in of Nijivoice's text to speech API (にじボイス, api.nijivoice.com/api/platform/v1) for
ttsNijivoiceAgent's samples and tests, served on 127.0.0.1 (graphrt_agents._loopback).

    POST /voice-actors/{id}/generate-voice {script, speed, format}   (x-api-key)
         200 {generatedVoice: {audioFileUrl, audioFileDownloadUrl, duration, remainingCredits}}
    GET  /audio/{n}.{format}                                          the generated audio (no key: a download link)

As the service's clients read it: the key goes in `x-api-key`; `script` is the text (at most 3,000 characters),
`speed` a string from "0.4" to "3.0", `format` mp3 or wav; the answer gives a URL to play the audio and one to
download it, on the stand-in's own address. Nijivoice's error bodies are not documented where graphrt could read
them: the stand-in answers `{message}` with the status (401 a wrong key, 404 an unknown voice actor, 400 a bad
request), and the agent relies on no field of it. The audio is an ID3 header and the script's bytes, so that a
test can tell whose it is.
"""

from __future__ import annotations

import itertools
import threading
from typing import Any, Mapping
from urllib.parse import unquote

from .._loopback import Answer, Request, json_answer

__all__ = ["NijivoiceStandIn", "SAMPLE_KEY", "SAMPLE_VOICE", "speech_of"]

SAMPLE_KEY = "niji-sample-key"  # the key the samples' stand-in accepts (the mock sends it)
SAMPLE_VOICE = "b9277ce3-ba1c-4f6f-9a65-c05ca102ded0"  # the voice actor GraphAI's own test uses
_VOICE_ACTORS = {SAMPLE_VOICE: "sample voice actor"}
_MAX_SCRIPT = 3000
_CREDITS = 10_000


def speech_of(script: str, audio_format: str = "mp3") -> bytes:
    """The stand-in's audio of `script`: an ID3 header (mp3) or a RIFF one (wav), then the script's bytes."""
    header = b"ID3\x04\x00\x00\x00\x00\x00\x00" if audio_format == "mp3" else b"RIFF\x00\x00\x00\x00WAVE"
    return header + script.encode("utf-8")


def _message(status: int, message: str) -> Answer:
    return json_answer(status, {"message": message})


class NijivoiceStandIn:
    """Nijivoice's generate-voice endpoint and the audio it links to; every request is kept in `requests`."""

    def __init__(self, key: str | None = SAMPLE_KEY, voice_actors: Mapping[str, str] | None = None) -> None:
        self.key = key
        self.voice_actors = dict(_VOICE_ACTORS if voice_actors is None else voice_actors)
        self.requests: list[Request] = []
        self.credits = _CREDITS
        self.audio: dict[str, bytes] = {}  # path -> bytes, as generated
        self._numbers = itertools.count(1)
        self._lock = threading.Lock()

    def answer(self, request: Request) -> Answer:
        with self._lock:
            self.requests.append(request)
            parts = request.path.strip("/").split("/")
            if request.method == "GET" and request.path in self.audio:
                kind = "audio/mpeg" if request.path.endswith(".mp3") else "audio/wav"
                return 200, {"Content-Type": kind}, self.audio[request.path]
            generate = len(parts) == 3 and parts[0] == "voice-actors" and parts[2] == "generate-voice"
            if request.method != "POST" or not generate:
                return _message(404, "Not Found")
            given = request.headers.get("x-api-key")
            if not given or (self.key is not None and given != self.key):
                return _message(401, "Invalid API key")
            if unquote(parts[1]) not in self.voice_actors:
                return _message(404, f"voice actor {unquote(parts[1])} not found")
            return self._generate(request)

    def _generate(self, request: Request) -> Answer:
        body = request.json()
        if not isinstance(body, dict):
            return _message(400, "the body must be a JSON object")
        problem = self._problem(body)
        if problem:
            return _message(400, problem)
        script, audio_format = body["script"], body.get("format", "mp3")
        path = f"/audio/{next(self._numbers)}.{audio_format}"
        self.audio[path] = speech_of(script, audio_format)
        self.credits -= len(script)
        origin = f"http://{request.headers.get('host', '127.0.0.1')}"
        return json_answer(200, {"generatedVoice": {
            "audioFileUrl": f"{origin}{path}", "audioFileDownloadUrl": f"{origin}{path}?download=true",
            "duration": 150 * len(script), "remainingCredits": self.credits}})

    @staticmethod
    def _problem(body: dict[str, Any]) -> str | None:
        """What is wrong with a generate-voice request, or None."""
        script = body.get("script")
        if not isinstance(script, str) or not script:
            return "script is required"
        if len(script) > _MAX_SCRIPT:
            return f"script is longer than {_MAX_SCRIPT} characters"
        try:
            speed = float(body.get("speed", "1.0"))
        except (TypeError, ValueError):
            return "speed must be a number from 0.4 to 3.0"
        if not 0.4 <= speed <= 3.0:
            return "speed must be a number from 0.4 to 3.0"
        if body.get("format", "mp3") not in ("mp3", "wav"):
            return "format must be mp3 or wav"
        return None
