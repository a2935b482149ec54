"""`graphrt run FILE --checkpoint PATH` and `graphrt resume --checkpoint PATH` (graphrt/cli/resume_command.py)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from graphrt.base.states import NodeState
from graphrt.cli import main

ASK = """\
version: 0.5
nodes:
  name:
    agent: textInputAgent
    params:
      message: Your name?
  greet:
    agent: stringTemplateAgent
    inputs:
      who: :name.text
    params:
      template: Hello, ${who}!
    isResult: true
"""

BROKEN = """\
version: 0.5
nodes:
  list:
    value: [1, 2]
  first:
    agent: copyAgent
    inputs:
      x: :list
  broken:
    agent: popAgent
    inputs:
      array: :first.x.$0
    isResult: true
"""


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "ask.yaml").write_text(ASK)
    (tmp_path / "broken.yaml").write_text(BROKEN)
    return {"ask": str(tmp_path / "ask.yaml"), "broken": str(tmp_path / "broken.yaml"), "db": str(tmp_path / "runs.db")}


def test_run_with_a_checkpoint_says_where_the_run_is_saved(files, capsys) -> None:
    code = main(["run", files["ask"], "--checkpoint", files["db"], "--run-id", "r1"])

    assert code == 3
    assert capsys.readouterr().err.splitlines()[0] == f"graphrt: run r1 saves to {files['db']}"


def test_a_question_off_a_terminal_exits_3_and_says_how_to_answer(files, capsys) -> None:
    code = main(["run", files["ask"], "--checkpoint", files["db"], "--run-id", "r1", "-q"])

    assert (code, capsys.readouterr().err.splitlines()) == (3, [
        f"graphrt: {files['ask']}:3:3: node 'name': waiting for an answer: Your name?",
        f"graphrt: answer with: graphrt resume --checkpoint {files['db']} --run-id r1 --answer TEXT",
    ])


def test_resume_with_an_answer_prints_the_results(files, capsys) -> None:
    main(["run", files["ask"], "--checkpoint", files["db"], "--run-id", "r1", "-q"])
    capsys.readouterr()

    code = main(["resume", "--checkpoint", files["db"], "--answer", "Ada"])

    assert (code, json.loads(capsys.readouterr().out)) == (0, {"greet": "Hello, Ada!"})


def test_on_a_terminal_run_asks_the_question_and_goes_on(files, capsys, monkeypatch) -> None:
    monkeypatch.setattr(sys, "stdin", _Terminal("Grace\n"))
    monkeypatch.setattr(sys, "stderr", terminal := _Terminal())

    code = main(["run", files["ask"], "--checkpoint", files["db"], "-q"])

    assert (code, json.loads(capsys.readouterr().out)) == (0, {"greet": "Hello, Grace!"})
    assert terminal.getvalue().endswith("? Your name? ")


def test_on_a_terminal_resume_asks_the_pending_question(files, capsys, monkeypatch) -> None:
    main(["run", files["ask"], "--checkpoint", files["db"], "-q"])
    monkeypatch.setattr(sys, "stdin", _Terminal("Grace\n"))
    monkeypatch.setattr(sys, "stderr", _Terminal())
    capsys.readouterr()

    code = main(["resume", "--checkpoint", files["db"]])

    assert (code, json.loads(capsys.readouterr().out)) == (0, {"greet": "Hello, Grace!"})


def test_end_of_input_at_the_prompt_leaves_the_question_pending(files, capsys, monkeypatch) -> None:
    monkeypatch.setattr(sys, "stdin", _Terminal(""))
    monkeypatch.setattr(sys, "stderr", terminal := _Terminal())

    code = main(["run", files["ask"], "--checkpoint", files["db"], "--run-id", "r1", "-q"])

    assert code == 3
    assert terminal.getvalue().splitlines()[-1] == ("graphrt: answer with: graphrt resume --checkpoint "
                                                    f"{files['db']} --run-id r1 --answer TEXT")


def test_a_failed_run_says_it_is_saved_and_how_to_continue(files, capsys) -> None:
    code = main(["run", files["broken"], "--checkpoint", files["db"], "--run-id", "r1", "-q"])

    assert code == 1
    assert capsys.readouterr().err.splitlines()[-1] == (
        "graphrt: the run is saved; after a fix, continue it with: "
        f"graphrt resume --checkpoint {files['db']} --run-id r1")


def test_a_finished_run_asked_to_run_again_with_other_inputs_points_to_its_results(files, tmp_path, capsys) -> None:
    greet = tmp_path / "greet.yaml"
    greet.write_text(ASK.replace("agent: textInputAgent\n    params:\n      message: Your name?", "value: {text: World}"))
    main(["run", str(greet), "--checkpoint", files["db"], "--run-id", "r1", "-q"])
    capsys.readouterr()

    code = main(["run", str(greet), "--checkpoint", files["db"], "--run-id", "r1", "-i", 'name={"text": "Bob"}', "-q"])

    err = capsys.readouterr().err.splitlines()
    assert code == 1 and "was started without a value for 'name'" in err[0]
    assert err[-1] == ("graphrt: run r1 is saved, finished; to see its results: "
                       f"graphrt resume --checkpoint {files['db']} --run-id r1")


def test_resume_after_a_fix_refuses_the_changed_file_without_force(files, capsys) -> None:
    main(["run", files["broken"], "--checkpoint", files["db"], "--run-id", "r1", "-q"])
    Path(files["broken"]).write_text(BROKEN.replace(":first.x.$0", ":first.x"))
    capsys.readouterr()

    code = main(["resume", "--checkpoint", files["db"]])

    assert (code, capsys.readouterr().err) == (1, (
        f"graphrt: {files['broken']} changed since run 'r1' was saved in {files['db']}; "
        "resume with force=True (--force) to run the changed graph\n"))


def test_resume_force_runs_the_fixed_file_from_where_it_stopped(files, capsys) -> None:
    main(["run", files["broken"], "--checkpoint", files["db"], "--run-id", "r1", "-q"])
    Path(files["broken"]).write_text(BROKEN.replace(":first.x.$0", ":first.x"))
    capsys.readouterr()

    code = main(["resume", "--checkpoint", files["db"], "--force"])

    assert (code, json.loads(capsys.readouterr().out)) == (0, {"broken": {"array": [1], "item": 2}})


def test_resume_of_an_empty_checkpoint_says_nothing_is_saved(files, capsys) -> None:
    import anyio

    from graphrt.checkpoint import SQLiteStore

    async def make_empty() -> None:
        store = SQLiteStore(files["db"])
        await store.runs()
        await store.close()

    anyio.run(make_empty)
    code = main(["resume", "--checkpoint", files["db"]])

    assert (code, capsys.readouterr().err) == (1, f"graphrt: no run saved in {files['db']}\n")


def test_terminal_progress_shows_a_question_as_asked_not_failed() -> None:
    from graphrt.cli.watch import ProgressDisplay
    from graphrt.observe.events import NodeInterrupted

    out = io.StringIO()
    display = ProgressDisplay(out)
    display(NodeInterrupted(run_id="r", path=(), node_id="name", state=NodeState.INTERRUPTED, question="Your name?",
                            key="name"))

    assert out.getvalue().splitlines()[0] == "asks     name  Your name?"


def test_the_example_graph_asks_and_greets(tmp_path: Path, capsys) -> None:
    example = str(Path(__file__).parents[2] / "graphs" / "ask.yaml")
    assert main(["run", example, "--checkpoint", str(tmp_path / "runs.db"), "-q"]) == 3

    assert main(["resume", "--checkpoint", str(tmp_path / "runs.db"), "--answer", "Ada"]) == 0
    assert json.loads(capsys.readouterr().out) == {"greeting": "Hello, Ada!"}


def test_run_and_resume_work_with_a_postgresql_checkpoint(files, postgres_url: str, capsys) -> None:
    assert main(["run", files["ask"], "--checkpoint", postgres_url, "--run-id", "pg", "-q"]) == 3

    assert main(["resume", "--checkpoint", postgres_url, "--answer", "Ada"]) == 0
    assert json.loads(capsys.readouterr().out) == {"greet": "Hello, Ada!"}


def test_a_postgresql_password_is_never_shown(files, postgres_url: str, capsys) -> None:
    url = postgres_url.replace("graphrt@", "graphrt:hunter2-password@")

    main(["run", files["ask"], "--checkpoint", url, "--run-id", "pg"])

    assert "hunter2-password" not in capsys.readouterr().err


def test_resume_of_a_store_that_is_not_there_says_so_and_makes_none(tmp_path: Path, capsys) -> None:
    missing = tmp_path / "missing.db"
    assert main(["resume", "--checkpoint", str(missing)]) == 1
    assert capsys.readouterr().err == f"graphrt: no checkpoint store at {missing}: there is no such file\n"
    assert sorted(tmp_path.iterdir()) == []


def test_fork_without_checkpoint_where_no_store_is_says_so_and_makes_none(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["fork", "--run-id", "some-run", "--from", "greet"]) == 1
    assert capsys.readouterr().err == ("graphrt: no checkpoint store at graphrt-runs.db (graphrt serve's, the default) "
                                       "in this folder: name the run's store with --checkpoint PATH\n")
    assert main(["fork", "--run-id", "some-run", "--from", "greet", "--checkpoint", "other.db"]) == 1
    assert capsys.readouterr().err == "graphrt: no checkpoint store at other.db: there is no such file\n"
    assert sorted(tmp_path.iterdir()) == []


def test_resume_without_checkpoint_reads_graphrt_serve_s_store_here(files, tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["resume"]) == 1
    assert capsys.readouterr().err == ("graphrt: no checkpoint store at graphrt-runs.db (graphrt serve's, the default) "
                                       "in this folder: name the run's store with --checkpoint PATH\n")
    main(["run", files["ask"], "--checkpoint", "graphrt-runs.db", "--run-id", "r1", "-q"])
    capsys.readouterr()

    assert main(["resume", "--run-id", "r1", "--answer", "Ada", "-q"]) == 0
    assert json.loads(capsys.readouterr().out) == {"greet": "Hello, Ada!"}


def test_resume_and_fork_name_a_saved_run_as_run_saved_it(files, capsys) -> None:
    saved = ["--checkpoint", files["db"], "--run-id", "r1"]
    assert main(["run", files["ask"], *saved, "-q"]) == 3

    capsys.readouterr()

    assert main(["resume", *saved, "--answer", "Ada", "-q"]) == 0
    assert json.loads(capsys.readouterr().out) == {"greet": "Hello, Ada!"}
    assert main(["fork", *saved, "--from", "greet", "-q"]) == 0
    assert json.loads(capsys.readouterr().out) == {"greet": "Hello, Ada!"}


def test_the_spellings_of_before_still_work_and_say_the_new_one(files, capsys) -> None:
    main(["run", files["ask"], "--checkpoint", files["db"], "--run-id", "r1", "-q"])
    capsys.readouterr()

    assert main(["resume", files["db"], "--run-id", "r1", "--answer", "Ada", "-q"]) == 0
    out, err = capsys.readouterr()
    assert (json.loads(out), err) == ({"greet": "Hello, Ada!"}, "graphrt: note: 'graphrt resume PATH' is now "
                                      "'graphrt resume --checkpoint PATH'; the old spelling still works\n")

    assert main(["fork", "r1", "--from", "greet", "--checkpoint", files["db"], "-q"]) == 0
    out, err = capsys.readouterr()
    assert (json.loads(out), err) == ({"greet": "Hello, Ada!"}, "graphrt: note: 'graphrt fork RUN' is now "
                                      "'graphrt fork --run-id RUN'; the old spelling still works\n")


@pytest.mark.parametrize("argv", [["resume", "runs.db", "--checkpoint", "runs.db"],
                                  ["fork", "r1", "--run-id", "r1", "--from", "greet"]])
def test_a_saved_run_named_both_ways_at_once_is_refused(argv: list[str], capsys) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    said = {"resume": "argument --checkpoint: not allowed with argument PATH",
            "fork": "argument --run-id: not allowed with argument RUN"}[argv[0]]
    assert (stopped.value.code, capsys.readouterr().err.splitlines()[-1]) == (2, f"graphrt {argv[0]}: error: {said}")


def test_fork_without_a_run_says_which_option_names_it(capsys) -> None:
    assert main(["fork", "--from", "greet"]) == 2
    assert capsys.readouterr().err == "graphrt fork: error: the following arguments are required: --run-id\n"


CONFIG_KEY = "sk-from-the-config-0123456789"

LLM_AFTER_A_QUESTION = """\
version: 0.5
nodes:
  name:
    agent: textInputAgent
    params:
      message: Your name?
  greet:
    agent: openAIAgent
    inputs:
      prompt: :name.text
    isResult: true
