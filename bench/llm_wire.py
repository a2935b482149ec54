"""The OpenAI chat-completions wire the bench's scripted LLM servers answer in (http.server handlers): an answer
as JSON, or as the server-sent events a streaming client reads."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from typing import Any

__all__ = ["send_json", "send_events", "stream_chunks"]


def send_json(handler: BaseHTTPRequestHandler, payload: Any, status: int = 200) -> None:
    data = json.dumps(payload).encode()
    handler.send_response(status)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def stream_chunks(answer: dict[str, Any], *, usage: bool = True) -> list[dict[str, Any]]:
    """A chat.completion answer as chat.completion.chunk events: its text, its tool calls, its end and (`usage`)
    its usage, as the OpenAI API streams them with `stream_options.include_usage`."""
    choice = answer["choices"][0]
    message = choice["message"]
    base = {key: answer[key] for key in ("id", "created", "model")} | {"object": "chat.completion.chunk"}
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": message.get("content") or ""}]
    for index, call in enumerate(message.get("tool_calls") or []):
        deltas.append({"tool_calls": [{"index": index, **call}]})
    chunks = [{**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]} for delta in deltas]
    chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]})
    if usage and "usage" in answer:
        chunks.append({**base, "choices": [], "usage": answer["usage"]})
    return chunks


def send_events(handler: BaseHTTPRequestHandler, chunks: list[dict[str, Any]]) -> None:
    """The chunks as server-sent events, then `[DONE]`; the connection closes after them."""
    handler.send_response(200)
    handler.send_header("content-type", "text/event-stream")
    handler.send_header("connection", "close")
    handler.end_headers()
    for chunk in chunks:
        handler.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
    handler.wfile.write(b"data: [DONE]\n\n")
    handler.close_connection = True
