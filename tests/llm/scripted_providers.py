"""Scripted servers for Anthropic's and Gemini's wire protocols, on 127.0.0.1, for the LLM pack tests.

Like the OpenAI-compatible server of tests/conftest.py they answer each request
with the next reply of a script (the same `Reply` objects: text, tool calls, an
HTTP error, a reply held back until the test ends) and record every request; besides they can answer garbage
(`Garbage`) or cut a reply short (`Cut`: a stream that dies after some events, a
body shorter than its length). Anthropic's server speaks the messages API (`POST
/v1/messages`, server-sent events when `stream` is set); Gemini's speaks
generateContent and streamGenerateContent (`?alt=sse`). Azure OpenAI's speaks chat completions at
Azure's paths (`/openai/deployments/{deployment}/chat/completions?api-version=...`), signed with
`api-key` or `Authorization: Bearer`, and refuses other requests as Azure does. OpenAI's media
server speaks images (`/v1/images/generations`, its images served at the URLs it gives) and audio
(`/v1/audio/speech`, small fixed bytes; `/v1/audio/transcriptions`, multipart uploads recorded).
Tests reach them through the real SDKs.
"""

from __future__ import annotations

import base64
import email.parser
import email.policy
import json
import re
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable
from urllib.parse import parse_qs, urlsplit

from ..conftest import Reply, _chunks, _completion, error, usage_of


@dataclass
class Garbage:
    """A reply that is not the protocol's: `body` as it is, with this status and content type."""

    body: bytes = b"<html>bad gateway</html>"
    content_type: str = "text/html"
    status: int = 200


@dataclass
class Cut:
    """`reply`, cut short: a stream ends after `after` events; a body stops halfway through."""

    reply: Reply
    after: int = 2


@dataclass
class Request:
    """One request the server received; a multipart body is its fields, each file as an `Upload`."""

    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class Upload:
    """A file of a multipart request."""

    filename: str | None
    content_type: str
    data: bytes


def _form(content_type: str, raw: bytes) -> dict[str, Any]:
    """A multipart/form-data body's fields: text as text, files as Uploads (a repeated field as a list)."""
    message = email.parser.BytesParser(policy=email.policy.default).parsebytes(
        f"content-type: {content_type}\r\n\r\n".encode() + raw)
    fields: dict[str, Any] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        data = part.get_payload(decode=True) or b""
        value: Any = (Upload(part.get_filename(), part.get_content_type(), data) if part.get_filename() is not None
                      else data.decode())
        fields[name] = [*fields[name], value] if isinstance(fields.get(name), list) else (
            [fields[name], value] if name in fields else value)
    return fields


def _body(content_type: str, raw: bytes) -> dict[str, Any]:
    if content_type.startswith("multipart/form-data"):
        return _form(content_type, raw)
    return json.loads(raw or b"{}")


@dataclass
class _Answer:
    status: int
    body: bytes = b""
    content_type: str = "application/json"
    events: list[bytes] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    cut: bool = False


Renderer = Callable[["Request", Reply, int, bool], _Answer]


