"""Which GGUF the embedded model serves: GRAPHRT_LOCAL_MODEL, `--local-model`, else the default (no model runs here)."""

from __future__ import annotations

from pathlib import Path

import pytest
from graphrt_agents.llm import local_model
from graphrt_agents.llm.local_model import EmbeddedModelError, model_file, model_name

from graphrt import AgentError
from graphrt.cli.main import main


@pytest.mark.parametrize(
    ("file", "name"),
    [
        ("SmolLM2-135M-Instruct.Q4_1.gguf", "SmolLM2-135M-Instruct"),
        ("qwen2.5-1.5b-instruct-q4_k_m.gguf", "qwen2.5-1.5b-instruct"),
        ("Llama-3.2-3B-Instruct-IQ4_XS.gguf", "Llama-3.2-3B-Instruct"),
        ("phi-4-mini.F16.gguf", "phi-4-mini"),
        ("my-model.gguf", "my-model"),
    ],
)
def test_the_model_is_named_after_its_file_without_the_quantisation(file: str, name: str):
    assert model_name(Path(file)) == name


def test_graphrt_local_model_names_the_file_to_serve(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    gguf = tmp_path / "Mine-7B.Q4_K_M.gguf"
    gguf.write_bytes(b"GGUF\x03\x00\x00\x00")
    monkeypatch.setenv("GRAPHRT_LOCAL_MODEL", str(gguf))
    assert model_file() == gguf


@pytest.mark.parametrize(("content", "problem"), [(None, "no such file"), (b"<html>", "not a GGUF file")])
def test_a_local_model_that_is_no_gguf_file_is_an_error_that_names_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                     content: bytes | None, problem: str):
    path = tmp_path / "model.gguf"
    if content is not None:
        path.write_bytes(content)
    monkeypatch.setenv("GRAPHRT_LOCAL_MODEL", str(path))
    with pytest.raises(EmbeddedModelError) as caught:
        model_file()
    assert str(caught.value) == f"GRAPHRT_LOCAL_MODEL={path}: {problem}"


def test_without_a_choice_the_default_model_is_served(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("GRAPHRT_LOCAL_MODEL", raising=False)
    monkeypatch.setattr(local_model, "find_gguf", lambda: Path("/models/default.gguf"))
    assert model_file() == Path("/models/default.gguf")


def test_the_cli_option_chooses_the_local_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GRAPHRT_LOCAL_MODEL", "")  # restored after the test: the option sets it
    graph = tmp_path / "ask.yaml"
    graph.write_text("version: 0.5\nnodes:\n  llm:\n    agent: openAIAgent\n    inputs: {prompt: hi}\n    isResult: true\n")
    missing = tmp_path / "absent.gguf"
    assert main(["run", str(graph), "--local-model", str(missing), "-q"]) == 1
    printed = capsys.readouterr().err
    assert f"{graph}:3:3: node 'llm'" in printed and f"GRAPHRT_LOCAL_MODEL={missing}: no such file" in printed


@pytest.mark.anyio
async def test_a_run_with_a_missing_local_model_fails_the_node_with_that_error(run_graph, tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GRAPHRT_LOCAL_MODEL", str(tmp_path / "absent.gguf"))
    with pytest.raises(AgentError) as caught:
        await run_graph({"version": 0.5, "nodes": {"llm": {"agent": "openAIAgent", "inputs": {"prompt": "hi"}}}})
    assert caught.value.message == f"GRAPHRT_LOCAL_MODEL={tmp_path / 'absent.gguf'}: no such file"
