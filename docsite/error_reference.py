"""The errors page, made from the tree drawn in graphrt/base/errors.py's docstring (which tests/test_error_tree.py
keeps true) and each class's own docstring, through mkdocstrings."""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass

from docsite.markdown import fenced

__all__ = ["ErrorClass", "error_page", "error_tree"]

_LINE = re.compile(r"^    (?P<indent> *)(?P<name>[A-Z]\w+) +(?P<rest>.*)$")
_WHERE = re.compile(r"^(?P<what>.*?)\s{2,}(?P<where>[a-z_]+(?:/[a-z_]+)*)$")


@dataclass(frozen=True)
class ErrorClass:
    """One line of the drawn tree: the class, its parent, what it means, and the module that defines it."""

    name: str
    parent: str | None
    meaning: str
    module: str


def _module(where: str | None) -> str:
    if where is None:
        return "graphrt.base.errors"
    if where.startswith("agents/"):
        return "graphrt_agents." + where.removeprefix("agents/").replace("/", ".")
    return "graphrt." + where.replace("/", ".")


def error_tree() -> list[ErrorClass]:
    """The classes the docstring of graphrt/base/errors.py draws, in its order."""
    from graphrt.base import errors

    doc = inspect.getdoc(errors) or ""
    drawing = doc.split("\n\n")[1]
    found: list[ErrorClass] = []
    parents: list[tuple[int, str]] = []
    for line in drawing.splitlines():
        match = _LINE.match("    " + line)
        if not match:
            continue
        depth = len(match["indent"])
        while parents and parents[-1][0] >= depth:
            parents.pop()
        rest = match["rest"].strip()
        where = _WHERE.match(rest)
        meaning, module = (where["what"].strip(), where["where"]) if where else (rest, None)
        found.append(ErrorClass(match["name"], parents[-1][1] if parents else None, meaning, _module(module)))
        parents.append((depth, match["name"]))
    return found


def error_page() -> str:
    """The page: the tree as drawn, then each class with its docstring."""
    from graphrt.base import errors

    doc = inspect.getdoc(errors) or ""
    paragraphs = doc.split("\n\n")
    drawing = "\n".join(line.removeprefix("    ") for line in paragraphs[1].splitlines())
    parts = ["# Errors", "",
             f"{paragraphs[0]} Everything graphrt raises is a `graphrt.GraphError`, in this tree (generated from "
             "`graphrt/base/errors.py`, whose drawing a test keeps true). A command prints one line, "
             "`FILE:LINE:COL: node 'x', field 'y': message`, and exits with 1; from Python, catch the kind you "
             "can act on.", "", fenced(drawing, "text"), ""]
    for paragraph in paragraphs[2:]:
        if paragraph.strip():
            parts += [" ".join(paragraph.split()), ""]
    for error in error_tree():
        parent = f" (a `{error.parent}`)" if error.parent else ""
        parts += [f"## {error.name}", "", f"{error.meaning[0].upper()}{error.meaning[1:]}{parent}. "
                  f"Defined in `{error.module}`.", "",
                  f"::: {error.module}.{error.name}", "    options:", "      show_root_heading: false",
                  "      members: false", "      show_bases: true", ""]
    return "\n".join(parts).rstrip() + "\n"
