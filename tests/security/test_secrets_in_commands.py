"""What graphrt's commands print or write leaves out the credentials the run knows (its environment's, its config's,
its graph's params), when an LLM server echoes one back or an agent's error quotes one: resume's and fork's results,
traces and error lines, batch's output lines, the error lines of `graphrt run`, and the live display on a terminal.

The keys here are of no shape a pattern finds: only knowing them hides them (graphrt.base.secrets, `known_credentials`).
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

import graphrt
from graphrt.checkpoint import SQLiteStore
from graphrt.cli import main
from graphrt.engine.executor import Executor

ENV_KEY = "sk-env-secret-0123456789abcdef"
CONFIG_ONLY_KEY = "cfg-key-7d1e9a0b55c2f3"  # in --config alone
PARAMS_KEY = "params-key-4c8e1f0a9b"  # in the graph file's params alone

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
  settings:
    agent: copyAgent
    inputs:
      unused: :topic
    params:
      apiKey: {PARAMS_KEY}
  answer:
    agent: copyAgent
    inputs:
      text: :ask.text
    isResult: true
"""


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def openai_api_key() -> str:
    return ENV_KEY


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    """The graph, a config that alone knows CONFIG_ONLY_KEY, and where runs are saved and traced."""
    (tmp_path / "g.yaml").write_text(GRAPH)
    (tmp_path / "config.json").write_text(json.dumps({"copyAgent": {"apiKey": CONFIG_ONLY_KEY}}))
    return {"graph": str(tmp_path / "g.yaml"), "config": str(tmp_path / "config.json"),
            "db": str(tmp_path / "runs.db"), "trace": str(tmp_path / "trace.jsonl")}


def _echo(*keys: str) -> str:
    return "Your keys: " + ", ".join(keys) + "."


def _hidden(*keys: str) -> str:
    return _echo(*("REDACTED" for _ in keys))


def _shown(output: pytest.CaptureResult, *paths: str) -> str:
    """Everything the command printed, and the files it wrote."""
    return output.out + output.err + "".join(Path(path).read_text() for path in paths if Path(path).exists())


def test_resume_prints_and_traces_its_results_without_a_key_of_the_graphs_params(openai_server, reply, files,
                                                                                 capsys) -> None:
    openai_server.script(reply.error(500, "down"))
    assert main(["run", "-q", files["graph"], "--checkpoint", files["db"], "--run-id", "r1"]) == 1
    openai_server.script(reply.text(_echo(PARAMS_KEY, ENV_KEY)))
    capsys.readouterr()

    code = main(["resume", "--checkpoint", files["db"], "--run-id", "r1", "-q", "--trace", files["trace"]])

    output = capsys.readouterr()
    assert code == 0
    assert json.loads(output.out) == {"answer": {"text": _hidden(PARAMS_KEY, ENV_KEY)}}
    assert PARAMS_KEY not in _shown(output, files["trace"])
    assert _hidden(PARAMS_KEY, ENV_KEY) in Path(files["trace"]).read_text()


def test_resume_s_error_line_hides_a_key_of_the_graphs_params(openai_server, reply, files, capsys) -> None:
    openai_server.script(reply.error(500, "down"))
    assert main(["run", "-q", files["graph"], "--checkpoint", files["db"], "--run-id", "r1"]) == 1
    openai_server.script(reply.error(400, f"the key {PARAMS_KEY} is not valid here"))
    capsys.readouterr()

    code = main(["resume", "--checkpoint", files["db"], "--run-id", "r1", "-q"])

    output = capsys.readouterr()
    assert code == 1
    assert "the key REDACTED is not valid here" in output.err
    assert PARAMS_KEY not in _shown(output)


def test_fork_prints_and_traces_its_results_without_a_key_of_the_graphs_params(openai_server, reply, files,
                                                                               capsys) -> None:
    openai_server.script(reply.text("green tea"))
    assert main(["run", "-q", files["graph"], "--checkpoint", files["db"], "--run-id", "r1"]) == 0
    openai_server.script(reply.text(_echo(PARAMS_KEY)))
    capsys.readouterr()

    code = main(["fork", "--run-id", "r1", "--from", "ask", "--checkpoint", files["db"], "--trace", files["trace"]])

    output = capsys.readouterr()
    assert code == 0
    assert json.loads(output.out) == {"answer": {"text": _hidden(PARAMS_KEY)}}
    assert PARAMS_KEY not in _shown(output, files["trace"])


