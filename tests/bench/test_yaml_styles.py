"""The YAML styles `python -m bench yaml` times are one graph, which graphrt's own reader reads, as PyYAML does; the
evaluation sets (`--set eval`, `--set eval2`, `--set eval3`, `--set eval4`, `--set eval5`) are read as PyYAML reads
them, and their corpus files hold each source file's value (each conformance case's graph)."""

import pytest
import yaml

from bench.yaml_eval import EVAL, corpus_files
from bench.yaml_eval2 import EVAL2, case_graphs
from bench.yaml_eval3 import EVAL3
from bench.yaml_eval4 import EVAL4
from bench.yaml_eval5 import EVAL5, js_yaml_dump
from bench.yaml_styles import STYLES
from graphrt.graphdata import full_yaml, loader
from graphrt.graphdata.loader import parse_graph_text
from graphrt.graphdata.quick_yaml import quick_load

CORPUS = ("conformance", "conformance_quick", "repo")


@pytest.mark.parametrize("style", STYLES)
def test_each_style_is_read_by_the_quick_reader_as_pyyaml_reads_it(style: str) -> None:
    text = "\n".join(STYLES[style](30)) + "\n"
    quick = quick_load(text, max_depth=loader.MAX_DEPTH, max_values=loader.MAX_VALUES)

    assert quick is not None
    assert quick == yaml.load(text, Loader=full_yaml._GraphLoader)  # noqa: S506 - a safe loader
    assert quick["nodes"]["n29"]["inputs"] in ({"v": ":n28"}, [":n28", "n29"])


@pytest.mark.parametrize("style", [name for name in EVAL if name not in CORPUS])
def test_each_generated_evaluation_file_reads_as_pyyaml_reads_it(style: str) -> None:
    text = "\n".join(EVAL[style](200)) + "\n"
    full = yaml.load(text, Loader=full_yaml._GraphLoader)  # noqa: S506 - a safe loader
    quick = quick_load(text, max_depth=loader.MAX_DEPTH, max_values=loader.MAX_VALUES)

    assert len(full["nodes"]) >= 7
    assert quick is None or quick == full
    assert parse_graph_text(text)[0] == full


@pytest.mark.needs("shared")
@pytest.mark.parametrize("style", CORPUS)
def test_a_corpus_evaluation_file_holds_each_files_value_as_it_was_written(style: str) -> None:
    """Each file's lines are indented under a key of their own: the value under it is the file's own value."""
    text = "\n".join(EVAL[style](1)) + "\n"
    nodes = yaml.load(text, Loader=full_yaml._GraphLoader)["nodes"]  # noqa: S506 - a safe loader
    files = {f"c0_{path.stem}": path for path in corpus_files(style)}

    assert len(nodes) > 5
    for key, value in nodes.items():
        own = yaml.load(files[key].read_text(encoding="utf-8"), Loader=full_yaml._GraphLoader)  # noqa: S506
        assert value == own, key


@pytest.mark.parametrize("style", [name for name in EVAL2 if not name.endswith("_cases")])
def test_each_second_evaluation_file_reads_as_pyyaml_reads_it(style: str) -> None:
    text = "\n".join(EVAL2[style](200)) + "\n"
    full = yaml.load(text, Loader=full_yaml._GraphLoader)  # noqa: S506 - a safe loader

    assert len(full["nodes"]) == 200
    assert parse_graph_text(text)[0] == full


@pytest.mark.needs("shared")
@pytest.mark.parametrize("style", ["own_cases", "wild_cases"])
def test_the_written_out_cases_hold_each_cases_graph(style: str) -> None:
    """Each conformance case's JSON graph, written out as YAML in the second set's styles, reads back as itself."""
    text = "\n".join(EVAL2[style](1)) + "\n"
    nodes = yaml.load(text, Loader=full_yaml._GraphLoader)["nodes"]  # noqa: S506 - a safe loader
    graphs = case_graphs(style)

    assert len(graphs) > 100
    assert all(nodes[f"c0_{case_id}"] == graph for case_id, graph in graphs)
    assert parse_graph_text(text)[0]["nodes"] == nodes


_LATER_SETS = {"eval3": EVAL3, "eval4": EVAL4, "eval5": EVAL5}


@pytest.mark.parametrize("name", [f"{set_name}/{style}" for set_name, styles in _LATER_SETS.items() for style in styles])
def test_each_file_of_the_third_to_fifth_evaluation_sets_reads_as_pyyaml_reads_it(name: str) -> None:
    set_name, style = name.split("/")
    text = "\n".join(_LATER_SETS[set_name][style](200)) + "\n"
    full = yaml.load(text, Loader=full_yaml._GraphLoader)  # noqa: S506 - a safe loader

    assert len(full["nodes"]) == 200
    assert parse_graph_text(text)[0] == full


def test_the_windows_file_has_windows_line_endings() -> None:
    text = "\n".join(EVAL3["crlf"](20)) + "\n"

    assert text.count("\r\n") == text.count("\n")


def test_the_saved_by_an_editor_file_keeps_its_markers_and_trailing_spaces() -> None:
    lines = EVAL4["whitespace_markers"](20)

    assert lines[0].startswith("--- #") and lines[-2].startswith("... #")
    assert sum(line.endswith(" ") and line.strip() != "" for line in lines) > 40
    assert sum(line != "" and line.strip() == "" for line in lines) > 20


# What js-yaml 4.3's `dump` writes for this value (its default options), taken from js-yaml itself.
_JS_YAML_DUMPED = """version: 0.5
nodes:
  a:
    value:
      ref: ':b'
      'yes': 'on'
      'n': '0.5'
      tab: "a\\tb"
      esc: "\\e[1m"
      lines: |
        one
        two
      strip: |-
        one
        two
      keep: |+
        one

      lead: |2-
          code
        more
      empty: ''
      list:
        - - 1
          - x
        - k: null
      none: {}
      'no': []
      tiny: 1.e-7
      big: 2.5e+25
      neg: -0.125
      zero: -0.0
      colon: 'a: b'
      hash: 'a #b'
      long: >-
        find the weather for each city in the list then write a short report
        with sources and ask the user to confirm it
"""


def test_the_js_yaml_saved_file_is_written_as_js_yamls_dump_writes_it() -> None:
    value = {"version": 0.5, "nodes": {"a": {"value": {
        "ref": ":b", "yes": "on", "n": "0.5", "tab": "a\tb", "esc": "\x1b[1m", "lines": "one\ntwo\n",
        "strip": "one\ntwo", "keep": "one\n\n", "lead": "  code\nmore", "empty": "", "list": [[1, "x"], {"k": None}],
        "none": {}, "no": [], "tiny": 1e-7, "big": 2.5e25, "neg": -0.125, "zero": -0.0, "colon": "a: b", "hash": "a #b",
        "long": "find the weather for each city in the list then write a short report with sources and ask the user "
                "to confirm it"}}}}

    assert js_yaml_dump(value) == _JS_YAML_DUMPED
    assert yaml.load(_JS_YAML_DUMPED, Loader=full_yaml._GraphLoader) == value  # noqa: S506 - a safe loader
    assert "\n".join(EVAL5["jsyaml_dump"](20)) + "\n" == js_yaml_dump(
        yaml.load("\n".join(EVAL5["jsyaml_dump"](20)), Loader=full_yaml._GraphLoader))  # noqa: S506
