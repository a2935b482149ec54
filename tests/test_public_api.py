"""graphrt's public names: `__all__` is exactly what the package exports, and each name exists."""

from __future__ import annotations

import inspect

import pytest

import graphrt


def exported() -> set[str]:
    """Public attributes of the package that are not its submodules (names load on first use: dir() lists them)."""
    return {name for name in dir(graphrt) if not name.startswith("_") and not inspect.ismodule(getattr(graphrt, name))}


@pytest.mark.parametrize("name", graphrt.__all__)
def test_every_name_in_all_exists(name: str) -> None:
    assert hasattr(graphrt, name)


def test_all_lists_every_public_name_of_the_package() -> None:
    assert set(graphrt.__all__) == exported()


def test_all_has_no_duplicates() -> None:
    assert len(graphrt.__all__) == len(set(graphrt.__all__))


def test_star_import_gives_exactly_all() -> None:
    namespace: dict[str, object] = {}
    exec("from graphrt import *", namespace)  # noqa: S102 - the import itself is under test
    assert set(namespace) - {"__builtins__"} == set(graphrt.__all__)


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
