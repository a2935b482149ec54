"""Positions of keys in graph files (graphrt/graphdata/positions.py): the quick way through a node's own
lines must give what composing the whole text gives, however the file is written."""

from __future__ import annotations

from typing import Any, Iterator

import pytest
import yaml

from graphrt.graphdata.loader import parse_graph_text
from graphrt.graphdata.positions import Positions


def composed_whole(text: str, path: tuple) -> tuple[int, int] | None:
    """The deepest key of `path` in the whole text, composed: what the quick way must agree with."""
    node = yaml.compose(text, Loader=yaml.SafeLoader)
    mark = node.start_mark
    for key in path:
        if isinstance(node, yaml.MappingNode):
            found = [(k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == str(key)]
            if not found:
                break
            mark, node = found[0][0].start_mark, found[0][1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and 0 <= key < len(node.value):
            node = node.value[key]
            mark = node.start_mark
        else:
            break
    return mark.line, mark.column


def paths(value: Any, prefix: tuple = (), depth: int = 5) -> Iterator[tuple]:
    """Every key path in the data, down to `depth`, and a missing key under each mapping."""
    if depth == 0:
        return
    if isinstance(value, dict):
        yield (*prefix, "missing")
        for key, item in value.items():
            yield (*prefix, key)
            yield from paths(item, (*prefix, key), depth - 1)
    elif isinstance(value, list):
        for index, item in enumerate(value[:3]):
            yield (*prefix, index)
            yield from paths(item, (*prefix, index), depth - 1)


TEXTS = {
    "block": """\
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
""",
    "one line per node, ids that begin alike": """\
# a generated file
version: 0.5
nodes:
  c0_1: {"agent": "copyAgent", "inputs": {"v": ":seed.add(1)"}}
  c0_10: {"agent": "copyAgent", "inputs": {"v": ":c0_1"}}
  c0_1x: {"agent": "copyAgent", "inputs": {"v": ":c0_10"}}
  seed: {"value": 0}
""",
    "nodes first, comments, blank lines, quoted ids, a block scalar that looks like keys": """\
nodes:   # the graph
  # first the inputs

  "a b":
    value: |
      b: not a key
    c: 1
# a comment at the left edge
  'q':   # quoted
    value: [1, {x: 2}]
  b:
    agent: copyAgent
    inputs: {v: ":q"}
  1:
    value: one
loop:
  b: 3
  while: ":b"
""",
    "nested graphs": """\
version: 0.5
nodes:
  rows: {value: [1, 2]}
  map:
    agent: mapAgent
    inputs: {rows: ":rows"}
    graph:
      nodes:
        inner: {agent: copyAgent, inputs: {v: ":row"}, isResult: true}
        rows: {value: 3}
""",
    "crlf line ends": "version: 0.5\r\nnodes:\r\n  a:\r\n    value: 1\r\n  b: {agent: copyAgent, inputs: {v: ':a'}}\r\n",
    "a document header and an anchor shared by nodes": """\
---
base: &base {agent: copyAgent}
nodes:
  a: {value: 1}
  b:
    <<: *base
    inputs: {v: ":a"}
""",
    "nodes in flow style": "version: 0.5\nnodes: {a: {value: 1}, b: {agent: copyAgent, inputs: {v: ':a'}}}\n",
    "JSON": '{\n  "version": 0.5,\n  "nodes": {\n    "a": {"value": 1},\n    "b": {"agent": "copyAgent", "inputs": {"v": ":a"}}\n  }\n}\n',
}


@pytest.mark.parametrize("name", TEXTS)
def test_every_key_is_where_composing_the_whole_text_puts_it(name: str) -> None:
    text = TEXTS[name]
    data, _ = parse_graph_text(text)
    positions = Positions(text)
    asked = [("nodes", "absent"), ("nodes", "absent", "inputs"), ("loop", "while"), ("version",)]
    for path in [*paths(data), *asked]:
        assert positions.locate(path) == composed_whole(text, path), path


def test_a_node_that_is_not_there_is_not_found_under_another_top_level_key() -> None:
    text = "nodes:\n  a: {value: 1}\nloop:\n  while: ':a'\n"
    assert Positions(text).locate(("nodes", "while")) == (0, 0)  # the `nodes` key: the deepest that exists


@pytest.mark.parametrize("name", [name for name in TEXTS if name not in ("nodes in flow style", "JSON",
                                                                          "a document header and an anchor shared by nodes")])
def test_a_node_of_a_block_written_file_is_found_without_composing_the_whole_text(name: str, monkeypatch) -> None:
    text = TEXTS[name]
    data, _ = parse_graph_text(text)
    composed: list[int] = []
    compose = yaml.compose
    monkeypatch.setattr(yaml, "compose", lambda stream, Loader: (composed.append(len(stream)), compose(stream, Loader=Loader))[1])
    positions = Positions(text)

    for node_id in data["nodes"]:
        positions.locate(("nodes", node_id, "inputs"))
        positions.locate(("nodes", node_id, "value"))  # the node's lines are composed once for both

    assert len(composed) == len(data["nodes"]) and sum(composed) < len(text)
