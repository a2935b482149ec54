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
print(" ".join(sorted(name for name in sys.modules if name == "graphrt" or name.startswith("graphrt."))))
"""


def _imported_by(*command: str) -> set[str]:
    """graphrt's modules that `graphrt COMMAND...` imports, in a process of its own."""
    done = subprocess.run([sys.executable, "-c", COMMAND, *command], cwd=ROOT, capture_output=True, text=True,
                          check=True)
    return set(done.stdout.splitlines()[-1].split())


def test_a_hello_run_of_the_command_imports_only_what_it_uses() -> None:
    imported = _imported_by("run", str(ROOT / "graphs" / "hello.yaml"), "-q")
    unused = {"graphrt.checkpoint", "graphrt.engine.executor", "graphrt.graphdata.positions", "graphrt.observe.events",
              "graphrt.durable", "graphrt.authoring.agent_like", "graphrt.authoring.functions"}
    assert not imported & unused
    # 57 before issue 38's walk, 50 after it; usage and budgets (issue 39) added the five a run's meter needs
    # (base.usage, base.budget, base.defaults, observe.meter, observe.usage_ledger). It may only shrink.
    assert len(imported) <= 55


def test_a_command_that_runs_no_graph_imports_no_engine_for_the_options_it_shares() -> None:
    # validate and agents take --agents from cli/run_options.py, whose --timeout help names the engine's variable.
    for command in (["validate", str(ROOT / "graphs" / "hello.yaml")], ["agents", "copyAgent"]):
        assert not {name for name in _imported_by(*command) if name.startswith("graphrt.engine.")}, command
