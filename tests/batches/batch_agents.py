"""Agents for the batch tests; also loaded with `graphrt batch --agents tests/batches/batch_agents.py`.

The files they write are named in their inputs (a Ray worker does not see the driver's environment).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo


def _wait_for_file(path: Path) -> None:
    """Waits until `path` exists: the test, in another process, opens the gate by creating it."""
    while not path.exists():
        time.sleep(0.02)


def row_agent(ctx: AgentContext) -> Any:
    """Appends `inputs.row` to the file `inputs.log` (which rows ran, in any process), then answers.

    A row whose `inputs.hold` is true first touches `inputs.log`.ROW.held and waits until the file
    `inputs.gate` exists; a row whose `inputs.fail` is set raises ValueError with that text.
    """
    row = ctx.inputs["row"]
    with open(ctx.inputs["log"], "a", encoding="utf-8") as log:
        log.write(f"{row}\n")
    if ctx.inputs.get("hold"):
        Path(f"{ctx.inputs['log']}.{row}.held").touch()
        _wait_for_file(Path(ctx.inputs["gate"]))
    if ctx.inputs.get("fail"):
        raise ValueError(ctx.inputs["fail"])
    return {"row": row, "double": row * 2, "pid": os.getpid()}


AGENTS = [AgentInfo("rowAgent", row_agent)]
