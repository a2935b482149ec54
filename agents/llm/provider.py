"""What the LLM agents share: their options, keys, server, call events, error text and how an error reads.

openAIAgent (and groqAgent through it) and stringEmbeddingsAgent talk to OpenAI-compatible
servers through the `openai` SDK; anthropicAgent and geminiAgent (each in its own pack)
talk to their provider's API through its SDK. Each describes its provider once as a
`Provider` (agent name, the variables its key and base URL come from, its default model)
and asks it for the server to use; a subclass per SDK says how that SDK's exceptions read
(`Provider.read`: what to say, and whether asking again may help). Every request goes
through `retries.ask`, the one retry loop, which reports each attempt as LlmCallStarted and
LlmCallFinished (`llm_call`) and names the last failure with `Provider.failure`. A key never
appears in that text: it goes through `ServerSettings.redact`.

    class AnthropicProvider(Provider):
        def read(self, error): ...  # the SDK's timeouts, refusals, statuses

    ANTHROPIC = AnthropicProvider("anthropicAgent", "anthropic", keys=("ANTHROPIC_API_KEY",), ...)
    server = ANTHROPIC.server(llm_options(ctx))

    async def attempt(call: LlmCall) -> Reply:
        reply = await sdk_request(...)
        call.finished(model=reply.model, input_tokens=..., output_tokens=..., finish_reason=...)
        return reply

    reply = await ask(ctx, ANTHROPIC, server, model, RetryPolicy.of(options), attempt)
"""

from __future__ import annotations

import json
import re
import uuid
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Mapping

from graphrt.authoring.agent_info import AgentContext
from graphrt.base.jsvalue import defined
from graphrt.base.usage import CallUsage, estimate_tokens
from graphrt.observe.events import LlmCallFinished, LlmCallStarted, LlmCallWaiting

from .errors import LLMRequestError, MalformedReplyError
from .settings import DEFAULT_RETRIES, DEFAULT_RETRY_DELAY, DEFAULT_TIMEOUT, ServerSettings, resolve_server

__all__ = [
    "GRAPHAI_LLM_INFO", "LOCAL_PROVIDER", "Failure", "LLMRequestError", "MalformedReplyError", "LlmCall", "Provider", "chat_inputs",
    "chat_params", "describe_transport", "llm_call", "llm_options", "openai_usage", "parse_json_reply", "retry_after",
    "server_message", "tool_call_arguments", "worth_retrying",
]

LOCAL_PROVIDER = "local"
"""The embedded models' provider, as prices, rate limits and usage name it (`local:<model>`)."""

_FENCE = re.compile(r"```(?:\w+)?\s*([\s\S]*?)\s*```")


def llm_options(ctx: AgentContext) -> dict[str, Any]:
    """The node's options as GraphAI's LLM agents read them: config, then params, then inputs (inputs win)."""
    return {**ctx.config, **ctx.params, **defined(ctx.inputs)}


@dataclass(frozen=True)
class Failure:
    """A failed request as its provider reads it.

    Attributes:
        what: what went wrong, in a line (`HTTP 429: slow down`, `timed out`): the error's text after where.
        transient: asking again may succeed (a timeout, a dropped connection, a 429 or 5xx, a lost reply).
        retry_after: the seconds the server asked to wait before asking again, if it said.
    """

    what: str
    transient: bool = False
    retry_after: float | None = None


