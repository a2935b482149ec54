"""`python -m bench startup`: how fast the `graphrt` command answers, as whole-command medians.

Each command runs as a new process, the commands taking turns round after round
(the machine's noise falls on all of them alike), and the table gives each
one's median wall time beside `python -c pass` and `node -e ""` (what starting
the interpreter alone costs) and GraphAI's whole command on the same file
(node, graphai and @graphai/vanilla loaded, the YAML file parsed and run once).

Python runs with its bytecode cache, as after `pip install` (which compiles
it): PYTHONDONTWRITEBYTECODE is dropped, and one untimed round writes the
cache of a source checkout first.

The last two rows are floors. The first is a script that imports every module
`graphrt run graphs/hello.yaml` imports but graphrt's own (the standard library,
anyio, asyncio: the list read off a run's `sys.modules` first) and starts one
`anyio.run`: what the command would cost if graphrt's own code cost nothing.
The second leaves out anyio too (anyio, and sniffio and typing_extensions,
which it imports; the standard library's modules stay) and starts one
`asyncio.run`: the difference between the two is what anyio's layer over
asyncio costs, and GraphAI's command has no counterpart of it.

Targets: `graphrt --help` under 150 ms, `graphrt validate graphs/hello.yaml`
under 250 ms (issue #10), `graphrt run graphs/hello.yaml` within 1.0x of
GraphAI's command (issue #44; issue #10 asked 1.5x).
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
FLOOR_ASYNCIO = "floor on asyncio alone: the same but anyio's, one asyncio.run"

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
async def nothing():
    pass
{start}
"""
_ANYIO_RUN = "import anyio; anyio.run(nothing)"
_ASYNCIO_RUN = "import asyncio; asyncio.run(nothing())"

# anyio and the packages it imports with it (graphrt imports neither sniffio nor typing_extensions).
_ANYIO_PACKAGES = ("anyio", "sniffio", "typing_extensions")


def _with_bytecode_cache() -> dict[str, str]:
    """This environment without PYTHONDONTWRITEBYTECODE: Python as after `pip install`, its bytecode cached."""
    return {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def _modules_of(script: str, *args: str) -> list[str]:
    """The module names a Python script writes to stderr, run as the commands are run."""
    done = subprocess.run([sys.executable, "-c", script, *args], cwd=ROOT, env=_with_bytecode_cache(),
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
    return done.stderr.split()


def _floors() -> tuple[list[str], list[str]]:
    """Two commands that import what `graphrt run graphs/hello.yaml` imports, graphrt's own modules aside:
    one with anyio (one anyio.run), one without it (one asyncio.run)."""
    ours = ("graphrt", "graphrt_agents")  # graphrt_agents imports graphrt's authoring layer: it is ours too
    names = [name for name in _modules_of(_MODULES_OF_RUN, str(HELLO))  # C parts (_asyncio, _ssl) come with
             if name.split(".")[0] not in ours and not name.startswith("_") and "__main__" not in name]  # their modules
    without_anyio = [name for name in names if name.split(".")[0] not in _ANYIO_PACKAGES]
    return ([sys.executable, "-c", _FLOOR.format(names=names, start=_ANYIO_RUN)],
            [sys.executable, "-c", _FLOOR.format(names=without_anyio, start=_ASYNCIO_RUN)])


def _graphrt() -> list[str]:
    script = Path(sys.executable).with_name("graphrt")
    return [str(script)] if script.exists() else [sys.executable, "-m", "graphrt"]


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
    with_anyio, without_anyio = _floors()
    listed += [(FLOOR, with_anyio), (FLOOR_ASYNCIO, without_anyio)]
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
        elif label in ("graphrt run graphs/hello.yaml", FLOOR, FLOOR_ASYNCIO) and graphai_ms:
            ratio = median / graphai_ms
            target = (f"{ratio:.2f}x GraphAI" if label in (FLOOR, FLOOR_ASYNCIO) else
                      f"<= 1.0x GraphAI: {ratio:.2f}x, {'met' if ratio <= 1.0 else 'missed'}")
        lines.append(f"| `{label}` | {median:.0f} | {least:.0f} | {target} |")
    if "python -c pass" in by_label:
        lines.append(f"\n`python -c pass` alone takes {by_label['python -c pass']:.0f} ms of each graphrt command.")
    return "\n".join(lines)
