"""The Python API pages: mkdocstrings directives for graphrt's public names, grouped by the module that defines them.

`graphrt`'s own names come from `graphrt._EXPORTS` (the one list of them), so a new public name gets its
entry without anyone writing it; the other pages document modules a user imports by name, each by its
`__all__`. mkdocstrings reads the docstrings statically (griffe), so nothing here imports an optional extra.
"""

from __future__ import annotations

import importlib

__all__ = ["PAGES", "python_pages"]

PAGES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "reference/python/durable.md": ("Durable runs", "Runs saved as they go, resumed, forked; checkpoint stores.",
                                    ("graphrt.durable", "graphrt.checkpoint")),
    "reference/python/observe.md": ("Observing runs", "Events, observers, progress counters, traces.",
                                    ("graphrt.observe.events", "graphrt.observe.observer", "graphrt.observe.progress",
                                     "graphrt.observe.transaction_log", "graphrt.observe.otel", "graphrt.base.states")),
    "reference/python/extending.md": ("Extending graphrt", "Agent packs and indexes, executors.",
                                      ("graphrt.authoring.packs", "graphrt.authoring.registry",
                                       "graphrt.engine.executor", "graphrt.executors.ray",
                                       "graphrt.executors.local_cluster")),
    "reference/python/serving.md": ("Serving and batches", "The ASGI app of `graphrt serve`, webhooks' signatures, "
                                    "batches.", ("graphrt.serve", "graphrt.base.signatures", "graphrt.batches")),
    "reference/python/testing.md": ("Testing agents", "Running agents' samples in your own tests.",
                                    ("graphrt.testing",)),
}
"""Each page: its title, one line of what it holds, and the modules it documents."""

_OPTIONS = ["    options:", "      show_root_heading: true", "      heading_level: 3"]


def _directive(path: str, members: list[str] | None = None) -> list[str]:
    lines = [f"::: {path}", *_OPTIONS]
    if members is not None:
        lines += ["      members:", *[f"        - {member}" for member in members]]
    return lines + [""]


def python_pages() -> dict[str, str]:
    """The pages by their path under docs/."""
    import graphrt

    by_module: dict[str, list[str]] = {}
    for name, module in graphrt._EXPORTS.items():
        by_module.setdefault(module, []).append(name)
    index = ["# Python API", "",
             "`import graphrt` gives every name below; each is loaded on first use, so the import costs nothing. "
             "Generated from the docstrings when this site was built. The other pages document the modules you "
             "import by name:", ""]
    index += [f"- [{title}]({path.rsplit('/', 1)[-1]}): {what}" for path, (title, what, _) in PAGES.items()]
    index.append("")
    from docsite.error_reference import error_tree

    in_the_tree = {error.name for error in error_tree()}
    documented_elsewhere = {module for _, _, modules in PAGES.values() for module in modules}
    for module, names in by_module.items():
        shown = [name for name in names if name not in in_the_tree and module not in documented_elsewhere]
        if not shown:
            continue
        index += [f"## `{module}`", ""]
        for name in shown:
            index += _directive(f"{module}.{name}")
        if len(shown) < len(names):
            index += [f"The errors of `{module}` are on [the errors page](../errors.md).", ""]
    elsewhere = {name: module for name, module in graphrt._EXPORTS.items() if module in documented_elsewhere}
    for name, module in elsewhere.items():
        page = next(path for path, (_, _, modules) in PAGES.items() if module in modules)
        index += [f"`graphrt.{name}` is `{module}.{name}`, on [its page]({page.rsplit('/', 1)[-1]}).", ""]
    pages = {"reference/python/index.md": "\n".join(index)}
    for path, (title, what, modules) in PAGES.items():
        page = [f"# {title}", "", what, ""]
        for module in modules:
            exported = (list(getattr(importlib.import_module(module), "__all__", []) or [])
                        if _importable(module) else None)
            errors = [name for name in exported or () if name in in_the_tree]  # each on the errors page, once
            page += [f"## `{module}`", ""]
            page += _directive(module, [name for name in exported if name not in in_the_tree]
                               if exported is not None else None)
            if errors:
                page += [f"{', '.join(f'`{name}`' for name in errors)}: on [the errors page](../errors.md).", ""]
        pages[path] = "\n".join(page)
    return pages


def _importable(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True
