"""Runs agents' samples as tests: each sample through a real one-node graph.

A sample (`AgentInfo.samples`) is GraphAI's: inputs, params, the expected
result and, for graph agents, the nested `graph`. It runs as this graph:

    nodes:
      sampleInputs: {value: <the sample's inputs>}          # a static node: values stay literal
      test:                                                  # the node id GraphAI's test runner uses
        agent: <the agent>
        inputs: {<key>: ":sampleInputs.<key>", ...}
        params: <the sample's params>
        graph: <the sample's graph, if any>
        isResult: true

so the agent is called as a graph calls it: through the registry, in a
worker thread when it is sync. Agents with a `mock` (an LLM, a person) run
their mock instead, so samples need no server. The result passes when it equals
the sample's result as JSON (UNDEFINED and absent are the same).
"""

from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass
from typing import Any, Iterable

from graphrt.authoring.agent_info import AgentInfo, Sample

from graphrt.authoring.registry import Registry
from graphrt.base.errors import GraphError
from graphrt.base.jsvalue import UNDEFINED, json_stringify, to_json_compatible

__all__ = ["SampleOutcome", "sample_graph", "run_sample", "run_samples", "select_agents"]

_INPUTS_NODE = "sampleInputs"
_SAMPLE_NODE = "test"  # GraphAI's agent test runner calls the node "test" (mergeNodeIdAgent shows it)
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class SampleOutcome:
    """How one sample went; `error` is set when the run failed."""

    agent: str
    index: int
    sample: Sample
    passed: bool
    result: Any = UNDEFINED
    error: str | None = None
    hint: str = ""

    @property
    def name(self) -> str:
        return f"{self.agent}[{self.index}]"

    def describe(self) -> str:
        """What went wrong, for a report (empty when the sample passed)."""
        if self.passed:
            return ""
        if self.error is not None:
            text = f"{self.name}: failed: {self.error}"
        else:
            text = (f"{self.name}: expected {json_stringify(to_json_compatible(self.sample.result))}, "
                    f"got {json_stringify(to_json_compatible(self.result))}")
        return f"{text} {self.hint}".rstrip()


def _with_mocks(registry: Registry) -> Registry:
    """The registry with each agent that has a `mock` replaced by it, so samples need no server or person."""
    if not any(info.mock is not None for info in registry):
        return registry
    mocked = registry.copy()
    for info in registry:
        if info.mock is not None:
            mocked.register(dataclasses.replace(info, func=info.mock, mock=None, checks_inputs=False), replace=True)
    return mocked


def sample_graph(info: AgentInfo, sample: Sample) -> dict[str, Any]:
    """The one-node graph that runs a sample (see the module docstring)."""
    node: dict[str, Any] = {"agent": info.name, "params": dict(sample.params or {}), "isResult": True}
    nodes: dict[str, Any] = {}
    inputs = sample.inputs
    if isinstance(inputs, dict) and inputs:
        nodes[_INPUTS_NODE] = {"value": inputs}
        node["inputs"] = {key: f":{_INPUTS_NODE}.{key}" if _PLAIN_KEY.fullmatch(key) else value
                          for key, value in inputs.items()}
    elif inputs not in (None, {}):
        node["inputs"] = inputs
    if sample.graph is not None:
        node["graph"] = sample.graph
    nodes[_SAMPLE_NODE] = node
    return {"version": 0.5, "nodes": nodes}


async def run_sample(info: AgentInfo, sample: Sample, registry: Registry, index: int = 0) -> SampleOutcome:
    """Runs one sample through a one-node graph using `registry`."""
    from graphrt.engine.graph import Graph

    try:
        graph = Graph(sample_graph(info, sample), agents=_with_mocks(registry))
        results = await graph.arun()
    except GraphError as error:
        return SampleOutcome(info.name, index, sample, False, error=str(error), hint=_hint(info))
    result = results.get(_SAMPLE_NODE, UNDEFINED)
    passed = _same(result, sample.result)
    return SampleOutcome(info.name, index, sample, passed, result=result, hint="" if passed else _hint(info))


async def run_samples(agents: Iterable[AgentInfo], registry: Registry) -> list[SampleOutcome]:
    """Runs every sample of the agents, one after the other, in order."""
    return [await run_sample(info, sample, registry, index) for info in agents for index, sample in enumerate(info.samples)]


def select_agents(registry: Registry, names: Iterable[str] = ()) -> list[AgentInfo]:
    """The named agents (all of them if none is named), in name order.

    Raises:
        KeyError: naming the agents that are not registered.
    """
    names = list(names)
    missing = [name for name in names if name not in registry]
    if missing:
        raise KeyError(", ".join(missing))
    return [registry[name] for name in (names or registry.names())]


def _same(result: Any, expected: Any) -> bool:
    if result is UNDEFINED or expected is UNDEFINED:
        return result is expected
    return to_json_compatible(result) == to_json_compatible(expected)


def _hint(info: AgentInfo) -> str:
    unset = [name for name in info.environment_variables if not os.environ.get(name)]
    return f"(it declares environment variables not set here: {', '.join(unset)})" if unset else ""
