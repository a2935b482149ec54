"""Agents for the journal tests, loaded with `graphrt run --agents tests/durable/journal_agents.py`.

`effectAgent--act` is a tool with side effects (its function info says so): each call appends its `n` to the file named
by GRAPHRT_EFFECTS, one line a call, so a test counts across processes how often each effect happened. Effect number
GRAPHRT_EFFECT_HANG, once done, prints `acting N` and waits forever: a process killed then dies in the middle of
the call, its effect done and its result not returned.
"""

from __future__ import annotations

import os
from typing import Any

import anyio

from graphrt.authoring.agent_info import AgentContext, AgentInfo

ACT = {"type": "function", "function": {
    "name": "act", "description": "Does effect number n (once, we hope).",
    "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}}


async def effect_agent(ctx: AgentContext) -> Any:
    n = ctx.inputs["arg"]["n"]
    with open(os.environ["GRAPHRT_EFFECTS"], "a", encoding="utf-8") as log:
        log.write(f"{n}\n")
    if str(n) == os.environ.get("GRAPHRT_EFFECT_HANG"):
        print(f"acting {n}", flush=True)
        await anyio.sleep_forever()
    return {"content": f"effect {n} done", "data": {"last": n}}


AGENTS = [AgentInfo("effectAgent", effect_agent, tools=(ACT,), side_effects=True)]


def effects_graph(text: str) -> str:
    """A graph whose toolsAgent is asked `text` (YAML, as written) with `effectAgent--act` as its tool."""
    return f"""\
version: 0.5
nodes:
  agent:
    agent: toolsAgent
    inputs:
      tools: [effectAgent--act]
      userInput: {{text: {text}}}
    isResult: true
"""
