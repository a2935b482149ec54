"""Credentials (API keys, Authorization headers, config apiKey, URL passwords) never reach traces, errors or the
terminal, nor a checkpoint's config and graph copy; a checkpoint's data is kept as it is, in a file only its owner
reads, but for the credentials the run knows (its environment's, config's and graph's), hidden there too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

import graphrt
from graphrt.checkpoint import SQLiteStore
from graphrt.cli import main
from graphrt.durable import from_checkpoint, run_checkpointed

ENV_KEY = "sk-env-secret-0123456789abcdef"
CONFIG_KEY = "sk-config-secret-abcdef0123456789"
FILE_KEY = "literal-key-in-the-file-42"
BEARER = "Bearer file-bearer-token-0123456789"

GRAPH = f"""\
version: 0.5
nodes:
  topic:
    value: tea
  ask:
    agent: openAIAgent
    inputs:
      prompt: :topic
    params:
      maxRetries: 0
  fetch_settings:
    agent: copyAgent
    inputs:
      unused: :topic
    params:
      apiKey: {FILE_KEY}
      headers:
        Authorization: {BEARER}
  answer:
    agent: copyAgent
    inputs:
      text: :ask.text
    isResult: true
"""


def _saved(folder: Path, method: str, run_id: str) -> Any:
    """`get_run` or `get_rows` of the SQLite checkpoint runs.db in `folder`."""

    async def read() -> Any:
        store = SQLiteStore(folder / "runs.db")
        try:
            return await getattr(store, method)(run_id)
        finally:
            await store.close()

    return anyio.run(read)


def _everything_saved(folder: Path) -> str:
    return "".join(path.read_bytes().decode("utf-8", "replace") for path in sorted(folder.iterdir()) if path.is_file())


@pytest.fixture
def openai_api_key() -> str:
    """The environment's key, which the tests look for in everything a run saves or prints."""
    return ENV_KEY


@pytest.fixture
def graph_file(tmp_path: Path) -> Path:
    folder = tmp_path / "graph"
    folder.mkdir()
    (folder / "ask.yaml").write_text(GRAPH)
    return folder / "ask.yaml"


def test_a_run_saves_no_api_key_in_its_checkpoint_trace_or_output(openai_server, reply, graph_file, tmp_path, capsys) -> None:
    openai_server.script(reply.error(401, f"Incorrect API key provided: {ENV_KEY}"))
    saved = tmp_path / "saved"
    saved.mkdir()

    code = main(["run", str(graph_file), "--checkpoint", str(saved / "runs.db"), "--run-id", "r1",
                 "--trace", str(saved / "trace.jsonl")])

    output = capsys.readouterr()
    assert code == 1
    assert openai_server.headers[0]["authorization"] == f"Bearer {ENV_KEY}"  # the key was used...
    for secret in (ENV_KEY, FILE_KEY, BEARER):  # ...and shown or saved nowhere
        assert secret not in _everything_saved(saved) + output.out + output.err


def test_a_config_api_key_is_saved_redacted_and_resume_uses_the_environment(openai_server, reply, graph_file, tmp_path) -> None:
    openai_server.script(reply.error(500, "down"))
    graph = graphrt.Graph(graph_file, config={"openAIAgent": {"apiKey": CONFIG_KEY, "model": "m"}})
    with pytest.raises(graphrt.AgentError):
        run_checkpointed(graph, tmp_path / "runs.db", run_id="r1")
    openai_server.script(reply.text("green tea"))

    results = graphrt.resume(tmp_path / "runs.db", "r1")

    assert results == {"answer": {"text": "green tea"}}
    assert _saved(tmp_path, "get_run", "r1").config == {"openAIAgent": {"apiKey": "REDACTED", "model": "m"}}
    assert openai_server.headers[-1]["authorization"] == f"Bearer {ENV_KEY}"
    assert CONFIG_KEY not in _everything_saved(tmp_path)


def test_keys_written_in_the_graph_file_are_not_copied_into_the_checkpoint(openai_server, reply, graph_file, tmp_path) -> None:
    openai_server.script(reply.text("fine"))

    run_checkpointed(graphrt.Graph(graph_file), tmp_path / "runs.db", run_id="r1")

    text = _saved(tmp_path, "get_run", "r1").graph_text
    assert "apiKey: REDACTED" in text and "Authorization: REDACTED" in text
    assert FILE_KEY not in _everything_saved(tmp_path)


