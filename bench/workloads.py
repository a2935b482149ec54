"""The benchmark workloads: one GraphAI graph per workload, the same file for every engine.

Each workload builds its graph for a size `n` and knows the result the graph
must give, so the bench checks every engine's answer as well as its time. The
files in `bench/workloads/` are these graphs at their default size, written by
`python -m bench --write-workloads`; the 100,000-node graph is too big to keep
in git and is written to `bench/.generated/` when the bench needs it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import yaml

__all__ = ["Workload", "WORKLOADS", "WORKLOAD_DIR", "GENERATED_DIR", "get", "write_workload", "workload_file"]

BENCH_DIR = Path(__file__).resolve().parent
WORKLOAD_DIR = BENCH_DIR / "workloads"
GENERATED_DIR = BENCH_DIR / ".generated"

_COPY = "copyAgent"


def _copy(value: Any, key: str = "v") -> dict[str, Any]:
    """A copyAgent node whose result is its one input, `value` (a reference or a literal)."""
    return {"agent": _COPY, "params": {"namedKey": key}, "inputs": {key: value}}


# ----- graphs --------------------------------------------------------------------------


def counter_count(n: int) -> dict[str, Any]:
    return {
        "version": 0.5,
        "loop": {"count": n},
        "nodes": {
            "counter": {"value": 0, "update": ":increment", "isResult": True},
            "increment": _copy(":counter.add(1)"),
        },
    }


def counter_while(n: int) -> dict[str, Any]:
    return {
        "version": 0.5,
        "loop": {"while": ":running"},
        "nodes": {
            "counter": {"value": 0, "update": ":increment", "isResult": True},
            "running": {"value": True, "update": f":increment.equal({n}).not()"},
            "increment": _copy(":counter.add(1)"),
        },
    }


def accumulate(n: int) -> dict[str, Any]:
    return {
        "version": 0.5,
        "loop": {"count": n},
        "nodes": {
            "array": {"value": [], "update": ":push.array", "isResult": True},
            "push": {"agent": "pushAgent", "inputs": {"array": ":array", "item": "@loop"}},
        },
    }


def chain(n: int) -> dict[str, Any]:
    nodes: dict[str, Any] = {"n0": {"value": 0}}
    for i in range(1, n + 1):
        nodes[f"n{i}"] = _copy(f":n{i - 1}.add(1)")
    nodes[f"n{n}"]["isResult"] = True
    return {"version": 0.5, "nodes": nodes}


def fan_out(n: int) -> dict[str, Any]:
    nodes: dict[str, Any] = {"source": {"value": 0}}
    for i in range(1, n + 1):
        nodes[f"f{i}"] = _copy(f":source.add({i})")
    nodes["sink"] = {**_copy([f":f{i}" for i in range(1, n + 1)], "values"), "isResult": True}
    return {"version": 0.5, "nodes": nodes}


def map_rows(n: int) -> dict[str, Any]:
    return {
        "version": 0.5,
        "nodes": {
            "rows": {"value": list(range(n))},
            "map": {
                "agent": "mapAgent",
                "inputs": {"rows": ":rows"},
                "graph": {"version": 0.5, "nodes": {"plus": {**_copy(":row.add(1)"), "isResult": True}}},
                "isResult": True,
            },
        },
    }


IO_SLEEP_MS = 50
IO_CONCURRENCY = 100


def io_fan_out(n: int) -> dict[str, Any]:
    nodes: dict[str, Any] = {"source": {"value": 1}}
    for i in range(1, n + 1):
        nodes[f"s{i}"] = {"agent": "sleeperAgent", "params": {"duration": IO_SLEEP_MS}, "inputs": {"v": ":source"}}
    nodes["sink"] = {**_copy([f":s{i}.v" for i in range(1, n + 1)], "values"), "isResult": True}
    return {"version": 0.5, "concurrency": IO_CONCURRENCY, "nodes": nodes}


BIG_WIDTH = 100


def big_graph(n: int) -> dict[str, Any]:
    """`n` computed nodes in BIG_WIDTH parallel chains, and one sink reading every chain's end."""
    width = min(BIG_WIDTH, n)
    depth = n // width
    nodes: dict[str, Any] = {"seed": {"value": 0}}
    for j in range(width):
        nodes[f"c{j}_1"] = _copy(":seed.add(1)")
        for k in range(2, depth + 1):
            nodes[f"c{j}_{k}"] = _copy(f":c{j}_{k - 1}.add(1)")
    nodes["sink"] = {**_copy([f":c{j}_{depth}" for j in range(width)], "values"), "isResult": True}
    return {"version": 0.5, "nodes": nodes}


# ----- the table -----------------------------------------------------------------------


