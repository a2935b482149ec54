"""Each input that once ended in a Python traceback now ends in one `graphrt: ...` line that says where and why.

The table is the list of issue #11: jsonParse() failures in if, unless, update, loop.while, console and
anyInput; integers longer than Python reads; graphLoader as a string or with a NUL; files that are not UTF-8;
YAML !!binary; lone surrogates in results; results too deep to print; --trace to a folder or a missing one;
an -i value nested 60,000 deep; a reader that closes the pipe.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from graphrt.cli import main

N = "nodes:\n"
BAD_TEXT = N + '  s: {value: "not json"}\n'
COPY = "  a: {agent: copyAgent, inputs: {x: ':s'}, isResult: true}\n"

CASES = [
    pytest.param("g.yaml", BAD_TEXT + "  a: {agent: copyAgent, inputs: {x: ':s'}, if: ':s.jsonParse()'}\n",
                 "g.yaml:4:44: node 'a', field 'if': jsonParse() failed: Expecting value: line 1 column 1 (char 0)",
                 id="jsonParse-in-if"),
    pytest.param("g.yaml", BAD_TEXT + "  a: {agent: copyAgent, inputs: {x: ':s'}, unless: ':s.jsonParse()'}\n",
                 "g.yaml:4:44: node 'a', field 'unless': jsonParse() failed: Expecting value: line 1 column 1 (char 0)",
                 id="jsonParse-in-unless"),
    pytest.param("g.yaml", "loop: {count: 2}\n" + N + "  s: {value: 'not json', update: ':s.jsonParse()'}\n" + COPY,
                 "g.yaml:4:26: node 's', field 'update': jsonParse() failed: Expecting value: line 1 column 1 (char 0)",
                 id="jsonParse-in-update"),
    pytest.param("g.yaml", "loop: {while: ':s.jsonParse()'}\n" + BAD_TEXT + COPY,
                 "g.yaml:2:8: field 'loop.while': jsonParse() failed: Expecting value: line 1 column 1 (char 0)",
                 id="jsonParse-in-while"),
    pytest.param("g.yaml", BAD_TEXT + "  a: {agent: copyAgent, inputs: {x: ':s'}, console: {after: {v: '.x.jsonParse()'}}}\n",
                 "g.yaml:4:44: node 'a', field 'console': jsonParse() failed: Expecting value: line 1 column 1 (char 0)",
                 id="jsonParse-in-console"),
    pytest.param("g.yaml", "loop: {count: 2}\n" + N + "  s: {value: 'x', update: ':s', console: {after: {v: '.jsonParse()'}}}\n" + COPY,
                 "g.yaml:4:33: node 's', field 'console': jsonParse() failed: Expecting value: line 1 column 1 (char 0)",
                 id="jsonParse-in-static-console"),
    pytest.param("g.yaml", BAD_TEXT + "  a: {agent: copyAgent, inputs: {x: ':s.jsonParse()'}, anyInput: true, isResult: true}\n",
                 "g.yaml:4:25: node 'a', field 'inputs': jsonParse() failed: Expecting value: line 1 column 1 (char 0)",
                 id="jsonParse-in-anyInput"),
    pytest.param("g.yaml", N + "  s: {value: " + "9" * 5000 + "}\n" + COPY,
                 "g.yaml:3:14: not valid YAML/JSON: an integer of 5000 digits is longer than graphrt reads (4300 digits)",
                 id="huge-integer-yaml"),
    pytest.param("g.json", '{"version": 0.5, "nodes": {"s": {"value": ' + "9" * 5000 + '}, "a": {"agent": "copyAgent", '
                 '"inputs": {"x": ":s"}}}}',
                 "g.json: not valid YAML/JSON: an integer of 5000 digits is longer than graphrt reads (4300 digits)",
                 id="huge-integer-json"),
    pytest.param("g.yaml", N + "  s: {value: 1}\n  a: {agent: nestedAgent, inputs: {x: ':s'}, graphLoader: sub.yaml}\n",
                 "g.yaml:4:46: node 'a', field 'graphLoader': 'graphLoader' must be a mapping with a 'fileName', "
                 "got str 'sub.yaml'", id="graphLoader-string"),
    pytest.param("g.yaml", N + "  s: {value: 1}\n  a: {agent: nestedAgent, inputs: {x: ':s'}, graphLoader: {fileName: \"s\\0.yaml\"}}\n",
                 "g.yaml:4:60: node 'a', field 'graphLoader.fileName': 'graphLoader.fileName' cannot hold a NUL character",
                 id="graphLoader-NUL"),
    pytest.param("g.yaml", N.encode() + b"  s: {value: caf\xe9}\n" + COPY.encode(),
                 "g.yaml:3:17: not UTF-8 text: byte 0xe9 cannot be read (save the file as UTF-8)", id="not-UTF-8"),
    pytest.param("g.yaml", N + "  s: {value: !!binary aGVsbG8=}\n" + COPY,
                 "g.yaml:3:14: not valid YAML/JSON: a binary value is not graph data (graphs hold JSON values)",
                 id="yaml-binary"),
    pytest.param("g.yaml", N + "  s: {value: !!set {a, b}}\n" + COPY,
                 "g.yaml:3:14: not valid YAML/JSON: a set value is not graph data (graphs hold JSON values)",
                 id="yaml-set"),
]


def _write(folder: Path, name: str, body: str | bytes) -> Path:
    path = folder / name
    if name.endswith(".json"):
        path.write_text(body)
    else:
        path.write_bytes(b"version: 0.5\n" + (body if isinstance(body, bytes) else body.encode()))
    return path


@pytest.mark.parametrize("name, body, expected", CASES)
def test_bad_input_is_one_line_that_says_where(name, body, expected, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, name, body)

    code = main(["run", "-q", name])

    err = capsys.readouterr().err
    assert (code, err) == (1, f"graphrt: {expected}\n")


def _run(tmp_path: Path, capsys, *args: str, value: str = "1") -> tuple[int, str, str]:
    path = tmp_path / "g.yaml"
    path.write_text(f"version: 0.5\nnodes:\n  s: {{value: {value}}}\n" + COPY)
    code = main(["run", "-q", str(path), *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_lone_surrogate_in_the_results_is_written_as_javascript_escapes_it(tmp_path, capsys) -> None:
    (tmp_path / "g.json").write_text('{"nodes": {"s": {"value": "\\ud800x"}, "a": {"agent": "copyAgent", '
                                     '"inputs": {"x": ":s"}, "isResult": true}}}')
    assert main(["run", "-q", str(tmp_path / "g.json")]) == 0
    assert capsys.readouterr().out == '{\n  "a": {\n    "x": "\\ud800x"\n  }\n}\n'


def test_results_too_deep_to_print_are_one_line(tmp_path, capsys) -> None:
    deep = "[" * 900 + "]" * 900
    assert _run(tmp_path, capsys, "-i", f"s={deep}") == (
        1, "", "graphrt: the results are nested too deeply to write as JSON (more than about 500 levels)\n")


def test_an_injected_value_nested_60000_deep_is_a_usage_error(tmp_path, capsys) -> None:
    with pytest.raises(SystemExit) as caught:
        _run(tmp_path, capsys, "-i", "s=" + "[" * 60_000 + "]" * 60_000)
    assert caught.value.code == 2
    assert capsys.readouterr().err.endswith("error: argument -i/--inject: the value of s is nested too deeply\n")


@pytest.mark.parametrize("target, reason", [(".", "Is a directory"), ("missing/trace.jsonl", "No such file or directory")])
def test_a_trace_that_cannot_be_written_is_one_line(target, reason, tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert _run(tmp_path, capsys, "--trace", target) == (1, "", f"graphrt: cannot write the trace to {target}: {reason}\n")


def test_a_reader_that_closes_the_pipe_ends_the_command_quietly(tmp_path, capsys, monkeypatch) -> None:
    class ClosedPipe(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr("sys.stdout", ClosedPipe())
    path = tmp_path / "g.yaml"
    path.write_text("version: 0.5\nnodes:\n  s: {value: 1}\n" + COPY)

    assert main(["run", "-q", str(path)]) == 141
    assert capsys.readouterr().err == ""
