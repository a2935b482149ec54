"""stringEmbeddingsAgent: embedding vectors of strings, as @graphai/vanilla's, from any OpenAI-compatible server.

GraphAI's inputs, params and result: `inputs.array` (strings) or `inputs.item` (one
string); `params` (or config) `model` (text-embedding-3-small), `apiKey`, `baseURL`;
the result is the vectors, one per string, in order. dotProductAgent then gives
their similarities (OpenAI's vectors have length 1, so these are cosines) and
sortByValuesAgent orders texts by them, as GraphAI's RAG samples do.

As in GraphAI, `baseURL` is the URL the request is posted to: OpenAI's embeddings
endpoint (`.../v1/embeddings`) or Ollama's own (`.../api/embed`, whose `embeddings`
answer is read too). A base URL without an endpoint (`http://localhost:11434/v1`, as
openAIAgent takes) gets `/embeddings`. Without `baseURL`, OPENAI_BASE_URL and then
OPENAI_API_KEY (OpenAI's API) choose the server, as for openAIAgent; with none of
them, the embedded model answers (local_embeddings.py). Requests go through the
official `openai` SDK as an `OpenAIProvider`'s (openai_provider.py), and through the one
retry loop (retries.py), as openAIAgent's: 408, 409, 429, 5xx, timeouts, failed connections
and answers that are not one vector per string are asked again a bounded number of times, and
such an answer is an error, never a result.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from graphrt.authoring.agent_info import AgentContext, AgentInfo
from graphrt.base.jsvalue import is_null

from .local_embeddings import LOCAL_EMBEDDING_MODEL, local_embeddings
from .openai_provider import OpenAIProvider
from .provider import LOCAL_PROVIDER, LlmCall, MalformedReplyError, llm_call
from .retries import ask
from .settings import RetryPolicy, ServerSettings, resolve_server

if TYPE_CHECKING:
    import openai

__all__ = ["AGENTS", "string_embeddings_agent"]

DEFAULT_EMBEDDING_MODEL = "text-embedding-3-small"  # GraphAI's
_EMBEDDINGS = OpenAIProvider(agent="stringEmbeddingsAgent", system="openai", host="api.openai.com/v1/embeddings",
                             default_model=DEFAULT_EMBEDDING_MODEL)


def _endpoint(url: str) -> tuple[str, str]:
    """`(base URL for the SDK, path posted to)`: a URL ending in an endpoint keeps it, a bare base gets /embeddings."""
    trimmed = url.rstrip("/")
    base, _, last = trimmed.rpartition("/")
    if last in ("embeddings", "embed") and urlsplit(trimmed).path:
        return base, "/" + last
    return trimmed, "/embeddings"


def _texts(ctx: AgentContext) -> list[str]:
    """GraphAI's `array ?? [item]`: the strings to embed."""
    array = ctx.inputs.get("array")
    sources = array if not is_null(array) else [ctx.inputs.get("item")]
    if not isinstance(sources, list) or not all(isinstance(text, str) for text in sources):
        raise ValueError("stringEmbeddingsAgent: inputs.array must be a list of strings, or inputs.item a string")
    return sources


def _vectors(answer: Any, count: int) -> list[list[float]]:
    """The vectors of an OpenAI (`data`) or Ollama (`embeddings`) answer, checked: one list of numbers per string."""
    if isinstance(answer, dict) and isinstance(answer.get("data"), list):
        rows = sorted(answer["data"], key=lambda row: row.get("index", 0) if isinstance(row, dict) else 0)
        vectors = [row.get("embedding") if isinstance(row, dict) else None for row in rows]
    elif isinstance(answer, dict) and isinstance(answer.get("embeddings"), list):
        vectors = answer["embeddings"]
    else:
        raise MalformedReplyError(f"the reply is not a list of embeddings: {str(answer)[:80]!r}")
    if len(vectors) != count or not all(
            isinstance(vector, list) and vector and all(isinstance(x, (int, float)) for x in vector) for vector in vectors):
        raise MalformedReplyError(f"the reply has {len(vectors)} embeddings for {count} strings, or one that is not numbers")
    return vectors


def _server(options: dict[str, Any]) -> ServerSettings | None:
    """The embeddings server: `baseURL`, else openAIAgent's (OPENAI_BASE_URL, OPENAI_API_KEY); None: the embedded model."""
    server = resolve_server({key: options.get(key) for key in ("baseURL", "apiKey")})
    if not server.is_configured:
        return None
    model = options.get("model") if isinstance(options.get("model"), str) else DEFAULT_EMBEDDING_MODEL
    return ServerSettings(server.base_url or "https://api.openai.com/v1/embeddings", server.api_key, model)


