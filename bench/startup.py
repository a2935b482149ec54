"""`python -m bench startup`: how fast the `graphrt` command answers, as whole-command medians.

graphrt is timed as a user installs it: `pip install` of this tree, not
editable and with no extras, into a throwaway venv of the machine's `python3`
(the first on the PATH outside the venv the bench runs in; `--python` names
another), made before the rounds and removed after them. The development venv
(an editable install with every extra: its `site` imports the editable
install's finder and the `.pth` files of every extra at each start) gets a row
of its own, `graphrt run` only, for comparison; the table's first lines say
which interpreter and which installs were timed.

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

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from . import graphai

ROOT = Path(__file__).resolve().parent.parent
HELLO = ROOT / "graphs" / "hello.yaml"
FLOOR = "floor: the run's imports but graphrt's, one anyio.run"
FLOOR_ASYNCIO = "floor on asyncio alone: the same but anyio's, one asyncio.run"

RUN = "graphrt run graphs/hello.yaml"
DEV_RUN = f"{RUN} (development venv)"

__all__ = ["Install", "commands", "machine_python", "main", "measure", "table", "user_install"]


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


@dataclass(frozen=True)
class Install:
    """The graphrt that is timed: its venv's interpreter and what the table says of it."""

    python: Path
    description: str

    @property
    def graphrt(self) -> list[str]:
        script = self.python.with_name("graphrt")
        return [str(script)] if script.exists() else [str(self.python), "-m", "graphrt"]


def machine_python() -> str:
    """The machine's `python3`: the first on the PATH outside the venv this bench runs in."""
    own = (Path(sys.prefix) / "bin").resolve()
    path = os.pathsep.join(folder for folder in os.environ.get("PATH", "").split(os.pathsep)
                           if folder and Path(folder).resolve() != own)
    found = shutil.which("python3", path=path)
    if found is None:
        raise SystemExit("bench: no python3 on the PATH outside this venv (name one with --python)")
    return found


def _version(python: str | Path) -> str:
    """`CPython 3.11.7 (/path/to/python3.11)`: what an interpreter is, its symlinks resolved."""
    script = "import platform, sys; print(platform.python_implementation(), platform.python_version(), sys._base_executable)"
    done = subprocess.run([str(python), "-c", script], capture_output=True, text=True, check=True)
    implementation, version, executable = done.stdout.split(maxsplit=2)
    return f"{implementation} {version} ({Path(executable.strip()).resolve()})"


@contextmanager
def user_install(python: str) -> Iterator[Install]:
    """graphrt as a user installs it, for as long as the block runs: `pip install` of this tree, not editable and
    with no extras, into a new venv of `python` (pip compiles the bytecode, as for any user)."""
    with tempfile.TemporaryDirectory(prefix="graphrt-startup-") as folder:
        venv = Path(folder) / "venv"
        subprocess.run([python, "-m", "venv", str(venv)], check=True)
        done = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                               str(ROOT)], capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"bench: pip install {ROOT} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
        yield Install(venv / "bin" / "python",
                      f"`pip install .` (not editable, no extras) into a new venv of {_version(python)}")


def development_install() -> Install | None:
    """The venv this bench runs in, when it has graphrt's command (the development venv: editable, every extra)."""
    python = Path(sys.executable)
    if not python.with_name("graphrt").exists():
        return None
    site = Path(sysconfig.get_paths()["purelib"])
    editable = any(site.glob("__editable__*graphrt*"))
    distributions = len(list(site.glob("*.dist-info")))
    return Install(python, f"the venv the bench runs in, {sys.prefix}: graphrt {'editable' if editable else 'installed'}"
                           f" beside {distributions - 1} other distributions, {_version(python)}")