@dataclass(frozen=True)
class Workload:
    """A graph builder with its default size, a small size for tests, and the expected result."""

    name: str
    title: str
    build: Callable[[int], dict[str, Any]]
    expected: Callable[[int], Any]
    n: int
    small_n: int
    kept_in_git: bool = True
    # Per engine: `rounds` runner processes (the engines taking turns), each with
    # `warmup` untimed then `repeat` timed runs; then `command_repeat` whole commands.
    rounds: int = 3
    repeat: int = 4
    warmup: int = 5
    command_repeat: int = 3
    # Sizes besides `n` that the bench also runs (the linearity check of the big graph). Like `n` with
    # `repeat=1`, each is timed on a process's first run; `extra_rounds` processes give a median.
    extra_sizes: tuple[int, ...] = ()
    extra_rounds: int = 3
    command_max_n: int | None = None  # whole commands only up to this size (None: every size)
    memory: bool = False  # samples memory while the loop runs instead of timing repeats
    tools: bool = False  # graphrt's tools (validate, lint, viz, the live display) are timed beside its run
    langgraph: bool = False  # bench/engine_langgraph.py has an equivalent
    ideal_ms: float | None = None


WORKLOADS: list[Workload] = [
    Workload("counter_count", "counter loop, loop.count 1000", counter_count,
             lambda n: {"counter": n}, 1000, 5, langgraph=True),
    Workload("counter_while", "counter loop, loop.while, 1000", counter_while,
             lambda n: {"counter": n}, 1000, 5, langgraph=True),
    Workload("accumulate", "pushAgent accumulate loop, 1000", accumulate,
             lambda n: {"array": list(range(n))}, 1000, 5, langgraph=True),
    Workload("chain", "chain of 1000 nodes", chain,
             lambda n: {f"n{n}": n}, 1000, 5, langgraph=True),
    Workload("fan_out", "fan-out 1000 nodes into one sink", fan_out,
             lambda n: {"sink": [i for i in range(1, n + 1)]}, 1000, 5, langgraph=True),
    Workload("map_rows", "mapAgent over 1000 rows", map_rows,
             lambda n: {"map": [{"plus": i + 1} for i in range(n)]}, 1000, 5),
    Workload("io_fan_out", "I/O fan-out: 1000 x sleeperAgent 50 ms, concurrency 100", io_fan_out,
             lambda n: {"sink": [1] * n}, 1000, 5, rounds=2, repeat=2, warmup=1, command_repeat=2, langgraph=True,
             ideal_ms=1000 / IO_CONCURRENCY * IO_SLEEP_MS),
    Workload("big_graph", "100,000-node graph (100 chains of 1000) + sink", big_graph,
             lambda n: {"sink": [n // min(BIG_WIDTH, n)] * min(BIG_WIDTH, n)}, 100_000, 20,
             kept_in_git=False, rounds=1, repeat=1, warmup=0, command_repeat=1, extra_sizes=(10_000,),
             command_max_n=10_000),
    Workload("large_tools", "validate, lint, viz and the live display on the big graph", big_graph,
             lambda n: {"sink": [n // min(BIG_WIDTH, n)] * min(BIG_WIDTH, n)}, 100_000, 20,
             kept_in_git=False, rounds=1, repeat=3, warmup=0, command_repeat=0, extra_sizes=(1_000, 10_000),
             command_max_n=0, tools=True),
    Workload("loop_memory", "memory across 100,000 loop iterations", counter_count,
             lambda n: {"counter": n}, 100_000, 5, rounds=1, repeat=1, warmup=0, command_repeat=0, memory=True,
             langgraph=True),
]

_BY_NAME = {workload.name: workload for workload in WORKLOADS}


def get(name: str) -> Workload:
    try:
        return _BY_NAME[name]
    except KeyError:
        raise SystemExit(f"bench: unknown workload {name!r} (known: {', '.join(_BY_NAME)})") from None


# ----- files ---------------------------------------------------------------------------


def to_yaml(workload: Workload, graph: dict[str, Any], n: int) -> str:
    """The graph as YAML: block style when small, one JSON-style line per node when large."""
    header = f"# {workload.title} (n={n}); generated by `python -m bench --write-workloads`, do not edit.\n"
    if len(graph["nodes"]) <= 20:
        return header + yaml.safe_dump(graph, sort_keys=False, default_flow_style=None, width=120)
    lines = [header.rstrip("\n")]
    for key, value in graph.items():
        if key != "nodes":
            lines.append(f"{key}: {json.dumps(value)}")
    lines.append("nodes:")
    lines.extend(f"  {node_id}: {json.dumps(node)}" for node_id, node in graph["nodes"].items())
    return "\n".join(lines) + "\n"


def workload_file(workload: Workload, n: int | None = None) -> Path:
    """The YAML file of a workload at size n; writes it first if it is generated and missing."""
    n = workload.n if n is None else n
    if workload.kept_in_git and n == workload.n:
        return WORKLOAD_DIR / f"{workload.name}.yaml"
    path = GENERATED_DIR / f"{workload.name}_{n}.yaml"
    if not path.exists():
        write_workload(workload, n, path)
    return path


def write_workload(workload: Workload, n: int | None = None, path: Path | None = None) -> Path:
    n = workload.n if n is None else n
    path = path or WORKLOAD_DIR / f"{workload.name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(to_yaml(workload, workload.build(n), n), encoding="utf-8")
    tmp.replace(path)
    return path
