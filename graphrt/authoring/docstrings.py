"""Reads a function's description and its parameters' descriptions from its docstring.

Three styles are understood, and found by looking (as griffe's auto style):

    Google               NumPy                   reST
    Args:                Parameters              :param name: what it is
        name: what it    ----------              :type name: str
            is.          name : str              :returns: what comes back
    Returns:                 what it is.
        what comes back  Returns
                         -------
                         what comes back

The description is the text before the first section. A line inside an
argument section that cannot be read is a problem, reported rather than guessed.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field

__all__ = ["Docstring", "parse_docstring"]

_GOOGLE_ARGS = {"args", "arguments", "parameters", "params", "keyword args", "keyword arguments", "other parameters"}
_GOOGLE_RETURNS = {"returns", "return", "yields", "yield"}
_GOOGLE_SECTIONS = _GOOGLE_ARGS | _GOOGLE_RETURNS | {
    "raises", "except", "exceptions", "example", "examples", "note", "notes", "attributes", "see also",
    "warning", "warnings", "todo", "references", "methods",
}
_GOOGLE_HEADER = re.compile(r"^\s*([A-Za-z][A-Za-z ]*):\s*$")
_GOOGLE_ENTRY = re.compile(r"^\*{0,2}(\w+)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$")
_NUMPY_ARGS = {"parameters", "other parameters", "keyword arguments"}
_NUMPY_RETURNS = {"returns", "yields"}
_NAME = re.compile(r"\w+")
_REST_FIELD = re.compile(r"^:(\w+)(?:\s+([^:]*?))?:\s*(.*)$")
_REST_PARAM = {"param", "parameter", "arg", "argument", "key", "keyword"}


@dataclass
class Docstring:
    """What a docstring says: the description, each parameter's text, the return value's text."""

    description: str = ""
    params: dict[str, str] = field(default_factory=dict)
    returns: str = ""
    style: str = ""
    problems: list[str] = field(default_factory=list)


def parse_docstring(text: str | None) -> Docstring:
    """Parses a docstring in Google, NumPy or reST style (a plain text is all description)."""
    if not text:
        return Docstring()
    lines = inspect.cleandoc(text).splitlines()
    if any(_REST_FIELD.match(line.strip()) for line in lines):
        return _parse_rest(lines)
    if any(_is_numpy_header(lines, i) for i in range(len(lines))):
        return _parse_numpy(lines)
    return _parse_google(lines)


def _join(lines: list[str]) -> str:
    """Lines of one description, re-flowed: paragraphs kept, line breaks inside them dropped."""
    paragraphs, current = [], []
    for line in lines:
        if line.strip():
            current.append(line.strip())
        elif current:
            paragraphs.append(" ".join(current))
            current = []
    if current:
        paragraphs.append(" ".join(current))
    return "\n\n".join(paragraphs)


def _description(lines: list[str]) -> str:
    return "\n".join(lines).strip()


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


# ----- Google -----


def _parse_google(lines: list[str]) -> Docstring:
    doc = Docstring(style="google")
    sections: list[tuple[str, list[str]]] = []
    description: list[str] = []
    for line in lines:
        header = _GOOGLE_HEADER.match(line)
        if header and _indent(line) == 0 and header.group(1).strip().lower() in _GOOGLE_SECTIONS:
            sections.append((header.group(1).strip(), []))
        elif sections:
            sections[-1][1].append(line)
        else:
            description.append(line)
    doc.description = _description(description)
    for title, body in sections:
        if title.lower() in _GOOGLE_ARGS:
            doc.params.update(_google_args(title, body, doc.problems))
        elif title.lower() in _GOOGLE_RETURNS and not doc.returns:
            doc.returns = _join(body)
    return doc


def _google_args(title: str, body: list[str], problems: list[str]) -> dict[str, str]:
    """`name (type): text` entries; more deeply indented lines continue the entry above."""
    base = min((_indent(line) for line in body if line.strip()), default=0)
    entries: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in body:
        if current is not None and (not line.strip() or _indent(line) > base):
            current.append(line)
            continue
        if not line.strip():
            continue
        entry = _GOOGLE_ENTRY.match(line.strip())
        if entry is None:
            problems.append(f"cannot read {line.strip()!r} under '{title}:' (expected 'name: description')")
            current = None
            continue
        current = entries[entry.group(1)] = [entry.group(3)]
    return {name: _join(text) for name, text in entries.items()}


# ----- NumPy -----


def _is_numpy_header(lines: list[str], index: int) -> bool:
    if index + 1 >= len(lines):
        return False
    title, underline = lines[index].strip(), lines[index + 1].strip()
    return bool(title) and len(underline) >= 3 and set(underline) == {"-"} and _indent(lines[index]) == 0


def _parse_numpy(lines: list[str]) -> Docstring:
    doc = Docstring(style="numpy")
    sections: list[tuple[str, list[str]]] = []
    description: list[str] = []
    index = 0
    while index < len(lines):
        if _is_numpy_header(lines, index):
            sections.append((lines[index].strip(), []))
            index += 2
            continue
        (sections[-1][1] if sections else description).append(lines[index])
        index += 1
    doc.description = _description(description)
    for title, body in sections:
        if title.lower() in _NUMPY_ARGS:
            doc.params.update(_numpy_args(title, body, doc.problems))
        elif title.lower() in _NUMPY_RETURNS and not doc.returns:
            doc.returns = _join([line for line in body if _indent(line) > 0] or body)
    return doc


def _numpy_args(title: str, body: list[str], problems: list[str]) -> dict[str, str]:
    """`name : type` lines, each followed by its indented description; `x, y : int` names two."""
    entries: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in body:
        if not line.strip() or _indent(line) > 0:
            if current is not None:
                current.append(line)
            elif line.strip():
                problems.append(f"cannot read {line.strip()!r} under '{title}' (expected 'name : type')")
            continue
        names = [name.strip().lstrip("*") for name in line.partition(":")[0].split(",")]
        if not all(_NAME.fullmatch(name) for name in names):
            problems.append(f"cannot read {line.strip()!r} under '{title}' (expected 'name : type')")
            current = None
            continue
        current = []
        for name in names:
            entries[name] = current
    return {name: _join(text) for name, text in entries.items()}


# ----- reST -----


def _parse_rest(lines: list[str]) -> Docstring:
    doc = Docstring(style="rest")
    description: list[str] = []
    params: dict[str, list[str]] = {}
    returns: list[str] = []
    current: list[str] | None = None
    for line in lines:
        field_match = _REST_FIELD.match(line.strip())
        if field_match is None:
            if current is not None and (not line.strip() or _indent(line) > 0):
                current.append(line)
            elif current is None and not params and not returns:
                description.append(line)
            else:
                current = None  # text after the field list is not a description
            continue
        kind, argument, text = field_match.groups()
        words = (argument or "").split()
        current = [text]
        if kind in _REST_PARAM:
            if not words:
                doc.problems.append(f"cannot read {line.strip()!r} (expected ':param name: description')")
                current = None
                continue
            params[words[-1].lstrip("*")] = current
        elif kind in ("returns", "return") and not returns:
            returns = current
        # :type:, :rtype:, :raises: and the like add nothing to a schema
    doc.description = _description(description)
    doc.params = {name: _join(text) for name, text in params.items()}
    doc.returns = _join(returns)
    return doc
