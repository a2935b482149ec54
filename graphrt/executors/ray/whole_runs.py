"""Whole runs on a worker (a batch's rows): the graph's recipe, built into a Graph once per worker, run by run.

The driver puts a graph's recipe in the object store once (`recipe_of`: the text it
read, so that errors name the file and line, and the Graph's options without the
driver's executor and services); a task runs one whole run (`run_whole`) or several,
one after another (`run_wholes`), and sends back each one's results or its error.
"""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass
from typing import Any

from graphrt.base.errors import GraphError
from graphrt.base.usage import Usage
from graphrt.engine.graph import Graph
from graphrt.engine.options import GraphOptions, RunOptions
from graphrt.executors.ray.installed import ray
from graphrt.executors.ray.wire import Outcome, portable
from graphrt.graphdata.loader import GraphText

__all__ = ["GraphRecipe", "recipe_of", "run_whole", "run_wholes"]


@dataclass
class GraphRecipe:
    """What a worker builds a Graph from: the file's text and name (or the data), and the Graph's options."""

    source: Any  # a GraphText, or GraphData given as a dict
    options: GraphOptions


def recipe_of(graph: Graph) -> GraphRecipe:
    """In the driver: what a worker builds `graph` from."""
    source = graph.spec.source
    built_from = GraphText(source.text, source.file) if source.text is not None else dict(graph.data)
    return GraphRecipe(built_from, dataclasses.replace(graph.options, executor=None, services=None))


_PREPARED: dict[str, Any] = {}  # in a worker: the recipe's object ref (hex) -> its Graph, the last few
_PREPARED_KEPT = 8


def _prepared(holder: list[Any]) -> Any:
    """The Graph of a recipe, built on this worker's first run of it (validated and compiled once, not per row)."""
    ref = holder[0]
    graph = _PREPARED.get(ref.hex())
    if graph is None:
        recipe: GraphRecipe = ray.get(ref)
        graph = Graph(recipe.source, recipe.options)
        if len(_PREPARED) >= _PREPARED_KEPT:
            _PREPARED.pop(next(iter(_PREPARED)))
        _PREPARED[ref.hex()] = graph
    return graph


_LOOP: asyncio.AbstractEventLoop | None = None  # in a worker: the event loop its whole runs run on, one after another


def run_whole(holder: list[Any], options: RunOptions) -> Outcome:
    """One whole run on a worker; its results, or its error as the driver can rebuild it, and what it spent.

    The runs share one event loop (a new loop per run costs more than a small graph's run);
    a run cut short by `ray.cancel` (KeyboardInterrupt) leaves the next one a new loop.
    """
    global _LOOP
    if _LOOP is None:
        _LOOP = asyncio.new_event_loop()
    spent: list[Usage] = []  # said once, when the run ends, however it ends
    try:
        results = _LOOP.run_until_complete(_prepared(holder).arun(options.replace(on_usage=spent.append)))
    except KeyboardInterrupt:
        _LOOP = None
        raise
    except Exception as error:  # noqa: BLE001 - every failure of the run goes back to the driver
        return Outcome(error=portable(GraphError.from_exception(error, doing="the run failed")),
                       usage=spent[-1] if spent else None)
    return Outcome(result=results, usage=spent[-1] if spent else None)


def run_wholes(holder: list[Any], options: list[RunOptions]) -> list[Outcome]:
    """Several whole runs in one task, one after another on the worker's loop (the graph built once)."""
    return [run_whole(holder, one) for one in options]
