"""Agents for the Ctrl-C tests (`graphrt run --agents tests/engine/storm_agents.py`).

They never await, so a run of them yields only where the engine itself does;
after UNDER_WAY calls they say so on stderr, so that a test sends SIGINT into a
storm that is running rather than one that has yet to start.
"""

from __future__ import annotations

import sys
from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo

UNDER_WAY = 100
_calls = [0]


def _count() -> None:
    _calls[0] += 1
    if _calls[0] == UNDER_WAY:
        print("storm under way", file=sys.stderr, flush=True)


async def fail_now(ctx: AgentContext) -> Any:
    """Fails at once, every time."""
    _count()
    raise ValueError("down")


async def fail_mostly(ctx: AgentContext) -> Any:
    """Fails at once, but for one call in 1,001 (a node retried 1,000 times then succeeds, loop after loop)."""
    _count()
    if _calls[0] % 1001:
        raise ValueError("down")
    return ctx.inputs


async def echo_now(ctx: AgentContext) -> Any:
    """Returns its inputs at once."""
    _count()
    return ctx.inputs


AGENTS = [AgentInfo("failNowAgent", fail_now), AgentInfo("failMostlyAgent", fail_mostly),
          AgentInfo("echoNowAgent", echo_now)]
