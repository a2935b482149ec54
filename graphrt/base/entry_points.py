"""The installed packages' entry points, read without importing importlib.metadata; extensions found by name.

Importing importlib.metadata costs ~25 ms (it brings email, zipfile, csv, ...),
a sixth of what `graphrt run` may take in all, to read a few small files. This
module reads the same files itself: `entry_points.txt` in every `*.dist-info`
and `*.egg-info` folder of each folder on sys.path, the first distribution of a
name winning, as importlib.metadata does. When sys.path holds anything but
folders (a zip file), it asks importlib.metadata instead. One reading serves
every group (agents, checkpoint stores, executors) until sys.path or one of its
folders changes, and what graphrt makes from them once (the registry of the
installed agents: `derived`) is kept with it, so that both are made again
together. tests/base/test_entry_points.py checks that both readers give the same
entry points.

graphrt's extension points (agent packs, checkpoint stores, executors) are entry
point groups; `by_name` is how a group is looked up: graphrt's own entry points
first, so that a third-party package replaces a built-in one of the same name.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from typing import Any, Callable, TypeVar

__all__ = ["EntryPoint", "by_name", "derived", "entry_points", "normalized"]

_VALUE = re.compile(r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$")
_GRAPHRT = "graphrt"
_METADATA_FOLDERS = (".dist-info", ".egg-info")


class EntryPoint:
    """One entry point: `name = value` in `group`, declared by the distribution `dist_name` (normalized).

    A plain class: a dataclass's generated methods would cost every command ~0.5 ms of its start.
    """

    __slots__ = ("name", "value", "group", "dist_name")

    def __init__(self, name: str, value: str, group: str, dist_name: str | None) -> None:
        self.name = name
        self.value = value
        self.group = group
        self.dist_name = dist_name

    def __repr__(self) -> str:
        return f"EntryPoint({self.name!r}, {self.value!r}, {self.group!r}, {self.dist_name!r})"

    @property
    def builtin(self) -> bool:
        """Whether graphrt itself declares it (a third-party entry point of the same name replaces it)."""
        return self.dist_name == _GRAPHRT

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
    return list(_every_group().get(group, ()))


def by_name(group: str) -> dict[str, EntryPoint]:
    """The entry points of `group` by name, in name order; a third-party one replaces graphrt's own of its name."""
    ordered = sorted(entry_points(group), key=lambda point: (not point.builtin, point.dist_name or "", point.name))
    found = {point.name: point for point in ordered}
    return dict(sorted(found.items()))


_T = TypeVar("_T")


class _Reading:
    """The installed packages as read from sys.path's folders at one time: every group's entry points, and what
    was made from them (`derived`). A new reading starts with nothing made."""

    __slots__ = ("paths", "key", "groups", "made")

    def __init__(self, paths: tuple[str, ...], key: tuple[Any, ...], groups: dict[str, list[EntryPoint]]) -> None:
        self.paths = paths  # the working folder and sys.path, as read
        self.key = key  # the same, with each folder's time of change
        self.groups = groups
        self.made: dict[str, Any] = {}


_read: _Reading | None = None  # the last reading; each lookup checks it is still true


def _paths() -> tuple[str, ...]:
    return (os.getcwd(), *sys.path)


def _every_group() -> dict[str, list[EntryPoint]]:
    """Every group's entry points, read again only when sys.path or one of its folders changed since."""
    global _read
    folders = [entry or "." for entry in sys.path]
    key = (os.getcwd(), *((folder, _modified(folder)) for folder in folders))
    if _read is None or _read.key != key:
        if any(os.path.isfile(folder) for folder in folders):
            groups = _from_importlib()
        else:
            groups = _from_folders(folders)
        _read = _Reading(_paths(), key, groups)
    return _read.groups


def derived(name: str, make: Callable[[], _T]) -> _T:
    """What `make()` makes from the installed packages' entry points (the registry of the installed agents), made
    once per reading of them and kept with it: a folder that comes onto or leaves sys.path makes it again.

    Unlike `entry_points`, it does not ask each folder when it last changed (a stat of every folder of sys.path,
    which costs more than preparing a small Graph): a package installed into a folder already on sys.path is
    seen from the next reading, which any lookup of a group makes.
    """
    if _read is None or _read.paths != _paths():
        _every_group()
    assert _read is not None
    if name not in _read.made:
        value = make()  # reads entry points, which may read them again: kept with the reading it was made from
        _read.made[name] = value
        return value
    return _read.made[name]


def _modified(folder: str) -> int | None:
    try:
        return os.stat(folder).st_mtime_ns  # a distribution installed or removed changes its folder
    except OSError:
        return None


def _from_folders(folders: list[str]) -> dict[str, list[EntryPoint]]:
    groups: dict[str, list[EntryPoint]] = {}
    seen: set[str] = set()
    for folder in folders:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for child in names:
            if not child.lower().endswith(_METADATA_FOLDERS):  # most of a site-packages is packages, not metadata
                continue
            dist = normalized(child[:child.rindex(".")].partition("-")[0])
            if dist in seen:
                continue
            seen.add(dist)
            try:
                with open(os.path.join(folder, child, "entry_points.txt"), encoding="utf-8") as file:
                    text = file.read()
            except OSError:
                continue
            for point in _parse(text, dist):
                groups.setdefault(point.group, []).append(point)
    return groups


def _parse(text: str, dist: str) -> list[EntryPoint]:
    """The entry points of an entry_points.txt (INI sections of `name = value` lines)."""
    points = []
    section = None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
        elif section is not None and "=" in line:
            name, _, value = line.partition("=")
            points.append(EntryPoint(name.strip(), value.strip(), section, dist))
    return points


def _from_importlib() -> dict[str, list[EntryPoint]]:
    from importlib import metadata

    groups: dict[str, list[EntryPoint]] = {}
    for point in metadata.entry_points():
        dist = normalized(point.dist.name) if point.dist else None
        groups.setdefault(point.group, []).append(EntryPoint(point.name, point.value, point.group, dist))
    return groups
