"""The installed packages' entry points of one group, read without importing importlib.metadata.

Importing importlib.metadata costs ~25 ms (it brings email, zipfile, csv, ...),
a sixth of what `graphrt run` may take in all, to read a few small files. This
module reads the same files itself: `entry_points.txt` in every `*.dist-info`
and `*.egg-info` folder of each folder on sys.path, the first distribution of a
name winning, as importlib.metadata does. When sys.path holds anything but
folders (a zip file), it asks importlib.metadata instead.
tests/authoring/test_entry_points.py checks that both give the same entry points.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from dataclasses import dataclass
from typing import Any

__all__ = ["EntryPoint", "entry_points"]

_VALUE = re.compile(r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$")


@dataclass(frozen=True)
class EntryPoint:
    """One entry point: `name = value` in `group`, declared by the distribution `dist_name` (normalized)."""

    name: str
    value: str
    group: str
    dist_name: str | None

    def load(self) -> Any:
        """The object the value names (`module:attr.attr`), its module imported."""
        match = _VALUE.match(self.value)
        if match is None:
            raise ValueError(f"entry point {self.name!r} has a malformed value {self.value!r}")
        loaded = importlib.import_module(match.group("module"))
        for attr in filter(None, (match.group("attr") or "").split(".")):
            loaded = getattr(loaded, attr)
        return loaded


def normalized(name: str) -> str:
    """A distribution name as importlib.metadata compares them: `My.Pack-x` -> `my_pack_x`."""
    return re.sub(r"[-_.]+", "_", name).lower()


def entry_points(group: str) -> list[EntryPoint]:
    """Every entry point of `group`, one distribution of each name (the first on sys.path)."""
    folders = [entry or "." for entry in sys.path]
    if any(os.path.isfile(folder) for folder in folders):
        return _from_importlib(group)
    found: list[EntryPoint] = []
    seen: set[str] = set()
    for folder in folders:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for child in names:
            stem, ext = os.path.splitext(child)
            if ext.lower() not in (".dist-info", ".egg-info"):
                continue
            dist = normalized(stem.partition("-")[0])
            if dist in seen:
                continue
            seen.add(dist)
            try:
                with open(os.path.join(folder, child, "entry_points.txt"), encoding="utf-8") as file:
                    text = file.read()
            except OSError:
                continue
            found.extend(_parse(text, group, dist))
    return found


def _parse(text: str, group: str, dist: str) -> list[EntryPoint]:
    """The entry points of `group` in an entry_points.txt (INI sections of `name = value` lines)."""
    points = []
    section = None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
        elif section == group and "=" in line:
            name, _, value = line.partition("=")
            points.append(EntryPoint(name.strip(), value.strip(), group, dist))
    return points


def _from_importlib(group: str) -> list[EntryPoint]:
    from importlib import metadata

    return [EntryPoint(point.name, point.value, point.group, normalized(point.dist.name) if point.dist else None)
            for point in metadata.entry_points(group=group)]
