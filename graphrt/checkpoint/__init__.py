"""Checkpoint stores: where a run's state is saved so that it can be resumed.

    store = open_store("runs.db")                          # a file: SQLite, the default
    store = open_store("postgresql://me@127.0.0.1/graphrt")  # PostgreSQL (extra: graphrt[postgres])

Every store follows the `CheckpointStore` protocol, and may add abilities (base.py: the
store's contract); graphrt uses it through a `GuardedStore` (guard.py), and graphrt.durable
writes to it from the run's checkpoint hook. What a store keeps is in records.py, how it
encodes values in values.py, its errors in errors.py, and the state a saved run is resumed
from in snapshot.py and restore.py. Stores are found through the entry point group
`graphrt.checkpoint_stores`, each entry point named by the URL scheme its class opens
(`file`: a plain path), so that a package adds a store as it adds agents, by an entry point
alone (see base.StoreClass).
"""

from __future__ import annotations

import os
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

from graphrt.base.entry_points import EntryPoint, by_name
from graphrt.base.patterns import LazyPattern

if TYPE_CHECKING:
    from graphrt.base.states import RunStatus
    from graphrt.checkpoint.base import CheckpointStore, EventStore, StoreClass, WebhookStore
    from graphrt.checkpoint.errors import CheckpointError
    from graphrt.checkpoint.guard import GuardedStore
    from graphrt.checkpoint.records import Delivery, Row, RunRecord
    from graphrt.checkpoint.sqlite import SQLiteStore
    from graphrt.checkpoint.values import decode_value, encode_value

__all__ = [
    "CheckpointError",
    "CheckpointStore",
    "CheckpointTarget",
    "Delivery",
    "EventStore",
    "GuardedStore",
    "RunRecord",
    "RunStatus",
    "Row",
    "SQLiteStore",
    "STORE_GROUP",
    "StoreClass",
    "WebhookStore",
    "decode_value",
    "describe_targets",
    "encode_value",
    "location_of",
    "open_store",
    "store_class",
]

STORE_GROUP = "graphrt.checkpoint_stores"
FILE = "file"  # the scheme of a plain path

CheckpointTarget = Union["CheckpointStore", str, Path]
"""A store, a file path (SQLite), or a URL that an installed store opens (`postgresql://`)."""

_STORE_TYPES: set[type] = set()  # classes whose instances passed the CheckpointStore check

_URL = LazyPattern(r"([A-Za-z][A-Za-z0-9+.-]*)://")


def open_store(target: CheckpointTarget, *, existing: bool = False) -> CheckpointStore:
    """The store a `--checkpoint` argument names: a store as is, a URL's store, or a file path's (SQLite).

    Args:
        existing: the store must be there already (resuming or forking a run reads one): a file path that names
            no file is refused, where opening it would make a new, empty store.

    Raises:
        CheckpointError: no installed store opens the target, its packages are missing, or (`existing`) there
            is no file at the path.
    """
    from graphrt.checkpoint.base import CheckpointStore, conforms
    from graphrt.checkpoint.errors import CheckpointError

    if isinstance(target, (str, Path)):
        opens = store_class(target)
        if existing and _is_missing_file(target):
            raise CheckpointError(f"no checkpoint store at {target}: there is no such file")
        return opens(target)
    if type(target) in _STORE_TYPES or conforms(target, CheckpointStore):
        _STORE_TYPES.add(type(target))  # a protocol check reads every member: once per class, not per run
        return target
    raise CheckpointError(f"a checkpoint must be {describe_targets()}, or a store; got {type(target).__name__}")


def _is_missing_file(target: str | Path) -> bool:
    """Whether a target is a file path (no `scheme://`, not SQLite's `:memory:`) that names nothing."""
    if isinstance(target, str) and (_URL.match(target) or target == ":memory:"):
        return False
    return not os.path.lexists(target)


