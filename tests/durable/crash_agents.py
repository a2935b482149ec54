"""Agents for the crash tests, loaded with `graphrt run --agents tests/durable/crash_agents.py`.

`logAgent` appends one line per call (`node@loop`) to the file named by
GRAPHRT_CRASH_LOG, so a test can count how often each node ran, across processes.
`gateAgent` does the same; in loop iteration 1, while the file named by
GRAPHRT_CRASH_BLOCK exists, it then prints `blocked` and waits forever, for
the test to kill or interrupt the process at a known point.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio

from graphrt.authoring.agent_info import AgentContext, AgentInfo


def _log(ctx: AgentContext) -> None:
    with open(os.environ["GRAPHRT_CRASH_LOG"], "a", encoding="utf-8") as log:
        log.write(f"{ctx.node_id}@{ctx.inputs.get('i')}\n")


async def log_agent(ctx: AgentContext) -> Any:
    _log(ctx)
    return {"node": ctx.node_id, **ctx.inputs}


async def gate_agent(ctx: AgentContext) -> Any:
    _log(ctx)
    block = os.environ.get("GRAPHRT_CRASH_BLOCK")
    if ctx.inputs.get("i") == 1 and block and Path(block).exists():
        print("blocked", flush=True)
        sys.stdout.flush()
        await anyio.sleep_forever()
    return {"node": ctx.node_id, **ctx.inputs}


AGENTS = [AgentInfo("logAgent", log_agent), AgentInfo("gateAgent", gate_agent)]