def test_a_node_result_under_a_secret_sounding_key_is_saved_as_it_is(tmp_path: Path) -> None:
    # A checkpoint holds data, not logs: resuming must give exactly what an uninterrupted run gives. (A credential
    # the run knows is the exception: test_a_known_key_in_a_result_is_saved_hidden_and_other_data_as_it_is.)
    value = {"token": "abc-secret-value", "nextPageToken": "p2", "note": "the token is tok-not-one-the-run-knows-42",
             "key": "sk-aaaaaaaaaaaaaaaaaaaaaaaa"}

    async def page(ctx):
        return value

    agents = [graphrt.AgentInfo("pageAgent", page)]
    graph = graphrt.Graph({"version": 0.5, "nodes": {"page": {"agent": "pageAgent", "isResult": True}}}, agents=agents)

    assert run_checkpointed(graph, tmp_path / "runs.db", run_id="r1") == {"page": value}
    row = _saved(tmp_path, "get_rows", "r1")[-1]
    assert json.loads(row.value) == value
    assert graphrt.resume(tmp_path / "runs.db", "r1", agents=agents) == {"page": value}


def test_a_checkpoint_file_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    run_checkpointed(graphrt.Graph({"nodes": {"a": {"value": 1}, "b": {"agent": "copyAgent", "inputs": {"a": ":a"}}}}),
                     tmp_path / "runs.db")

    paths = list(tmp_path.iterdir())  # the database, SQLite's -wal and -shm files, the folder of run claims
    assert tmp_path / "runs.db" in paths
    for path in paths:
        assert path.stat().st_mode & 0o777 == (0o700 if path.is_dir() else 0o600), path.name


def test_an_injected_value_is_saved_as_it_is(tmp_path: Path) -> None:
    data = {"version": 0.5, "nodes": {"apiKey": {"value": "none"},
                                      "use": {"agent": "copyAgent", "inputs": {"k": ":apiKey"}, "isResult": True}}}
    graph = graphrt.Graph(data)

    run_checkpointed(graph, tmp_path / "runs.db", run_id="r1", inject={"apiKey": "sk-injected-0123456789abcdef"})

    assert _saved(tmp_path, "get_run", "r1").injected == {"apiKey": "sk-injected-0123456789abcdef"}


def test_a_dict_graph_is_saved_with_its_data_and_without_its_credentials(tmp_path: Path) -> None:
    data = {"version": 0.5, "nodes": {
        "page": {"value": {"nextPageToken": "p2", "password_hint": "blue"}},
        "use": {"agent": "copyAgent", "inputs": {"p": ":page"}, "isResult": True,
                "params": {"apiKey": "sk-in-params-0123456789abcdef", "baseURL": "http://me:hunter2pass@127.0.0.1:9/v1"}},
    }}
    graph = graphrt.Graph(data, config={"openAIAgent": {"baseURL": "http://me:hunter2pass@127.0.0.1:9/v1", "model": "m"}})

    run_checkpointed(graph, tmp_path / "runs.db", run_id="r1")

    record = _saved(tmp_path, "get_run", "r1")
    saved = json.loads(record.graph_text)
    assert saved["nodes"]["page"] == data["nodes"]["page"]
    assert saved["nodes"]["use"]["params"] == {"apiKey": "REDACTED", "baseURL": "http://me:REDACTED@127.0.0.1:9/v1"}
    assert record.config == {"openAIAgent": {"baseURL": "REDACTED", "model": "m"}}
    for secret in ("sk-in-params-0123456789abcdef", "hunter2pass"):
        assert secret not in _everything_saved(tmp_path)
    assert from_checkpoint(tmp_path / "runs.db", "r1")[0].run() == {"use": {"p": data["nodes"]["page"]["value"]}}


URL_PASSWORD_GRAPH = """\
version: 0.5
nodes:
  topic: {value: tea}
  ask:
    agent: openAIAgent
    inputs: {prompt: ":topic"}
    params: {baseURL: "http://me:hunter2-url-password@127.0.0.1:9/v1", model: m, maxRetries: 0}
    isResult: true
"""


def test_a_password_in_a_base_url_is_in_no_error_trace_or_checkpoint(tmp_path: Path, capsys) -> None:
    saved = tmp_path / "saved"
    saved.mkdir()
    (tmp_path / "g.yaml").write_text(URL_PASSWORD_GRAPH)

    code = main(["run", str(tmp_path / "g.yaml"), "--checkpoint", str(saved / "runs.db"), "--run-id", "r1",
                 "--trace", str(saved / "trace.jsonl")])

    output = capsys.readouterr()
    assert code == 1
    assert "http://me:REDACTED@127.0.0.1:9/v1 could not connect" in output.err
    assert "hunter2-url-password" not in _everything_saved(saved) + output.out + output.err


