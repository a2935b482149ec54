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

__all__ = ["AGENT_FILE_FOLDERS", "as_agent", "agents_of", "module_agents"]

AGENT_FILE_FOLDERS: set[str] = set()
"""Folders that `_import_agent_module` put on sys.path for an agent file: a Ray worker's path lacks them."""


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
            spec = importlib.util.spec_from_file_location(path.stem, path)
            if spec is None or spec.loader is None or not path.is_file():
                raise ImportError(f"no such file: {name}")
            # The file's folder goes on the path, so that it can import the modules beside it.
            folder = str(path.resolve().parent)
            if folder not in sys.path:
                sys.path.insert(0, folder)
                AGENT_FILE_FOLDERS.add(folder)
            module = importlib.util.module_from_spec(spec)
            sys.modules[path.stem] = module
            spec.loader.exec_module(module)
            return module
        if os.getcwd() not in sys.path and "" not in sys.path:
            sys.path.insert(0, os.getcwd())
        return importlib.import_module(name)
    except Exception as error:  # noqa: BLE001 - whatever the module raises, name the module
        raise RegistrationError(f"cannot import agent module {name!r}: {type(error).__name__}: {error}") from error
