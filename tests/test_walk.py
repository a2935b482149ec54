"""The walk ARCHITECTURE.md draws: `graphrt.run()` reaches the agent through the six modules it names, and a hello
run of the command imports none of what it does not use."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import graphrt
from graphrt import AgentContext, AgentInfo

ROOT = Path(__file__).resolve().parent.parent

WALK = ["graphrt.base.sync", "graphrt.api", "graphrt.engine.graph", "graphrt.engine.run", "graphrt.engine.execution",
        "graphrt.engine.node"]


def test_graphrt_run_reaches_the_agent_through_the_six_modules_architecture_names() -> None:
    walked: list[str] = []

    async def probe(ctx: AgentContext) -> str:
        for frame in reversed(inspect.stack()[1:]):
            module = frame.frame.f_globals.get("__name__", "")
            if module.startswith("graphrt.") and (not walked or walked[-1] != module):
                walked.append(module)
        return "reached"

    graph = {"version": 0.5, "nodes": {"a": {"agent": "probe", "isResult": True}}}
    assert graphrt.run(graph, agents=[AgentInfo(name="probe", func=probe)]) == {"a": "reached"}
    assert walked == WALK
    architecture = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    for module in WALK:
        assert f"`{module.removeprefix('graphrt.').replace('.', '/')}.py`" in architecture, module


COMMAND = """
import sys
from graphrt.cli.main import main
main(sys.argv[1:])
print(" ".join(sorted(sys.modules)))
"""


def _modules_of(*command: str) -> set[str]:
    """Every module that `graphrt COMMAND...` imports, in a process of its own."""
    done = subprocess.run([sys.executable, "-c", COMMAND, *command], cwd=ROOT, capture_output=True, text=True,
                          check=True)
    return set(done.stdout.splitlines()[-1].split())


def _imported_by(*command: str) -> set[str]:
    """graphrt's modules that `graphrt COMMAND...` imports, in a process of its own."""
    return {name for name in _modules_of(*command) if name == "graphrt" or name.startswith("graphrt.")}


HELLO = str(ROOT / "graphs" / "hello.yaml")

# What a hello run has no use for: JSON Schema checks (it checks no literal against an agent's schema: base.schema,
# base.quick_check, the GraphData schema's check, which only warnings need), what a run spends (it calls no LLM,
# has no budget: base.usage, base.budget, the usage ledger), the extras a pack may need (graphrt's own agents need
# none: base.extras), the checkpoint stores, the executor's seam, events nobody listens to, the authoring tools.
UNUSED = {"graphrt.checkpoint", "graphrt.engine.executor", "graphrt.graphdata.positions", "graphrt.observe.events",
          "graphrt.durable", "graphrt.authoring.agent_like", "graphrt.authoring.functions", "graphrt.base.schema",
          "graphrt.base.quick_check", "graphrt.check.graphdata_schema", "graphrt.base.usage", "graphrt.base.budget",
          "graphrt.observe.usage_ledger", "graphrt.base.extras"}

# The third-party packages a plain `pip install graphrt` brings that a hello run must not import (each costs a
# command tens of milliseconds): the LLM agents' SDK, JSON Schema, the graph library, PyYAML (the plain YAML of
# most graph files is read without it), HTTP, and importlib.metadata (entry points are read without it).
HEAVY = ("openai", "jsonschema", "networkx", "yaml", "httpx", "pydantic", "importlib.metadata")


def test_a_hello_run_of_the_command_imports_only_what_it_uses() -> None:
    imported = _imported_by("run", HELLO, "-q")
    assert not imported & UNUSED
    # 57 before issue 38's walk, 50 after it; usage and budgets (issue 39) added the five a run's meter needs
    # (55); issue 44 took out what a run imported for JSON Schema checks, usage, budgets and extras it had no use
    # for (48); issue 44's start-up work added base.frozen, the base of the value classes whose dataclass methods
    # were compiled at every start (49, and ~20% fewer instructions). It may only shrink.
    assert len(imported) <= 49


def test_a_hello_run_imports_none_of_the_heavy_packages() -> None:
    for command in (["run", HELLO, "-q"], ["run", HELLO]):  # -q shows no warnings: the GraphData schema's check is
        modules = _modules_of(*command)  # made for them without jsonschema (base/quick_check.py)
        assert not {name for name in modules if name.split(".")[0] in HEAVY or name in HEAVY}, command


def test_a_command_that_runs_no_graph_imports_no_engine_for_the_options_it_shares() -> None:
    # validate and agents take --agents from cli/run_options.py, whose --timeout help names the engine's variable.
    for command in (["validate", HELLO], ["agents", "copyAgent"]):
        assert not {name for name in _imported_by(*command) if name.startswith("graphrt.engine.")}, command
