"""The registry a graph looks agents up in, by name, and agent indexes that load agents on first use.

A registry holds AgentInfos, and names whose agent is not imported yet: an
`AgentIndex` lists a pack's agents by the module whose `AGENTS` list holds
them, so a registry knows every name at once (for validation and "did you
mean") and imports a module only when one of its agents is first looked up.
graphrt's own agent library (graphrt_agents) comes in that way, so that a run
imports only the agents its graph uses.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Mapping

from graphrt.authoring.agent_info import AgentInfo, AgentLike
from graphrt.base.errors import RegistrationError

__all__ = ["AgentIndex", "Registry"]


@dataclass(frozen=True, eq=False)
class AgentIndex:
    """A pack's agent names by module, in order: `{"pack.text": ("upperAgent", ...), ...}`.

    Each module's `AGENTS` list holds exactly the names listed for it (a test of
    the pack should check that, so that the index cannot drift from the code).
    An entry point of the group `graphrt.agents` may name an AgentIndex instead
    of a list of agents.
    """

    modules: Mapping[str, tuple[str, ...]]
    _loaded: dict[str, dict[str, AgentInfo]] = field(default_factory=dict, repr=False)

    def names(self) -> list[str]:
        """Every agent name, in index order."""
        return [name for names in self.modules.values() for name in names]

    def agents(self) -> list[AgentInfo]:
        """Every agent, in index order (imports every module)."""
        return [self.load(module, name) for module, names in self.modules.items() for name in names]

    def load(self, module: str, name: str) -> AgentInfo:
        """The agent `name` of `module`'s `AGENTS`, importing the module on first use.

        Raises:
            RegistrationError: the module fails to import, or its AGENTS lacks the name.
        """
        if module not in self._loaded:
            try:
                listed = importlib.import_module(module).AGENTS
            except Exception as error:  # noqa: BLE001 - whatever the module raises, name the agent and module
                raise RegistrationError(
                    f"agent {name!r} cannot be loaded: module {module!r} fails: {type(error).__name__}: {error}"
                ) from error
            if not all(isinstance(info, AgentInfo) for info in listed):
                from graphrt.authoring.agent_like import as_agent  # on first use: it imports the authoring tools

                listed = [as_agent(info) for info in listed]
            self._loaded[module] = {info.name: info for info in listed}
        info = self._loaded[module].get(name)
        if info is None:
            raise RegistrationError(
                f"agent {name!r} cannot be loaded: its index names module {module!r}, whose AGENTS lacks it "
                "(the index is out of date)"
            )
        return info


@dataclass(frozen=True, slots=True)
class _Indexed:
    """A registry entry whose agent is not imported yet."""

    index: AgentIndex
    module: str
    name: str


class Registry:
    """The agents a graph can use, by name.

    `register` takes an AgentInfo, a function (decorated with @graphrt.agent or
    not) or a toolset class or instance (see graphrt.authoring.agent_like.as_agent);
    `add_index` takes an AgentIndex, whose agents are imported when first looked up.
    """

    def __init__(self, agents: Iterable[AgentLike] = ()) -> None:
        self._agents: dict[str, AgentInfo | _Indexed] = {}
        for info in agents:
            self.register(info)

    def register(self, agent: AgentLike, *, replace: bool = False) -> AgentInfo:
        """Adds an agent; a second agent with the same name is an error unless `replace`.

        Returns:
            The AgentInfo registered.

        Raises:
            RegistrationError: `agent` is not agent-like, has problems, or its name is taken.
        """
        if isinstance(agent, AgentInfo):
            info = agent
        else:
            from graphrt.authoring.agent_like import as_agent  # on first use: it imports the authoring tools

            info = as_agent(agent)
        if info.name in self._agents and not replace and self.get(info.name) is not info:
            raise RegistrationError(f"agent {info.name!r} is already registered (pass replace=True to replace it)")
        self._agents[info.name] = info
        return info

    def add(self, *agents: AgentLike, replace: bool = False) -> None:
        """Registers several agents, toolsets or functions at once."""
        for agent in agents:
            self.register(agent, replace=replace)

    def add_index(self, index: AgentIndex, *, replace: bool = False) -> None:
        """Registers every agent of an index by name; each is imported when it is first looked up.

        Raises:
            RegistrationError: a name is taken (unless `replace`).
        """
        for module, names in index.modules.items():
            for name in names:
                if name in self._agents and not replace:
                    raise RegistrationError(f"agent {name!r} is already registered (pass replace=True to replace it)")
                self._agents[name] = _Indexed(index, module, name)

    def get(self, name: str) -> AgentInfo | None:
        """The agent of that name (imported now if it came from an index), or None.

        Raises:
            RegistrationError: an indexed agent's module fails to import or lacks it.
        """
        entry = self._agents.get(name)
        if isinstance(entry, _Indexed):
            entry = self._agents[name] = entry.index.load(entry.module, entry.name)
        return entry

    def __getitem__(self, name: str) -> AgentInfo:
        info = self.get(name)
        if info is None:
            raise KeyError(name)
        return info

    def __contains__(self, name: object) -> bool:
        return name in self._agents

    def __iter__(self) -> Iterator[AgentInfo]:
        """Every agent, in the order registered (imports every indexed agent)."""
        for name in list(self._agents):
            info = self.get(name)
            if info is not None:
                yield info

    def __len__(self) -> int:
        return len(self._agents)

    def names(self) -> list[str]:
        """Every agent name, sorted; imports nothing."""
        return sorted(self._agents)

    def copy(self) -> "Registry":
        """A new registry with the same agents, to extend without touching this one."""
        clone = Registry()
        clone._agents = dict(self._agents)
        return clone