async def _request(client: "openai.AsyncOpenAI", path: str, model: str, texts: list[str]) -> Any:
    try:
        if path == "/embeddings":
            reply = await client.embeddings.create(input=texts, model=model, encoding_format="float")
            return reply.model_dump(warnings=False) if hasattr(reply, "model_dump") else reply
        return await client.post(path, body={"input": texts, "model": model}, cast_to=object)
    except json.JSONDecodeError as error:  # a body cut short
        raise MalformedReplyError(f"the reply is not valid JSON ({error})") from None


async def string_embeddings_agent(ctx: AgentContext) -> list[list[float]]:
    """Returns one embedding vector per string of `inputs.array` (or for `inputs.item`).

    Args:
        ctx: `inputs.array` or `inputs.item`; params (over config) `model`, `apiKey`,
            `baseURL` (the endpoint posted to), `timeout` (seconds) and `maxRetries`.

    Returns:
        The vectors, in the order of the strings.

    Raises:
        LLMRequestError: the server refused the request, failed on every attempt or
            answered something else than one vector per string.
        EmbeddedModelError: no server is configured and the embedded model is not installed.
    """
    options = {**ctx.config, **ctx.params}  # GraphAI's: params over config; inputs carry only the strings
    texts = _texts(ctx)
    server = _server(options)
    if server is None:
        async with llm_call(ctx, _EMBEDDINGS, LOCAL_EMBEDDING_MODEL, system=LOCAL_PROVIDER, prompt=texts) as call:
            vectors, tokens = await local_embeddings(texts)
            call.finished(model=LOCAL_EMBEDDING_MODEL, input_tokens=tokens, output_tokens=0)
        return vectors
    base_url, path = _endpoint(server.base_url or "")
    policy = RetryPolicy.of(options)
    async with _EMBEDDINGS.client(replace(server, base_url=base_url), policy.timeout) as client:

        async def attempt(call: LlmCall) -> list[list[float]]:
            answer = await _request(client, path, server.model or DEFAULT_EMBEDDING_MODEL, texts)
            vectors = _vectors(answer, len(texts))
            usage = answer.get("usage") if isinstance(answer, dict) else None
            prompt_tokens = usage.get("prompt_tokens") if isinstance(usage, dict) else None
            # An embedding writes no tokens: a reply that counts its input is whole (0 out, not unknown).
            call.finished(model=answer.get("model") or server.model, input_tokens=prompt_tokens,
                          output_tokens=0 if isinstance(prompt_tokens, int) else None)
            return vectors

        return await ask(ctx, _EMBEDDINGS, server, server.model, policy, attempt, prompt=texts)


string_embeddings_agent_info = AgentInfo(
    name="stringEmbeddingsAgent",
    func=string_embeddings_agent,
    runs_local=True,  # the embedded model is loaded once in this process
    outside=True,  # asks a server (or the embedded model): journaled, so a replay needs neither
    description="Embeddings Agent: embedding vectors of strings from OpenAI, any OpenAI-compatible server, "
                "Ollama, or the embedded model",
    inputs={
        "type": "object",
        "properties": {
            "array": {"type": "array", "items": {"type": "string"}, "description": "the strings to embed"},
            "item": {"type": "string", "description": "one string to embed (when there is no array)"},
        },
    },
    params={
        "type": "object",
        "properties": {
            "model": {"type": "string", "description": f"default {DEFAULT_EMBEDDING_MODEL}"},
            "apiKey": {"type": "string"},
            "baseURL": {"type": "string", "description": "the embeddings endpoint, e.g. http://127.0.0.1:11434/api/embed"},
            "timeout": {"type": "number"},
            "maxRetries": {"type": "integer"},
            "retryDelay": {"type": "number"},
        },
    },
    output={"type": "array", "items": {"type": "array", "items": {"type": "number"}}},
    category=("embedding",),
    author="Receptron team (GraphAI), graphrt",
    repository="https://github.com/receptron/graphai",
    source="https://github.com/receptron/graphai/blob/main/agents/vanilla_agents/src/embedding_agent.ts",
    package="@graphai/vanilla",
    cache_type="pureAgent",
    license="MIT",
    environment_variables=("OPENAI_API_KEY", "OPENAI_BASE_URL"),
)

AGENTS: list[AgentInfo] = [string_embeddings_agent_info]
