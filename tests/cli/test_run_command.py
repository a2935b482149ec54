"""`graphrt run FILE`: results as JSON, --all, -i NODE=VALUE, and one clear line on failure."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from graphrt.cli import main

GRAPHS = Path(__file__).parents[2] / "graphs"

ROOT = Path(__file__).resolve().parents[2]

HELLO = """\
version: 0.5
nodes:
  name:
    value: World
  greeting:
    agent: stringTemplateAgent
    inputs:
      name: :name
    params:
      template: "Hello, ${name}!"
    isResult: true
"""

ECHO = """\
version: 0.5
nodes:
  value:
    value: 0
  other:
    value: unset
  echo:
    agent: copyAgent
    inputs:
      value: :value
      other: :other
    isResult: true
"""


@pytest.fixture
def write(tmp_path: Path):
    def write(text: str, name: str = "graph.yaml") -> str:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return str(path)

    return write


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["run", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ----- results -----


def test_run_prints_the_result_nodes_as_indented_json(write, capsys) -> None:
    code, out, err = run(capsys, write(HELLO))
    assert (code, out, err) == (0, '{\n  "greeting": "Hello, World!"\n}\n', "")


def test_all_prints_every_node_result(write, capsys) -> None:
    code, out, _ = run(capsys, write(HELLO), "--all")
    assert (code, json.loads(out)) == (0, {"name": "World", "greeting": "Hello, World!"})


def test_output_keeps_non_ascii_text(write, capsys) -> None:
    _, out, _ = run(capsys, write(HELLO), "-i", "name=Zoë")
    assert '"Hello, Zoë!"' in out


def test_a_json_graph_file_runs_too(write, capsys) -> None:
    path = write(json.dumps({"nodes": {"a": {"value": [1, 2]}, "b": {"agent": "copyAgent", "inputs": {"v": ":a.$last"}, "isResult": True}}}), "graph.json")
    code, out, _ = run(capsys, path)
    assert (code, json.loads(out)) == (0, {"b": {"v": 2}})


# ----- -i NODE=VALUE -----


def test_inject_takes_a_plain_word_as_a_string(write, capsys) -> None:
    _, out, _ = run(capsys, write(HELLO), "-i", "name=Ada")
    assert json.loads(out) == {"greeting": "Hello, Ada!"}


@pytest.mark.parametrize(
    "text, value",
    [
        ("42", 42),
        ("1.5", 1.5),
        ("true", True),
        ("null", None),
        ('"42"', "42"),
        ("[1, 2]", [1, 2]),
        ('{"a": {"b": 1}}', {"a": {"b": 1}}),
        ("not json", "not json"),
        ("", ""),
        ("a=b", "a=b"),
    ],
)
def test_inject_parses_json_or_else_takes_the_text(write, capsys, text: str, value) -> None:
    _, out, _ = run(capsys, write(ECHO), "-i", f"value={text}")
    assert json.loads(out)["echo"]["value"] == value


def test_inject_is_repeatable(write, capsys) -> None:
    _, out, _ = run(capsys, write(ECHO), "-i", "value=1", "--inject", "other=two")
    assert json.loads(out) == {"echo": {"value": 1, "other": "two"}}


def test_inject_without_an_equals_sign_is_a_usage_error(write, capsys) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["run", write(ECHO), "-i", "value"])
    assert caught.value.code == 2
    assert "argument -i/--inject: expected NODE=VALUE, got 'value'" in capsys.readouterr().err


@pytest.mark.parametrize("text, shown", [("1e400", "1e400"), ("-1e999", "-1e999"), ('{"a": [NaN]}', "NaN"),
                                         ("Infinity", "Infinity")])
def test_inject_refuses_a_number_json_cannot_hold(write, capsys, text: str, shown: str) -> None:
    with pytest.raises(SystemExit) as caught:  # it would be saved, traced and returned as null
        main(["run", write(ECHO), "-i", f"value={text}"])
    assert caught.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"graphrt run: error: argument -i/--inject: the value of value holds {shown}, a number JSON cannot hold "
        "(give a finite number, or quote it as text)")


# ----- failures: exit code 1, one line naming file, node and field -----


def test_an_invalid_graph_fails_with_one_line_naming_file_node_and_field(write, capsys) -> None:
    path = write(HELLO.replace("name: :name", "name: :nmae"))
    code, out, err = run(capsys, path)
    assert (code, out) == (1, "")
    # The error is one line, the last; the warnings that come with it are shown before it.
    assert err.splitlines()[-1] == f"graphrt: {path}:8:7: node 'greeting', field 'inputs.name': unknown node 'nmae' (did you mean name?)"
    assert err.splitlines()[:-1] == [f"graphrt: {path}:3:3: warning: node 'name': nothing uses this node's value: "
                                     "no node refers to it and it is not isResult"]


def test_a_timeout_fails_with_one_line_naming_file_node_and_field(write, capsys) -> None:
    path = write(
        "nodes:\n"
        "  a:\n"
        "    value: 1\n"
        "  slow:\n"
        "    agent: sleeperAgent\n"
        "    params:\n"
        "      duration: 60000\n"
        "    inputs:\n"
        "      a: :a\n"
        "    timeout: 10\n"
        "    isResult: true\n"
    )
    code, out, err = run(capsys, path)
    assert (code, out, err) == (1, "", f"graphrt: {path}:10:5: node 'slow', field 'timeout': timed out after 10 ms\n")


def test_an_agent_failure_fails_with_one_line_naming_file_and_node(write, capsys) -> None:
    path = write(
        "nodes:\n"
        "  rows:\n"
        "    value: 3\n"
        "  each:\n"
        "    agent: mapAgent\n"
        "    inputs:\n"
        "      rows: :rows\n"
        "    graph:\n"
        "      nodes:\n"
        "        copy:\n"
        "          agent: copyAgent\n"
        "          inputs:\n"
        "            row: :row\n"
        "          isResult: true\n"
        "    isResult: true\n"
    )
    code, _, err = run(capsys, path)
    assert (code, err) == (1, f"graphrt: {path}:4:3: node 'each': TypeError: mapAgent: rows must be an array, got int (agent mapAgent)\n")


def test_malformed_yaml_fails_with_one_line_and_its_position(write, capsys) -> None:
    path = write("nodes:\n  a: {value: 1\n")
    code, _, err = run(capsys, path)
    assert (code, err) == (1, f"graphrt: {path}:3:1: not valid YAML/JSON: did not find expected ',' or '}}'\n")


def test_a_missing_file_fails_with_one_line(tmp_path: Path, capsys) -> None:
    path = tmp_path / "missing.yaml"
    code, _, err = run(capsys, str(path))
    assert (code, err) == (1, f"graphrt: {path}: cannot read graph file: No such file or directory\n")


def test_injecting_into_a_computed_node_fails_with_one_line(write, capsys) -> None:
    path = write(HELLO)
    code, _, err = run(capsys, path, "-i", "greeting=hi")
    assert (code, err) == (1, f"graphrt: {path}:5:3: node 'greeting': cannot inject a value: 'greeting' is a computed node\n")


# ----- the installed script -----


def test_the_installed_graphrt_script_runs_a_graph(write) -> None:
    script = Path(sys.executable).with_name("graphrt")
    completed = subprocess.run(
        [str(script), "run", write(HELLO), "-i", "name=Ada"], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert (completed.returncode, json.loads(completed.stdout)) == (0, {"greeting": "Hello, Ada!"})


def test_with_quiet_what_agents_print_goes_to_stderr_and_stdout_holds_the_results_alone(tmp_path, capsys) -> None:
    import json as _json

    from graphrt.cli import main as _main

    path = tmp_path / "g.yaml"
    path.write_text("version: 0.5\nnodes:\n  s: {value: hello}\n  c: {agent: consoleAgent, inputs: {text: ':s'}}\n"
                    "  a: {agent: copyAgent, inputs: {x: ':s'}, console: {after: true}, isResult: true}\n")

    assert _main(["run", "-q", str(path)]) == 0

    out, err = capsys.readouterr()
    assert _json.loads(out) == {"a": {"x": "hello"}}
    assert "hello" in err


def test_an_unknown_injected_node_gets_a_did_you_mean(capsys) -> None:
    code, out, err = run(capsys, str(GRAPHS / "hello.yaml"), "-i", "nmae=Ada")
    assert (code, out) == (1, "")
    assert err.strip().endswith("cannot inject a value: 'nmae' is not a node of this graph (did you mean name?)")


# ----- --config: the agents' config -----

READ_NOTE = """\
version: 0.5
nodes:
  note:
    agent: fileReadAgent
    inputs: {file: note.txt}
    params: {outputType: text}
    isResult: true
