"""Registries, graphrt.run(agents=...), agent modules and agent packs (entry points)."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

import graphrt
from graphrt import AgentContext, AgentInfo, RegistrationError, Registry
from graphrt.authoring.agent_like import AgentFileLoader, agent_file_folders, module_agents
from graphrt.authoring.plugins import entry_point_agents
from graphrt.authoring.registry import AgentIndex
from graphrt.cli.main import main


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


def test_an_agent_file_s_module_says_the_folder_graphrt_put_on_sys_path_for_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))  # the folder the import adds leaves with the test
    folder = tmp_path / "files"
    folder.mkdir()
    write(folder / "authoring_demo_beside.py", "WORD = 'beside'\n")
    write(folder / "authoring_demo_file.py", """
        import graphrt
        from authoring_demo_beside import WORD  # a module beside the file: its folder is on sys.path

        @graphrt.agent
        def say() -> str:
            return WORD
    """)
    try:
        assert [info.name for info in module_agents(str(folder / "authoring_demo_file.py"))] == ["say"]
        assert sys.path[0] == str(folder) and str(folder) in agent_file_folders()
        assert isinstance(sys.modules["authoring_demo_file"].__spec__.loader, AgentFileLoader)
    finally:
        for name in ("authoring_demo_file", "authoring_demo_beside"):
            sys.modules.pop(name, None)
    assert str(folder) not in agent_file_folders()  # what says so is the module, gone with it


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


def test_the_default_registry_holds_the_built_in_agents_and_a_pack_installed_since(
        request: pytest.FixtureRequest) -> None:
    before = graphrt.default_registry()
    assert "weather" not in before and before is graphrt.default_registry()  # made once for what is installed
    installed_package = request.getfixturevalue("installed_package")  # a folder comes onto sys.path
    installed_package("authoring-demo-pack", entry_points={"graphrt.agents": {"weather": "authoring_demo_pack:AGENTS"}},
                      authoring_demo_pack="""
        import graphrt

        @graphrt.agent
        def weather(city: str) -> str:
            return city + ": sunny"

        AGENTS = [weather]
    """)
    registry = graphrt.default_registry()
    assert "weather" in registry and "copyAgent" in registry and "weather" not in before


def test_nothing_writes_into_the_default_registry_that_every_graph_shares() -> None:
    shared = graphrt.default_registry()
    with pytest.raises(RegistrationError) as caught:
        shared.register(double)
    assert caught.value.message.startswith("this registry cannot change: the registry of the installed agents is "
                                           "every graph's: add agents to a copy (default_registry().copy(), ")
    with pytest.raises(RegistrationError):
        shared.add_index(AgentIndex({"graphrt_agents.vanilla.data": ("copyAgent",)}))
    assert "double" not in graphrt.default_registry()
    copied = shared.copy()
    copied.register(double)
    assert "double" in copied and "double" not in shared


def test_a_module_that_writes_into_the_default_registry_when_imported_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    module = tmp_path / "writes_in.py"
    module.write_text("import graphrt\n\ngraphrt.default_registry().register(lambda ctx: 1)\n")
    graph = tmp_path / "g.yaml"
    graph.write_text("version: 0.5\nnodes:\n  a:\n    value: 1\n    isResult: true\n")

    assert main(["run", str(graph), "--agents", str(module), "-q"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("graphrt: ") and "this registry cannot change" in err and len(err.splitlines()) == 1


def test_a_broken_agent_pack_is_named(installed_package) -> None:
    installed_package("authoring-demo-bad", entry_points={"graphrt.agents": {"bad": "authoring_demo_missing:AGENTS"}})
    with pytest.raises(RegistrationError) as caught:
        entry_point_agents()
    assert str(caught.value) == (
        "agent pack 'bad = authoring_demo_missing:AGENTS' (entry point group graphrt.agents) cannot be loaded: "
        "ModuleNotFoundError: No module named 'authoring_demo_missing'"
    )