"""


@pytest.fixture
def keyed(tmp_path: Path, openai_server, monkeypatch) -> dict[str, str]:
    """A graph that asks, then calls the scripted LLM server, whose key is in the agents' config alone."""
    monkeypatch.delenv("OPENAI_API_KEY")
    (tmp_path / "llm.yaml").write_text(LLM_AFTER_A_QUESTION)
    (tmp_path / "config.yaml").write_text(f"openAIAgent: {{apiKey: {CONFIG_KEY}}}\n")
    return {"graph": str(tmp_path / "llm.yaml"), "config": str(tmp_path / "config.yaml"),
            "db": str(tmp_path / "runs.db")}


def test_resume_with_config_gives_the_run_the_key_its_checkpoint_left_out(keyed, openai_server, reply, capsys) -> None:
    assert main(["run", keyed["graph"], "--checkpoint", keyed["db"], "--run-id", "r1", "--config", keyed["config"],
                 "-q"]) == 3
    assert capsys.readouterr().err.splitlines()[-1] == ("graphrt: answer with: graphrt resume --checkpoint "
                                                        f"{keyed['db']} --run-id r1 --config {keyed['config']} "
                                                        "--answer TEXT")
    openai_server.script(reply.text("Hello, Ada!"))

    assert main(["resume", "--checkpoint", keyed["db"], "--answer", "Ada", "--config", keyed["config"], "-q"]) == 0

    assert json.loads(capsys.readouterr().out)["greet"]["text"] == "Hello, Ada!"
    assert [headers["authorization"] for headers in openai_server.headers] == [f"Bearer {CONFIG_KEY}"]
    assert CONFIG_KEY.encode() not in Path(keyed["db"]).read_bytes()