def test_an_api_key_of_the_wrong_type_is_not_shown_in_a_warning(tmp_path: Path, capsys) -> None:
    (tmp_path / "g.yaml").write_text(URL_PASSWORD_GRAPH.replace("baseURL", "apiKey: [sk-listed-0123456789abcdef], baseURL"))

    main(["validate", str(tmp_path / "g.yaml")])

    output = capsys.readouterr()
    assert "params.apiKey: openAIAgent param schema: must be string, got array (a credential: its value is not shown)" in (
        output.out + output.err)
    assert "sk-listed-0123456789abcdef" not in output.out + output.err


def test_a_config_saved_with_an_earlier_graphrts_mask_is_resumed_without_it() -> None:
    from graphrt.durable.credentials import saved_config, usable_config

    saved = {"openAIAgent": {"apiKey": "[redacted]", "baseURL": "REDACTED", "model": "m"}}
    assert usable_config(saved, None) == {"openAIAgent": {"model": "m"}}
    assert saved_config({"fetch": {"url": "https://h/v1?api_key=k-123"}}) == {"fetch": {"url": "REDACTED"}}


def test_a_token_in_a_params_url_is_not_copied_into_the_saved_graph() -> None:
    from graphrt.durable.credentials import saved_source

    text = "nodes:\n  get:\n    agent: fetchAgent\n    params:\n      url: https://h/v1?access_token=tok-in-a-query-42\n"
    data = {"nodes": {"get": {"agent": "fetchAgent", "params": {"url": "https://h/v1?access_token=tok-in-a-query-42"}}}}
    assert saved_source(text, data) == text.replace("tok-in-a-query-42", "REDACTED")


CONFIG_ONLY_KEY = "cfg-key-7d1e9a0b55c2f3"  # no pattern finds it: only knowing it hides it


def test_a_key_the_llm_server_echoes_is_neither_printed_nor_saved(openai_server, reply, graph_file, tmp_path,
                                                                  capsys) -> None:
    openai_server.script(reply.text(f"Your key is {ENV_KEY}, and the other one {CONFIG_ONLY_KEY}."))
    (tmp_path / "config.json").write_text(json.dumps({"copyAgent": {"apiKey": CONFIG_ONLY_KEY}}))
    saved = tmp_path / "saved"
    saved.mkdir()

    code = main(["run", "-q", str(graph_file), "--checkpoint", str(saved / "runs.db"), "--run-id", "r1",
                 "--trace", str(saved / "trace.jsonl"), "--config", str(tmp_path / "config.json")])

    output = capsys.readouterr()
    assert code == 0
    assert json.loads(output.out) == {"answer": {"text": "Your key is REDACTED, and the other one REDACTED."}}
    for secret in (ENV_KEY, CONFIG_ONLY_KEY):
        assert secret not in _everything_saved(saved) + output.out + output.err
    assert _saved(saved, "get_run", "r1").results == {"answer": {"text": "Your key is REDACTED, and the other one "
                                                                         "REDACTED."}}


def test_a_known_key_in_a_result_is_saved_hidden_and_other_data_as_it_is(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("SERVICE_TOKEN", "tok-from-the-environment-42")
    value = {"note": "the token is tok-from-the-environment-42", "pin": 31415926535, "token": "abc-secret-value"}

    async def page(ctx):
        return value

    agents = [graphrt.AgentInfo("pageAgent", page)]
    data = {"version": 0.5, "nodes": {"page": {"agent": "pageAgent", "params": {"apiKey": 31415926535},
                                               "isResult": True}}}

    assert run_checkpointed(graphrt.Graph(data, agents=agents), tmp_path / "runs.db", run_id="r1") == {"page": value}
    hidden = {"note": "the token is REDACTED", "pin": "REDACTED", "token": "abc-secret-value"}
    assert json.loads(_saved(tmp_path, "get_rows", "r1")[-1].value) == hidden
    assert _saved(tmp_path, "get_run", "r1").results == {"page": hidden}


def test_a_numeric_api_key_is_not_copied_into_the_checkpoint(tmp_path: Path) -> None:
    (tmp_path / "g.yaml").write_text("version: 0.5\nnodes:\n  a:\n    value: 1\n  b:\n    agent: copyAgent\n"
                                     "    inputs: {a: ':a'}\n    params: {apiKey: 8675309012345, retries: 8675}\n"
                                     "    isResult: true\n")
    graph = graphrt.Graph(tmp_path / "g.yaml", config={"openAIAgent": {"apiKey": 5550123456789, "model": "m"}})

    saved = tmp_path / "saved"
    saved.mkdir()

    run_checkpointed(graph, saved / "runs.db", run_id="r1")

    record = _saved(saved, "get_run", "r1")
    assert "params: {apiKey: REDACTED, retries: 8675}" in record.graph_text
    assert record.config == {"openAIAgent": {"apiKey": "REDACTED", "model": "m"}}
    for secret in ("8675309012345", "5550123456789"):
        assert secret not in _everything_saved(saved)
