"""Hostile values wherever a graph holds one: the `graphrt` command gives results or one clean line, in time.

The old adversarial suite's values (python -m bench.adversarial tries them all): integers
past Python's 4,300-digit text limit or a float's range, a billion as a count, megabytes
of text, nesting past any parser. Each goes into a prop function in every field that
reads a reference, into every GraphData field, and into the agents' inputs and counts;
`run`, `validate` and `viz` must answer with results or a `graphrt: ...` line (exit 1,
or 2 for a bad command line), never a traceback, and within hypothesis' deadline.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphrt.cli import main

LIMIT = sys.get_int_max_str_digits()
FOLDER = Path(tempfile.mkdtemp(prefix="graphrt-hostile-"))
IN_TIME = settings(max_examples=40, deadline=timedelta(seconds=20),
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

huge_numbers = st.one_of(
    st.just(int("9" * LIMIT)),  # one more digit is past what str() writes
    st.integers(10 ** 308, 10 ** 320),  # past a float's range
    st.integers(-(10 ** 320), -(10 ** 308)),
    st.integers(2 ** 53, 2 ** 64),
    st.just(1.7976931348623157e308),
)
counts = st.one_of(st.sampled_from([10 ** 9, 10 ** 18, "1e9", "1000000000", 1e9, -1, 2.5, "x"]), huge_numbers)
hostile = st.one_of(huge_numbers, counts, st.just("9" * 5000), st.just("x" * 1_000_000), st.just("\ud800"),
                    st.just([10 ** 400] * 3), st.just(None))

PROPS = ["add(1)", "add(" + "9" * 5000 + ")", "toNumber()", "toString()", "length()", "sum()", "max()", "min()",
         "average()", "equal(1)", "slice(" + "9" * 5000 + ")", "split(,)", "join(,)", "keys()", "toJSON()",
         "jsonParse()", "not()", "$0", "default(1)", "flat()"]


def _places(value: Any, prop: str) -> dict[str, tuple[dict, dict]]:
    ref = f":s.{prop}"
    copy = {"agent": "copyAgent", "isResult": True}
    return {
        "inputs": ({"s": {"value": value}, "a": {**copy, "inputs": {"x": ref}}}, {}),
        "if": ({"s": {"value": value}, "a": {**copy, "inputs": {"x": 1}, "if": ref}}, {}),
        "unless": ({"s": {"value": value}, "a": {**copy, "inputs": {"x": 1}, "unless": ref}}, {}),
        "update": ({"s": {"value": value, "update": ref}, "a": {**copy, "inputs": {"x": ":s"}}}, {"loop": {"count": 2}}),
        "while": ({"s": {"value": value}, "a": {**copy, "inputs": {"x": 1}}}, {"loop": {"while": ref}}),
        "output": ({"s": {"value": value}, "a": {**copy, "inputs": {"x": ":s"}, "output": {"y": f".x.{prop}"}}}, {}),
        "passThrough": ({"s": {"value": value}, "a": {**copy, "inputs": {"x": 1}, "passThrough": {"p": ref}}}, {}),
        "template": ({"s": {"value": value}, "a": {**copy, "inputs": {"x": "<${" + ref + "}>"}}}, {}),
    }


def _graphrt(graph: dict[str, Any], command: str) -> tuple[int, str, str]:
    """`graphrt COMMAND` of the graph written as JSON, in this process: exit code, stdout, stderr."""
    path = FOLDER / "g.json"
    path.write_text(json.dumps(graph), encoding="utf-8")
    argv = {"run": ["run", "-q", str(path), "--timeout", "5"], "validate": ["validate", str(path)],
            "viz": ["viz", str(path)]}[command]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exit_:  # argparse's usage errors
            code = exit_.code
    return code, out.getvalue(), err.getvalue()


def _clean(code: int, out: str, err: str) -> None:
    assert "Traceback" not in err, err[-3000:]
    assert code in (0, 1, 2), (code, err[-500:])
    if code:
        assert err.startswith("graphrt") and err.strip(), (code, err[-500:])


@IN_TIME
@given(prop=st.sampled_from(PROPS), value=huge_numbers | st.just([10 ** 400] * 2) | st.just("9" * 5000),
       place=st.sampled_from(["inputs", "if", "unless", "update", "while", "output", "passThrough", "template"]),
       command=st.sampled_from(["run", "validate", "viz"]))
def test_a_prop_function_of_a_huge_number_in_any_field_is_a_result_or_one_clean_line(prop, value, place, command):
    nodes, extra = _places(value, prop)[place]
    _clean(*_graphrt({"version": 0.5, "nodes": nodes, **extra}, command))


NODE_FIELDS = ["retry", "timeout", "priority", "if", "unless", "defaultValue", "params", "output", "passThrough",
               "console", "repeatUntil", "anyInput", "isResult", "label", "filterParams", "graph"]
GRAPH_FIELDS = ["loop.count", "loop.while", "concurrency", "concurrency.global", "retry", "version", "metadata"]


@IN_TIME
@given(field=st.sampled_from(NODE_FIELDS + [f"graph:{name}" for name in GRAPH_FIELDS]), value=hostile,
       command=st.sampled_from(["run", "validate", "viz"]))
def test_a_hostile_value_in_any_field_is_a_result_or_one_clean_line(field, value, command):
    graph: dict[str, Any] = {"version": 0.5, "nodes": {"s": {"value": 1}, "a": {"agent": "jsonParserAgent",
                                                                                 "inputs": {"text": ":s"}}}}
    if field.startswith("graph:"):
        key, _, sub = field[len("graph:"):].partition(".")
        graph[key] = {sub: value} if sub else value
    else:
        graph["nodes"]["a"][field] = value
    _clean(*_graphrt(graph, command))


COUNTED = [("countingAgent", "params", "count"), ("copy2ArrayAgent", "params", "count"),
           ("copyMessageAgent", "params", "count"), ("nestedAgent", "inputs", "loopCount"),
           ("toolsAgent", "params", "maxRounds"), ("openAIAgent", "params", "maxRetries"),
           ("stringSplitterAgent", "params", "chunkSize"), ("stringSplitterAgent", "params", "overlap")]


@IN_TIME
@given(agent=st.sampled_from(COUNTED), value=counts)
def test_a_count_no_run_could_finish_is_the_nodes_error_at_once(agent, value):
    name, where, field = agent
    node: dict[str, Any] = {"agent": name, "inputs": {"text": "abc", "item": 1}, "isResult": True,
                            "params": {"baseURL": "http://127.0.0.1:9/v1", "retryDelay": 0, "message": "m"}}
    node[where] = {**node[where], field: value}
    if name == "nestedAgent":
        node["graph"] = {"version": 0.5, "nodes": {"n": {"value": 1},
                                                   "r": {"agent": "copyAgent", "inputs": {"x": ":n"}, "isResult": True}}}
    if name == "toolsAgent":
        node["inputs"] = {**node["inputs"], "tools": ["wikiAgent"], "userInput": {"text": "q"}}
    code, out, err = _graphrt({"version": 0.5, "nodes": {"a": node}}, "run")
    _clean(code, out, err)
    assert "timed out" not in err, err  # the count is refused at once, not run until the run's timeout
