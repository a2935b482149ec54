"""graphrt's public names: `_EXPORTS` lists them once; `__all__`, the imports for type checkers and the objects agree."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

import graphrt

PACKAGE = Path(graphrt.__file__)


def type_checking_imports() -> dict[str, str]:
    """What graphrt/__init__.py imports for type checkers: each name, by the module it comes from."""
    found = {}
    for node in ast.walk(ast.parse(PACKAGE.read_text(encoding="utf-8"))):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for statement in ast.walk(node):
                if isinstance(statement, ast.ImportFrom):
                    found.update((alias.asname or alias.name, statement.module) for alias in statement.names)
    return found


@pytest.mark.parametrize("name", graphrt.__all__)
def test_every_name_in_all_exists(name: str) -> None:
    assert hasattr(graphrt, name)


def test_the_imports_for_type_checkers_are_the_exports() -> None:
    assert type_checking_imports() == graphrt._EXPORTS


@pytest.mark.parametrize("name", graphrt.__all__)
def test_each_export_is_the_object_its_module_defines(name: str) -> None:
    module = importlib.import_module(graphrt._EXPORTS[name])
    value = getattr(graphrt, name)
    assert value is getattr(module, name)
    assert getattr(value, "__module__", module.__name__) == module.__name__  # defined there, not imported into it


def test_the_package_defines_no_public_name_that_is_not_exported() -> None:
    defined = {name for name, value in vars(graphrt).items()
               if not name.startswith("_") and not inspect.ismodule(value)}
    assert defined <= set(graphrt.__all__)


@pytest.mark.parametrize("name", graphrt.__all__)
def test_every_export_has_a_docstring(name: str) -> None:
    value = getattr(graphrt, name)
    documented = value if inspect.isclass(value) or callable(value) else type(value)
    assert (inspect.getdoc(documented) or "").strip(), f"graphrt.{name} has no docstring"


ENGINE = ["run", "arun", "Graph", "AgentInfo", "AgentContext", "Registry", "UNDEFINED", "GraphError", "GraphLoadError",
          "GraphValidationError", "ResolveError", "AgentError", "NodeTimeoutError", "GraphAbortedError"]
AUTHORING = ["agent", "tool", "toolset", "as_agent", "Progress", "AgentFilter", "cache_filter",
             "input_validation_filter", "stream_filter", "Sample", "default_registry", "RegistrationError",
             "ToolCallError"]  # and AgentInfo, AgentContext, Registry


@pytest.mark.parametrize("name", ENGINE + AUTHORING)
def test_the_engine_and_authoring_api_is_public(name: str) -> None:
    assert name in graphrt.__all__
    assert getattr(graphrt, name) is not None


@pytest.mark.parametrize(
    "name", ["GraphLoadError", "GraphValidationError", "ResolveError", "AgentError", "NodeTimeoutError", "GraphAbortedError"]
)
def test_each_engine_error_is_a_graph_error(name: str) -> None:
    assert issubclass(getattr(graphrt, name), graphrt.GraphError)


@pytest.mark.parametrize("name", graphrt.__all__)
def test_every_public_name_is_defined_in_graphrt(name: str) -> None:
    value = getattr(graphrt, name)
    module = getattr(value, "__module__", None) or type(value).__module__
    assert module.split(".")[0] == "graphrt"