def test_fork_with_config_gives_the_fork_the_key_its_checkpoint_left_out(keyed, openai_server, reply, capsys) -> None:
    openai_server.script(reply.text("Hello, Ada!"), reply.text("Hello, Bo!"))
    main(["run", keyed["graph"], "--checkpoint", keyed["db"], "--run-id", "r1", "--config", keyed["config"], "-q"])
    main(["resume", "--checkpoint", keyed["db"], "--answer", "Ada", "--config", keyed["config"], "-q"])
    capsys.readouterr()

    assert main(["fork", "--checkpoint", keyed["db"], "--run-id", "r1", "--from", "name",
                 "--set", 'name={"text": "Bo"}', "--config", keyed["config"], "-q"]) == 0

    assert json.loads(capsys.readouterr().out)["greet"]["text"] == "Hello, Bo!"
    assert [headers["authorization"] for headers in openai_server.headers] == [f"Bearer {CONFIG_KEY}"] * 2


STUCK_AGENTS = """\
import anyio

from graphrt.authoring.agent_info import AgentInfo


async def stuck_agent(ctx):
    await anyio.sleep_forever()


AGENTS = [AgentInfo("stuckAgent", stuck_agent)]
"""


def test_resume_with_a_timeout_stops_the_run_it_continues(tmp_path: Path, capsys) -> None:
    (tmp_path / "stuck.py").write_text(STUCK_AGENTS)
    (tmp_path / "g.yaml").write_text(ASK.replace("agent: stringTemplateAgent", "agent: stuckAgent"))
    agents = ["--agents", str(tmp_path / "stuck.py")]
    db = str(tmp_path / "runs.db")
    assert main(["run", str(tmp_path / "g.yaml"), "--checkpoint", db, "--run-id", "r1", "-q", *agents]) == 3
    capsys.readouterr()

    assert main(["resume", "--checkpoint", db, "--answer", "Ada", "--timeout", "0.05", *agents]) == 1

    assert capsys.readouterr().err.splitlines()[0] == (f"graphrt: {tmp_path / 'g.yaml'}: the run did not finish within "
                                                       "0.05 s (timeout)")


