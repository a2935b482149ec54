"""Agents for the serve crash tests and bench (`graphrt serve --agents tests/serve/count_agents.py`).

`countedAgent` waits `params.ms` milliseconds, appends `run_id node_id` to the
file named by GRAPHRT_SERVE_COUNT_LOG (so a test can count how often each node
ran, across server processes), and returns its input `n` with the path of nodes
it came through.
"""

from __future__ import annotations

import os
from typing import Any

import anyio

from graphrt.authoring.agent_info import AgentContext, AgentInfo


async def counted_agent(ctx: AgentContext) -> dict[str, Any]:
    await anyio.sleep(float(ctx.params.get("ms", 0)) / 1000)
    log = os.environ.get("GRAPHRT_SERVE_COUNT_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as file:  # noqa: ASYNC230 - one short line, as the crash tests do
            file.write(f"{ctx.run_id} {ctx.node_id}\n")
    previous = ctx.inputs.get("previous") or {}
    return {"n": ctx.inputs.get("n", previous.get("n")), "seen": [*previous.get("seen", []), ctx.node_id]}


AGENTS = [AgentInfo(name="countedAgent", func=counted_agent, description="waits, counts its calls, passes n on")]
