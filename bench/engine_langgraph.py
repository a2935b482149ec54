"""LangGraph equivalents of the workloads: `python -m bench.engine_langgraph WORKLOAD --n 1000`.

Each builder returns a compiled StateGraph, its input and the invoke config;
the graph does what the GraphAI file does, step for step where LangGraph has
the same shape (a loop is a node with a conditional edge back to itself; a
fan-out is a `Send` per branch into a list reducer). "build" is StateGraph
construction plus `compile()`, "run" is `invoke()` (`ainvoke()` for I/O).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import operator
import time
from typing import Annotated, Any, Callable, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

from ._proc import emit, peak_rss_kb, rss_kb
from .workloads import IO_CONCURRENCY, IO_SLEEP_MS

__all__ = ["BUILDERS", "main"]

Built = tuple[Any, dict[str, Any], dict[str, Any], bool]  # graph, input, config, is_async


class Counter(TypedDict):
    counter: int


class Accumulated(TypedDict):
    i: int
    array: Annotated[list, operator.add]


class Fanned(TypedDict, total=False):
    source: int
    values: Annotated[list, operator.add]
    sink: list


def _limit(steps: int) -> dict[str, Any]:
    return {"recursion_limit": steps + 10}


def counter(n: int, probe: Callable[[int], None] | None = None) -> Built:
    """The counter loop: one node that adds 1, and an edge back to it while counter < n."""

    def increment(state: Counter) -> Counter:
        if probe is not None:
            probe(state["counter"])
        return {"counter": state["counter"] + 1}

    graph = StateGraph(Counter)
    graph.add_node("increment", increment)
    graph.add_edge(START, "increment")
    graph.add_conditional_edges("increment", lambda state: "increment" if state["counter"] < n else END)
    return graph.compile(), {"counter": 0}, _limit(n), False


def accumulate(n: int) -> Built:
    """pushAgent's loop: append the loop index to a list n times (operator.add reducer)."""

    def push(state: Accumulated) -> dict[str, Any]:
        return {"i": state["i"] + 1, "array": [state["i"]]}

    graph = StateGraph(Accumulated)
    graph.add_node("push", push)
    graph.add_edge(START, "push")
    graph.add_conditional_edges("push", lambda state: "push" if state["i"] < n else END)
    return graph.compile(), {"i": 0, "array": []}, _limit(n), False


def chain(n: int) -> Built:
    """n nodes in a row, each adding 1 to the counter."""

    def increment(state: Counter) -> Counter:
        return {"counter": state["counter"] + 1}

    graph = StateGraph(Counter)
    for i in range(1, n + 1):
        graph.add_node(f"n{i}", increment)
        graph.add_edge(START if i == 1 else f"n{i - 1}", f"n{i}")
    graph.add_edge(f"n{n}", END)
    return graph.compile(), {"counter": 0}, _limit(n), False


def _fan_out(n: int, worker: Callable[..., Any], is_async: bool, config: dict[str, Any]) -> Built:
    def fan(state: Fanned) -> list[Send]:
        return [Send("worker", {"source": state["source"] + i}) for i in range(1, n + 1)]

    def sink(state: Fanned) -> Fanned:
        return {"sink": state["values"]}

    graph = StateGraph(Fanned)
    graph.add_node("worker", worker)
    graph.add_node("sink", sink)
    graph.add_conditional_edges(START, fan, ["worker"])
    graph.add_edge("worker", "sink")
    graph.add_edge("sink", END)
    return graph.compile(), {"source": 0, "values": []}, config, is_async


def fan_out(n: int) -> Built:
    """One Send per branch (n), each branch's value appended to a list, then a sink."""
    return _fan_out(n, lambda state: {"values": [state["source"]]}, False, _limit(10))


def io_fan_out(n: int) -> Built:
    """As fan_out, but each branch sleeps 50 ms (asyncio), at most 100 at once."""

    async def sleeper(state: Fanned) -> Fanned:
        await asyncio.sleep(IO_SLEEP_MS / 1000)
        return {"values": [1]}

    return _fan_out(n, sleeper, True, {**_limit(10), "max_concurrency": IO_CONCURRENCY})


BUILDERS: dict[str, Callable[[int], Built]] = {
    "counter_count": counter,
    "counter_while": counter,  # a LangGraph loop is a while loop: the two GraphAI variants map to one graph
    "accumulate": accumulate,
    "chain": chain,
    "fan_out": fan_out,
    "io_fan_out": io_fan_out,
    "loop_memory": counter,
}


def _result(name: str, state: dict[str, Any], n: int) -> Any:
    """The state in the shape of the GraphAI workload's result, so the bench can check it."""
    if name in ("counter_count", "counter_while", "loop_memory"):
        return {"counter": state["counter"]}
    if name == "accumulate":
        return {"array": state["array"]}
    if name == "chain":
        return {f"n{n}": state["counter"]}
    return {"sink": sorted(state["sink"])} if name == "fan_out" else {"sink": state["sink"]}


def _invoke(graph: Any, state: dict[str, Any], config: dict[str, Any], is_async: bool) -> dict[str, Any]:
    if is_async:
        return asyncio.run(graph.ainvoke(state, config))
    return graph.invoke(state, config)


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


def measure(name: str, n: int, warmup: int, repeat: int) -> dict[str, Any]:
    builder = BUILDERS[name]
    build_ms, run_ms = [], []
    result: Any = None
    for index in range(warmup + repeat):
        gc.collect()
        started = time.perf_counter()
        graph, state, config, is_async = builder(n)
        built = time.perf_counter()
        final = _invoke(graph, state, config, is_async)
        finished = time.perf_counter()
        result = _result(name, final, n)
        if index >= warmup:
            build_ms.append(_ms(built - started))
            run_ms.append(_ms(finished - built))
    return {"build_ms": build_ms, "run_ms": run_ms, "result": result, "steps": n}


def measure_memory(n: int, checkpoints: list[int]) -> dict[str, Any]:
    """One run of the counter loop that samples RSS as the counter passes each checkpoint."""
    wanted = set(checkpoints)
    samples: list[dict[str, Any]] = []

    def probe(count: int) -> None:
        if count in wanted:
            samples.append({"iteration": count, "rss_kb": rss_kb()})

    gc.collect()
    started = time.perf_counter()
    graph, state, config, _ = counter(n, probe)
    final = graph.invoke(state, config)
    return {"run_ms": [_ms(time.perf_counter() - started)], "result": {"counter": final["counter"]}, "samples": samples}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.engine_langgraph", description=__doc__)
    parser.add_argument("workload", choices=sorted(BUILDERS))
    parser.add_argument("--n", type=int, required=True)
    parser.add_argument("--warmup", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--checkpoints", default="")
    args = parser.parse_args(argv)
    if args.checkpoints:
        record = measure_memory(args.n, [int(c) for c in args.checkpoints.split(",")])
    else:
        record = measure(args.workload, args.n, args.warmup, args.repeat)
    from importlib.metadata import version

    record.update(engine="langgraph", version=version("langgraph"), peak_rss_kb=peak_rss_kb())
    emit(record)


if __name__ == "__main__":
    main()
