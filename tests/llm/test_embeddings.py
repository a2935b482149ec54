"""stringEmbeddingsAgent through the real `openai` SDK against a scripted embeddings server, and with
dotProductAgent and sortByValuesAgent as GraphAI's RAG samples use it."""

from __future__ import annotations

import pytest

from graphrt.base.errors import AgentError
from graphrt.observe.events import AgentProgress, LlmCallFinished, LlmCallStarted

from .scripted_providers import Garbage, text_vector

pytestmark = pytest.mark.anyio


def _graph(inputs, **node):
    return {"version": 0.5, "nodes": {"embed": {"agent": "stringEmbeddingsAgent", "inputs": inputs,
                                                "isResult": True, **node}}}


async def test_an_array_gets_one_vector_per_string_in_order(embeddings_api, reply, run_graph):
    embeddings_api.script(reply.text(""))
    results = await run_graph(_graph({"array": ["banana", "kiwi", "apple"]}))
    assert results["embed"] == [text_vector("banana"), text_vector("kiwi"), text_vector("apple")]
    sent = embeddings_api.requests[0]
    assert sent.path == "/v1/embeddings"
    assert sent.body == {"input": ["banana", "kiwi", "apple"], "model": "text-embedding-3-small",
                         "encoding_format": "float"}
    assert sent.headers["authorization"] == "Bearer sk-embed-secret"


async def test_an_item_is_one_string(embeddings_api, reply, run_graph):
    embeddings_api.script(reply.text(""))
    results = await run_graph(_graph({"item": "sentence by the court"}, params={"model": "nomic-embed-text"}))
    assert results["embed"] == [text_vector("sentence by the court")]
    assert embeddings_api.requests[0].body["model"] == "nomic-embed-text"


@pytest.mark.parametrize("endpoint, path", [("/v1/embeddings", "/v1/embeddings"), ("/v1", "/v1/embeddings"),
                                            ("/api/embed", "/api/embed")])
async def test_base_url_is_the_endpoint_as_in_graphai_or_a_base(embeddings_api, reply, run_graph, endpoint, path):
    embeddings_api.script(reply.text(""))
    results = await run_graph(_graph({"array": ["a", "b"]}, params={"baseURL": embeddings_api.url + endpoint}))
    assert results["embed"] == [text_vector("a"), text_vector("b")]
    assert embeddings_api.requests[0].path == path


async def test_similar_texts_rank_first_through_dot_products(embeddings_api, reply, run_graph):
    embeddings_api.script(reply.text(""), reply.text(""))
    chunks = ["zzz", "banana bandana", "kiwi"]
    graph = {"version": 0.5, "nodes": {
        "chunks": {"value": chunks},
        "chunkEmbeddings": {"agent": "stringEmbeddingsAgent", "inputs": {"array": ":chunks"}},
        "topicEmbedding": {"agent": "stringEmbeddingsAgent", "inputs": {"item": "banana"}},
        "similarities": {"agent": "dotProductAgent", "inputs": {"matrix": ":chunkEmbeddings",
                                                                 "vector": ":topicEmbedding.$0"}},
        "sorted": {"agent": "sortByValuesAgent", "inputs": {"array": ":chunks", "values": ":similarities"},
                   "isResult": True},
    }}
    results = await run_graph(graph)
    assert results["sorted"][0] == "banana bandana"


async def test_server_errors_are_clear_and_hide_the_key(embeddings_api, reply, run_graph):
    embeddings_api.script(reply.error(401, "Incorrect API key provided: sk-embed-secret"))
    with pytest.raises(AgentError) as caught:
        await run_graph(_graph({"item": "x"}))
    assert caught.value.message == (f"stringEmbeddingsAgent: {embeddings_api.url}/v1 HTTP 401: "
                                           "Incorrect API key provided: REDACTED")


async def test_5xx_is_retried(embeddings_api, reply, run_graph):
    embeddings_api.script(reply.error(503, "busy", retry_after="0"), reply.text(""))
    results = await run_graph(_graph({"item": "x"}))
    assert results["embed"] == [text_vector("x")] and len(embeddings_api.requests) == 2


@pytest.mark.parametrize("garbage", [Garbage(), Garbage(b'{"data": [{"embedding": "no"}]}', "application/json"),
                                     Garbage(b'{"object": "list", "data": []}', "application/json")])
async def test_an_answer_that_is_not_one_vector_per_string_is_an_error(embeddings_api, run_graph, garbage):
    embeddings_api.script(garbage)
    with pytest.raises(AgentError) as caught:
        await run_graph(_graph({"array": ["a", "b"]}, params={"maxRetries": 0}))
    assert caught.value.message.startswith(f"stringEmbeddingsAgent: {embeddings_api.url}/v1 the reply ")


async def test_strings_are_required(embeddings_api, run_graph):
    with pytest.raises(AgentError, match="inputs.array must be a list of strings, or inputs.item a string"):
        await run_graph(_graph({"array": [1, 2]}))
    assert embeddings_api.requests == []


async def test_each_attempt_is_reported_and_each_retry_said(embeddings_api, reply, run_graph, events):
    embeddings_api.script(reply.error(503, "busy", retry_after="0"), reply.text(""))
    await run_graph(_graph({"item": "x"}))
    said = [(type(event).__name__, getattr(event, "error", None) or getattr(event, "message", None))
            for event in events if isinstance(event, (LlmCallStarted, LlmCallFinished, AgentProgress))]
    busy = f"{embeddings_api.url}/v1 HTTP 503: busy"
    assert said == [("LlmCallStarted", None), ("LlmCallFinished", busy), ("AgentProgress", f"retrying in 0.0s: {busy}"),
                    ("LlmCallStarted", None), ("LlmCallFinished", None)]


async def test_5xx_past_the_retries_says_how_many_attempts(embeddings_api, reply, run_graph):
    embeddings_api.script(*[reply.error(500, "boom") for _ in range(2)])
    with pytest.raises(AgentError) as caught:
        await run_graph(_graph({"item": "x"}, params={"maxRetries": 1, "retryDelay": 0}))
    assert caught.value.message == f"stringEmbeddingsAgent: {embeddings_api.url}/v1 HTTP 500: boom after 2 attempts"
    assert len(embeddings_api.requests) == 2


async def test_an_answer_that_is_not_one_vector_per_string_is_asked_again(embeddings_api, reply, run_graph):
    embeddings_api.script(Garbage(b'{"object": "list", "data": []}', "application/json"), reply.text(""))
    results = await run_graph(_graph({"array": ["a", "b"]}, params={"retryDelay": 0}))
    assert results["embed"] == [text_vector("a"), text_vector("b")]
    assert len(embeddings_api.requests) == 2
