"""GraphAI's @graphai/vanilla agents (2.0.12), with the same ids and behaviour."""

from __future__ import annotations

from graphrt.authoring.registry import AgentInfo

from . import (
    array,
    compare,
    data,
    graph,
    images,
    matrix,
    service,
    sleeper,
    string,
    testing,
)

__all__ = ["AGENTS"]

AGENTS: list[AgentInfo] = [
    *string.AGENTS,
    *array.AGENTS,
    *matrix.AGENTS,
    *data.AGENTS,
    *graph.AGENTS,
    *service.AGENTS,
    *sleeper.AGENTS,
    *compare.AGENTS,
    *images.AGENTS,
    *testing.AGENTS,
]
