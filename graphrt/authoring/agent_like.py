"""Agents from Python objects and modules: what `Registry.register`, `graphrt.run(agents=[...])`,
entry points and `--agents` accept.

`as_agent(obj)` takes:

    an AgentInfo                      as is
    a @graphrt.agent function         its AgentInfo
    any other function                as if decorated with @graphrt.agent
    a class with @graphrt.tool methods, or an instance of one   a toolset agent

`module_agents(module)` gives a module's agents: its `AGENTS` list if it has
one, else every @graphrt.agent function and toolset class it defines
(`graphrt run FILE --agents my.module`, or `--agents my_agents.py`).
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.machinery
import importlib.util
import inspect
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from graphrt.authoring.agent_info import AgentInfo
from graphrt.authoring.functions import agent_info_of, function_agent
from graphrt.authoring.toolsets import build_toolset, is_toolset, tool_options
from graphrt.base.errors import RegistrationError

__all__ = ["AgentFileLoader", "agent_file_folders", "as_agent", "agents_of", "module_agents"]


class AgentFileLoader(importlib.machinery.SourceFileLoader):
    """The loader of an agent module imported from a file (`--agents path/to/file.py`), which says where it came from.

    The file's folder goes on sys.path, so that it can import the modules beside it; `added_folder` is that
    folder when graphrt put it there (None when it was there already). A worker of another process (Ray's) has
    no such folder on its path: `agent_file_folders` tells which modules must travel to it by value.
    """

    def __init__(self, name: str, path: str, added_folder: str | None) -> None:
        super().__init__(name, path)
        self.added_folder = added_folder


def agent_file_folders() -> set[str]:
    """The folders graphrt put on sys.path for the agent files imported so far, read off their modules' loaders."""
    return {loader.added_folder for module in list(sys.modules.values())
            if isinstance(loader := getattr(getattr(module, "__spec__", None), "loader", None), AgentFileLoader)
            and loader.added_folder is not None}


def as_agent(obj: Any, **overrides: Any) -> AgentInfo:
    """The AgentInfo of an agent-like object; `overrides` set AgentInfo fields (e.g. `name=`).

    Raises:
        RegistrationError: `obj` is not agent-like, or its function info has problems.
    """
    if isinstance(obj, AgentInfo):
        return dataclasses.replace(obj, **overrides) if overrides else obj
    if inspect.isfunction(obj) or inspect.ismethod(obj):
        marked = tool_options(obj)  # a function marked @graphrt.tool outside a class
        if marked is not None and agent_info_of(obj) is None:
            defaults = {"name": marked.name, "description": marked.description}
            overrides = {**{key: value for key, value in defaults.items() if value is not None}, **overrides}
        return function_agent(obj, **overrides)
    if is_toolset(obj):
        return build_toolset(obj, **overrides)
    raise RegistrationError(
        f"cannot make an agent of {obj!r}: expected an AgentInfo, a function, "
        "or a class (or instance) with @graphrt.tool methods"
    )


def agents_of(objs: Any) -> list[AgentInfo]:
    """Agents from one agent-like object, a list of them, or a module (see `module_agents`)."""
    if isinstance(objs, ModuleType):
        return module_agents(objs)
    if isinstance(objs, (list, tuple)):
        return [as_agent(obj) for obj in objs]
    return [as_agent(objs)]


def module_agents(module: ModuleType | str) -> list[AgentInfo]:
    """A module's agents: its `AGENTS` list, else the agents and toolset classes it defines."""
    if isinstance(module, str):
        module = _import_agent_module(module)
    listed = getattr(module, "AGENTS", None)
    if listed is not None:
        return [as_agent(obj) for obj in listed]
    found = []
    for name, value in vars(module).items():
        if name.startswith("_") or getattr(value, "__module__", None) != module.__name__:
            continue
        if agent_info_of(value) is not None or (isinstance(value, type) and is_toolset(value)):
            found.append(as_agent(value))
    return found


def _import_agent_module(name: str) -> ModuleType:
    """Imports a module by dotted name (the current directory first on the path) or from a `.py` file.

    Raises:
        RegistrationError: the module cannot be found or fails to import.
    """
    try:
        if name.endswith(".py") or os.sep in name:
            path = Path(name)
            if not path.is_file():
                raise ImportError(f"no such file: {name}")
            # The file's folder goes on the path, so that it can import the modules beside it.
            folder = str(path.resolve().parent)
            added = None
            if folder not in sys.path:
                sys.path.insert(0, folder)
                added = folder
            loader = AgentFileLoader(path.stem, str(path), added)
            spec = importlib.util.spec_from_file_location(path.stem, path, loader=loader)
            if spec is None:
                raise ImportError(f"no such file: {name}")
            module = importlib.util.module_from_spec(spec)
            sys.modules[path.stem] = module
            spec.loader.exec_module(module)
            return module
        if os.getcwd() not in sys.path and "" not in sys.path:
            sys.path.insert(0, os.getcwd())
        return importlib.import_module(name)
    except Exception as error:  # noqa: BLE001 - whatever the module raises, name the module
        raise RegistrationError(f"cannot import agent module {name!r}: {type(error).__name__}: {error}") from error
