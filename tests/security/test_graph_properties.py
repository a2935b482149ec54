"""Whole graphs from hypothesis, every GraphData field with right and wrong types, written to a file and run:
the only outcomes are results or a GraphError that says where (file, node or field), within a time bound."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import Any

import anyio
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphrt
from graphrt.base.errors import GraphError

RUN_LIMIT = 1.0  # seconds a generated run may take (a loop may be endless by design): then a timeout error
HANG = 10.0  # seconds past which the run did not stop: a hang

NODE_IDS = ["a", "b", "c", "d", "e"]
AGENTS = ["copyAgent", "pushAgent", "popAgent", "stringTemplateAgent", "totalAgent", "compareAgent",
          "propertyFilterAgent", "jsonParserAgent", "arrayJoinAgent", "sleeperAgent", "nestedAgent", "mapAgent",
          "mergeObjectAgent", "sortByValuesAgent", "countingAgent", "noSuchAgent"]

scalars = (st.none() | st.booleans() | st.integers(-5, 5) | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
           | st.text(max_size=8))
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                                  max_size=3), max_leaves=10)
props = st.sampled_from(["", ".x", ".length()", ".$0", ".$last", ".jsonParse()", ".toNumber()", ".join(,)", ".keys()",
                         ".add(1)", ".not()", ".codeBlock()", ".text", ".array"])
references = st.builds(lambda node, prop: f":{node}{prop}", st.sampled_from(NODE_IDS), props)
templates = st.builds(lambda ref, pre: f"{pre}${{{ref}}}", references, st.text(max_size=4))
wrong = json_values | st.sampled_from(["@loop", ":", "::", "${", ":a.", ":zz", "\0", "x" * 200])
refs_or_values = references | templates | st.just("@loop") | json_values
inputs = st.dictionaries(st.sampled_from(["array", "item", "text", "x", "left", "right", "rows", "params", "value"]),
                         refs_or_values | st.lists(references, max_size=3), max_size=4)


def maybe(strategy: st.SearchStrategy) -> st.SearchStrategy:
    """Mostly the right type, one time in ten a wrong one."""
    return st.integers(0, 9).flatmap(lambda dice: strategy if dice else wrong)


@st.composite
def computed_nodes(draw: Any, depth: int = 0) -> dict[str, Any]:
    node: dict[str, Any] = {"agent": draw(maybe(st.sampled_from(AGENTS) | references))}
    fields = {
        "inputs": maybe(inputs),
        "params": maybe(st.dictionaries(st.sampled_from(["duration", "template", "value", "key", "include", "count",
                                                          "namedKey", "separator", "compositeResultKey"]), json_values,
                                        max_size=3)),
        "retry": maybe(st.integers(0, 2)),
        "timeout": maybe(st.integers(1, 500)),
        "priority": maybe(st.integers(-2, 2)),
        "if": maybe(references),
        "unless": maybe(references),
        "anyInput": maybe(st.booleans()),
        "defaultValue": json_values,
        "isResult": maybe(st.booleans()),
        "output": maybe(st.dictionaries(st.text(max_size=3), st.sampled_from([".x", ".$0", ".text", ".array"]), max_size=2)),
        "passThrough": maybe(st.dictionaries(st.text(max_size=3), references, max_size=2)),
        "repeatUntil": maybe(st.fixed_dictionaries({"exists": st.sampled_from([".x", ".text"])})),
        "console": maybe(st.booleans() | st.fixed_dictionaries({"after": st.booleans() | st.text(max_size=4)})),
        "label": maybe(st.text(max_size=4)),
        "filterParams": maybe(st.dictionaries(st.text(max_size=3), json_values, max_size=2)),
        "graph": maybe(references if depth else (references | graphs(depth + 1))),
        "graphLoader": maybe(st.fixed_dictionaries({"fileName": st.text(max_size=8)})),
    }
    for name in draw(st.lists(st.sampled_from(sorted(fields)), max_size=6, unique=True)):
        node[name] = draw(fields[name])
    return node


static_nodes = st.builds(
    lambda value, extra: {"value": value, **extra},
    json_values,
    st.fixed_dictionaries({}, optional={"update": maybe(references), "isResult": maybe(st.booleans()),
                                        "console": maybe(st.booleans())}),
)


@st.composite
def graphs(draw: Any, depth: int = 0) -> dict[str, Any]:
    ids = draw(st.lists(st.sampled_from(NODE_IDS[1:]), min_size=1, max_size=4, unique=True))
    ids += draw(st.lists(st.text(min_size=1, max_size=3), max_size=1))  # now and then an odd id
    nodes = {"a": draw(maybe(static_nodes))}
    nodes.update((node_id, draw(maybe(computed_nodes(depth) | static_nodes))) for node_id in ids if node_id != "a")
    graph: dict[str, Any] = {"version": draw(st.sampled_from([0.5, 0.5, 0.5, "0.5", 2])), "nodes": nodes}
    optional = {
        "loop": maybe(st.fixed_dictionaries({"count": maybe(st.integers(0, 3))})
                      | st.fixed_dictionaries({"while": maybe(references | st.booleans())})),
        "concurrency": maybe(st.integers(1, 4) | st.fixed_dictionaries({"global": maybe(st.integers(1, 3))},
                                                                        optional={"labels": wrong})),
        "retry": maybe(st.integers(0, 2)),
        "agentId": wrong,
        "verbose": wrong,
        "metadata": wrong,
    }
    for name in draw(st.lists(st.sampled_from(sorted(optional)), max_size=3, unique=True)):
        graph[name] = draw(optional[name])
    if not draw(st.integers(0, 19)):
        graph["nodes"] = draw(wrong)  # even 'nodes' itself
    return graph


FOLDER = Path(tempfile.mkdtemp(prefix="graphrt-properties-"))
TALLY = {"cases": 0, "results": 0, "clean errors": 0}


def _dump(graph: dict[str, Any]) -> str | None:
    try:
        return yaml.safe_dump(graph, allow_unicode=True)
    except (yaml.YAMLError, ValueError, RecursionError):
        return None  # a value YAML cannot write: nothing to test


def _has_a_place(error: GraphError) -> bool:
    location = error.location
    return error.node_id is not None or error.field is not None or (location is not None and bool(location.file))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(graphs())
def test_a_generated_graph_gives_results_or_a_located_graph_error_in_time(graph: dict[str, Any]) -> None:
    text = _dump(graph)
    if text is None:
        return
    path = FOLDER / "generated.yaml"
    path.write_text(text, encoding="utf-8")
    TALLY["cases"] += 1

    async def run() -> Any:
        with anyio.fail_after(HANG):  # the run's own limit is RUN_LIMIT: past HANG it did not stop
            return await graphrt.Graph(path).arun(timeout=RUN_LIMIT)

    try:
        results = anyio.run(run)
    except GraphError as error:
        assert _has_a_place(error), f"no location: {error!r}"
        assert str(error)
        TALLY["clean errors"] += 1
        return
    assert isinstance(results, dict)
    TALLY["results"] += 1


def test_the_tally_of_generated_graphs_is_kept() -> None:
    # Runs after the property test (file order): it tried cases, each ending in results or a clean error.
    assert TALLY["cases"] == TALLY["results"] + TALLY["clean errors"]
    assert not math.isnan(float(TALLY["cases"]))