def test_python_resume_and_fork_of_a_missing_store_make_none(tmp_path: Path) -> None:
    import graphrt
    from graphrt.checkpoint import CheckpointError
    from graphrt.durable import fork

    missing = tmp_path / "missing.db"
    with pytest.raises(CheckpointError, match="no checkpoint store at .*missing.db: there is no such file"):
        graphrt.resume(missing)
    with pytest.raises(CheckpointError, match="no checkpoint store at"):
        fork(str(missing), "run", node="greet")
    assert not missing.exists()


def _read_until(descriptor: int, text: bytes, seconds: float = 60) -> bytes:
    """What a terminal's screen gets until `text` appears (select's timeout only guards against a hang)."""
    import os
    import select

    seen = b""
    while text not in seen:
        ready, _, _ = select.select([descriptor], [], [], seconds)
        if not ready:
            raise AssertionError(f"{text!r} never came; the terminal got {seen[-500:]!r}")
        seen += os.read(descriptor, 4096)
    return seen


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_the_example_graph_asks_on_a_terminal_without_checkpoint_and_saves_nothing(tmp_path: Path) -> None:
    import os
    import subprocess

    from ..commands import GRAPHRT

    example = str(Path(__file__).parents[2] / "graphs" / "ask.yaml")
    terminal, its_end = os.openpty()
    process = subprocess.Popen([*GRAPHRT, "run", example], stdin=its_end, stderr=its_end, stdout=subprocess.PIPE,
                               cwd=tmp_path, start_new_session=True)
    os.close(its_end)
    try:
        _read_until(terminal, b"? What is your name? ")
        os.write(terminal, b"Ada\n")
        out, _ = process.communicate(timeout=60)
    finally:
        process.kill()
        os.close(terminal)
    assert (process.returncode, json.loads(out)) == (0, {"greeting": "Hello, Ada!"})
    assert list(tmp_path.iterdir()) == []  # the state was kept in memory


def test_the_example_graph_off_a_terminal_without_checkpoint_says_checkpoint_is_needed_and_exits_3(capsys) -> None:
    example = str(Path(__file__).parents[2] / "graphs" / "ask.yaml")
    assert main(["run", example, "-q"]) == 3
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (f"graphrt: {example}:7:3: node 'name': waiting for an answer: What is your name?\n"
                   "graphrt: to answer it later, run the graph with --checkpoint PATH, then answer with: "
                   "graphrt resume --checkpoint PATH --answer TEXT\n")
