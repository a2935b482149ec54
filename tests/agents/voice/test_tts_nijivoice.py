"""ttsNijivoiceAgent on httpx against a stand-in of Nijivoice's API on 127.0.0.1: GraphAI's request, the audio
downloaded from the link the service gives, failures as GraphAI's "TTS Nijivoice Error" or onError."""

from __future__ import annotations

from typing import Any

import pytest
from graphrt_agents._loopback import Answer, Request, json_answer, serving
from graphrt_agents.voice.nijivoice_standin import SAMPLE_KEY, SAMPLE_VOICE, NijivoiceStandIn, speech_of
from graphrt_agents.voice.tts_nijivoice import AGENTS

import graphrt
from graphrt.testing import SampleCase, parametrize_samples


@pytest.fixture(autouse=True)
def no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NIJIVOICE_API_KEY", raising=False)


@parametrize_samples(*AGENTS)
def test_every_sample_gives_its_result(sample_case: SampleCase) -> None:
    sample_case.check()


def say(text: Any, **params: Any) -> Any:
    graph = {"version": 0.5, "nodes": {"say": {"agent": "ttsNijivoiceAgent", "inputs": {"text": text},
                                               "params": params, "isResult": True}}}
    return graphrt.run(graph)["say"]


def test_the_text_is_said_and_the_audio_downloaded_from_the_service_s_link() -> None:
    stand_in = NijivoiceStandIn()
    with serving(stand_in) as base:
        result = say("こんにちは", voice=SAMPLE_VOICE, apiKey=SAMPLE_KEY, baseURL=base)
    assert result == {"buffer": speech_of("こんにちは"), "generatedVoice": {
        "audioFileUrl": f"{base}/audio/1.mp3", "audioFileDownloadUrl": f"{base}/audio/1.mp3?download=true",
        "duration": 750, "remainingCredits": 9995}}
    generate, download = stand_in.requests
    assert (generate.method, generate.path) == ("POST", f"/voice-actors/{SAMPLE_VOICE}/generate-voice")
    assert generate.json() == {"format": "mp3", "speed": "1.0", "script": "こんにちは"}
    assert {name: generate.headers[name] for name in ("x-api-key", "accept", "content-type")} == {
        "x-api-key": SAMPLE_KEY, "accept": "application/json", "content-type": "application/json"}
    assert (download.method, download.path, download.query) == ("GET", "/audio/1.mp3", [("download", "true")])
    assert "x-api-key" not in download.headers  # the key goes to Nijivoice only, not to where its audio is


def test_the_key_comes_from_the_environment_and_the_address_from_the_config(monkeypatch) -> None:
    monkeypatch.setenv("NIJIVOICE_API_KEY", SAMPLE_KEY)
    stand_in = NijivoiceStandIn()
    with serving(stand_in) as base:
        graph = {"version": 0.5, "nodes": {"say": {"agent": "ttsNijivoiceAgent", "inputs": {"text": "hi"},
                                                   "params": {"voice": SAMPLE_VOICE}, "isResult": True}}}
        result = graphrt.run(graph, config={"ttsNijivoiceAgent": {"baseURL": base}})["say"]
    assert result["buffer"] == speech_of("hi")
    assert stand_in.requests[0].headers["x-api-key"] == SAMPLE_KEY


def test_the_speech_is_written_to_a_file_by_file_write_agent(tmp_path) -> None:
    with serving(NijivoiceStandIn()) as base:
        graph = {"version": 0.5, "nodes": {
            "say": {"agent": "ttsNijivoiceAgent", "inputs": {"text": "こんにちは"},
                    "params": {"voice": SAMPLE_VOICE, "apiKey": SAMPLE_KEY, "baseURL": base}},
            "save": {"agent": "fileWriteAgent", "inputs": {"file": "test.mp3", "buffer": ":say.buffer"},
                     "params": {"baseDir": str(tmp_path)}, "isResult": True}}}
        graphrt.run(graph)
    assert (tmp_path / "test.mp3").read_bytes() == speech_of("こんにちは")


def test_a_refusal_is_graphai_s_error_and_says_what_the_service_answered() -> None:
    with serving(NijivoiceStandIn()) as base:
        with pytest.raises(graphrt.AgentError) as failed:
            say("hi", voice=SAMPLE_VOICE, apiKey="niji-wrong-key-1234567", baseURL=base)
    assert failed.value.message == ('TTS Nijivoice Error: HTTP 401: the service gave no audio to download: '
                                    '{"message": "Invalid API key"}')
    assert "niji-wrong-key" not in str(failed.value)


