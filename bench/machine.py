"""What the numbers were measured on: cores, CPU, memory, load, and the versions of everything timed."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import time
from importlib.metadata import PackageNotFoundError, version

from .graphai import NODE_DIR, PACKAGES

__all__ = ["describe"]


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory() -> str:
    try:
        with open("/proc/meminfo", encoding="utf-8") as meminfo:
            kb = int(meminfo.readline().split()[1])
        return f"{kb / 1024 / 1024:.0f} GiB"
    except (OSError, ValueError, IndexError):
        return "unknown"


def _python_package(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def _npm_package(name: str) -> str:
    try:
        with open(NODE_DIR / "node_modules" / name / "package.json", encoding="utf-8") as manifest:
            return json.load(manifest)["version"]
    except (OSError, ValueError, KeyError):
        return "not installed"


def _node() -> str:
    try:
        return subprocess.run(["node", "--version"], capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        return "not found"


def _git() -> str:
    """The commit measured, and whether the engine's files differed from it (others work in the same checkout)."""
    root = NODE_DIR.parent.parent
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True,
                                check=False).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "graphrt", "agents"], cwd=root,
                               capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        return "unknown"
    return f"{commit or 'unknown'}{' + uncommitted changes in graphrt/ or agents/' if dirty else ''}"


def describe() -> dict[str, str]:
    load = os.getloadavg() if hasattr(os, "getloadavg") else ()
    return {
        "machine": f"{os.cpu_count()} cores (nproc {len(os.sched_getaffinity(0))}), {_cpu_model()}, {_memory()}",
        "os": f"{platform.system()} {platform.release()}",
        "load average at start": " ".join(f"{value:.2f}" for value in load) or "unknown",
        "measured at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "node": _node(),
        "graphrt": f"{_python_package('graphrt')} at {_git()}",
        "python packages": ", ".join(f"{name} {_python_package(name)}"
                                     for name in ("anyio", "PyYAML", "langgraph", "langchain-core")),
        "npm packages": ", ".join(f"{name} {_npm_package(name)}" for name in PACKAGES),
    }