@dataclass(frozen=True)
class Provider:
    """One LLM provider as its agent reaches it.

    Attributes:
        agent: the agent's name, which starts every error message.
        system: the provider's name in events (OpenTelemetry's `gen_ai.system`).
        host: where requests go when no base URL is given, for messages.
        default_model: the model when neither the node nor the environment names one (None: required).
        keys: the environment variables that may hold the key, in order.
        base_urls: the environment variables that may hold a base URL.
        models: the environment variables that may name the model.
    """

    agent: str
    system: str
    host: str
    default_model: str | None
    keys: tuple[str, ...] = ()
    base_urls: tuple[str, ...] = ()
    models: tuple[str, ...] = field(default=())

    def settings(self, options: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> ServerSettings:
        """The node's `baseURL`, `apiKey` and `model`, else the environment's, as they are: no key or model is None."""
        return resolve_server(options, environ, keys=self.keys, base_urls=self.base_urls, models=self.models)

    def server(self, options: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> ServerSettings:
        """The server, key and model: the node's `baseURL`, `apiKey`, `model` first, then the environment.

        Raises:
            LLMRequestError: no key anywhere, or no model for a provider that has no default.
        """
        found = self.settings(options, environ)
        if not found.has_credential:
            where = f"set {' or '.join(self.keys)}, or give" if self.keys else "give"
            raise LLMRequestError(f"{self.agent}: no API key: {where} apiKey in params or config", agent_id=self.agent)
        model = found.model or self.default_model
        if model is None:
            raise LLMRequestError(f"{self.agent}: no model: give one in params.model (e.g. llama-3.1-8b-instant)",
                                  agent_id=self.agent)
        return ServerSettings(found.base_url, found.api_key, model, azure=found.azure)

    def read(self, error: Exception) -> Failure | None:
        """How a request's exception reads: what to say and whether to ask again; None for one that is not the
        request's failure (a bug), which is raised as it is. A subclass reads its SDK's exceptions; a reply that
        is no reply is every provider's and worth asking again."""
        if isinstance(error, MalformedReplyError):
            return Failure(str(error), transient=True)
        return None

    def said(self, error: BaseException, server: ServerSettings) -> str:
        """An attempt's failure in a line, for its LlmCallFinished and the retry's progress: `<where> <what>`,
        the key blanked out; "cancelled" when it was cancelled."""
        if not isinstance(error, Exception):
            return "cancelled"
        failure = self.read(error)
        return server.redact(f"{server.base_url or self.host} {failure.what if failure else error}")

    def failure(self, server: ServerSettings, what: str, attempts: int = 1,
                agent: str | None = None) -> LLMRequestError:
        """The error for a failed request: `anthropicAgent: <where> <what>`, the key blanked out.

        `agent` names the agent that asked, when another agent's request is made for it (groqAgent's
        through openAIAgent's); by default the provider's."""
        agent = agent or self.agent
        tries = f" after {attempts} attempts" if attempts > 1 else ""
        return LLMRequestError(server.redact(f"{agent}: {server.base_url or self.host} {what}{tries}"), agent_id=agent)


def worth_retrying(status: Any, headers: Mapping[str, str] | None = None) -> bool:
    """Whether an HTTP status is worth another attempt: the server's `x-should-retry` when it says (as the
    openai and anthropic SDKs read it), else 408, 409, 429 and 5xx."""
    said = (headers or {}).get("x-should-retry")
    if said in ("true", "false"):
        return said == "true"
    return isinstance(status, int) and (status in (408, 409, 429) or status >= 500)


def retry_after(headers: Mapping[str, str] | None) -> float | None:
    """The seconds a server asked to wait (`retry-after-ms`, else `retry-after` in seconds), or None."""
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = (headers or {}).get(name)
        try:
            if value is not None:
                return float(value) / scale
        except ValueError:
            pass
    return None


def server_message(body: Any, fallback: str) -> str:
    """The server's own words from an error body (`{"error": {"message"}}` or `{"message"}`), else `fallback`."""
    if isinstance(body, str):
        try:
            body = json.loads(body)
        except ValueError:
            return body[:200] or fallback
    if isinstance(body, list) and body:  # Gemini answers some errors as a one-item list
        body = body[0]
    if isinstance(body, dict):
        inner = body.get("error") if isinstance(body.get("error"), dict) else body
        if isinstance(inner.get("message"), str):
            return inner["message"]
    return fallback


def describe_transport(error: BaseException) -> str:
    """What went wrong on the wire, from the HTTP client's exception (httpx's or httpx2's, by their names)."""
    name = type(error).__name__
    if "Timeout" in name:
        return "timed out"
    if "Connect" in name:
        return f"could not connect ({error.__cause__ or error})"
    if name in ("RemoteProtocolError", "ReadError", "IncompleteRead", "ProtocolError"):
        return f"the connection dropped before the reply was complete ({name}: {error})"
    return f"failed: {name}: {error}"


class LlmCall:
    """One request in flight: `token` streams a piece of its reply, `finished` records what its reply said for the
    LlmCallFinished event and the run's usage."""

    def __init__(self, ctx: AgentContext) -> None:
        self.report: dict[str, Any] = {}
        self.tokens = 0
        self._ctx = ctx

    def token(self, text: str) -> None:
        """Sends a piece of the reply to the event stream as it comes (void if the attempt then fails)."""
        self.tokens += 1
        self._ctx.stream_token(text)

    def finished(self, **report: Any) -> None:
        """What the reply said: `model`, `input_tokens` (the whole prompt, cached tokens included),
        `output_tokens` (the whole reply, reasoning included), `cached_tokens`, `reasoning_tokens`,
        `finish_reason`; a count the reply did not give is left out or None (unknown, never 0)."""
        self.report = report

    def usage(self, system: str, asked: str | None) -> CallUsage | None:
        """The reply's usage as the run counts it; None when it said no token count."""
        report = self.report
        usage = CallUsage(system, report.get("model") or asked, _count(report.get("input_tokens")),
                          _count(report.get("output_tokens")), _count(report.get("cached_tokens")),
                          _count(report.get("reasoning_tokens")), asked=asked)
        return usage if usage.has_tokens else None


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


@asynccontextmanager
async def llm_call(ctx: AgentContext, provider: Provider, model: str | None,
                   server: ServerSettings | None = None, *, system: str | None = None, prompt: Any = None,
                   max_tokens: Any = None) -> AsyncIterator[LlmCall]:
    """Reports one request as LlmCallStarted and LlmCallFinished (with usage and cost, or the error as text: the
    provider's reading of it for a request to `server`), and counts it in the run's usage (`ctx.meter`).

    Args:
        system: the provider as prices and rate limits name it, when not `provider.system` (`azure`, `local`,
            `groq` through openAIAgent's request).
        prompt: what is sent (the request's body or messages), whose size estimates the prompt's tokens before
            the reply counts them.
        max_tokens: the most the reply may write, when the request says.

    Before it is sent, the call waits for its turn under the rate limits of its label (`provider:model`), as
    LlmCallWaiting says, and LlmCallStarted says how long it waited (`waited`).

    Raises:
        BudgetExceeded: the call would pass a budget of the run (graphrt.observe.meter): it is not made.
    """
    system = system or provider.system
    meter = ctx.meter
    metered = None
    if meter is not None:
        limit = max_tokens if isinstance(max_tokens, int) and not isinstance(max_tokens, bool) else None
        metered = meter.start_call(ctx.path, ctx.node_id, system, model, prompt_tokens=estimate_tokens(prompt),
                                   max_tokens=limit)
        await meter.wait_turn(metered, lambda seconds, label: _waiting(ctx, seconds, label))
    call_id = uuid.uuid4().hex[:16]
    ctx.emit(LlmCallStarted, call_id=call_id, model=model, system=system,
             waited=metered.waited if metered is not None and metered.waited else None)
    call = LlmCall(ctx)
    try:
        yield call
    except BaseException as error:
        if server is not None:
            text = provider.said(error, server)
        else:
            text = str(error) if isinstance(error, LLMRequestError) else type(error).__name__
        _finished(ctx, call_id, call, system, model, metered, error=text)
        raise
    _finished(ctx, call_id, call, system, model, metered)


def _waiting(ctx: AgentContext, seconds: float, label: str) -> None:
    """The call waits for its turn under the rate limits of `label`: said as an event (the node waits, it does not
    run) and as the node's progress."""
    ctx.emit(LlmCallWaiting, label=label, seconds=round(seconds, 3))
    ctx.progress(f"waiting {seconds:.1f}s for the rate limit of {label}", {"rateLimit": label, "seconds": seconds})


def _finished(ctx: AgentContext, call_id: str, call: LlmCall, system: str, model: str | None, metered: Any,
              error: str | None = None) -> None:
    """Counts the attempt (kept when it did not fail) and reports it as LlmCallFinished."""
    usage = call.usage(system, model)
    cost = ctx.meter.end_call(metered, usage, kept=error is None) if metered is not None else None
    report = {key: value for key, value in call.report.items() if key in _REPORTED}
    if usage is not None:
        report.update(model=usage.model, input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
                      cached_tokens=usage.cached_tokens, reasoning_tokens=usage.reasoning_tokens)
    report["model"] = report.get("model") or model
    ctx.emit(LlmCallFinished, call_id=call_id, provider=system, cost_usd=cost, error=error, **report)


_REPORTED = frozenset({"model", "finish_reason"})


def openai_usage(prompt_tokens: Any, completion_tokens: Any) -> dict[str, Any]:
    """OpenAI's names for a reply's token counts, which GraphAI's agents add beside the provider's own."""
    if not isinstance(prompt_tokens, int) and not isinstance(completion_tokens, int):
        return {}
    total = (prompt_tokens or 0) + (completion_tokens or 0)
    return {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "total_tokens": total}


def tool_call_arguments(call: Any) -> tuple[Any, dict[str, Any]]:
    """An OpenAI tool call's function name and arguments as an object (arguments that are not a JSON object: {})."""
    function = call.get("function") or {} if isinstance(call, dict) else {}
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments or "{}")
        except ValueError:
            arguments = {}
    return function.get("name"), arguments if isinstance(arguments, dict) else {}


def parse_json_reply(text: str | None) -> Any:
    """A reply asked to be JSON, parsed as GraphAI's anthropicAgent does: the first ``` fenced block if there
    is one, else the whole text; the object or array it holds, else None."""
    if not text:
        return None
    trimmed = text.strip()
    fenced = _FENCE.search(trimmed)
    try:
        parsed = json.loads(fenced[1].strip() if fenced else trimmed)
    except ValueError:
        return None
    return parsed if isinstance(parsed, (dict, list)) else None


# --- function info ---------------------------------------------------------------------

_TEXT_OR_LIST = {"anyOf": [{"type": "string"}, {"type": "array"}]}

GRAPHAI_LLM_INFO: dict[str, Any] = {
    "runs_local": True,  # holds an HTTP client to the API and streams tokens to the driver
    "outside": True,  # asks a server: each call journaled, its reply taken from the journal on resume and replay
    "category": ("llm",),
    "author": "Receptron team (GraphAI), graphrt",
    "repository": "https://github.com/receptron/graphai",
    "license": "MIT",
    "stream": True,
}
"""The AgentInfo fields every GraphAI LLM agent of a pack shares."""


def chat_inputs(**more: Any) -> dict[str, Any]:
    """The inputs schema of GraphAI's LLM agents (`model`, `system`, `prompt`, `messages`, `tools`, ...), plus `more`."""
    properties = {
        "model": {"type": "string"},
        "system": _TEXT_OR_LIST,
        "prompt": {**_TEXT_OR_LIST, "description": "query string"},
        "messages": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "object"}, {"type": "array"}],
                     "description": "chat messages"},
        "tools": {"type": "array", "description": "OpenAI-style function tools"},
        "tool_choice": {"anyOf": [{"type": "string"}, {"type": "object"}]},
        "max_tokens": {"type": "number"},
        "temperature": {"type": "number"},
        "response_format": {"type": "object"},
    }
    return {"type": "object", "properties": {**properties, **more}}


def chat_params(**more: Any) -> dict[str, Any]:
    """The params schema of a provider's agent: its server (`apiKey`, `baseURL`, `model`), `stream` and retries."""
    properties = {
        "apiKey": {"type": "string"},
        "baseURL": {"type": "string"},
        "model": {"type": "string"},
        "stream": {"type": "boolean"},
        "timeout": {"type": "number", "description": f"seconds per attempt (default {DEFAULT_TIMEOUT:g})"},
        "maxRetries": {"type": "integer", "description": f"retries on 429, 5xx, timeouts (default {DEFAULT_RETRIES})"},
        "retryDelay": {"type": "number", "description": f"first backoff in seconds (default {DEFAULT_RETRY_DELAY:g})"},
    }
    return {"type": "object", "properties": {**properties, **more}}