"""


def test_config_gives_the_agents_their_config(write, tmp_path: Path, capsys) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "note.txt").write_text("kept")
    config = tmp_path / "config.yaml"
    config.write_text(f"fileReadAgent: {{baseDir: {tmp_path / 'data'}}}\n")
    code, out, _ = run(capsys, write(READ_NOTE), "-q", "--config", str(config))
    assert (code, json.loads(out)) == (0, {"note": {"data": "kept"}})


def test_a_config_that_is_not_a_mapping_of_mappings_fails_with_one_line(write, tmp_path: Path, capsys) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("fileReadAgent: data\n")
    code, _, err = run(capsys, write(READ_NOTE), "--config", str(config))
    assert (code, err) == (1, f"graphrt: {config}: the config must map agent names (or 'global') to mappings, "
                              "e.g. {fileReadAgent: {baseDir: data}}\n")


# ----- usage -----

ASK = """\
version: 0.5
nodes:
  llm:
    agent: openAIAgent
    inputs: {prompt: Capital of France?}
    isResult: true
"""


def test_a_run_that_called_an_llm_says_what_it_spent_on_stderr(write, tmp_path: Path, capsys, openai_server, reply) -> None:
    openai_server.script(reply.text("Paris."))
    config = tmp_path / "config.yaml"
    config.write_text("prices: {openai: {scripted-model: {input: 100, output: 1000}}}\n", encoding="utf-8")
    code, out, err = run(capsys, write(ASK), "--config", str(config))
    assert code == 0 and json.loads(out)["llm"]["text"] == "Paris."
    assert err.splitlines()[-1] == "graphrt: usage: 1 LLM call, 18 tokens (11 in, 7 out), $0.0081"


def test_quiet_and_a_run_without_llm_calls_say_nothing_of_usage(write, capsys, openai_server, reply) -> None:
    openai_server.script(reply.text("Paris."))
    assert "usage" not in run(capsys, write(ASK), "-q")[2]
    assert "usage" not in run(capsys, write(HELLO))[2]


def test_a_price_table_that_cannot_be_used_is_one_line_naming_the_config_file(write, tmp_path: Path, capsys) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("prices: {openai: {gpt-4o: {input: cheap, output: 1}}}\n", encoding="utf-8")
    code, out, err = run(capsys, write(HELLO), "--config", str(config))
    assert code != 0 and out == ""
    assert err.strip() == (f"graphrt: {config}: prices.openai.gpt-4o.input: must be a number from 0 "
                           "(USD per million input tokens), got 'cheap'")


THREE_ASKS = """\
version: 0.5
nodes:
  a: {agent: openAIAgent, inputs: {prompt: one}, isResult: true}
  b: {agent: openAIAgent, inputs: {prompt: ":a.text"}, isResult: true}
  c: {agent: openAIAgent, inputs: {prompt: ":b.text"}, isResult: true}
