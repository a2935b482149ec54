"""ttsOpenaiAgent and sttOpenaiAgent through the real `openai` SDK against the scripted audio server on 127.0.0.1:
speech comes back as small fixed bytes, uploads are read from the multipart request as the server received them."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from graphrt_agents.voice.audio import audio_format, audio_upload
from graphrt_agents.voice.mock_wav import silent_wav, wav_comment

from graphrt import AgentError

from .scripted_providers import SPEECH_BYTES, Garbage, Upload

pytestmark = pytest.mark.anyio


def graph(**nodes: Any) -> dict[str, Any]:
    return {"version": 0.5, "nodes": nodes}


def tts(**node: Any) -> dict[str, Any]:
    return {"agent": "ttsOpenaiAgent", "isResult": True, **node}


def stt(**node: Any) -> dict[str, Any]:
    return {"agent": "sttOpenaiAgent", "isResult": True, **node}


# --- ttsOpenaiAgent --------------------------------------------------------------------------


async def test_text_is_said_by_graphai_s_model_and_voice_and_comes_back_as_bytes(media_api, reply, run_graph):
    media_api.script(reply.text(""))
    results = await run_graph(graph(say=tts(inputs={"text": "hello, this is pen"})))
    assert results["say"] == {"buffer": SPEECH_BYTES}
    sent = media_api.requests[0]
    assert sent.path == "/v1/audio/speech"
    assert sent.body == {"model": "tts-1", "voice": "shimmer", "input": "hello, this is pen"}
    assert sent.headers["authorization"] == "Bearer sk-media-secret"


async def test_params_choose_the_model_and_voice(media_api, reply, run_graph):
    media_api.script(reply.text(""))
    await run_graph(graph(say=tts(inputs={"text": "x"}, params={"model": "gpt-4o-mini-tts", "voice": "alloy"})))
    assert media_api.requests[0].body == {"model": "gpt-4o-mini-tts", "voice": "alloy", "input": "x"}


async def test_the_speech_is_written_to_a_file_by_file_write_agent(media_api, reply, run_graph, tmp_path):
    media_api.script(reply.text(""))
    await run_graph(graph(
        say=tts(inputs={"text": "hello"}, isResult=False),
        save={"agent": "fileWriteAgent", "inputs": {"file": "hello.mp3", "buffer": ":say.buffer"},
              "params": {"baseDir": str(tmp_path)}, "isResult": True}))
    assert (tmp_path / "hello.mp3").read_bytes() == SPEECH_BYTES


async def test_a_reply_that_is_not_audio_is_no_reply_and_is_asked_again(media_api, reply, run_graph):
    media_api.script(Garbage(b"<html>bad gateway</html>", "text/html"), reply.text(""))
    results = await run_graph(graph(say=tts(inputs={"text": "x"}, params={"retryDelay": 0})))
    assert results["say"] == {"buffer": SPEECH_BYTES} and len(media_api.requests) == 2


async def test_with_supress_error_a_failed_request_is_on_error(media_api, reply, run_graph):
    media_api.script(reply.error(400, "voice not found"))
    results = await run_graph(graph(say=tts(inputs={"text": "x"}, params={"voice": "nobody", "supressError": True})))
    assert results["say"] == {"onError": {"message": "TTS OpenAI Error",
                                          "error": f"ttsOpenaiAgent: {media_api.url}/v1 HTTP 400: voice not found"}}


async def test_without_supress_error_a_failed_request_fails_the_node(media_api, reply, run_graph):
    media_api.script(reply.error(400, "voice not found"))
    with pytest.raises(AgentError) as caught:
        await run_graph(graph(say=tts(inputs={"text": "x"})))
    assert caught.value.message == f"ttsOpenaiAgent: {media_api.url}/v1 HTTP 400: voice not found"


async def test_a_missing_key_is_not_suppressed_as_in_graphai(media_api, run_graph, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(AgentError) as caught:
        await run_graph(graph(say=tts(inputs={"text": "x"}, params={"supressError": True})))
    assert caught.value.message == "ttsOpenaiAgent: no API key: set OPENAI_API_KEY, or give apiKey in params or config"


async def test_no_text_is_a_clear_error(media_api, run_graph):
    with pytest.raises(AgentError) as caught:
        await run_graph(graph(say=tts(inputs={"text": None})))
    assert "ttsOpenaiAgent: inputs.text must be the text to say, got NoneType" in caught.value.message
    assert media_api.requests == []


# --- sttOpenaiAgent --------------------------------------------------------------------------


async def test_bytes_are_uploaded_under_a_name_that_says_their_format(media_api, reply, run_graph):
    media_api.script(reply.text("hello, this is pen"))
    results = await run_graph(graph(audio={"value": SPEECH_BYTES}, hear=stt(inputs={"inputStream": ":audio"})))
    assert results["hear"] == {"text": "hello, this is pen"}
    sent = media_api.requests[0]
    assert sent.path == "/v1/audio/transcriptions"
    assert sent.body == {"file": Upload("audio.mp3", "audio/mpeg", SPEECH_BYTES), "model": "whisper-1"}


async def test_a_file_from_file_read_agent_is_uploaded(media_api, reply, run_graph, tmp_path):
    (tmp_path / "speech.wav").write_bytes(silent_wav("hi"))
    media_api.script(reply.text("hi"))
    results = await run_graph(graph(
        read={"agent": "fileReadAgent", "inputs": {"file": "speech.wav"},
              "params": {"baseDir": str(tmp_path), "outputType": "stream"}},
        hear=stt(inputs={"inputStream": ":read.data"})))
    assert results["hear"] == {"text": "hi"}
    upload = media_api.requests[0].body["file"]
    assert upload.filename == "audio.wav" and upload.data == silent_wav("hi")


def descriptors_open_on(path: Path) -> list[str]:
    """This process's file descriptors open on `path` (Linux's /proc/self/fd)."""
    found = []
    for descriptor in Path("/proc/self/fd").iterdir():
        try:
            if os.readlink(descriptor) == str(path):
                found.append(descriptor.name)
        except OSError:  # the listing's own descriptor, gone by now
            pass
    return found


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc/self/fd (Linux) to see open files")
async def test_a_file_from_file_read_agent_is_closed_once_read_as_graphai_s_stream_is(media_api, reply, run_graph,
                                                                                      tmp_path):
    (tmp_path / "speech.wav").write_bytes(silent_wav("hi"))
    media_api.script(reply.text("hi"))
    results = await run_graph(graph(  # the file stays a result, so only the agent can close it
        read={"agent": "fileReadAgent", "inputs": {"file": "speech.wav"}, "isResult": True,
              "params": {"baseDir": str(tmp_path), "outputType": "stream"}},
        hear=stt(inputs={"inputStream": ":read.data"})))
    assert results["hear"] == {"text": "hi"}
    assert descriptors_open_on(tmp_path / "speech.wav") == []
    assert results["read"]["data"].closed


async def test_the_request_s_fields_are_sent_when_given_and_a_text_reply_is_the_text(media_api, reply, run_graph):
    media_api.script(reply.text("bonjour"))
    inputs = {"inputStream": SPEECH_BYTES, "language": "fr", "prompt": "Greetings.", "response_format": "text",
              "temperature": 0}
    results = await run_graph(graph(hear=stt(inputs=inputs, params={"model": "gpt-4o-transcribe"})))
    assert results["hear"] == {"text": "bonjour"}
    body = media_api.requests[0].body
    assert {key: body[key] for key in ("model", "language", "prompt", "response_format", "temperature")} == {
        "model": "gpt-4o-transcribe", "language": "fr", "prompt": "Greetings.", "response_format": "text",
        "temperature": "0"}


async def test_a_retry_sends_the_whole_file_again(media_api, reply, run_graph, tmp_path):
    (tmp_path / "speech.mp3").write_bytes(SPEECH_BYTES)
    media_api.script(reply.error(500, "try again"), reply.text("ok"))
    with (tmp_path / "speech.mp3").open("rb") as stream:
        results = await run_graph(graph(audio={"value": stream},
                                        hear=stt(inputs={"inputStream": ":audio"}, params={"retryDelay": 0})))
    assert results["hear"] == {"text": "ok"}
    uploads = [request.body["file"] for request in media_api.requests]
    assert uploads == [Upload("speech.mp3", "audio/mpeg", SPEECH_BYTES)] * 2


async def test_with_supress_error_a_failed_request_is_on_error_in_graphai_s_words(media_api, reply, run_graph):
    media_api.script(reply.error(400, "audio too short"))
    results = await run_graph(graph(hear=stt(inputs={"inputStream": SPEECH_BYTES}, params={"supressError": True})))
    assert results["hear"] == {"onError": {"message": "SST OpenAI Error",
                                           "error": f"sttOpenaiAgent: {media_api.url}/v1 HTTP 400: audio too short"}}


async def test_a_path_is_not_audio_and_is_never_opened(media_api, run_graph):
    with pytest.raises(AgentError) as caught:
        await run_graph(graph(hear=stt(inputs={"inputStream": "/etc/passwd"})))
    assert "sttOpenaiAgent: inputs.inputStream must be audio: an open binary file (fileReadAgent with outputType " \
           "'stream') or its bytes, got str" in caught.value.message
    assert media_api.requests == []


# --- the audio and the mocks' WAV, without a request ------------------------------------------


@pytest.mark.parametrize("data, extension", [
    (silent_wav("x"), "wav"), (SPEECH_BYTES, "mp3"), (b"\xff\xfb\x90\x00", "mp3"), (b"fLaC\0\0", "flac"),
    (b"OggS\0\2", "ogg"), (b"\x1aE\xdf\xa3\x01", "webm"), (b"\0\0\0\x20ftypM4A ", "m4a"), (b"plain text", None),
])
def test_the_format_is_told_by_the_first_bytes(data, extension):
    assert audio_format(data) == extension


def test_a_file_in_text_mode_is_not_audio(tmp_path: Path):
    (tmp_path / "a.txt").write_text("x")
    with (tmp_path / "a.txt").open() as text_file, pytest.raises(TypeError, match="binary mode"):
        audio_upload(text_file, "sttOpenaiAgent", "inputs.inputStream")


def test_the_mock_wav_carries_its_text_and_lasts_as_long_as_it():
    wav = silent_wav("héllo")
    assert wav_comment(wav) == "héllo"
    assert wav_comment(SPEECH_BYTES) is None
    assert wav.endswith(b"\x80" * 400) and len(silent_wav("hello, world")) > len(wav)