class ScriptedServer:
    """A server answering POSTs from its script, each reply rendered by the protocol's `renderer`; GETs get the
    `files` it serves (path: content type and bytes)."""

    def __init__(self, renderer: Renderer, streaming: Callable[[Request], bool],
                 files: dict[str, tuple[str, bytes]] | None = None) -> None:
        self.requests: list[Request] = []
        self.files = dict(files or {})
        self._render, self._streaming = renderer, streaming
        self._replies: deque[Any] = deque()
        self._lock = threading.Lock()
        self._released = threading.Event()  # lets the held replies of the current test go
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def close(self) -> None:
        self._release_held()
        self._httpd.shutdown()
        self._httpd.server_close()

    def _release_held(self) -> None:
        with self._lock:
            self._released.set()
            self._released = threading.Event()

    def reset(self) -> None:
        self._release_held()
        with self._lock:
            self.requests.clear()
            self._replies.clear()

    def script(self, *replies: Any) -> None:
        with self._lock:
            self._replies.extend(replies)

    def _answer(self, request: Request) -> _Answer:
        with self._lock:
            self.requests.append(request)
            number = len(self.requests)
            reply = self._replies.popleft() if self._replies else error(500, "the test script has no reply left")
            released = self._released
        if isinstance(reply, Garbage):
            return _Answer(reply.status, reply.body, reply.content_type)
        cut = isinstance(reply, Cut)
        scripted = reply.reply if cut else reply
        if scripted.held:
            released.wait(120)  # until the test ends; the limit only keeps a stuck test from holding a thread
        answer = self._render(request, scripted, number, self._streaming(request))
        if cut and answer.events is not None:
            answer.events = answer.events[:reply.after]
        answer.cut = cut
        return answer

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                found = server.files.get(urlsplit(self.path).path)
                answer = _Answer(200, found[1], found[0]) if found else _json(404, {"error": {"message": "no file"}})
                self._send(answer)

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                parts = urlsplit(self.path)
                request = Request(parts.path, parse_qs(parts.query), {k.lower(): v for k, v in self.headers.items()},
                                  _body(self.headers.get("content-type") or "", raw))
                answer = server._answer(request)
                try:
                    self._send(answer)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _send(self, answer: _Answer) -> None:
                self.send_response(answer.status)
                for key, value in answer.headers.items():
                    self.send_header(key, value)
                if answer.events is not None:
                    self.send_header("content-type", "text/event-stream")
                    self.send_header("connection", "close")
                    self.end_headers()
                    for event in answer.events:
                        self.wfile.write(event)
                        self.wfile.flush()
                    self.close_connection = True
                    return
                self.send_header("content-type", answer.content_type)
                self.send_header("content-length", str(len(answer.body)))
                self.end_headers()
                self.wfile.write(answer.body[: len(answer.body) // 2] if answer.cut else answer.body)
                self.close_connection = answer.cut

        return Handler


def _json(status: int, payload: Any, headers: dict[str, str] | None = None) -> _Answer:
    return _Answer(status, json.dumps(payload).encode(), headers=dict(headers or {}))


def _error_headers(reply: Reply) -> dict[str, str]:
    return {key.replace("_", "-"): value for key, value in reply.headers.items()}


# --- Anthropic's messages API ----------------------------------------------------------------


def _anthropic_blocks(reply: Reply, number: int) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = [{"type": "text", "text": reply.content}] if reply.content else []
    for index, (name, arguments) in enumerate(reply.calls):
        arguments = json.loads(arguments) if isinstance(arguments, str) else arguments
        blocks.append({"type": "tool_use", "id": f"toolu_{number}_{index}", "name": name, "input": arguments})
    return blocks


def _sse(kind: str, payload: dict[str, Any]) -> bytes:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **payload})}\n\n".encode()


def render_anthropic(request: Request, reply: Reply, number: int, streaming: bool) -> _Answer:
    """Anthropic's answer to one request: a Message, its stream of events, or an error body."""
    if reply.status != 200:
        body = {"type": "error", "error": {"type": "api_error", "message": reply.message}}
        return _json(reply.status, body, _error_headers(reply))
    blocks = _anthropic_blocks(reply, number)
    stop = "tool_use" if reply.calls else "end_turn"
    usage = usage_of(reply, {"input_tokens": 11, "output_tokens": 7}) or {}
    message = {"id": f"msg_{number}", "type": "message", "role": "assistant", "model": reply.model,
               "content": blocks, "stop_reason": stop, "stop_sequence": None, "usage": usage}
    if not streaming:
        return _json(200, message)
    start = {**message, "content": [], "stop_reason": None,
             "usage": {**{key: value for key, value in usage.items() if key != "output_tokens"}, "output_tokens": 1}}
    events = [_sse("message_start", {"message": start}), _sse("ping", {})]
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            events.append(_sse("content_block_start", {"index": index, "content_block": {"type": "text", "text": ""}}))
            events += [_sse("content_block_delta", {"index": index, "delta": {"type": "text_delta", "text": block["text"][i:i + 3]}})
                       for i in range(0, len(block["text"]), 3)]
        else:
            empty = {**block, "input": {}}
            events.append(_sse("content_block_start", {"index": index, "content_block": empty}))
            arguments = json.dumps(block["input"])
            events += [_sse("content_block_delta", {"index": index, "delta": {"type": "input_json_delta", "partial_json": arguments[i:i + 5]}})
                       for i in range(0, len(arguments), 5)]
        events.append(_sse("content_block_stop", {"index": index}))
    events.append(_sse("message_delta", {"delta": {"stop_reason": stop, "stop_sequence": None},
                                         "usage": {"output_tokens": usage.get("output_tokens", 7)}}))
    events.append(_sse("message_stop", {}))
    return _Answer(200, events=events)