def store_class(target: str | Path) -> StoreClass:
    """The class that opens a target: the entry point named by its URL scheme, or `file` for a plain path.

    The modules its extra installs (`requires`) are looked for here, so that one missing is said before any
    store is opened or any run announced.

    Raises:
        CheckpointError: no store is installed for the scheme, its entry point cannot be loaded, or a module its
            extra installs is missing (one line naming the extra: base/extras.py).
    """
    from graphrt.base.extras import not_installed
    from graphrt.checkpoint.errors import CheckpointError

    match = _URL.match(target) if isinstance(target, str) else None
    scheme = match.group(1) if match else FILE
    point = by_name(STORE_GROUP).get(scheme)
    if point is None:
        what = "a file path" if scheme == FILE else f"a {scheme}:// URL"
        raise CheckpointError(f"no checkpoint store opens {what}; the installed stores open {describe_targets()}"
                              f"{_unless_uninstalled()}")
    cls = _loaded(point)
    what = "a checkpoint store of a file path" if scheme == FILE else f"a {scheme}:// checkpoint store"
    absent = not_installed(what, cls.extra, cls.requires)
    if absent:
        raise CheckpointError(absent)
    return cls


def location_of(target: CheckpointTarget) -> str:
    """A target as a person may see it (a URL without its password), as its store's `location` says it."""
    if isinstance(target, (str, Path)):
        return store_class(target).shown(target)
    return target.location


def describe_targets() -> str:
    """What a checkpoint target may be, from the installed stores: `a file path or a postgres:// or postgresql:// URL`.

    Read from the entry points alone (no store is imported): the schemes of one class are said together.
    """
    by_class: dict[str, list[str]] = {}
    for scheme, point in by_name(STORE_GROUP).items():
        by_class.setdefault(point.value, []).append(scheme)
    kinds = []
    for schemes in by_class.values():
        if FILE in schemes:
            kinds.insert(0, "a file path")
            schemes.remove(FILE)
        if schemes:
            kinds.append(f"a {' or '.join(f'{scheme}://' for scheme in schemes)} URL")
    if not kinds:
        return "nothing: no checkpoint store is installed"
    return ", ".join(kinds[:-1]) + (" or " if len(kinds) > 1 else "") + kinds[-1]


def _loaded(point: EntryPoint) -> StoreClass:
    """The class an entry point names, checked to be a store class that opens the scheme it is named by."""
    from graphrt.checkpoint.base import StoreClass, lacking
    from graphrt.checkpoint.errors import CheckpointError

    where = f"checkpoint store '{point.name} = {point.value}' (entry point group {STORE_GROUP})"
    try:
        cls = point.load()
    except Exception as error:  # noqa: BLE001 - a broken package is reported by name
        raise CheckpointError(f"{where} cannot be loaded: {type(error).__name__}: {error}") from error
    absent = lacking(cls, StoreClass)  # the class's contract, checked once, when it is loaded
    if absent or not callable(cls):
        raise CheckpointError(f"{where} is not a store class: it has no {', '.join(absent) or '__call__'}")
    if point.name not in cls.schemes:
        raise CheckpointError(f"{where} opens {', '.join(cls.schemes) or 'no scheme'}, not {point.name}")
    return cls


def _unless_uninstalled() -> str:
    """A hint when graphrt's own stores are not declared: its entry points are written when it is installed."""
    if any(point.builtin for point in by_name(STORE_GROUP).values()):
        return ""
    return " (graphrt's own stores are declared when it is installed: pip install -e . in a checkout)"


_LAZY = {
    "CheckpointError": "graphrt.checkpoint.errors", "CheckpointStore": "graphrt.checkpoint.base",
    "Delivery": "graphrt.checkpoint.records", "EventStore": "graphrt.checkpoint.base",
    "GuardedStore": "graphrt.checkpoint.guard", "Row": "graphrt.checkpoint.records",
    "RunRecord": "graphrt.checkpoint.records", "RunStatus": "graphrt.base.states",
    "SQLiteStore": "graphrt.checkpoint.sqlite", "StoreClass": "graphrt.checkpoint.base",
    "WebhookStore": "graphrt.checkpoint.base", "decode_value": "graphrt.checkpoint.values",
    "encode_value": "graphrt.checkpoint.values",
}
"""The names of the package, by the module that holds each."""


def __getattr__(name: str) -> Any:
    # Imported on first use: a run without a checkpoint needs neither sqlite3 nor the stores' vocabulary
    # (`graphrt run` imports this package for its --checkpoint help, and the engine for RunSnapshot).
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(module), name)
