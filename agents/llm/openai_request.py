"""openAIAgent's request: the chat completion body, with only what the node set, and where a grammar goes.

A grammar goes only where it is known to be accepted: the embedded model, or a server the node's
params or config (or GRAPHRT_ACCEPTS_GRAMMAR=1) say is a llama.cpp server (`acceptsGrammar: true`).
Elsewhere it is left out, and a server that refuses a request because of it (HTTP 400 or 422) is
asked again without it; the `Grammars` that saw the refusal (its provider's) remembers the server.
"""

from __future__ import annotations

import json
import os
from typing import Any

from graphrt.base.jsvalue import UNDEFINED, is_null, is_truthy

from .settings import ServerSettings

__all__ = ["GRAMMAR_ENV", "Grammars", "chat_body", "without_grammar"]

_MESSAGE_KEYS = ("role", "content", "name", "tool_calls", "tool_call_id")
_OPTIONAL_BODY_KEYS = ("tools", "tool_choice", "response_format", "temperature", "top_p", "stop", "seed")
GRAMMAR_ENV = "GRAPHRT_ACCEPTS_GRAMMAR"
_GRAMMAR_REFUSED_STATUSES = (400, 422)


def _outgoing(message: Any) -> Any:
    """A message as the API accepts it: known keys only, `content: ""` on tool-call messages.

    Some servers (llama.cpp among them) reject an assistant message whose
    content is null, and GraphAI's tool messages carry an `extra` key.
    """
    if not isinstance(message, dict):
        return message
    sent = {key: message[key] for key in _MESSAGE_KEYS if key in message and message[key] is not UNDEFINED}
    if sent.get("tool_calls"):
        sent["tool_calls"] = [_outgoing_tool_call(call) for call in sent["tool_calls"]]
        if is_null(sent.get("content")):
            sent["content"] = ""
    else:
        sent.pop("tool_calls", None)
    if sent.get("role") == "tool" and not isinstance(sent.get("content"), str):
        sent["content"] = json.dumps(sent.get("content"), ensure_ascii=False)
    return sent


def _outgoing_tool_call(call: Any) -> Any:
    if not isinstance(call, dict) or not isinstance(call.get("function"), dict):
        return call
    function = dict(call["function"])
    if not isinstance(function.get("arguments"), str):
        function["arguments"] = json.dumps(function.get("arguments") or {}, ensure_ascii=False)
    return {"id": call.get("id"), "type": call.get("type") or "function", "function": function}


def chat_body(options: dict[str, Any], server: ServerSettings, model: str, messages: list[Any],
              grammar: str | None = None) -> dict[str, Any]:
    """The chat completion request: only what the node set, so every server accepts it; `grammar` (llama.cpp's
    field) when the server takes one (`Grammars.to_send`)."""
    body: dict[str, Any] = {"model": model, "messages": [_outgoing(message) for message in messages]}
    for key in _OPTIONAL_BODY_KEYS:
        value = options.get(key)
        if not is_null(value):
            body[key] = value
    if not body.get("tools"):
        body.pop("tools", None)
        body.pop("tool_choice", None)
    if "temperature" not in body and model.startswith("gpt-4"):
        body["temperature"] = 0.7  # GraphAI's default for gpt-4 models (reasoning models take none)
    if grammar is not None:
        body["extra_body"] = {"grammar": grammar}
    limit = options.get("max_completion_tokens", options.get("max_tokens"))
    if not is_null(limit):
        # OpenAI's newer models want max_completion_tokens; other servers know max_tokens.
        body["max_completion_tokens" if server.is_openai else "max_tokens"] = limit
    return body


def without_grammar(body: dict[str, Any]) -> dict[str, Any]:
    """`body` without llama.cpp's `grammar` field (and without `extra_body` if nothing else is in it)."""
    extra = {key: value for key, value in (body.get("extra_body") or {}).items() if key != "grammar"}
    trimmed = {key: value for key, value in body.items() if key != "extra_body"}
    return {**trimmed, "extra_body": extra} if extra else trimmed


class Grammars:
    """Which servers get a node's GBNF grammar, and which refused one: asked once, never again.

    llama.cpp's servers (and llama-cpp-python's) hold the reply to the grammar. Others have no such
    field: OpenAI refuses the request, and some servers would ignore it or apply it differently, so
    it goes only to the embedded model and to servers the user says are llama.cpp servers. A
    provider holds one, so what a server refused is known where requests to it are made.
    """

    def __init__(self) -> None:
        self._refused: set[str] = set()  # base URLs of servers that refused a request for its grammar

    def to_send(self, options: dict[str, Any], server: ServerSettings) -> str | None:
        """The node's grammar, when `server` is known to accept llama.cpp's `grammar` field; else None."""
        grammar = options.get("grammar")
        if not isinstance(grammar, str) or not grammar.strip() or server.is_openai:
            return None
        if server.base_url in self._refused:
            return None
        opted_in = options.get("acceptsGrammar")
        if is_null(opted_in):
            opted_in = os.environ.get(GRAMMAR_ENV, "").strip().lower() in ("1", "true", "yes")
        return grammar if server.embedded or is_truthy(opted_in) else None

    def refused(self, error: Exception, body: dict[str, Any], server: ServerSettings) -> bool:
        """True when `server` refused `body` for its grammar, as one refuses a field it does not know (HTTP 400 or
        422); the server is not sent a grammar again."""
        status = getattr(error, "status_code", None)
        if "grammar" not in (body.get("extra_body") or {}) or status not in _GRAMMAR_REFUSED_STATUSES:
            return False
        self._refused.add(str(server.base_url))
        return True
