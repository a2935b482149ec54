"""The quick YAML reader (graphdata/quick_yaml.py) answers only where it gives the full loader's value.

Every answer it gives is compared with PyYAML's, through graphrt's loader: on every YAML file of the
repository and of the conformance suites, on documents generated from the YAML graph files use (with
the scalars whose reading differs between YAML versions), and at the loader's limits.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphrt.base.errors import GraphLoadError
from graphrt.graphdata import full_yaml, loader
from graphrt.graphdata.loader import parse_graph_text
from graphrt.graphdata.quick_yaml import quick_load

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
LIMITS = {"max_depth": loader.MAX_DEPTH, "max_values": loader.MAX_VALUES}


def _full(text: str) -> Any:
    """What the loader reads without the quick reader: PyYAML, then the keys as text."""
    return loader._string_keys(yaml.load(text, Loader=full_yaml._GraphLoader))  # noqa: S506 - a safe loader


def _same(a: Any, b: Any) -> bool:
    """Equal, with types, key order and NaN (Python's `1 == 1.0 == True` is not enough)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[key], b[key]) for key in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return a == b


def _agrees(text: str) -> Any:
    """Asserts the quick reader answers only with the full loader's value, alone and with the entries it does not
    know read by the full loader (`full=`, as the loader calls it), and so with the text's line breaks written as
    Windows writes them; returns its answer alone."""
    if "\n" in text and "\r" not in text:
        _agrees(text.replace("\n", "\r\n"))
    quick = quick_load(text, **LIMITS)
    in_pieces = quick_load(text, **LIMITS, full=loader._full_value)
    if quick is not None:
        assert in_pieces is not None, f"read alone, not in pieces:\n{text}"
    if in_pieces is None:
        return None
    try:
        full = _full(text)
    except (yaml.YAMLError, ValueError) as error:
        pytest.fail(f"the quick reader read what the full loader refuses ({error}):\n{text}")
    assert _same(in_pieces, full), f"in pieces {in_pieces!r} != full {full!r} for:\n{text}"
    if quick is not None:
        assert _same(quick, full), f"quick {quick!r} != full {full!r} for:\n{text}"
    return quick


def _yaml_files(*roots: Path) -> list[Path]:
    return sorted(path for root in roots for suffix in ("*.yaml", "*.yml") for path in root.rglob(suffix))


def _most_read_quickly(files: list[Path]) -> None:
    quick = sum(_agrees(path.read_text(encoding="utf-8")) is not None for path in files)
    assert quick > len(files) * 0.7, f"only {quick} of {len(files)} files were read quickly"
    in_pieces = sum(quick_load(path.read_text(encoding="utf-8"), **LIMITS, full=loader._full_value) is not None
                    for path in files)
    assert in_pieces == len(files), f"{len(files) - in_pieces} of {len(files)} files went whole to the full loader"


def test_every_yaml_file_of_the_repository_reads_the_same_and_most_read_quickly() -> None:
    files = _yaml_files(ROOT / "graphs", ROOT / "examples", ROOT / "tests", ROOT / "bench" / "workloads")
    assert len(files) > 30
    _most_read_quickly(files)


@pytest.mark.needs("shared")
def test_every_yaml_file_of_graphais_suites_reads_the_same_and_most_read_quickly() -> None:
    files = _yaml_files(SHARED / "conformance")
    assert len(files) > 100
    _most_read_quickly(files)


def test_the_benchmarks_large_file_format_is_read_quickly() -> None:
    lines = ["# generated", "version: 0.5", "nodes:", '  seed: {"value": 0}']
    lines += [f'  c{n}: {{"agent": "copyAgent", "params": {{"namedKey": "v"}}, "inputs": {{"v": ":c{n - 1}.add(1)"}}}}'
              for n in range(1, 200)]
    text = "\n".join(lines) + "\n"
    assert _agrees(text) is not None
    data, _ = parse_graph_text(text, "big.yaml")
    assert data["nodes"]["c5"] == {"agent": "copyAgent", "params": {"namedKey": "v"}, "inputs": {"v": ":c4.add(1)"}}


@pytest.mark.parametrize("text", [
    "n1: {agent: copyAgent, inputs: {v: ':n0'}}\n",  # YAML's flow style, single quotes
    'n1: {agent: "copyAgent", inputs: {v: ":n0"}}\n',
    "n1: {agent: copyAgent, params: {namedKey: v, step: 2}, inputs: [':n0', n0]}\n",
    "nodes:\n  a: {v: 1}  # a comment\n  b: ['it''s', \"say \\\"hi\\\"\"]\n  c: [.inf, -.Inf, .nan, 0o17, 0x1F, ~, Null, yes, 1_000]\n",
    "a: [http://host/p, a#b, x:y, -1, -x, 'a: b', \"[c]\"]\n",
    'a: {"b":1, "c":[true, null]}\nb: {"d": "\\u00e9\\n\\t\\/"}\n',
    'a: "line\\nnext \\"quoted\\" \\u00e9"\n',  # JSON's escapes mean the same in YAML
    "a: [NaN, Infinity, -Infinity]\nb: {NaN: 1}\n",  # plain text in YAML, not JSON's constants
    "a: {}\nb: []\nc: [{}, [], {d: []}]\n",
    "- {a: 1}\n- [b, 'c']\n",
    "a: |\n  Step ${v}:\n    go on\n\n  # not a comment\nb: |-\n  x\n\n\nc: |+\n  y\n\n\nd: 1\n",  # literal blocks
    "a:\n  prompt: | # a comment\n    text\n  next: 2\n- x\n"[:-4],
    "- a: |\n    text\n  b: 1\n",
    "a: &x 1\nb: *x\nc: &y {p: [1, 2]}\nd: *y  # again\ne: &z\n  q: *y\nf: *z\ng: &w |\n  t\nh: *w\n",  # anchors
])
def test_flow_styles_json_escapes_and_literal_blocks_are_read_quickly(text: str) -> None:
    assert _agrees(text) is not None


@pytest.mark.parametrize("text", [
    "a: >-\n  folded\n  text\n\n  next\nb: >\n  x\n\n\n  y\nc: >+\n  kept\n\n\nd: 1\n",  # folded, each chomping
    "a: >\n  text\n    more indented\n  back\n\n   again\n  end\n",  # more-indented lines keep their breaks
    "a: >\n\n  after an empty line\nb: |\n\n\n  two\n",
    "a: |2\n   text\n  b\nb: |-4\n      x\n    y\nc: >2+\n   z\n\nd: |1\n  e\n",  # indentation indicators
    "a:\n  b: |+2 # c\n     kept\n\n\n  c: >-\n    d\n",
    "- |\n  text\n- >-\n  a\n  b\n- |2-\n   c\n",  # in a sequence
    "a:\n- |\n  x\n- y\n",
    "- a: >\n    x\n  b: |2\n     y\n",
    "a: &x >-\n  t\nb: *x\n",
    "a: |\n  x\n    \n  y\nb: >\n  x\n   \n\n  y\nc: >-\n  x\n     \nd: |+\n  x\n    \n\ne: |2\n     \n  z\n",  # lines of spaces
])
def test_folded_scalars_and_indentation_indicators_are_read_quickly(text: str) -> None:
    assert _agrees(text) is not None


@pytest.mark.parametrize("text", [
    "a:\n  b: {c: 1,\n    d: 2}\n  e: [1]\n",  # a flow collection over two lines
    "a:\n  inputs: {\n    v: ':n0',\n    w: [1, 2]\n  }\n  b: 1\n",  # the closing bracket at the key's indentation
    "a:\n  inputs: {\n     v: ':n0',\n   w: 2\n  }\nb: 1\n",  # lines at any indentation past the key's
    "a: [  # a comment\n  1,\n  # a comment's line\n\n  2,\n]\n",  # comments, an empty line, a trailing comma
    "a: {b: [1, 2,\n  ], c: {d: x,\n  },\n}\n",  # trailing commas at each depth
    "a: {v: [\n  ':n0', 1, null,\n  {deep: yes, list: [a, b]}\n]}\n",
    "a:\n  b: {c: 1,\n    d: 2} # after\n  e: 3\n",
    "a:\n  b: {t: 'x ${y}\n\n    z'}\n  c: [ok]\n",  # the first line ends with a bracket in a scalar
    "a:\n  b: {t: 'x ${y}\n\n    #1 z'}\n  c:\n  - ['it''s\n    #2', 1]\n",  # then a line of text starting with `#`
    "a: ['x', 'a''b''c\n  d', 'e']\nb: {'k': 'v''\n  w'}\n",  # a quote written twice where the line breaks
    "- a: {b: 1,\n    c: 2}\n  d: 3\n",  # in a sequence item's mapping
    'a: {"b": 1,\n  "c": [true, null]}\n',  # JSON over several lines
    "a:\n  b:\n  - {c: 1,\n     d: 2}\n  - [\n    3,\n  ]\n  e: 1\n",  # as sequence items
    "- - 1\n  - - 2\n    - 3\n- - - 4\n-   - 5\n- -\n  - x: 6\n    y: 7\n",  # sequences in sequences, on one line
    "a:\n  src:\n    {\n      value:\n        [\n          { b: 'x', c: 1 },\n        ],\n    }\n  d: 2\n",  # below its key
    "a: # c\n  [1,\n   2]\nb:\n  {c: 1}\n",
    "a: [plain\n  more, {k: two\n    lines, 'q': 'x\n    it''s\n\n    y'}, \"d\\\n    e \\x41\n    f\", 1]  # c\nb: 1\n",  # scalars over lines
    "a: {b: 'x\n  y', c: \"one # two\n\n   three\"}\n",
])
def test_flow_collections_over_several_lines_are_read_quickly(text: str) -> None:
    assert _agrees(text) is not None


@pytest.mark.parametrize("text", [
    "a: plain\n  more\n",
    "a:\n  b: one two\n    three - four [x] {y} &z *w !v 'q' \"d\" x:y\n\n\n    five  \n  c: 1\n",  # as PyYAML folds it
    "a: 'it\n spans'\n",
    "a:\n  b: 'one\n   it''s  \n\n\n   two'  # c\n  c: 1\n",
    "a:\n  b: \"x \\\"q\\\" \\u00e9\\\n      y\\\n\n      z  \"\n  c: 1\n",  # JSON's escapes, escaped line breaks
    "a: 1\n  2\n",  # text, not numbers
])
def test_scalars_over_several_lines_after_a_key_are_read_quickly(text: str) -> None:
    assert _agrees(text) is not None


@pytest.mark.parametrize("text", [
    # one match a line (_LINE): plain, quoted, escaped, aliased, commented, and nested mappings read on a stack
    "a: b #c\nd: x:y\ne: a#b\nf: a :b\ng: 'it''s' # c\nh: \"\\u00e9\\t\\\"q\\\"\"  # c\ni: null\nj: 0x1F\nk: -x\n",
    "a: # a comment\n  b: 1\nc: # another\nd:\n",
    "a:\n  b:\n    c:\n      d: 1\ne: 2\nf:\n   g:\n         h: x\n   i: y\n",  # several levels end at once
    "a: &x\n  b: {c: [1, 2]}\n  d: 1\ne: *x\nf:\n  g: *x\n",
    "a: &s text\nb: *s # c\nc: &m\n  d: 'q'\ne: *m\n",
    "a: [what?, x ?y, 'https://h:80/p?q=1#f', {k?: v?w}]\nb: {x?: [1?], a ? b: c}\n",  # `?` in flow, as libyaml and js-yaml read it
    'a: "\\x41 \\N \\e \\U0001F600 \\  \\_"\nb: ["\\x41", {"\\L": "\\P\\/"}]\nc:\n- "\\0\\a\\v" # c\n',  # YAML's escapes
    "- 'it\n  spans'\n- \"a\\\n  b \\x41\n\n  c\" # c\n- |+\n\n\n- END\n- a: |+\n     \n\n  b: >\n\n  c: x\n",  # as dumpers write
    "first name: Ada\nfilter[status]: open\n\"caf\\u00e9\": x\nk:v: 1\na{b}, c: 2\n1 2: x\nx-y z:\n  - p q: 1\n    '': 2\n",  # keys
    "- &x 1\n- *x\n- &y [1, {b: 2}]  # c\n- *y # c\n- &z |\n  t\n- *z\n- &w\n  a: 1\n- *w\n- &v\n- *v\n",  # sequence items
    # flow values read at the end, at once: several depths, JSON and YAML's flow, around blocks and sequences
    'a: {b: 1}\nc:\n  d: {"e": [1, {"f": null}]}\n  g: [h, \'i\']\n  j: 2\nk: [l]\nm:\n- n: {o: p}\n  q: {r: s}\n',
    "a: {b: n5, c: null, d: nope, e: 5, f: '5', g: 'it''s', h: -x, i: tru, j: -0, k: 007, l: 1e3}\n",
    "a: [' x', ' y ', x y, 'a\"b', x\"y, 'c\\d']\nb: [' x', x y]\n",
    # flow values after an anchored block that holds some: were left null
    "a:\n  n1:\n    params: &llm\n      model: m\n      f: {z: 1}\n    x: {p: 1}\n  n2:\n    inputs: [1]\n",
])
def test_block_lines_and_deferred_flow_values_read_as_pyyaml_reads_them(text: str) -> None:
    assert _agrees(text) is not None


@pytest.mark.parametrize("text", [
    "a: {b: &x 1, c: *x}\n",  # anchors and aliases in flow
    "a: [&x 1]\n",
    "a: &x 1\nb: [*y]\n",  # an alias of no anchor, in flow
    "- &x a: 1\n- *x\n",  # an anchor on a sequence item's key
    "a: &x 1\nb: &x 2\n",  # an anchor written twice
    "a: *x\n",  # an alias of no anchor
    "a: &x !!str 1\n",
    "a: &x\n  b: *x\n",  # an alias of the value that holds it
    "a: &x\n  b: &x 1\n",  # the same anchor inside its value (found by the generated documents)
    "<<: *x\n",
    "a: !!str 1\n",  # tags
    "a: |\n  text",  # no line break at the end
    "a: |\n   text\n  less\n",  # less indented than the text, more than the key
    "a: |\n     \n  text\n",  # a line of spaces before the text that reaches past its column
    "a: 1\na: 2\n",  # a key written twice
    "a: {b: 1, b: 2}\n",
    'a: {"b": 1, "b": 2}\n',
    "a:\n\tb: 1\n",  # a tab
    # lines of a scalar or collection over lines as far left as its key, or further: PyYAML reads them, but they
    # could be taken for keys where an entry is left to the full parser (random files found it)
    "a:\n  b: 'x\nat the left'\n  c: 1\n",
    "a: 'it\nspans'\n",
    "a:\n  inputs: {\n    v: ':n0',\n  w: 2\n}\nb: 1\n",
    "top:\n  k: [x,\nc: d]\n  more\n",
    "- plain\n  more\n",  # in a sequence
    "a: plain # c\n  more\n",
    'a: "\\x41 \\q"\n',  # an escape YAML does not have
    'a: "\\ud800"\n',  # an escaped surrogate: PyYAML refuses it
    'a: ["\\U0000d800"]\n',
    "a: {v: :n0}\n",  # a plain scalar starting with `:` in flow: YAML 1.2 reads it, PyYAML refuses it
    "a: {b: &x 1, c: *x}\n",  # anchors in flow
    "a: [!!str 1]\n",
    "a: [1, 2,]\n",  # an empty entry: YAML reads it, JSON does not
    "a: [b: 1]\n",  # a pair in a sequence
    "a: {b}\n",  # a key without a value
    "a: {1: b}\n",  # a key that is not text
    "a: {b: 1} c\n",  # more after the collection
    "a: {b: 1}, {c: 2}\n",
    "a: [1, [2]\nb: [3]], [4]\n",  # brackets closed on another line
    "a: {x: {y: 1}\nb: {z: 2}}, k: {w: 3}\n",
    'a: {"x": {"y": 1}\nb: {"z": 2}}, "k": {"w": 3}\n',  # in JSON: was read as {a: {x, b}, k}
    "a: 1\n---\nb: 2\n",  # documents
    "a: [1, 2\n",  # unclosed
    "a: b: c\n",
    "<<: {a: 1}\n",  # a merge key
    "1: one\n",  # keys that are not text
    "true: yes\n",
    "a: [b, c]#not a comment\n",
    "a: \x85b\n",  # YAML 1.1's line breaks
    "a: 1\u2028b: 2\n",
    "a: {b:c}\n",
    "a:\n    b: 1\n  c: 2\n",  # an indentation between two levels
    "a:\n  b: 1\n    c: 2\n",  # more indented after a value that was whole
    "a: b\n  c: d\n",
    "a: 'b'\n  c\n",
    "a: *x\nb: &x 1\n",  # an alias before its anchor
    "a: &x\n  b: {c: *x}\n",
    "a: {b: 1}\nc:\n  d: {e: 1, e: 2}\n",  # a key written twice in a flow value read at the end
    "a: {c: 1}\nd: 2\na: 3\n",  # a key written again after a flow value read at the end
    "true:\n  a: 1\n",
    "a: x : y\n",
    "a: {b: 1}\n  c: 2\n",  # a flow value that goes on below
    "a:\n  '1': [1]\n    - 2\n",
])
def test_what_it_leaves_to_the_full_loader(text: str) -> None:
    assert quick_load(text, **LIMITS) is None


@pytest.mark.parametrize("text", [
    "nodes:\n  a:\n    p: !!str 1\n    q: 1\n  b:\n    r: 2\n",  # the one entry, the rest quick
    "a: !!str 1\nb: 1\n",  # an entry at the top, read one column in
    "a: 1\nb: !!str 2\nc: 3\n",  # a tag
    "a:\n  b: x\n    goes on # a comment\n  c: 1\n",  # a plain scalar over two lines: found on the line after it
    "a:\n  b: [x,\n    y\n\n    z]\n  e: [1]\n",  # a plain scalar over lines with an empty one in a flow collection
    "a:\n  b: [1, 2,]\n  c: {d: 1}\n  e: [x, y]\n",  # a flow value JSON refuses, among others read at once
    "a:\n  b: {v: [1, 2,]}\n  c: {v: 2}\n  d: {v: 3}\n  e: {v: 4}\n  f: {v: [5,]}\n",  # two of them, halves read
    "a:\n  <<: {m: 1}\n  b: 2\nc: 3\n",  # a merge key with no alias: in its entry
    "a:\n  b:\n  - !!str 1\n  - y\n  c: 1\n",  # in a sequence: the entry that holds it
    "a:\n  b: !!str |+2\n     kept\n\n\n  c: 1\n",  # a literal keeping its blank lines, then more
    "a: 1\nb: !!str >-\n  at the end\n",
    "a:\n  b: !!str x\n  c:\n    d: !!str >\n      y\n    e: 1\n",  # pieces at two depths
    "a:\n  b: 1\n  c:\n    d: !!float 1\n    e: 2\n",
])
def test_an_entry_it_does_not_know_goes_to_the_full_loader_alone(text: str) -> None:
    """Only the entry (of a block mapping) that holds what the quick reader does not know is read by the full loader,
    and the value is the full loader's."""
    assert quick_load(text, **LIMITS) is None
    assert quick_load(text, **LIMITS, full=loader._full_value) is not None
    assert _agrees(text) is None


def test_windows_line_breaks_are_read_quickly_and_a_lone_carriage_return_is_the_full_loaders() -> None:
    text = "version: 0.5\r\nnodes:\r\n  a:\r\n    value: |\r\n      two\r\n\r\n      lines\r\n    b: 'x\r\n      y'\r\n"
    assert _agrees(text) == {"version": 0.5, "nodes": {"a": {"value": "two\n\nlines\n", "b": "x y"}}}
    assert quick_load("a: 1\rb: 2\n", **LIMITS) is None and quick_load("a: 1\r\nb: 2\r", **LIMITS) is None


def test_a_byte_order_mark_at_the_start_is_read_quickly_and_one_after_it_is_the_full_loaders() -> None:
    assert _agrees("\ufeffversion: 0.5\r\nnodes:\r\n  a:\r\n    value: 1\r\n") == {"version": 0.5,
                                                                                 "nodes": {"a": {"value": 1}}}
    assert quick_load("\ufeff\ufeffa: 1\n", **LIMITS) is None and quick_load("a: 1\n\ufeffb: 2\n", **LIMITS) is None
    assert _agrees("a: \ufeffx\n") is None


@pytest.mark.parametrize("text", ["---\na: 1\n", "# c\n\n---  # x\na: 1\n", "--- \r\na: [1]\r\n", "---\na: 1\n...\n",
                                  "a: 1\n... # the end  \n\n# c\n", "a: |\n  x\n...\n", "a: 1\n...  "])
def test_the_markers_of_the_documents_start_and_end_are_read_quickly(text: str) -> None:
    assert _agrees(text) is not None


@pytest.mark.parametrize("text", ["---\n---\na: 1\n", "a: 1\n...\n---\nb: 2\n", "a: 1\n...\nb: 2\n", "a: 1\n...x\n", "--- a: 1\n", "---a\nb: 1\n", "  ---\na: 1\n",
                                  "a: 1\n---\nb: 2\n", "%YAML 1.2\n---\na: 1\n"])
def test_documents_markers_it_does_not_know_are_the_full_loaders(text: str) -> None:
    assert quick_load(text, **LIMITS) is None
    try:
        full = _full(text)
    except (yaml.YAMLError, ValueError):
        return
    assert _same(parse_graph_text(text)[0], full)


def test_an_error_in_a_file_with_windows_line_breaks_is_where_the_full_loader_puts_it() -> None:
    test_errors_keep_the_full_loaders_message_and_position("version: 0.5\r\nnodes:\r\n  a: {v: 1}}\r\n")


@pytest.mark.parametrize("text", [
    '{\n  "version": 0.5,\n  "nodes": {\n    "a": {"value": [1, -0, 1.5E+3, null, true, "x\\/y\\u00e9"]},\n'
    '    "b": {"agent": "copyAgent", "inputs": {"v": ":a"}}\n  }\n}\n',
    '\n  {"nodes": {"a": {"value": 12345678901234567890, "b": 1e999}}}',
    '{"nodes": {"a": {"value": "\\u0000"}},\n "k":\n 1}\n',
])
def test_a_file_that_is_one_json_object_is_read_by_the_json_module(text: str) -> None:
    assert _agrees(text) is not None


@pytest.mark.parametrize("text", [
    '{"nodes": {"a": 1, "a": 2}}\n',  # a key twice: YAML refuses it, JSON keeps the last
    '{"nodes": {"a": NaN}}\n',  # text in YAML
    '{"nodes": {"a": "\\ud83d\\ude00"}}\n',  # an escaped surrogate: PyYAML refuses it
    '{"nodes"\n: {"a": 1}}\n',  # a key's colon on the next line: no implicit key in YAML
    '{"' + "k" * 1100 + '": 1}\n',  # a key of over 1,024 characters: no implicit key either
    '{"nodes": {"a": "\x7f"}}\n',  # a character YAML refuses
    '{nodes: {a: 1}}\n',  # YAML's own flow style: the full loader's
])
def test_json_that_yaml_reads_otherwise_is_left_to_the_full_loader(text: str) -> None:
    assert quick_load(text, **LIMITS) is None
    try:
        full = _full(text)
    except (yaml.YAMLError, ValueError):
        return
    assert _same(parse_graph_text(text)[0], full)


@pytest.mark.parametrize("text", [
    "a: &x !!str t\nb: *x\n",  # an anchor in the entry, its alias outside
    "a: &x 1\nb: [*x, !!str 2]\n",  # an alias in the entry, its anchor outside
    "a: &x 1\nb: !!str t\n",  # an anchor anywhere, with an entry left
    "a:\n  b: 1\n  c: !!str t\n  d: [*x]\n",
    "- a: !!str t\n",  # a sequence at the top
    "a:\n- b: !!str t\n",  # after a `- `: the whole entry that holds the sequence
    "1: !!str t\n",  # a key that is not text
    "a: !!str t",  # the file's last line without a line break
    "a:\n  b: {1: x}\n",  # a key that is not text, in what the full loader read
])
def test_an_entry_tied_to_the_rest_leaves_the_whole_file(text: str) -> None:
    """An entry with an anchor or an alias, or one whose value the file's own reading would change, leaves the
    whole file to the full loader (which gives the same value, or says where the error is)."""
    quick = quick_load(text, **LIMITS, full=loader._full_value)
    assert quick is None or _same(quick, _full(text))
    if text.startswith(("a: &x", "1:", "a:\n  b: {1")):
        assert quick is None


@pytest.mark.parametrize("text", [
    "nodes:\n  a:\n    p: >-\n      t\n    p: 1\n",  # a key written twice, after an entry left
    "nodes:\n  a:\n    p: 1\n    p: >-\n      t\n",  # the entry left is the second
    "nodes:\n  a:\n    p: >-\n      t\n  b: [1,\n",  # an error after an entry left
    "nodes:\n  a:\n    p: >-\n      t\n    q: [1,\n  b: 1\n",  # an error in an entry left
    "nodes:\n  a:\n    p: >-\n      t\n     q: 1\n",
    "nodes:\n  a: {p: [1, 2,], p: 3}\n  b: {q: 1}\n",  # a key twice in a flow value read alone
    "nodes:\n  a:\n    p: !!binary aGk=\n  b: 1\n",
    "nodes:\n  a:\n    p: x\n     y: z\n",
    # more after a value over several lines whose last line looks like a key's: was read as that key's plain value
    "nodes:\n  b: 'x\n  b: c'\n    more\n",
    "nodes:\n  a: {x: 1,\n  a: 2}\n    more\n",
    "nodes:\n  a:\n    {x: 1}\n    more\n",
])
def test_errors_in_or_around_an_entry_left_keep_the_full_loaders_message_and_position(text: str) -> None:
    test_errors_keep_the_full_loaders_message_and_position(text)


@pytest.mark.parametrize("text", [
    "a: 1\na: 2\n",
    "nodes:\n  a: {value: 1, value: 2}\n",
    "nodes:\n  a: [1, 2\n",
    "nodes:\n  a: b: c\n",
    "version: 0.5\nnodes:\n  a:\n    value: 1\n   b: 2\n",
    "- {",  # flow text that ends where a value should be: was an IndexError out of the quick reader
    "a: {b: ",
    "nodes:\n  a: {v: 'x}\n",  # the tokens' readers, the literal block's and the anchors' leave every error
    "nodes:\n  a: {v: 1}}\n  b: [1]\n",
    "nodes:\n  a: {v: \"\\x\"}\n",
    "nodes:\n  a: &x 1\n  b: *y\n",
    "nodes:\n  a: &x 1\n  b: &x 2\n",
    "nodes:\n  a: |\n    text\n   b: 1\n",
])
def test_errors_keep_the_full_loaders_message_and_position(text: str) -> None:
    with pytest.raises(yaml.YAMLError) as full:
        _full(text)
    mark = full.value.problem_mark
    with pytest.raises(GraphLoadError) as error:
        parse_graph_text(text, "g.yaml")
    assert (error.value.location.line, error.value.location.column) == (mark.line + 1, mark.column + 1)
    assert full.value.problem in str(error.value)


def _shape(value: Any, depth: int = 0) -> tuple[int, int]:
    """(values, depth of the deepest list or mapping) as loader._check_shape counts them."""
    if not isinstance(value, (dict, list)):
        return 1, -1
    values, deepest = 1, depth
    for child in value.values() if isinstance(value, dict) else value:
        child_values, child_depth = _shape(child, depth + 1)
        values, deepest = values + child_values, max(deepest, child_depth)
    return values, deepest


def _limits_agree(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The quick reader gives up exactly where _check_shape refuses the full loader's value."""
    try:
        _limits_checked(text, monkeypatch)
    finally:
        monkeypatch.undo()


def _limits_checked(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    values, depth = _shape(_full(text))
    for limit, expected in ((values, True), (values - 1, False)):
        monkeypatch.setattr(loader, "MAX_VALUES", limit)
        with pytest.raises(GraphLoadError) if not expected else _nothing():
            loader._check_shape(_full(text), None)
        assert (quick_load(text, max_depth=100, max_values=limit) is not None) is expected
    monkeypatch.setattr(loader, "MAX_VALUES", 10**6)
    if depth >= 1:
        for limit, expected in ((depth, True), (depth - 1, False)):
            monkeypatch.setattr(loader, "MAX_DEPTH", limit)
            with pytest.raises(GraphLoadError) if not expected else _nothing():
                loader._check_shape(_full(text), None)
            assert (quick_load(text, max_depth=limit, max_values=10**6) is not None) is expected


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


@pytest.mark.parametrize("text", [
    'a: [1, 2, 3]\nb:\n  c:\n  - 4\n  - d: 5\ne: {"f": [6, 7], "g": {}, "h": [ ]}\n',
    'a: {"b": {"c": [[], [1, {"d": []}]]}}\n',
    "a: [{b: [c, [d]]}, {}]\nb:\n- - x\n",
    "a:\n  b:\n    c:\n      d: [1]\n",
    "a: &x {b: [1, {c: 2}]}\nd:\n  e: *x\n  f: *x\n",  # an alias counts what it stands for, where it stands
    "a: &x\n  b: {c: [1, {d: 2}]}\n  e: [3]\nf: *x\ng:\n  h: *x\n",  # the flow values of an anchored block
    "a: {b: [1, [2, [3]]]}\nc:\n  d: {e: {f: [4]}}\n  g: 5\n",
    '{\n  "a": {"b": [1, [2, [3]]]},\n  "c": {"d": {"e": {"f": [4]}}, "g": 5}\n}\n',  # one JSON object
])
def test_the_limits_are_the_loaders(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past MAX_VALUES or MAX_DEPTH the quick reader gives up, and the full loader says why, as before."""
    if quick_load(text, **LIMITS) is None:  # the full loader alone reads it: its limits are only its own
        assert parse_graph_text(text)[0] == yaml.safe_load(text)
        return
    _limits_agree(text, monkeypatch)


def test_aliases_of_aliases_are_the_full_loaders_to_refuse() -> None:
    """A "billion laughs" written with block aliases: the quick reader gives up at MAX_VALUES, having walked
    no more than that, and the full loader says why."""
    lines = ["l0: &l0 {" + ", ".join(f"k{n}: x" for n in range(10)) + "}"]
    for level in range(1, 8):
        lines += [f"l{level}: &l{level}", *(f"  k{n}: *l{level - 1}" for n in range(10))]
    text = "\n".join(lines) + "\n"
    assert quick_load(text, **LIMITS) is None
    with pytest.raises(GraphLoadError, match="expands to more than 1,000,000 values"):
        parse_graph_text(text, "laughs.yaml")


def test_aliases_of_blocks_with_flow_values_are_counted_in_full() -> None:
    """The flow values of a block are read at the end of the file (_read_flows), but an anchored block's are read
    before an alias of it is counted: a "billion laughs" made of such blocks still meets MAX_VALUES."""
    lines = ["l0: &l0", "  k: {a: [x, x, x, x, x, x, x, x, x, x]}"]
    for level in range(1, 7):
        lines += [f"l{level}: &l{level}", *(f"  k{n}: *l{level - 1}" for n in range(10))]
    text = "\n".join(lines) + "\n"
    assert quick_load(text, **LIMITS) is None
    with pytest.raises(GraphLoadError, match="expands to more than 1,000,000 values"):
        parse_graph_text(text, "laughs.yaml")


def test_a_deep_value_is_the_full_loaders_to_refuse() -> None:
    deep = "a: " + "[" * 101 + "]" * 101 + "\n"
    assert quick_load(deep, **LIMITS) is None
    with pytest.raises(GraphLoadError, match="nested more than 100 levels"):
        parse_graph_text(deep)


# ----- generated documents -----

_SCALARS = st.sampled_from([
    "yes", "no", "on", "off", "y", "n", "true", "True", "FALSE", "null", "Null", "~", "012", "0o17", "0x1F", "0b101",
    "-0", "+1", "1_000", "1:30", "2024-01-01", "2024-01-01T10:00:00Z", "1e5", "1.5E+3", ".5", "-.inf", ".NaN", "1.",
    "0.1", "-2", "abc", "a b", "a#b", "a-b", "-x", "x:y", "http://h/p?q=1", "it's", "é日本", "12abc", ".x", "@at", "`b",
    "%p", "a,b", "[x]", "{x}", "*a", "&a", "!t", "|", ">", "?", ":", "-", "#c", "'q'", '"d"', " ", "",
])
_KEYS = st.sampled_from(["a", "b", "node_1", "$ref", "x.y", "k-k", "1", "true", "null", "on", "é", '"quoted"', "'single'",
                         "a b", "key:x", "<<"])


def _quoted(text: str) -> st.SearchStrategy[str]:
    return st.sampled_from([text, f"'{text}'".replace("'", "''").replace("''", "'", 1)[:-1] + "'",
                            f'"{text}"'])


_INLINE = _SCALARS.flatmap(_quoted)


def _flow(depth: int) -> st.SearchStrategy[str]:
    leaf = _INLINE
    if depth == 0:
        return leaf
    inner = _flow(depth - 1)
    sequence = st.lists(inner, max_size=3).map(lambda items: "[" + ", ".join(items) + "]")
    mapping = st.lists(st.tuples(_KEYS, inner), max_size=3).map(
        lambda pairs: "{" + ", ".join(f"{key}: {value}" for key, value in pairs) + "}")
    json_like = st.lists(st.tuples(_KEYS, inner), max_size=3).map(
        lambda pairs: "{" + ",".join(f'"{key.strip(chr(34))}":{value}' for key, value in pairs) + "}")
    return st.one_of(leaf, sequence, mapping, json_like)


def _block(depth: int, indent: int) -> st.SearchStrategy[list[str]]:
    pad = " " * indent
    value = st.one_of(st.one_of(_INLINE, _flow(2)).flatmap(
        lambda text: st.sampled_from([text, f"{text}  # note", f"{text} #c", f"&a {text}", f"&b {text}"])),
        st.sampled_from(["*a", "*b # c", "*c", "&a", "*a x"]))
    entry = st.tuples(_KEYS, value).map(lambda pair: [f"{pad}{pair[0]}: {pair[1]}"])
    merge = st.sampled_from(["*a", "*b", "*c", "[*a, *b]", "[*b]", "*a # m"]).map(lambda alias: [f"{pad}<<: {alias}"])
    entries = [entry, merge, st.tuples(_KEYS).map(lambda key: [f"{pad}{key[0]}:"])]
    if depth > 0:
        entries.append(st.tuples(_KEYS, _block(depth - 1, indent + 2), st.sampled_from(["", " &b", " &c"])).map(
            lambda triple: [f"{pad}{triple[0]}:{triple[2]}", *triple[1]]))
        entries.append(st.tuples(_KEYS, st.lists(value, min_size=1, max_size=3), st.sampled_from([0, 2])).map(
            lambda triple: [f"{pad}{triple[0]}:", *(f"{pad}{' ' * triple[2]}- {item}" for item in triple[1])]))
        entries.append(st.tuples(_KEYS, _block(depth - 1, indent + 4)).map(
            lambda pair: [f"{pad}{pair[0]}:", f"{pad}  - {pair[1][0].lstrip()}", *pair[1][1:]]))
    entries.append(st.tuples(_KEYS, st.lists(value, min_size=1, max_size=3), st.sampled_from(["- ", "-   ", "- - "])).map(
        lambda three: [f"{pad}{three[0]}:", *(f"{pad}  - {three[2]}{item}" if number % 2 else f"{pad}  {' ' * len(three[2])}- {item}"
                                              for number, item in enumerate(three[1]))]))  # sequences in sequences
    entries.append(st.tuples(_KEYS, _flow(2), st.sampled_from([0, 2, 4]), st.sampled_from(["", ",", " # c"])).map(
        lambda four: [f"{pad}{four[0]}: " + four[1].replace(", ", f"{four[3]}\n{pad}{' ' * four[2]}")]))  # over lines
    words = st.sampled_from(["x", "y z ", "'q", "it''s'", '"d', 'e" ', '\\"f\\\\', "g\\", "", "  ", "# c", "a #b", "c: d", "1"])
    entries.append(st.tuples(_KEYS, st.lists(words, min_size=2, max_size=4), st.sampled_from([0, 1, 2, 4])).map(
        lambda three: [f"{pad}{three[0]}: {three[1][0]}",  # a scalar over lines
                       *(f"{pad}{' ' * three[2]}{line}" if line else line for line in three[1][1:])]))
    body = st.lists(st.sampled_from(["text", "  more", "", "# hash", " ", "  ", "     ", "x: y", "a b ", "    deeper"]),
                    max_size=5)
    headers = ["|", "|-", "|+", "| # c", "|2", ">", "|x", ">-", ">+", ">1", "|+1", ">2-", "|-3", ">4", "> # c", ">+2 #c"]
    entries.append(st.tuples(_KEYS, st.sampled_from(headers), body,
                             st.sampled_from([1, 2, 4])).map(
        lambda four: [f"{pad}{four[0]}: {four[1]}",
                      *(f"{pad}{' ' * four[3]}{line}" if line.strip() else line for line in four[2])]))
    extras = st.sampled_from([[], [""], [f"{pad}# comment"], ["   "]])
    return st.lists(st.tuples(st.one_of(*entries), extras), min_size=1, max_size=4).map(
        lambda parts: [line for lines, extra in parts for line in (*lines, *extra)])


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(lines=_block(2, 0))
def test_generated_documents_read_the_same(lines: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    text = "\n".join(lines) + "\n"
    if _agrees(text) is not None:
        _limits_agree(text, monkeypatch)


@pytest.mark.parametrize("text", [
    "a: x\ty\nb: 'it\tis'\nc: \"\tq\t\"\nd: [x\ty, z]\ne: {k: v\tw}\nf: 1\t2\n",
    "a: |\n  id\tname\n  \tindented\tcode\n  \t\tdeeper\nb: >-\n  x\ty\n  z\n",
    "a:\n- x\ty\n- 'p\tq'\n",
    "a: >\n  x\n  \ty\n  z\n",  # a folded line that starts with a tab is more indented: kept, with its line break
])
def test_tabs_inside_text_are_read_quickly(text: str) -> None:
    assert _agrees(text) is not None


def test_the_repositorys_yaml_files_with_tabs_in_their_text_read_the_same() -> None:
    """Each YAML file of the repository with tabs put in between two characters of text (seeded): where YAML reads
    them as text the quick reader reads them, and as PyYAML does."""
    import random

    files = _yaml_files(ROOT / "graphs", ROOT / "examples", ROOT / "tests", ROOT / "bench" / "workloads")
    rng = random.Random(7)
    read = 0
    for path in files:
        original = path.read_text(encoding="utf-8")
        inside = [at for at in range(1, len(original)) if original[at - 1].isalnum() and original[at].isalnum()]
        for _ in range(3 if inside else 0):
            text = original
            for at in sorted(rng.sample(inside, min(3, len(inside))), reverse=True):
                text = text[:at] + "\t" + text[at:]
            read += _agrees(text) is not None
    assert read > len(files)


@pytest.mark.parametrize("text", [
    "a:\tb\n", "a: b\t\n", "a: b\t# c\n", "- \tx\n", "-\tx\n", "a: [x,\ty]\n", "a: {\tk: v}\n", "a: [x\t]\n",
    "a: b \tc\n", "\ta: b\n", "a:\n\t- b\n", "a: x\n  \ty\n", "a: 'x\n  \ty'\n",
    "a: [x,\n  \ty]\n", "a: 'p\tq\x01'\n",
])
def test_tabs_yaml_reads_as_white_space_are_the_full_loaders(text: str) -> None:
    assert quick_load(text, **LIMITS) is None
    try:
        full = _full(text)
    except (yaml.YAMLError, ValueError):
        return
    assert _same(parse_graph_text(text)[0], full)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=_block(2, 0), data=st.data())
def test_generated_documents_with_tabs_read_the_same(lines: list[str], data: st.DataObject) -> None:
    """Tabs put in anywhere, in place of a space, or (most) between two characters of text, where YAML reads them as
    text and the quick reader reads them."""
    text = "\n".join(lines) + "\n"
    for _ in range(data.draw(st.integers(1, 4))):
        inside = [at for at in range(1, len(text)) if text[at - 1].isalnum() and text[at] not in " \n"]
        if inside and data.draw(st.integers(0, 3)):
            at = data.draw(st.sampled_from(inside))
            text = text[:at] + "\t" * data.draw(st.integers(1, 2)) + text[at:]
        else:
            at = data.draw(st.integers(0, len(text) - 1))
            text = text[:at] + "\t" + text[at + (text[at] == " " and data.draw(st.booleans())):]
    _agrees(text)


_MERGE_KEYS = st.sampled_from(["p", "q", "temperature", "model", "r"])
_MERGE_VALUES = st.sampled_from(["1", "x", "[1, 2]", "{k: 1}", "*a", "*s", "null"])


def _merging_entry(indent: int) -> st.SearchStrategy[list[str]]:
    """A block mapping's entry that merges (`<<: *a`, `<<: [*a, *b]`, a list or scalar that is no mapping), or a key
    written before, after or over what a merge gives, or a flow mapping with merge keys and aliases."""
    pad = " " * indent
    merge = st.sampled_from(["*a", "*b", "[*a, *b]", "[*b, *a]", "*l", "*s", "*z", "[*a, *l]", "*a # m"]).map(
        lambda alias: [f"{pad}<<: {alias}"])
    key = st.tuples(_MERGE_KEYS, _MERGE_VALUES).map(lambda pair: [f"{pad}{pair[0]}: {pair[1]}"])
    flow = st.lists(st.one_of(st.tuples(_MERGE_KEYS, _MERGE_VALUES).map(lambda pair: f"{pair[0]}: {pair[1]}"),
                              st.sampled_from(["<<: *a", "<<: *b", "<<: [*a, *b]", "<<: *s"])), max_size=4).map(
        lambda parts: [f"{pad}f: {{{', '.join(parts)}}}"])
    return st.one_of(merge, merge, key, flow)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entries=st.lists(st.lists(_merging_entry(2), min_size=1, max_size=5), min_size=1, max_size=3),
       anchored=st.sampled_from(["a: &a {p: 1, temperature: 0.2}", "a: &a\n  p: 1\n  model: m\n  temperature: 0.5",
                                 "a: &a {q: [1], r: {x: 1}}"]))
def test_generated_merge_keys_and_aliases_read_as_js_yaml_merges_them(entries: list[list[list[str]]],
                                                                         anchored: str) -> None:
    """Merge keys and aliases in block and flow mappings, each read as graphrt's full loader reads it (js-yaml's
    merge: full_yaml._GraphLoader.flatten_mapping)."""
    lines = [anchored, "b: &b {q: 9, temperature: 2, r: 8}", "l: &l [1, 2]", "s: &s text"]
    for number, entry in enumerate(entries):
        lines.append(f"e{number}:")
        lines += [line for part in entry for line in part]
    _agrees("\n".join(lines) + "\n")
