"""GraphAI for the bench: installs the pinned npm packages into bench/.node and builds the node command.

The folder is git-ignored; `ensure_installed()` runs `npm install` there when a
package is missing or at another version, so a fresh checkout needs nothing but
node and npm on the PATH.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

__all__ = ["PACKAGES", "NODE_DIR", "RUNNER", "ensure_installed", "command", "available"]

BENCH_DIR = Path(__file__).resolve().parent
NODE_DIR = BENCH_DIR / ".node"
RUNNER = BENCH_DIR / "graphai_runner.cjs"

# What graphrt follows (see README), and a YAML parser for the runner (js-yaml: ~10x faster than `yaml`).
PACKAGES = {"graphai": "2.0.18", "@graphai/vanilla": "2.0.12", "js-yaml": "4.3.2"}


def available() -> str | None:
    """None when node and npm are on the PATH, else what is missing."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    return f"{' and '.join(missing)} not found on the PATH" if missing else None


def _installed_version(package: str) -> str | None:
    manifest = NODE_DIR / "node_modules" / package / "package.json"
    try:
        return json.loads(manifest.read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError):
        return None


def ensure_installed(quiet: bool = False) -> None:
    """Installs the pinned packages into bench/.node unless they are there already.

    Raises:
        RuntimeError: npm failed; its output is in the message.
    """
    if all(_installed_version(name) == version for name, version in PACKAGES.items()):
        return
    NODE_DIR.mkdir(exist_ok=True)
    manifest = {"name": "graphrt-bench-graphai", "private": True, "description": "installed by bench/graphai.py",
                "dependencies": PACKAGES}
    (NODE_DIR / "package.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    specs = [f"{name}@{version}" for name, version in PACKAGES.items()]
    if not quiet:
        print(f"bench: npm install {' '.join(specs)} into {NODE_DIR.relative_to(BENCH_DIR.parent)}", flush=True)
    done = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--save-exact", *specs],
                          cwd=NODE_DIR, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"npm install failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")


def command(file: Path, *extra: str) -> list[str]:
    """The node command that runs one workload file on GraphAI."""
    return ["node", "--expose-gc", str(RUNNER), str(file), *extra]


def node_version() -> str:
    return subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