def anthropic_server() -> ScriptedServer:
    return ScriptedServer(render_anthropic, lambda request: bool(request.body.get("stream")))


# --- Gemini's generateContent ----------------------------------------------------------------


def _gemini_chunk(parts: list[dict[str, Any]], number: int, reply: Reply, finish: bool) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    chunk: dict[str, Any] = {"candidates": [candidate], "modelVersion": reply.model, "responseId": f"resp-{number}"}
    if finish:
        candidate["finishReason"] = "STOP"
        usage = usage_of(reply, {"promptTokenCount": 11, "candidatesTokenCount": 7, "totalTokenCount": 18})
        if usage is not None:
            chunk["usageMetadata"] = usage
    return chunk


def render_gemini(request: Request, reply: Reply, number: int, streaming: bool) -> _Answer:
    """Gemini's answer: a GenerateContentResponse, its chunks as server-sent events, or an error body."""
    if reply.status != 200:
        status = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 429: "RESOURCE_EXHAUSTED"}.get(reply.status, "INTERNAL")
        body = {"error": {"code": reply.status, "message": reply.message, "status": status}}
        return _json(reply.status, body, _error_headers(reply))
    calls = [{"functionCall": {"name": name, "args": json.loads(args) if isinstance(args, str) else args}}
             for name, args in reply.calls]
    if not streaming:
        parts = ([{"text": reply.content}] if reply.content else []) + calls
        return _json(200, _gemini_chunk(parts, number, reply, True))
    text = reply.content or ""
    pieces = [[{"text": text[i:i + 3]}] for i in range(0, len(text), 3)] + ([calls] if calls else [])
    pieces = pieces or [[{"text": ""}]]
    chunks = [_gemini_chunk(parts, number, reply, index == len(pieces) - 1) for index, parts in enumerate(pieces)]
    return _Answer(200, events=[f"data: {json.dumps(chunk)}\r\n\r\n".encode() for chunk in chunks])


def gemini_server() -> ScriptedServer:
    return ScriptedServer(render_gemini, lambda request: request.path.endswith(":streamGenerateContent"))


# --- embeddings (OpenAI's /v1/embeddings, Ollama's /api/embed) --------------------------------


def text_vector(text: str) -> list[float]:
    """The scripted server's embedding of a text: counts of a few letters, scaled to length 1."""
    counts = [1.0 + text.count(letter) for letter in "aeio"]
    norm = sum(count * count for count in counts) ** 0.5
    return [count / norm for count in counts]


def render_embeddings(request: Request, reply: Reply, number: int, streaming: bool) -> _Answer:
    """An embeddings answer: each input's `text_vector`, in OpenAI's format or (for /api/embed) Ollama's."""
    if reply.status != 200:
        body = {"error": {"message": reply.message, "type": "scripted", "code": reply.status}}
        return _json(reply.status, body, _error_headers(reply))
    texts = request.body.get("input")
    texts = [texts] if isinstance(texts, str) else texts
    vectors = [text_vector(text) for text in texts]
    if request.path.endswith("/api/embed"):
        return _json(200, {"model": request.body.get("model"), "embeddings": vectors})
    data = [{"object": "embedding", "index": index, "embedding": vector} for index, vector in enumerate(vectors)]
    return _json(200, {"object": "list", "data": data, "model": request.body.get("model"),
                       "usage": {"prompt_tokens": 5, "total_tokens": 5}})


def embeddings_server() -> ScriptedServer:
    return ScriptedServer(render_embeddings, lambda request: False)


# --- Azure OpenAI's chat completions, images and audio ---------------------------------------------------------

