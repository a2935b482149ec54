"""Agents for the serve crash tests and bench (`graphrt serve --agents tests/serve/count_agents.py`).

`countedAgent` waits, appends `run_id node_id` to the file named by
GRAPHRT_SERVE_COUNT_LOG (so a test can count how often each node ran, across
server processes), and returns its input `n` with the path of nodes it came
through. It waits `params.ms` milliseconds (work for the bench), or, with
`params.gate` (a file path), until that file exists: a test holds a node
running until it opens the gate. A gated node first appends `run_id node_id`
to `<gate>.waiting`, so the test knows when it is held. `streamedAgent` streams a text word by word
(held at its gate after the first word), for the OpenAI-compatible endpoint's streams.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio

from graphrt.authoring.agent_info import AgentContext, AgentInfo

GATE_POLL_SECONDS = 0.02  # how often a held node looks at its gate (another process opens it)


async def counted_agent(ctx: AgentContext) -> dict[str, Any]:
    gate = ctx.params.get("gate")
    if gate:
        await _held_at(Path(gate), f"{ctx.run_id} {ctx.node_id}")
    else:
        await anyio.sleep(float(ctx.params.get("ms", 0)) / 1000)
    log = os.environ.get("GRAPHRT_SERVE_COUNT_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as file:  # noqa: ASYNC230 - one short line, as the crash tests do
            file.write(f"{ctx.run_id} {ctx.node_id}\n")
    previous = ctx.inputs.get("previous") or {}
    return {"n": ctx.inputs.get("n", previous.get("n")), "seen": [*previous.get("seen", []), ctx.node_id]}


async def _held_at(gate: Path, who: str) -> None:
    """Says it is held (`<gate>.waiting`), then waits until the gate file exists."""
    with open(f"{gate}.waiting", "a", encoding="utf-8") as waiting:  # noqa: ASYNC230 - one short line
        waiting.write(who + "\n")
    while not gate.exists():
        await anyio.sleep(GATE_POLL_SECONDS)


async def streamed_agent(ctx: AgentContext) -> str:
    """Streams `params.text` word by word, held at `params.gate` (if given) after its first word: a test reads that
    word from a stream before the rest is made."""
    words = str(ctx.params.get("text", "")).split(" ")
    for index, word in enumerate(words):
        ctx.stream_token(word if index == 0 else " " + word)
        if index == 0 and ctx.params.get("gate"):
            await _held_at(Path(ctx.params["gate"]), f"{ctx.run_id} {ctx.node_id}")
    return " ".join(words)


AGENTS = [AgentInfo(name="countedAgent", func=counted_agent, description="waits, counts its calls, passes n on"),
          AgentInfo(name="streamedAgent", func=streamed_agent, description="streams its text, held at a gate")]
