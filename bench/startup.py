"""`python -m bench startup`: how fast the `graphrt` command answers, as whole-command medians.

Each command runs as a new process, the commands taking turns round after round
(the machine's noise falls on all of them alike), and the table gives each
one's median wall time beside `python -c pass` and `node -e ""` (what starting
the interpreter alone costs) and GraphAI's whole command on the same file
(node, graphai and @graphai/vanilla loaded, the YAML file parsed and run once).

Python runs with its bytecode cache, as after `pip install` (which compiles
it): PYTHONDONTWRITEBYTECODE is dropped, and one untimed round writes the
cache of a source checkout first.

A last row, the floor, is a script that imports every module `graphrt run
graphs/hello.yaml` imports but graphrt's own (the standard library, anyio,
asyncio: the list read off a run's `sys.modules` first) and starts one
`anyio.run`: what the command would cost if graphrt's own code cost nothing.

Targets (issue #10): `graphrt --help` under 150 ms, `graphrt validate
graphs/hello.yaml` under 250 ms, `graphrt run graphs/hello.yaml` within 1.5x
of GraphAI's command.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from . import graphai

ROOT = Path(__file__).resolve().parent.parent
HELLO = ROOT / "graphs" / "hello.yaml"
FLOOR = "floor: the run's imports but graphrt's, one anyio.run"

__all__ = ["commands", "measure", "table"]


_MODULES_OF_RUN = """
import sys
from graphrt.cli import main
sys.argv = ["graphrt", "run", sys.argv[1]]
try:
    main()
except SystemExit:
    pass
sys.stderr.write(" ".join(sorted(sys.modules)))
"""

_FLOOR = """
import importlib
for name in {names!r}:
    importlib.import_module(name)
import anyio
async def nothing():
    pass
anyio.run(nothing)
"""


def _with_bytecode_cache() -> dict[str, str]:
    """This environment without PYTHONDONTWRITEBYTECODE: Python as after `pip install`, its bytecode cached."""
    return {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def _floor() -> list[str]:
    """A command that imports what `graphrt run graphs/hello.yaml` imports, graphrt's own modules aside."""
    env = _with_bytecode_cache()
    done = subprocess.run([sys.executable, "-c", _MODULES_OF_RUN, str(HELLO)], cwd=ROOT, env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
    ours = ("graphrt", "graphrt_agents")  # graphrt_agents imports graphrt's authoring layer: it is ours too
    names = [name for name in done.stderr.split()  # C parts (_asyncio, _ssl) come with their modules, in their order
             if name.split(".")[0] not in ours and not name.startswith("_") and "__main__" not in name]
    return [sys.executable, "-c", _FLOOR.format(names=names)]


def _graphrt() -> list[str]:
    script = Path(sys.executable).with_name("graphrt")
    return [str(script)] if script.exists() else [sys.executable, "-m", "graphrt.cli.main"]


def commands() -> list[tuple[str, list[str]]]:
    """(label, argv) of every command measured; GraphAI's only where node and its packages are there."""
    graphrt = _graphrt()
    listed = [
        ("python -c pass", [sys.executable, "-c", "pass"]),
        ("graphrt --help", [*graphrt, "--help"]),
        ("graphrt validate graphs/hello.yaml", [*graphrt, "validate", str(HELLO)]),
        ("graphrt run graphs/hello.yaml", [*graphrt, "run", str(HELLO)]),
    ]
    if shutil.which("node"):
        listed.insert(1, ('node -e ""', ["node", "-e", ""]))
        if graphai.available() is None:
            graphai.ensure_installed(quiet=True)
            listed.append(("GraphAI: node runner graphs/hello.yaml", graphai.command(HELLO)))
    listed.append((FLOOR, _floor()))
    return listed


def measure(rounds: int = 11) -> list[tuple[str, float, float]]:
    """(label, median ms, min ms) of each command over `rounds` turns."""
    listed = commands()
    env = _with_bytecode_cache()
    times: dict[str, list[float]] = {label: [] for label, _ in listed}
    for round_ in range(rounds + 1):
        for label, argv in listed:
            started = time.perf_counter()
            done = subprocess.run(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            elapsed = (time.perf_counter() - started) * 1000
            if done.returncode != 0:
                raise SystemExit(f"bench: {label} failed: {done.stderr.decode(errors='replace')[-500:]}")
            if round_:  # the first round writes the bytecode cache
                times[label].append(elapsed)
    return [(label, statistics.median(values), min(values)) for label, values in times.items()]


def table(results: list[tuple[str, float, float]]) -> str:
    """The results as Markdown, with the targets' verdicts."""
    by_label = {label: median for label, median, _ in results}
    graphai_ms = next((median for label, median, _ in results if label.startswith("GraphAI")), None)
    targets = {
        "graphrt --help": ("< 150 ms", lambda ms: ms < 150),
        "graphrt validate graphs/hello.yaml": ("< 250 ms", lambda ms: ms < 250),
    }
    lines = ["| command | median ms | min ms | target |", "|---|---:|---:|---|"]
    for label, median, least in results:
        target = ""
        if label in targets:
            text, check = targets[label]
            target = f"{text}: {'met' if check(median) else 'missed'}"
        elif label in ("graphrt run graphs/hello.yaml", FLOOR) and graphai_ms:
            ratio = median / graphai_ms
            target = (f"{ratio:.2f}x GraphAI" if label == FLOOR else
                      f"<= 1.5x GraphAI: {ratio:.2f}x, {'met' if ratio <= 1.5 else 'missed'}")
        lines.append(f"| `{label}` | {median:.0f} | {least:.0f} | {target} |")
    if "python -c pass" in by_label:
        lines.append(f"\n`python -c pass` alone takes {by_label['python -c pass']:.0f} ms of each graphrt command.")
    return "\n".join(lines)
