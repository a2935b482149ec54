"""`RunSnapshot`: the state a run can be resumed from.

It lives in the checkpoint layer, below the engine: stores build it from their
rows without importing the engine, and the engine restores a run from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["RunSnapshot"]


@dataclass(frozen=True)
class RunSnapshot:
    """What a checkpoint keeps of a run, enough to resume it where it stopped.

    `results` are the values of the current iteration (static nodes and the
    computed nodes that completed); `answers` are human answers to interrupts;
    `inner`, of a fork from a node inside a nested graph, the inner results kept
    when that graph runs again (its `inner` rows); `usage`, what the run spent so far (its
    latest `usage` row).
    """

    run_id: str
    iteration: int
    results: dict[str, Any]
    completed: list[str]
    injected: dict[str, Any] = field(default_factory=dict)
    answers: dict[str, Any] = field(default_factory=dict)
    # A fork from inside a nested graph: the results its nested graphs keep, by nested path ("outer", "outer/2").
    inner: dict[str, dict[str, Any]] = field(default_factory=dict)
    # What the run spent before (graphrt.base.usage's Usage.to_dict()): a resumed run goes on counting from it.
    usage: dict[str, Any] | None = None
