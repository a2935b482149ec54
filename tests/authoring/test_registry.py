"""Registries, graphrt.run(agents=...), agent modules and agent packs (entry points)."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

import graphrt
import graphrt.authoring.plugins
from graphrt import AgentContext, AgentInfo, RegistrationError, Registry
from graphrt.authoring.agent_like import module_agents
from graphrt.authoring.plugins import entry_point_agents


@graphrt.agent
def double(x: int) -> int:
    """Doubles a number.

    Args:
        x: the number.
    """
    return 2 * x


class Notes:
    """Keeps notes."""

    def __init__(self) -> None:
        self.notes: list[str] = []

    @graphrt.tool
    def add(self, text: str) -> int:
        """Adds a note; returns how many there are."""
        self.notes.append(text)
        return len(self.notes)


def plain_function(a: int, b: int = 1) -> int:
    """Adds."""
    return a + b


async def raw(ctx: AgentContext) -> str:
    return ctx.node_id


GRAPH = {"version": 0.5, "nodes": {
    "d": {"agent": "double", "inputs": {"x": 21}},
    "c": {"agent": "copyAgent", "inputs": {"v": ":d"}, "params": {"namedKey": "v"}, "isResult": True},
}}


def test_a_registry_takes_agent_infos_functions_and_toolsets() -> None:
    registry = Registry([AgentInfo(name="raw", func=raw), double, plain_function, Notes])
    assert registry.names() == ["Notes", "double", "plain_function", "raw"]
    assert registry["plain_function"].inputs["required"] == ["a"]
    assert [tool["function"]["name"] for tool in registry["Notes"].tools] == ["Notes--add"]


def test_a_second_agent_with_the_same_name_is_refused_unless_replacing() -> None:
    registry = Registry([double])
    with pytest.raises(RegistrationError) as caught:
        registry.register(graphrt.as_agent(double, description="other"))
    assert str(caught.value) == "agent 'double' is already registered (pass replace=True to replace it)"
    assert registry.register(graphrt.as_agent(double, description="other"), replace=True).description == "other"


def test_registering_the_same_agent_twice_is_harmless() -> None:
    registry = Registry()
    registry.add(double, double)
    assert registry.names() == ["double"]


def test_agent_names_cannot_contain_the_tool_separator() -> None:
    with pytest.raises(RegistrationError) as caught:
        AgentInfo(name="a--b", func=raw)
    assert str(caught.value) == "agent 'a--b': a name cannot contain '--' (tool names use it: agent--func)"


def test_run_with_a_list_of_agents_adds_them_to_the_built_in_ones() -> None:
    assert graphrt.run(GRAPH, agents=[double]) == {"c": 42}


def test_run_with_a_registry_uses_only_that_registry() -> None:
    with pytest.raises(graphrt.GraphValidationError, match="copyAgent"):
        graphrt.run(GRAPH, agents=Registry([double]))


# ----- agent modules -----


@pytest.fixture
def module_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in [name for name in sys.modules if name.startswith("authoring_demo")]:
        del sys.modules[name]


def write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text))
    return path


def test_a_module_gives_its_agents_list(module_dir: Path) -> None:
    write(module_dir / "authoring_demo_listed.py", """
        import graphrt

        @graphrt.agent
        def hello(name: str) -> str:
            '''Says hello.'''
            return "hello " + name

        AGENTS = [hello]
    """)
    assert [info.name for info in module_agents("authoring_demo_listed")] == ["hello"]


def test_without_an_agents_list_a_module_gives_the_agents_it_defines(module_dir: Path) -> None:
    write(module_dir / "authoring_demo_found.py", """
        import graphrt
        from graphrt.authoring.agent_info import AgentContext  # imported names are not its agents

        @graphrt.agent
        def hello(name: str) -> str:
            '''Says hello.'''
            return "hello " + name

        class Box:
            @graphrt.tool
            def put(self, item: str) -> str:
                '''Puts an item in.'''
                return item

        def helper():
            pass
    """)
    assert [info.name for info in module_agents("authoring_demo_found")] == ["hello", "Box"]


def test_a_module_that_fails_to_import_is_named(module_dir: Path) -> None:
    write(module_dir / "authoring_demo_broken.py", "raise ValueError('no config')\n")
    with pytest.raises(RegistrationError) as caught:
        module_agents("authoring_demo_broken")
    assert str(caught.value) == "cannot import agent module 'authoring_demo_broken': ValueError: no config"


# ----- agent packs -----


@pytest.fixture
def agent_pack(installed_package) -> Path:
    """An installed agent pack: a module and a dist-info folder declaring the entry point."""
    return installed_package("authoring-demo-pack", entry_points={"graphrt.agents": {"weather": "authoring_demo_pack:AGENTS"}},
                             authoring_demo_pack="""
        import graphrt

        @graphrt.agent(samples=[{"inputs": {"city": "Oslo"}, "params": {}, "result": "Oslo: sunny"}])
        def weather(city: str) -> str:
            '''Tells the weather.

            Args:
                city: where.
            '''
            return city + ": sunny"

        AGENTS = [weather]
    """)


def test_an_installed_agent_pack_is_found_by_its_entry_point_after_the_built_in_agents(agent_pack: Path) -> None:
    names = [info.name for info in entry_point_agents()]
    assert names[-1] == "weather" and "copyAgent" in names[:-1]


def test_the_default_registry_holds_the_built_in_agents_and_the_packs(agent_pack: Path, monkeypatch) -> None:
    monkeypatch.setattr(graphrt.authoring.plugins, "_default", None)
    registry = graphrt.default_registry()
    assert "weather" in registry and "copyAgent" in registry


def test_a_broken_agent_pack_is_named(installed_package) -> None:
    installed_package("authoring-demo-bad", entry_points={"graphrt.agents": {"bad": "authoring_demo_missing:AGENTS"}})
    with pytest.raises(RegistrationError) as caught:
        entry_point_agents()
    assert str(caught.value) == (
        "agent pack 'bad = authoring_demo_missing:AGENTS' (entry point group graphrt.agents) cannot be loaded: "
        "ModuleNotFoundError: No module named 'authoring_demo_missing'"
    )