def test_fork_s_error_line_hides_the_environment_s_secrets(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("SERVICE_TOKEN", "tok-from-the-environment-42")
    (tmp_path / "bad_agents.py").write_text('import os\nraise RuntimeError("cannot log in with " + '
                                            'os.environ["SERVICE_TOKEN"])\n')
    monkeypatch.chdir(tmp_path)

    code = main(["fork", "--run-id", "r1", "--from", "ask", "--agents", "bad_agents.py", "--checkpoint", "runs.db"])

    assert code == 1
    assert capsys.readouterr().err == ("graphrt: cannot import agent module 'bad_agents.py': RuntimeError: cannot log "
                                       "in with REDACTED\n")


@pytest.mark.parametrize("saved", [False, True], ids=["run", "run --checkpoint"])
def test_run_s_error_line_hides_a_key_of_its_config(openai_server, reply, files, saved, capsys) -> None:
    openai_server.script(reply.error(400, f"the key {CONFIG_ONLY_KEY} is not valid here"))
    checkpoint = ["--checkpoint", files["db"]] if saved else []

    code = main(["run", "-q", files["graph"], "--config", files["config"], *checkpoint])

    output = capsys.readouterr()
    assert code == 1
    assert "the key REDACTED is not valid here" in output.err
    assert CONFIG_ONLY_KEY not in _shown(output)


ASKS = """\
version: 0.5
nodes:
  ask:
    agent: openAIAgent
    inputs:
      prompt: Which key?
    params:
      maxRetries: 0
  confirm:
    agent: textInputAgent
    inputs:
      message: :ask.text
    isResult: true
"""


@pytest.mark.parametrize("saved", [False, True], ids=["run", "run --checkpoint"])
def test_a_question_that_quotes_a_key_of_the_config_is_printed_without_it(openai_server, reply, files, tmp_path,
                                                                          saved, capsys) -> None:
    (tmp_path / "asks.yaml").write_text(ASKS)
    openai_server.script(reply.text(f"Is {CONFIG_ONLY_KEY} yours?"))
    checkpoint = ["--checkpoint", files["db"]] if saved else []

    code = main(["run", "-q", str(tmp_path / "asks.yaml"), "--config", files["config"], *checkpoint])

    output = capsys.readouterr()
    assert code == 3
    assert "node 'confirm': waiting for an answer: Is REDACTED yours?\n" in output.err
    assert CONFIG_ONLY_KEY not in _shown(output)


def _batch_files(tmp_path: Path) -> tuple[Path, Path]:
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"topic": "tea"}\n{"topic": "coffee"}\n')
    return rows, tmp_path / "out.jsonl"


def test_batch_writes_its_rows_results_and_errors_without_a_key_of_its_config(openai_server, reply, files, tmp_path,
                                                                              capsys) -> None:
    rows, out = _batch_files(tmp_path)
    openai_server.script(reply.text(_echo(CONFIG_ONLY_KEY, PARAMS_KEY)),
                         reply.error(400, f"the key {CONFIG_ONLY_KEY} is not valid here"))

    code = main(["batch", files["graph"], str(rows), "-o", str(out), "--config", files["config"], "--concurrency", "1"])

    output = capsys.readouterr()
    assert code == 1
    first, second = [json.loads(line) for line in out.read_text().splitlines()]
    assert first.pop("usage")["llm_calls"] == 1  # what the row spent, beside its results
    assert first == {"row": 1, "status": "finished",
                     "results": {"answer": {"text": _hidden(CONFIG_ONLY_KEY, PARAMS_KEY)}}}
    assert "the key REDACTED is not valid here" in second["error"]["message"]
    assert CONFIG_ONLY_KEY not in _shown(output, str(out)) and PARAMS_KEY not in _shown(output, str(out))


def test_batch_on_stdout_writes_no_key_of_its_config(openai_server, reply, files, tmp_path, capsys) -> None:
    rows, _ = _batch_files(tmp_path)
    openai_server.script(reply.text(_echo(CONFIG_ONLY_KEY)), reply.text("fine"))

    code = main(["batch", "-q", files["graph"], str(rows), "--config", files["config"], "--concurrency", "1",
                 "--no-checkpoint"])

    output = capsys.readouterr()
    assert code == 0
    assert json.loads(output.out.splitlines()[0])["results"] == {"answer": {"text": _hidden(CONFIG_ONLY_KEY)}}
    assert CONFIG_ONLY_KEY not in _shown(output)


