"""The agent library's index (graphrt_agents.INDEX) says what importing the library registers, and a
registry built from it imports an agent's module only when that agent is first looked up."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import pytest

import graphrt_agents
from graphrt.authoring.agent_info import AgentInfo
from graphrt.authoring.registry import Registry


def _modules_defining_agents() -> dict[str, list[str]]:
    """Every module of graphrt_agents whose own `AGENTS` list holds agents, with their names in order."""
    found = {}
    for module_info in pkgutil.walk_packages(graphrt_agents.__path__, "graphrt_agents."):
        module = importlib.import_module(module_info.name)
        listed = vars(module).get("AGENTS")  # a package's AGENTS is computed from the index: not looked at
        if isinstance(listed, list) and all(isinstance(info, AgentInfo) for info in listed):
            found[module_info.name] = [info.name for info in listed]
    return found


def test_the_index_equals_what_importing_every_module_registers() -> None:
    defined = _modules_defining_agents()
    indexed = {module: list(names) for module, names in graphrt_agents.INDEX.modules.items()}
    assert indexed == defined, f"update graphrt_agents.INDEX to: {defined}"


def test_agents_lists_every_installed_indexed_agent_in_index_order() -> None:
    index = graphrt_agents.INDEX
    installed = [name for module, names in index.modules.items() if index.installed(module) for name in names]
    assert [info.name for info in graphrt_agents.AGENTS] == installed
    assert len(set(graphrt_agents.INDEX.names())) == len(graphrt_agents.INDEX.names())


def test_a_registry_imports_an_agents_module_on_first_use() -> None:
    code = """
import sys
from graphrt.authoring.plugins import default_registry
registry = default_registry()
loaded = lambda: sorted(name for name in sys.modules if name.startswith("graphrt_agents."))
assert "mapAgent" in registry and len(registry) >= 43, registry.names()
assert loaded() == [], loaded()
assert registry.get("stringTemplateAgent").name == "stringTemplateAgent"
assert "graphrt_agents.vanilla.string" in loaded() and "graphrt_agents.llm.openai_agent" not in loaded(), loaded()
assert "jsonschema" not in sys.modules and "openai" not in sys.modules
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_an_index_entry_that_drifted_from_its_module_is_a_clear_error() -> None:
    from graphrt.authoring.registry import AgentIndex
    from graphrt.base.errors import RegistrationError

    registry = Registry()
    registry.add_index(AgentIndex({"graphrt_agents.vanilla.string": ("noSuchAgent",)}))
    assert "noSuchAgent" in registry.names()
    with pytest.raises(RegistrationError, match=r"graphrt_agents\.vanilla\.string.*out of date"):
        registry.get("noSuchAgent")
