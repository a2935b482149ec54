"""The floor of each workload: its work as a plain Python loop, no engine: `python -m bench.floor WORKLOAD --n N`.

An engine's distance from GraphAI says how it compares; its distance from this
floor says how much of its time is its own and not the language's. Each floor
does what a run of the workload's graph cannot avoid, and no more: per node, a
fresh inputs dict with its references resolved (`:counter.add(1)` is `+ 1`), a
fresh params dict (GraphAI spreads the node's params for each call), one `await`
of an agent that does what the vanilla agent does (copyAgent's `namedKey`, a
pushAgent that copies its array), the result stored; per loop iteration, the
static nodes' fresh results dict. There is no validation, no scheduler, no
state, no events. io_fan_out's floor is bench/baseline_io.py's (tasks under a
semaphore), as its nodes wait for real. The graph is not read: the loop knows
the workload's shape (bench/workloads.py), and its result is checked the same
way as an engine's.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any, Awaitable, Callable

from ._proc import emit, peak_rss_kb
from .baseline_io import fan_out as io_fan_out
from .workloads import BIG_WIDTH

__all__ = ["FLOORS", "main"]


async def _copy(inputs: dict[str, Any], params: dict[str, Any]) -> Any:
    """copyAgent with `namedKey`: the one input it names."""
    return inputs[params["namedKey"]]


async def _push(inputs: dict[str, Any], params: dict[str, Any]) -> Any:
    """pushAgent: a copy of the array with the item at its end."""
    return {"array": [*inputs["array"], inputs["item"]]}


_PARAMS = {"namedKey": "v"}


async def counter_count(n: int) -> dict[str, Any]:
    results: dict[str, Any] = {"counter": 0}
    for _ in range(n):
        results["increment"] = await _copy({"v": results["counter"] + 1}, {**_PARAMS})
        results = {"counter": results["increment"]}  # the next iteration's statics, updated
    return {"counter": results["counter"]}


async def counter_while(n: int) -> dict[str, Any]:
    results: dict[str, Any] = {"counter": 0, "running": True}
    while results["running"]:
        results["increment"] = await _copy({"v": results["counter"] + 1}, {**_PARAMS})
        results = {"counter": results["increment"], "running": not results["increment"] == n}
    return {"counter": results["counter"]}


async def accumulate(n: int) -> dict[str, Any]:
    results: dict[str, Any] = {"array": []}
    for index in range(n):
        results["push"] = await _push({"array": results["array"], "item": index}, {})
        results = {"array": results["push"]["array"]}
    return {"array": results["array"]}


async def chain(n: int) -> dict[str, Any]:
    results: dict[str, Any] = {"n0": 0}
    previous = "n0"
    for index in range(1, n + 1):
        node_id = f"n{index}"
        results[node_id] = await _copy({"v": results[previous] + 1}, {**_PARAMS})
        previous = node_id
    return {previous: results[previous]}


async def fan_out(n: int) -> dict[str, Any]:
    results: dict[str, Any] = {"source": 0}
    branches = [f"f{index}" for index in range(1, n + 1)]
    for index, node_id in enumerate(branches, 1):
        results[node_id] = await _copy({"v": results["source"] + index}, {**_PARAMS})
    sink = await _copy({"values": [results[node_id] for node_id in branches]}, {"namedKey": "values"})
    return {"sink": sink}


async def map_rows(n: int) -> dict[str, Any]:
    rows = list(range(n))
    mapped = []
    for row in rows:
        results: dict[str, Any] = {"row": row}  # each row's own graph: its results
        results["plus"] = await _copy({"v": results["row"] + 1}, {**_PARAMS})
        mapped.append({"plus": results["plus"]})
    return {"map": mapped}


async def big_graph(n: int) -> dict[str, Any]:
    width = min(BIG_WIDTH, n)
    depth = n // width
    results: dict[str, Any] = {"seed": 0}
    ends = []
    for j in range(width):
        previous = "seed"
        for k in range(1, depth + 1):
            node_id = f"c{j}_{k}"
            results[node_id] = await _copy({"v": results[previous] + 1}, {**_PARAMS})
            previous = node_id
        ends.append(previous)
    return {"sink": await _copy({"values": [results[end] for end in ends]}, {"namedKey": "values"})}


async def _io_fan_out(n: int) -> dict[str, Any]:
    return {"sink": await io_fan_out(n)}


FLOORS: dict[str, Callable[[int], Awaitable[dict[str, Any]]]] = {
    "counter_count": counter_count, "counter_while": counter_while, "accumulate": accumulate, "chain": chain,
    "fan_out": fan_out, "map_rows": map_rows, "io_fan_out": _io_fan_out, "big_graph": big_graph,
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.floor", description=__doc__)
    parser.add_argument("workload", choices=sorted(FLOORS))
    parser.add_argument("--n", type=int, required=True)
    parser.add_argument("--warmup", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)
    floor = FLOORS[args.workload]
    run_ms: list[float] = []
    result: Any = None
    for index in range(args.warmup + args.repeat):
        started = time.perf_counter()
        result = asyncio.run(floor(args.n))  # an event loop per run, as each engine's run has
        if index >= args.warmup:
            run_ms.append(round((time.perf_counter() - started) * 1000, 3))
    emit({"engine": "floor", "run_ms": run_ms, "result": result, "peak_rss_kb": peak_rss_kb()})


if __name__ == "__main__":
    main()
