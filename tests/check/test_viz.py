"""`graphrt viz`: graphs drawn offline as Mermaid or DOT, nested graphs as subgraphs, loops marked."""

from __future__ import annotations

import re
from pathlib import Path

from graphrt.check.viz import graph_model, to_dot, to_mermaid
from graphrt.cli import main

MERMAID_STYLES = """\
  classDef static fill:#eef3ff,stroke:#5b6fb3
  classDef injected fill:#f3f3f3,stroke:#888,stroke-dasharray:3 3
  classDef loop fill:#fff6d5,stroke:#b39200
"""

# A nested graph that loops, inside a node that runs only `if` another node says so.
NESTED_LOOP = {
    "version": 0.5,
    "nodes": {
        "question": {"value": "hi"},
        "go": {"value": True},
        "steps": {
            "agent": "nestedAgent",
            "inputs": {"text": ":question"},
            "if": ":go",
            "graph": {
                "loop": {"count": 2},
                "nodes": {
                    "history": {"value": [], "update": ":add.array"},
                    "add": {"agent": "pushAgent", "inputs": {"array": ":history", "item": ":text"}, "isResult": True},
                },
            },
        },
        "end": {"agent": "copyAgent", "inputs": {"last": ":steps.add.array.$last"}, "isResult": True},
    },
}


def test_a_map_graph_is_drawn_as_a_subgraph_with_its_row_input(capsys) -> None:
    assert main(["viz", "graphs/fruit_map.yaml"]) == 0

    assert capsys.readouterr().out == """\
flowchart TD
  fruits[("fruits")]
  subgraph sentences["sentences<br/>mapAgent"]
    sentences__sentence["sentence<br/>stringTemplateAgent"]
    sentences__row>"row"]
  end
  summary["summary<br/>stringTemplateAgent"]
  fruits --> sentences
  sentences -->|"length()"| summary
  sentences -->|"join(-)"| summary
  sentences__row --> sentences__sentence
  sentences__row -->|"toUpperCase()"| sentences__sentence
""" + MERMAID_STYLES + """\
  class fruits static
  class sentences__row injected
  style sentences__sentence stroke-width:3px
  style summary stroke-width:3px
"""


def test_a_loop_is_marked_and_its_update_edges_are_dotted(capsys) -> None:
    assert main(["viz", "graphs/accumulate.yaml"]) == 0

    assert capsys.readouterr().out == """\
flowchart TD
  fruits[("fruits")]
  list[("list")]
  shift["shift<br/>shiftAgent"]
  push["push<br/>pushAgent"]
  _loop{{"loop while :fruits"}}
  fruits -->|"while"| _loop
  fruits --> shift
  list --> push
  shift -.->|"array"| fruits
  shift -->|"item"| push
  push -.->|"array"| list
""" + MERMAID_STYLES + """\
  class fruits,list static
  class _loop loop
  style list stroke-width:3px
"""


def test_a_nested_loop_is_drawn_inside_its_subgraph() -> None:
    assert to_mermaid(graph_model(NESTED_LOOP)) == """\
flowchart TD
  question[("question")]
  go[("go")]
  subgraph steps["steps<br/>nestedAgent"]
    steps__history[("history")]
    steps__add["add<br/>pushAgent"]
    steps___loop{{"loop 2 times"}}
    steps__text>"text"]
  end
  n_end["end<br/>copyAgent"]
  question --> steps
  go -->|"if"| steps
  steps -->|"add.array.$last"| n_end
  steps__history --> steps__add
  steps__add -.->|"array"| steps__history
  steps__text --> steps__add
""" + MERMAID_STYLES + """\
  class question,go,steps__history static
  class steps___loop loop
  class steps__text injected
  style steps__add stroke-width:3px
  style n_end stroke-width:3px
"""


def test_dot_draws_nested_graphs_as_clusters() -> None:
    assert to_dot(graph_model(NESTED_LOOP), name="steps") == """\
digraph "steps" {
  rankdir=TB; compound=true;
  graph [fontname=Helvetica, fontsize=10];
  node [fontname=Helvetica, fontsize=11, shape=box, style=rounded];
  edge [fontname=Helvetica, fontsize=9];
  "question" [label="question", shape=cylinder, style=filled, fillcolor="#eef3ff"];
  "go" [label="go", shape=cylinder, style=filled, fillcolor="#eef3ff"];
  subgraph "cluster_steps" {
    style="rounded,dashed"; label="nestedAgent graph";
    "steps" [label="steps\\nnestedAgent", shape=box];
    "steps/history" [label="history", shape=cylinder, style=filled, fillcolor="#eef3ff"];
    "steps/add" [label="add\\npushAgent", shape=box, penwidth=2.5];
    "steps/@loop" [label="loop 2 times", shape=hexagon, style=filled, fillcolor="#fff6d5"];
    "steps/text" [label="text", shape=cds, style=dashed];
  }
  "end" [label="end\\ncopyAgent", shape=box, penwidth=2.5];
  "question" -> "steps";
  "go" -> "steps" [label="if"];
  "steps" -> "end" [label="add.array.$last"];
  "steps/history" -> "steps/add";
  "steps/add" -> "steps/history" [label="array", style=dashed, constraint=false];
  "steps/text" -> "steps/add";
}
"""


def test_the_model_keys_nested_nodes_by_their_path() -> None:
    model = graph_model(NESTED_LOOP)

    assert [(key, attributes["kind"]) for key, attributes in model.nodes(data=True)] == [
        (("question",), "static"),
        (("go",), "static"),
        (("steps",), "computed"),
        (("end",), "computed"),
        (("steps", "history"), "static"),
        (("steps", "add"), "computed"),
        (("steps", "@loop"), "loop"),
        (("steps", "text"), "injected"),
    ]
    assert model.nodes["steps", "add"]["parent"] == ("steps",)


def test_viz_refuses_an_invalid_graph(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("nodes:\n  a: {agent: copyAgent, inputs: {x: ':nope'}}\n")

    assert main(["viz", str(bad)]) == 1
    assert capsys.readouterr().err == f"graphrt: {bad}:2:34: node 'a', field 'inputs.x': unknown node 'nope' (known: a)\n"


def test_the_docs_show_what_viz_draws(capsys) -> None:
    # the pictures of the repository's graph files, in the README and docs/ (a tutorial's own files are checked
    # where it writes them, by tests/test_docs.py)
    pages = [Path("README.md"), *sorted(Path("docs").rglob("*.md"))]
    pictures = [(file, picture) for page in pages
                for file, picture in re.findall(r"`graphrt viz (\S+)`[^`]*?:\n\n```mermaid\n(.*?)```",
                                                page.read_text(encoding="utf-8"), re.DOTALL)
                if Path(file).is_file()]
    assert pictures, "the docs have no Mermaid picture made by graphrt viz"
    for file, picture in pictures:
        assert main(["viz", file]) == 0
        assert capsys.readouterr().out == picture