def _modules_of(python: Path, script: str, *args: str) -> list[str]:
    """The module names a Python script writes to stderr, run as the commands are run."""
    done = subprocess.run([str(python), "-c", script, *args], cwd=ROOT, env=_with_bytecode_cache(),
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
    return done.stderr.split()


def _floors(python: Path) -> tuple[list[str], list[str]]:
    """Two commands that import what `graphrt run graphs/hello.yaml` imports, graphrt's own modules aside:
    one with anyio (one anyio.run), one without it (one asyncio.run)."""
    ours = ("graphrt", "graphrt_agents")  # graphrt_agents imports graphrt's authoring layer: it is ours too
    names = [name for name in _modules_of(python, _MODULES_OF_RUN, str(HELLO))  # C parts (_asyncio, _ssl) come
             if name.split(".")[0] not in ours and not name.startswith("_") and "__main__" not in name]  # with theirs
    without_anyio = [name for name in names if name.split(".")[0] not in _ANYIO_PACKAGES]
    return ([str(python), "-c", _FLOOR.format(names=names, start=_ANYIO_RUN)],
            [str(python), "-c", _FLOOR.format(names=without_anyio, start=_ASYNCIO_RUN)])


def commands(user: Install, development: Install | None = None) -> list[tuple[str, list[str]]]:
    """(label, argv) of every command measured: graphrt as `user` installed it, `graphrt run` of `development` too
    when given, and GraphAI's only where node and its packages are there."""
    graphrt = user.graphrt
    listed = [
        ("python -c pass", [str(user.python), "-c", "pass"]),
        ("graphrt --help", [*graphrt, "--help"]),
        ("graphrt validate graphs/hello.yaml", [*graphrt, "validate", str(HELLO)]),
        (RUN, [*graphrt, "run", str(HELLO)]),
    ]
    if development is not None:
        listed.append((DEV_RUN, [*development.graphrt, "run", str(HELLO)]))
    if shutil.which("node"):
        listed.insert(1, ('node -e ""', ["node", "-e", ""]))
        if graphai.available() is None:
            graphai.ensure_installed(quiet=True)
            listed.append(("GraphAI: node runner graphs/hello.yaml", graphai.command(HELLO)))
    with_anyio, without_anyio = _floors(user.python)
    listed += [(FLOOR, with_anyio), (FLOOR_ASYNCIO, without_anyio)]
    return listed


def measure(listed: list[tuple[str, list[str]]], rounds: int = 11) -> list[tuple[str, float, float]]:
    """(label, median ms, min ms) of each command over `rounds` turns."""
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


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def table(results: list[tuple[str, float, float]], installs: Sequence[str] = ()) -> str:
    """The results as Markdown, with the targets' verdicts, after the lines that say which installs were timed."""
    by_label = {label: median for label, median, _ in results}
    graphai_ms = next((median for label, median, _ in results if label.startswith("GraphAI")), None)
    targets = {
        "graphrt --help": ("< 150 ms", lambda ms: ms < 150),
        "graphrt validate graphs/hello.yaml": ("< 250 ms", lambda ms: ms < 250),
    }
    lines = [*installs, ""] if installs else []
    lines += ["| command | median ms | min ms | target |", "|---|---:|---:|---|"]
    for label, median, least in results:
        target = ""
        if label in targets:
            text, check = targets[label]
            target = f"{text}: {'met' if check(median) else 'missed'}"
        elif label in (RUN, DEV_RUN, FLOOR, FLOOR_ASYNCIO) and graphai_ms:
            ratio = median / graphai_ms
            target = (f"<= 1.0x GraphAI: {ratio:.2f}x, {'met' if ratio <= 1.0 else 'missed'}" if label == RUN else
                      f"{ratio:.2f}x GraphAI")
        lines.append(f"| `{label}` | {median:.0f} | {least:.0f} | {target} |")
    if "python -c pass" in by_label:
        lines.append(f"\n`python -c pass` alone takes {by_label['python -c pass']:.0f} ms of each graphrt command.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench startup", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=11, help="turns of every command (default: 11)")
    parser.add_argument("--python", help="the interpreter of the user's install (default: the machine's python3)")
    parser.add_argument("--no-development", action="store_true", help="leave out the development venv's row")
    args = parser.parse_args(argv)
    development = None if args.no_development else development_install()
    with user_install(args.python or machine_python()) as user:
        installs = [f"graphrt: {user.description}."]
        if development is not None:
            installs.append(f"`{DEV_RUN}`: {development.description}.")
        listed = commands(user, development)
        before = _load()
        results = measure(listed, args.rounds)
        installs.append(f"{args.rounds} rounds in turns; load average before {before}, after {_load()}.")
    print(table(results, installs))
    return 0
