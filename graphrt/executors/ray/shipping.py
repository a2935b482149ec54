"""Shipping agents' modules that a Ray worker cannot import by name: cloudpickle sends them by value.

cloudpickle sends a module-level function as "module.name", which a worker imports;
a module loaded from a file path (`--agents path/to/file.py`) has a name no worker
can import, so its functions and classes have to travel with their code.
"""

from __future__ import annotations

import sys

__all__ = ["ship_unimportable_modules"]

_CHECKED_MODULES: set[str] = set()


def ship_unimportable_modules() -> None:
    """Pickles by value the modules a worker could not import by name (e.g. `--agents path/to/file.py`).

    Each module is looked at once. One counts as importable when any import finder
    finds it without the agent files' folders: a package installed in editable mode
    (`pip install -e`, graphrt itself in a checkout) is found by its own finder, not on
    `sys.path`, and pickling such a package by value fails (Ray's "excessively deep
    recursion", or a lock that cannot be pickled) when the driver runs from another folder.
    """
    from ray import cloudpickle

    from graphrt.authoring.agent_like import agent_file_folders

    added = agent_file_folders()
    worker_path = [folder for folder in sys.path if folder not in added]
    for name, module in list(sys.modules.items()):
        if name in _CHECKED_MODULES or module is None:
            continue
        _CHECKED_MODULES.add(name)
        if getattr(module, "__file__", None) is None or name == "__main__":
            continue  # built in, or pickled by value by cloudpickle anyway
        if not _importable(name.partition(".")[0], worker_path):
            cloudpickle.register_pickle_by_value(module)


def _importable(top: str, path: list[str]) -> bool:
    """Whether a worker whose `sys.path` is `path` imports the top-level module `top` (every finder asked)."""
    if top in sys.builtin_module_names:
        return True
    for finder in sys.meta_path:
        find_spec = getattr(finder, "find_spec", None)
        if find_spec is None:
            continue
        try:
            if find_spec(top, path) is not None:
                return True
        except (ImportError, ValueError, TypeError):
            continue
    return False