"""


def test_a_budget_stops_the_run_before_the_call_past_it_and_says_which(write, capsys, openai_server, reply) -> None:
    openai_server.script(reply.text("one"), reply.text("two"), reply.text("three"))
    path = write(THREE_ASKS)
    code, out, err = run(capsys, path, "--budget", "tokens=100", "--budget", "llm_calls=2")
    assert code == 1 and out == "" and len(openai_server.requests) == 2
    lines = err.splitlines()
    assert lines[-2] == (f"graphrt: {path}:5:3: node 'c': budget exceeded: the run may spend 2 LLM calls and has "
                         "spent 2; stopped before a call of node 'c'")
    assert lines[-1] == ("graphrt: usage: 2 LLM calls, 36 tokens (22 in, 14 out), cost unknown (no price for "
                         "openai:scripted-model)")


@pytest.mark.parametrize("given, said", [
    ("tokens=0", "argument --budget: 'tokens=0'.tokens: must be a number above 0, got '0'"),
    ("pounds=3", "argument --budget: 'pounds=3': unknown unit 'pounds' (units: tokens, cost, llm_calls, tool_calls, "
                 "seconds)"),
])
def test_a_budget_that_cannot_be_used_is_one_usage_line(write, capsys, given: str, said: str) -> None:
    with pytest.raises(SystemExit):
        main(["run", write(HELLO), "--budget", given])
    assert capsys.readouterr().err.splitlines()[-1].endswith(said)
