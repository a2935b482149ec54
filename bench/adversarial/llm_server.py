"""The campaign's OpenAI-compatible server on 127.0.0.1: a reply chosen by the model a case names.

- `campaign/text`: a text reply ("ok").
- `campaign/tool-arg/NAME`: first a call of the request's first tool with the hostile value NAME
  as its first argument, then (once a tool result came back) a text reply.
- `campaign/always-tools`: a tool call every round, so only the agent's own round limit ends the loop.
Streaming requests get the same reply as server-sent events.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ..llm_wire import send_events, send_json
from .values import make


def _reply(body: dict[str, Any]) -> dict[str, Any]:
    model = str(body.get("model", ""))
    tools = body.get("tools") or []
    answered = any(message.get("role") == "tool" for message in body.get("messages", []))
    if tools and (model == "campaign/always-tools" or (model.startswith("campaign/tool-arg/") and not answered)):
        function = tools[0]["function"]
        first = next(iter((function.get("parameters") or {}).get("properties") or {"x": None}))
        name = model.rsplit("/", 1)[1]
        if name == "raw_5mb":  # 5 MB of arguments that are not JSON
            arguments = "{" * 5_000_000
        else:
            arguments = json.dumps({first: make({"$h": name}) if model.startswith("campaign/tool-arg/") else "again"})
        return {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": function["name"], "arguments": arguments}}]}
    return {"role": "assistant", "content": "ok"}


class CampaignLLM:
    """The server, in a thread of the worker; `url` is the base URL to give the SDK."""

    def __init__(self) -> None:
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a request the campaign's server cannot take is the case's business, not a traceback on stderr


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._send(200, {"object": "list", "data": [{"id": "campaign/text", "object": "model"}]})

    def do_POST(self) -> None:
        try:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
        except (ValueError, RecursionError):
            self._send(400, {"error": {"message": "not JSON", "type": "campaign"}})
            return
        message = _reply(body)
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        model = body.get("model", "campaign/text")
        try:
            if body.get("stream"):
                delta = dict(message)
                if delta.get("tool_calls"):
                    delta["tool_calls"] = [{"index": 0, **call} for call in delta["tool_calls"]]
                send_events(self, [{"id": "c", "object": "chat.completion.chunk", "created": 0, "model": model,
                                    "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                                   {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": model,
                                    "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}])
            else:
                self._send(200, {"id": "c", "object": "chat.completion", "created": 0, "model": model,
                                 "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                                 "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _send(self, status: int, payload: Any) -> None:
        send_json(self, payload, status)