def test_a_batch_on_an_executor_saves_no_key_of_its_config_in_its_rows_runs(openai_server, reply, files,
                                                                            tmp_path) -> None:
    # The driver saves each row's end when the rows run elsewhere (batches/ledger.py): results and error alike.
    rows, _ = _batch_files(tmp_path)
    openai_server.script(reply.text(_echo(CONFIG_ONLY_KEY)), reply.error(400, f"the key {CONFIG_ONLY_KEY} is bad"))
    graph = graphrt.Graph(files["graph"], config={"copyAgent": {"apiKey": CONFIG_ONLY_KEY}})
    store = tmp_path / "saved"
    store.mkdir()

    outcomes = graphrt.batch(graph, rows, checkpoint=store / "runs.db", executor=Executor(), concurrency=1)

    assert outcomes[0].results == {"answer": {"text": _echo(CONFIG_ONLY_KEY)}}  # the API's outcomes are data
    assert [outcome.status for outcome in outcomes] == ["finished", "failed"]
    first, second = _saved_runs(store / "runs.db", "g:rows/1", "g:rows/2")
    assert first.results == {"answer": {"text": _hidden(CONFIG_ONLY_KEY)}}
    assert "the key REDACTED is bad" in second.detail["error"]
    assert CONFIG_ONLY_KEY not in "".join(path.read_bytes().decode("utf-8", "replace") for path in store.iterdir()
                                          if path.is_file())


def _saved_runs(path: Path, *run_ids: str) -> list[Any]:
    async def read() -> list[Any]:
        store = SQLiteStore(path)
        try:
            return [await store.get_run(run_id) for run_id in run_ids]
        finally:
            await store.close()

    return anyio.run(read)


STREAMED = GRAPH.replace("maxRetries: 0", "maxRetries: 0\n      stream: true")


def test_the_display_on_a_terminal_shows_no_key_of_the_config_even_streamed_in_pieces(openai_server, reply, files,
                                                                                      tmp_path, monkeypatch,
                                                                                      capsys) -> None:
    (tmp_path / "streamed.yaml").write_text(STREAMED)
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    openai_server.script(reply.text(_echo(CONFIG_ONLY_KEY, ENV_KEY, PARAMS_KEY)))  # sent 3 characters a chunk

    code = main(["run", str(tmp_path / "streamed.yaml"), "--config", files["config"]])

    shown = terminal.getvalue()
    assert code == 0
    assert f"ask > {_hidden(CONFIG_ONLY_KEY, ENV_KEY, PARAMS_KEY)}\n" in shown
    for key in (CONFIG_ONLY_KEY, ENV_KEY, PARAMS_KEY):
        assert key not in shown + capsys.readouterr().out


def test_the_display_s_lines_hide_a_key_of_the_config(openai_server, reply, files, monkeypatch) -> None:
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    openai_server.script(reply.error(400, f"the key {CONFIG_ONLY_KEY} is not valid here"))

    code = main(["run", files["graph"], "--config", files["config"]])

    shown = terminal.getvalue()
    assert code == 1
    assert "FAILED   ask  " in shown and "the key REDACTED is not valid here" in shown
    assert CONFIG_ONLY_KEY not in shown


LEAKY_AGENTS = """\
import os

import graphrt


async def leaky(ctx):
    print("signing in with " + os.environ["SERVICE_TOKEN"])
    raise RuntimeError("login refused for " + os.environ["SERVICE_TOKEN"])


AGENTS = [graphrt.AgentInfo("leakyAgent", leaky, samples=(graphrt.Sample(inputs={}, params={}, result={}),))]
"""


def test_test_agents_reports_a_failed_sample_without_the_environment_s_secrets(tmp_path: Path, monkeypatch,
                                                                               capsys) -> None:
    monkeypatch.setenv("SERVICE_TOKEN", "tok-from-the-environment-42")
    (tmp_path / "leaky_agents.py").write_text(LEAKY_AGENTS)
    monkeypatch.chdir(tmp_path)

    code = main(["test-agents", "leakyAgent", "-v", "--agents", "leaky_agents.py"])

    output = capsys.readouterr()
    assert code == 1
    assert "login refused for REDACTED" in output.out and "  | signing in with REDACTED\n" in output.out
    assert "tok-from-the-environment-42" not in output.out + output.err