def test_with_supress_error_a_refusal_is_on_error_holding_the_service_s_answer() -> None:
    with serving(NijivoiceStandIn()) as base:
        result = say("hi", voice="nobody", apiKey=SAMPLE_KEY, baseURL=base, supressError=True)
    assert result == {"onError": {"message": "TTS Nijivoice Error",
                                  "error": {"message": "voice actor nobody not found"}}}


def test_without_a_key_nothing_is_sent() -> None:
    stand_in = NijivoiceStandIn()
    with serving(stand_in) as base:
        with pytest.raises(graphrt.AgentError) as failed:
            say("hi", voice=SAMPLE_VOICE, baseURL=base)
        result = say("hi", voice=SAMPLE_VOICE, baseURL=base, supressError=True)
    assert failed.value.message == ("TTS Nijivoice Error: no API key: set NIJIVOICE_API_KEY, or give apiKey in "
                                    "params or config")
    assert result == {"onError": {"message": "TTS Nijivoice Error", "error": "no API key"}}
    assert stand_in.requests == []


def test_the_voice_actor_stays_one_path_segment() -> None:
    stand_in = NijivoiceStandIn()
    with serving(stand_in) as base:
        result = say("hi", voice="../../audio/1.mp3?", apiKey=SAMPLE_KEY, baseURL=base, supressError=True)
    assert stand_in.requests[0].path == "/voice-actors/..%2F..%2Faudio%2F1.mp3%3F/generate-voice"
    assert result["onError"]["error"] == {"message": "voice actor ../../audio/1.mp3? not found"}


class BrokenDownload(NijivoiceStandIn):
    """Generates as Nijivoice does, but its audio link answers 404 with a page."""

    def answer(self, request: Request) -> Answer:
        if request.method == "GET":
            self.requests.append(request)
            return 404, {"Content-Type": "text/html"}, b"<html>gone</html>"
        return super().answer(request)


def test_a_download_that_fails_is_no_audio() -> None:
    with serving(BrokenDownload()) as base:
        with pytest.raises(graphrt.AgentError) as failed:
            say("hi", voice=SAMPLE_VOICE, apiKey=SAMPLE_KEY, baseURL=base)
        result = say("hi", voice=SAMPLE_VOICE, apiKey=SAMPLE_KEY, baseURL=base, supressError=True)
    assert failed.value.message == "TTS Nijivoice Error: the audio's download answered HTTP 404"
    assert result == {"onError": {"message": "TTS Nijivoice Error", "error": "audio download: HTTP 404"}}


class NotJson:
    def answer(self, request: Request) -> Answer:
        return 502, {"Content-Type": "text/html"}, b"<html>bad gateway</html>"


def test_an_answer_that_is_not_json_is_a_failure_that_says_so() -> None:
    with serving(NotJson()) as base:
        with pytest.raises(graphrt.AgentError) as failed:
            say("hi", voice=SAMPLE_VOICE, apiKey=SAMPLE_KEY, baseURL=base)
    assert failed.value.message.startswith("TTS Nijivoice Error: the response is not valid JSON")


class NoLink:
    def answer(self, request: Request) -> Answer:
        return json_answer(200, {"generatedVoice": {"duration": 0}})


def test_an_answer_without_a_download_link_is_no_audio() -> None:
    with serving(NoLink()) as base:
        result = say("hi", voice=SAMPLE_VOICE, apiKey=SAMPLE_KEY, baseURL=base, supressError=True)
    assert result == {"onError": {"message": "TTS Nijivoice Error", "error": {"generatedVoice": {"duration": 0}}}}


@pytest.mark.parametrize("text, params, field", [
    (None, {"voice": SAMPLE_VOICE}, "inputs.text"),
    ("hi", {}, "params.voice"),
    ("hi", {"voice": 7}, "params.voice"),
])
def test_no_text_or_no_voice_actor_fails_before_any_request(text, params, field) -> None:
    with pytest.raises(graphrt.GraphError) as failed:
        say(text, apiKey=SAMPLE_KEY, baseURL="http://127.0.0.1:9", supressError=True, **params)
    assert failed.value.field == field

