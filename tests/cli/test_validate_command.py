"""`graphrt validate`: every static problem at once, one line each, with its position."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from graphrt.cli import main

# Line numbers below refer to this file as written to disk (line 1 is `version: 0.5`).
EVERY_KIND = """\
version: 0.5
nodes:
  question:
    value: What is 2+2?
  answer:
    agent: stringTemplateAgnet
    inputs:
      text: :questoin
  shift:
    agent: shiftAgent
    inputs:
      array: [1, 2]
  use:
    agent: copyAgent
    inputs:
      item: :shift.itme
      first: ${:shift.array.$0}
    isResult: true
  rows:
    agent: mapAgent
    inputs:
      rows: 3
    params:
      limit: two
    graph:
      nodes:
        inner:
          agent: copyAgent
          inputs:
            v: :rwo
          isResult: true
    isResult: true
  lonely:
    agent: copyAgent
    inputs:
      q: :question
    console:
      befor: hi
"""


def validate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
             **files: str) -> tuple[int, list[str], str]:
    monkeypatch.chdir(tmp_path)
    for name, text in files.items():
        Path(name.replace("_", ".", 1) if "." not in name else name).write_text(textwrap.dedent(text))
    code = main(["validate", *(name.replace("_", ".", 1) for name in files)])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def test_every_problem_is_reported_at_once_in_file_order(tmp_path, monkeypatch, capsys) -> None:
    code, lines, err = validate(tmp_path, monkeypatch, capsys, bad_yaml=EVERY_KIND)

    assert lines == [
        "bad.yaml:5:3: warning: node answer: nothing uses this node's result: no node refers to it and it is not isResult",
        "bad.yaml:6:5: node answer: agent: unknown agent 'stringTemplateAgnet' "
        "(did you mean stringTemplateAgent, templateAgent, stringSplitterAgent?)",
        "bad.yaml:8:7: node answer: inputs.text: unknown node 'questoin' (did you mean question?)",
        "bad.yaml:16:7: warning: node use: inputs.item: ':shift.itme': shiftAgent's output has no property 'itme' "
        "(it has: array, item)",
        "bad.yaml:22:7: warning: node rows: inputs.rows: mapAgent input schema: must be an array, got number 3",
        "bad.yaml:24:7: warning: node rows: params.limit: mapAgent param schema: must be an integer, got string 'two'",
        "bad.yaml:30:13: node rows > inner: inputs.v: unknown node 'rwo' (did you mean row?)",
        "bad.yaml:38:7: warning: node lonely: console.befor: unknown attribute 'befor' (allowed: before, after)",
    ]
    assert err == "graphrt validate: 3 errors, 5 warnings in 1 file\n"
    assert code == 1


def test_a_cycle_names_its_nodes(tmp_path, monkeypatch, capsys) -> None:
    cycle = """\
        version: 0.5
        nodes:
          start:
            value: 1
          a:
            agent: copyAgent
            inputs: {x: ":b", s: ":start"}
          b:
            agent: copyAgent
            inputs: {x: ":a"}
            isResult: true
          c:
            agent: copyAgent
            inputs: {s: ":start"}
            isResult: true
    """
    code, lines, _ = validate(tmp_path, monkeypatch, capsys, cycle_yaml=cycle)

    assert lines == [
        "cycle.yaml:5:3: node a: a cycle between computed nodes can never run: a -> b -> a "
        "(loops go through a static node's 'update')",
    ]
    assert code == 1


def test_the_graph_itself_is_checked_against_the_graphdata_schema(tmp_path, monkeypatch, capsys) -> None:
    graph = """\
        version: "0.5"
        agentId: 7
        nodes:
          a: {value: 1, isResult: true}
          b: {agent: copyAgent, inputs: {a: ":a"}, isResult: true, repeatUntil: {exists: 1}}
    """
    code, lines, _ = validate(tmp_path, monkeypatch, capsys, schema_yaml=graph)

    assert lines == [
        "schema.yaml:1:1: warning: version: must be a number, got string '0.5'",
        "schema.yaml:2:1: warning: agentId: must be a string, got number 7",
        "schema.yaml:5:74: warning: node b: repeatUntil.exists: must be a string, got number 1",
    ]
    assert code == 0


def test_a_file_that_does_not_parse_is_one_error(tmp_path, monkeypatch, capsys) -> None:
    code, lines, _ = validate(tmp_path, monkeypatch, capsys, broken_yaml="nodes:\n  a: {value: [1, }\n")

    assert lines == ["broken.yaml:2:18: not valid YAML/JSON: did not find expected node content"]
    assert code == 1


def test_a_clean_graph_prints_nothing_and_succeeds(capsys) -> None:
    assert main(["validate", "graphs/hello.yaml", "graphs/fruit_map.yaml", "graphs/accumulate.yaml"]) == 0
    out, err = capsys.readouterr()
    assert (out, err) == ("", "graphrt validate: 0 errors, 0 warnings in 3 files\n")


def test_inputs_an_agent_needs_or_does_not_take_are_warned(tmp_path, monkeypatch, capsys) -> None:
    graph = """\
        version: 0.5
        nodes:
          text: {value: "a,b"}
          split:
            agent: stringSplitterAgent
            inputs: {txt: ":text"}
          variants:
            agent: stringCaseVariantsAgent
            inputs: {text: ":text", suffix: "x"}
            isResult: true
          rows:
            agent: mapAgent
            inputs: {items: ":split"}
            graph: {nodes: {copy: {agent: copyAgent, inputs: {v: ":items"}, isResult: true}}}
            isResult: true
    """
    code, lines, _ = validate(tmp_path, monkeypatch, capsys, inputs_yaml=graph)

    assert lines == [
        "inputs.yaml:6:5: warning: node split: inputs: stringSplitterAgent needs input 'text'",
        "inputs.yaml:9:29: warning: node variants: inputs.suffix: stringCaseVariantsAgent takes no input 'suffix' "
        "(it takes: text)",
        "inputs.yaml:13:5: warning: node rows: inputs: mapAgent needs input 'rows'",
    ]
    assert code == 0


def test_agents_from_a_module_are_known_to_validate_and_viz(tmp_path, monkeypatch, capsys) -> None:
    (tmp_path / "my_agents.py").write_text(textwrap.dedent("""\
        from graphrt.authoring.agent_info import AgentInfo

        def shout(ctx):
            return {"text": ctx.inputs["text"].upper()}

        AGENTS = [AgentInfo("shoutAgent", shout, output={"type": "object", "properties": {"text": {}}})]
    """))
    graph = """\
        version: 0.5
        nodes:
          a: {value: hi}
          b: {agent: shoutAgent, inputs: {text: ":a"}}
          c: {agent: copyAgent, inputs: {t: ":b.txt"}, isResult: true}
    """
    code, lines, _ = validate(tmp_path, monkeypatch, capsys, shout_yaml=graph)
    assert (code, lines[0]) == (
        1, "shout.yaml:4:7: node b: agent: unknown agent 'shoutAgent' (did you mean shiftAgent, pushAgent, echoAgent?)")

    assert main(["validate", "shout.yaml", "--agents", "my_agents.py"]) == 0
    assert capsys.readouterr().out == (
        "shout.yaml:5:34: warning: node c: inputs.t: ':b.txt': shoutAgent's output has no property 'txt' (it has: text)\n"
    )
    assert main(["viz", "shout.yaml", "--agents", "my_agents.py"]) == 0
    assert 'b["b<br/>shoutAgent"]' in capsys.readouterr().out
