"""Every exception class graphrt and its agent library define is in the GraphError tree (graphrt/base/errors.py),
and drawn there; the few that are not are listed below, each with why."""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
from pathlib import Path

from graphrt.base import errors
from graphrt.base.errors import GraphError

ROOT = Path(__file__).resolve().parent.parent

# Exception classes outside the tree, each with the reason it may be; this list should only shrink.
OUTSIDE_THE_TREE = {
    # A signal, not an error: an agent raises it to ask a person; the run stops with GraphInterrupted.
    "graphrt.base.errors.Interrupt",
    # A stand-in for an agent's own exception whose class could not cross from a Ray worker; it keeps the
    # type's name, and the run wraps it in an AgentError as it wraps the agent's original exception.
    "graphrt.executors.ray.wire._RemoteException",
    # The quick YAML reader's "not mine": it never leaves quick_load, which then answers None and the full
    # loader reads the text (and raises the GraphLoadError, if there is one).
    "graphrt.graphdata.quick_yaml._NotQuick",
    # Its "the whole file, not only this entry": a _NotQuick that no entry left to PyYAML alone can answer; it never
    # leaves quick_load either.
    "graphrt.graphdata.quick_yaml._Whole",
}


def _modules() -> dict[str, Path]:
    """Every module of graphrt and graphrt_agents (the folder agents/), by name."""
    modules = {}
    for top, package in (("graphrt", "graphrt"), ("agents", "graphrt_agents")):
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = [package, *path.relative_to(ROOT / top).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            if parts[-1] != "__main__":
                modules[".".join(parts)] = path
    return modules


_BUILTIN_EXCEPTIONS = {name for name, value in vars(builtins).items()
                       if isinstance(value, type) and issubclass(value, BaseException)}


def _exception_classes() -> tuple[dict[str, type[BaseException]], set[str]]:
    """Every exception class defined in a module of graphrt or graphrt_agents, by its dotted name; and, for a
    module whose optional dependency is not installed, the classes its source derives from a built-in exception."""
    found: dict[str, type[BaseException]] = {}
    unimported: set[str] = set()
    for name, path in _modules().items():
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as missing:  # an extra that is not installed: read the module's source instead
            if (missing.name or "").split(".")[0] in ("graphrt", "graphrt_agents"):
                raise
            tree = ast.parse(path.read_text(encoding="utf-8"))
            unimported |= {f"{name}.{node.name}" for node in tree.body if isinstance(node, ast.ClassDef) and any(
                isinstance(base, ast.Name) and base.id in _BUILTIN_EXCEPTIONS for base in node.bases)}
            continue
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, BaseException) and value.__module__ == name:
                found[f"{name}.{value.__qualname__}"] = value
    return found, unimported


def test_every_exception_class_is_a_graph_error_or_listed_with_its_reason() -> None:
    found, unimported = _exception_classes()
    outside = {name for name, kind in found.items() if not issubclass(kind, GraphError)} | unimported
    assert outside == OUTSIDE_THE_TREE  # a new class: put it in the tree (and its drawing), or list it with why


def test_every_graph_error_class_is_drawn_in_the_tree() -> None:
    drawing = (errors.__doc__ or "").replace("\n", " \n")
    found, _ = _exception_classes()
    missing = [name for name, kind in found.items() if issubclass(kind, GraphError) and f" {kind.__name__} " not in drawing]
    assert missing == []


def test_no_exception_class_is_made_inside_a_function_or_class() -> None:
    # The walk above sees a module's own classes only; none derives from an exception out of its sight.
    nested = []
    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                nested += [f"{name}.{inner.name}" for inner in ast.walk(node) if inner is not node
                           and isinstance(inner, ast.ClassDef) and any(
                               isinstance(base, ast.Name) and (base.id in _BUILTIN_EXCEPTIONS or base.id.endswith("Error"))
                               for base in inner.bases)]
    assert nested == []


def test_each_drawn_class_lives_where_its_line_says() -> None:
    # The errors page of the docs names each class by that module (mkdocstrings reads it there), so a class
    # that moved makes the site's build fail: ExecutorError went to engine/executor while the line still said
    # executors.
    from docsite.error_reference import error_tree

    modules = _modules()
    wrong = []
    for error in error_tree():
        tree = ast.parse(modules[error.module].read_text(encoding="utf-8"))
        if not any(isinstance(node, ast.ClassDef) and node.name == error.name for node in tree.body):
            wrong.append(f"{error.name} is not defined in {error.module}")
    assert wrong == []