AZURE_DEPLOYMENTS = ("gpt-4o", "chat-prod", "dall-e-3", "tts-1", "whisper-1")
"""The deployments the scripted Azure resource has; a request to another is refused (404, DeploymentNotFound)."""
_AZURE_PATH = re.compile(r"/openai/deployments/(?P<deployment>[^/]+)/(?P<endpoint>chat/completions|images/generations|"
                         r"audio/speech|audio/transcriptions)")


def _azure_refusal(request: Request) -> _Answer | None:
    """Azure's answer to a request it does not take: wrong path or no api-version (404), unsigned (401), a deployment
    the resource lacks (404); None for a request it takes."""
    match = _AZURE_PATH.fullmatch(request.path)
    if match is None or not request.query.get("api-version"):
        return _json(404, {"error": {"code": "404", "message": "Resource not found"}})
    bearer = request.headers.get("authorization", "")
    if not request.headers.get("api-key") and not (bearer.startswith("Bearer ") and bearer[7:].strip()):
        return _json(401, {"error": {"code": "401", "message": "Access denied due to invalid subscription key or "
                                     "wrong API endpoint."}})
    if match["deployment"] not in AZURE_DEPLOYMENTS:
        return _json(404, {"error": {"code": "DeploymentNotFound", "message": "The API deployment for this resource "
                                     "does not exist."}})
    return None


def render_azure(request: Request, reply: Reply, number: int, streaming: bool) -> _Answer:
    """Azure OpenAI's answer: its refusal of a request it does not take, else the chat completion (or its stream),
    image or audio."""
    refusal = _azure_refusal(request)
    if refusal is not None:
        return refusal
    if reply.status != 200:
        body = {"error": {"code": str(reply.status), "message": reply.message}}
        return _json(reply.status, body, _error_headers(reply))
    if not request.path.endswith("/chat/completions"):
        return render_media(request, reply, number, streaming)
    if not streaming:
        return _json(200, _completion(reply, number))
    events = [f"data: {json.dumps(chunk)}\n\n".encode() for chunk in _chunks(reply, number)]
    return _Answer(200, events=[*events, b"data: [DONE]\n\n"])


def azure_server() -> ScriptedServer:
    return ScriptedServer(render_azure, lambda request: bool(request.body.get("stream")))


# --- OpenAI's images and audio ---------------------------------------------------------------

IMAGE_BYTES = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000")
"""The bytes of every image the media server makes (a PNG's signature and header, enough to be one)."""
SPEECH_BYTES = b"ID3\x04\x00\x00\x00\x00\x00\x00\xff\xfb\x90\x00scripted speech"
"""The bytes of every speech the media server makes (an MP3's ID3 tag and frame header)."""


def render_media(request: Request, reply: Reply, number: int, streaming: bool) -> _Answer:
    """OpenAI's answer to an images or audio request: `reply.content` is the revised prompt or the transcription."""
    if reply.status != 200:
        body = {"error": {"message": reply.message, "type": "scripted", "code": reply.status}}
        return _json(reply.status, body, _error_headers(reply))
    if request.path.endswith("/images/generations"):
        revised = {"revised_prompt": reply.content} if reply.content else {}
        if request.body.get("response_format") == "b64_json":
            return _json(200, {"created": 1700000000, "data": [{"b64_json": base64.b64encode(IMAGE_BYTES).decode(),
                                                                **revised}]})
        url = f"http://{request.headers['host']}/files/image.png?request={number}"
        return _json(200, {"created": 1700000000, "data": [{"url": url, **revised}]})
    if request.path.endswith("/audio/speech"):
        return _Answer(200, SPEECH_BYTES, "audio/mpeg")
    if request.path.endswith("/audio/transcriptions"):
        if request.body.get("response_format") in ("text", "srt", "vtt"):
            return _Answer(200, (reply.content or "").encode(), "text/plain; charset=utf-8")
        return _json(200, {"text": reply.content or "", "usage": {"type": "duration", "seconds": 1}})
    return _json(404, {"error": {"message": f"no such endpoint: {request.path}"}})


def media_server() -> ScriptedServer:
    return ScriptedServer(render_media, lambda request: False, files={"/files/image.png": ("image/png", IMAGE_BYTES)})
