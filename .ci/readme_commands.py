#!/usr/bin/env python3
"""The README's first two commands, as a new user runs them: in a fresh clone of HEAD, with no OPENAI_* variables.

    python3 .ci/readme_commands.py

The commands are read from README.md itself (its first and second ```sh blocks), never copied here, so
that CI tests what the README says. The first installs and runs a graph; the second runs the tests, and
must exit 0 (skips are allowed, each with its reason: the run's summary is printed). Prints each command
with its exit code and time. Exit 1 if either command fails.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_FENCE = re.compile(r"^```sh\n(.*?)^```", re.MULTILINE | re.DOTALL)


def readme_commands(readme: Path) -> list[str]:
    """The README's first two shell blocks, each one command."""
    blocks = [block.strip() for block in _FENCE.findall(readme.read_text(encoding="utf-8"))[:2]]
    if len(blocks) != 2 or any("\n" in block for block in blocks):
        raise SystemExit(f"{readme}: the first two ```sh blocks must be one command each, found {blocks!r}")
    return blocks


def summary(output: str) -> str:
    """What pytest printed from its short summary on (every skip's reason and the counts), else the last lines."""
    at = output.rfind("short test summary info")
    return output[output.rfind("\n", 0, at) + 1:] if at >= 0 else "\n".join(output.splitlines()[-5:])


def main() -> int:
    env = {key: value for key, value in os.environ.items() if not key.startswith("OPENAI_")}
    env.pop("VIRTUAL_ENV", None)
    with tempfile.TemporaryDirectory(prefix="graphrt-readme-") as folder:
        clone = Path(folder) / "graphrt"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        status = 0
        for command in readme_commands(clone / "README.md"):
            print(f"readme: $ {command}", flush=True)
            started = time.monotonic()
            done = subprocess.run(["bash", "-c", command], cwd=clone, env=env, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            took = time.monotonic() - started
            print(summary(done.stdout) if "pytest" in command else "\n".join(done.stdout.splitlines()[-5:]))
            print(f"readme: exit {done.returncode} after {took:.0f} s", flush=True)
            if done.returncode != 0:
                print(done.stdout[-5000:], flush=True)
                status = 1
                break
    return status


if __name__ == "__main__":
    sys.exit(main())
