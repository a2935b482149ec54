"""Agents for the Ray executor's tests; also loaded with `graphrt run --agents tests/executors/ray_agents.py`.

They report the process they ran in, so a test can tell the driver from a Ray worker.
Files they write are named in their inputs, not in environment variables: a Ray
worker does not see the environment of the driver that sent it the call.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import graphrt
from graphrt.authoring.agent_info import AgentContext, AgentInfo


async def where_agent(ctx: AgentContext) -> Any:
    return {"pid": os.getpid(), **ctx.inputs}


def held_agent(ctx: AgentContext) -> Any:
    """Touches `inputs.started`, then waits until the file `inputs.gate` exists, then touches `inputs.finished`.

    If it is interrupted while it waits (`ray.cancel` raises KeyboardInterrupt in the task), it touches
    `inputs.cancelled` instead: a test learns that the task was cancelled without waiting for anything to not happen.
    """
    Path(ctx.inputs["started"]).touch()
    try:
        _wait_for_file(Path(ctx.inputs["gate"]))
    except KeyboardInterrupt:
        Path(ctx.inputs["cancelled"]).touch()
        raise
    Path(ctx.inputs["finished"]).touch()
    return {"pid": os.getpid()}


def _wait_for_file(path: Path) -> None:
    """Waits until `path` exists: the test, in another process, opens the gate by creating it."""
    while not path.exists():
        time.sleep(0.02)


def meet_agent(ctx: AgentContext) -> Any:
    """Writes its pid into `inputs.folder`, then waits (up to 30 s) until `inputs.count` processes have.

    Rows that meet were running at the same time in different processes.
    """
    folder = Path(ctx.inputs["folder"])
    (folder / str(os.getpid())).touch()
    deadline = time.monotonic() + 30
    while len(list(folder.iterdir())) < ctx.inputs.get("count", 2) and time.monotonic() < deadline:
        time.sleep(0.02)
    return {"pid": os.getpid(), "met": len(list(folder.iterdir())) >= ctx.inputs.get("count", 2),
            "row": ctx.inputs.get("row"), "node": _node_id()}


def _node_id() -> str | None:
    """The Ray node this runs on (None in a process that is not a Ray worker)."""
    import ray

    return ray.get_runtime_context().get_node_id() if ray.is_initialized() else None


async def fail_agent(ctx: AgentContext) -> Any:
    raise ValueError(f"cannot handle {ctx.inputs.get('what')!r}")


def die_once_agent(ctx: AgentContext) -> Any:
    """Kills its own process the first time (while `inputs.marker` does not exist yet), then answers."""
    marker = Path(ctx.inputs["marker"])
    if not marker.exists():
        marker.touch()
        os._exit(1)
    return {"pid": os.getpid(), "retry": ctx.retry_count}


def die_always_agent(ctx: AgentContext) -> Any:
    os._exit(1)


async def local_agent(ctx: AgentContext) -> Any:
    return {"pid": os.getpid()}


async def big_agent(ctx: AgentContext) -> Any:
    return "x" * ctx.params.get("size", 300_000)


async def length_agent(ctx: AgentContext) -> Any:
    return {"length": len(ctx.inputs["text"]), "pid": os.getpid()}


def log_agent(ctx: AgentContext) -> Any:
    """Appends `node` to `inputs.log` (counts runs across processes), then waits until the file `inputs.gate`
    exists, when given: a test holds the node running until it opens the gate."""
    with open(ctx.inputs["log"], "a", encoding="utf-8") as log:
        log.write(f"{ctx.node_id}\n")
    if ctx.inputs.get("gate"):
        _wait_for_file(Path(ctx.inputs["gate"]))
    return {"node": ctx.node_id, "pid": os.getpid()}


def talk_agent(ctx: AgentContext) -> Any:
    """Streams two tokens and reports progress, then waits until the file `inputs.gate` exists.

    The test opens the gate when it has seen those events: they must reach it while the call still runs.
    """
    ctx.stream_token("Hel")
    ctx.stream_token("lo")
    ctx.progress("said hello", 1)
    _wait_for_file(Path(ctx.inputs["gate"]))
    return {"pid": os.getpid()}


class Counter:
    """Counts, and remembers the count between calls."""

    def __init__(self) -> None:
        self.count = 0

    @graphrt.tool
    def add(self, n: int = 1) -> dict:
        """Adds n to the count.

        Args:
            n: how much to add.
        """
        self.count += n
        return {"count": self.count, "pid": os.getpid()}


AGENTS = [
    AgentInfo("whereAgent", where_agent),
    AgentInfo("heldAgent", held_agent),
    AgentInfo("meetAgent", meet_agent),
    AgentInfo("failAgent", fail_agent),
    AgentInfo("dieOnceAgent", die_once_agent),
    AgentInfo("dieAlwaysAgent", die_always_agent),
    AgentInfo("localAgent", local_agent, runs_local=True),
    AgentInfo("bigAgent", big_agent),
    AgentInfo("lengthAgent", length_agent),
    AgentInfo("logAgent", log_agent),
    AgentInfo("talkAgent", talk_agent),
    Counter,
]


class PickyError(Exception):
    """An exception whose constructor takes other arguments than its `args`: it cannot be rebuilt elsewhere."""

    def __init__(self, code: int, *, reason: str) -> None:
        super().__init__(f"code {code}: {reason}")


async def picky_agent(ctx: AgentContext) -> Any:
    raise PickyError(7, reason="picky")


AGENTS.append(AgentInfo("pickyAgent", picky_agent))
