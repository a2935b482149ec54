"""The embedded default model, for real: SmolLM2-135M-Instruct on a local llama.cpp server.

These tests need `pip install '.[local]'` and are skipped without it. They are
kept short: a tiny model on two CPU cores, a few small replies.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from graphrt_agents.llm import local_model

import graphrt

from ..conftest import need

GRAPHS = Path(__file__).parents[2] / "graphs"
CORPUS = Path(__file__).parent / "data" / "wiki_corpus.json"

pytestmark = [
    pytest.mark.local_model,
    pytest.mark.needs("embedded_model"),
]


@pytest.fixture(scope="module", autouse=True)
def _stop_the_server_after_these_tests():
    yield
    local_model.stop_server()


@pytest.fixture
def no_configured_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """No key, base URL or model in the environment: the embedded model answers (one server for the module)."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"):
        monkeypatch.delenv(name, raising=False)


def test_the_gguf_is_found_without_importing_its_package():
    path = local_model.find_gguf()
    assert path is not None and path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert local_model.MODEL_PACKAGE not in sys.modules


@pytest.mark.anyio
async def test_the_readme_s_first_command_answers_right_on_the_embedded_model(no_configured_server):
    need("wiki")
    graph = graphrt.Graph(GRAPHS / "react.yaml")  # the shipped corpus, as `graphrt run graphs/react.yaml` reads it
    results = await graph.arun(inject={"question": "Who designed the Eiffel Tower?"})
    assert results == {"answer": "Gustave Eiffel", "status": "finished", "steps": 2, "model": "SmolLM2-135M-Instruct"}


@pytest.mark.anyio
async def test_two_streamed_calls_at_once_both_get_their_whole_reply(no_configured_server):
    from graphrt.observe.events import LlmCallFinished

    def llm(prompt: str) -> dict:
        return {"agent": "openAIAgent", "inputs": {"prompt": prompt},
                "params": {"stream": True, "temperature": 0, "max_tokens": 24}, "isResult": True}

    graph = graphrt.Graph({"version": 0.5, "nodes": {"one": llm("Name a colour."), "two": llm("Name a fruit.")}})
    calls: list[LlmCallFinished] = []
    results = await graph.arun(subscribe=[lambda event: calls.append(event) if isinstance(event, LlmCallFinished) else None])
    for node in ("one", "two"):
        assert isinstance(results[node]["text"], str) and results[node]["text"].strip()
        assert results[node]["choices"][0]["finish_reason"] in ("stop", "length")
    # neither stream was cut short by the other (a cut one would be retried, and its attempt would show the error)
    assert [call.error for call in calls] == [None, None]


@pytest.mark.anyio
async def test_any_gguf_named_by_graphrt_local_model_is_served(tmp_path: Path, no_configured_server,
                                                               monkeypatch: pytest.MonkeyPatch):
    chosen = tmp_path / "My-Own-Model.Q4_1.gguf"
    chosen.symlink_to(local_model.find_gguf())
    monkeypatch.setenv("GRAPHRT_LOCAL_MODEL", str(chosen))
    local_model.stop_server()  # the server serves one model for the process: start it with this one
    try:
        graph = graphrt.Graph({"version": 0.5, "nodes": {"llm": {
            "agent": "openAIAgent", "inputs": {"prompt": "Say hi."}, "params": {"max_tokens": 8}, "isResult": True}}})
        results = await graph.arun()
        assert results["llm"]["model"] == "My-Own-Model"
        assert results["llm"]["text"]
    finally:
        local_model.stop_server()


def test_the_mcp_example_calls_no_tool_on_the_embedded_model_as_the_readme_says(no_configured_server, tmp_path,
                                                                                 monkeypatch):
    """README.md and graphs/mcp_files.yaml say so: if this model ever calls the tools, say that instead."""
    from graphrt.mcp.config import load_config_file

    (tmp_path / "todo.txt").write_text("Water the plants on Tuesday.\n")
    monkeypatch.setenv("FILES_ROOT", str(tmp_path))
    results = graphrt.run(GRAPHS / "mcp_files.yaml", config={"mcp": load_config_file(str(GRAPHS / "mcp_files.json"))})
    assert results["toolsUsed"] == [] and "Tuesday" not in results["answer"], results
