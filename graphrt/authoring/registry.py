"""The registry a graph looks agents up in, by name, and agent indexes that load agents on first use.

A registry holds AgentInfos, and names whose agent is not imported yet: an
`AgentIndex` lists a pack's agents by the module whose `AGENTS` list holds
them, so a registry knows every name at once (for validation and "did you
mean") and imports a module only when one of its agents is first looked up.
graphrt's own agent library (graphrt_agents) comes in that way, so that a run
imports only the agents its graph uses. An index also says which pack each
module is in and what the pack needs installed, and which of GraphAI's agents
it knows of but lacks (packs.py): a registry tells why such a name cannot run.
"""

from __future__ import annotations

import importlib
from typing import Iterable, Iterator, Mapping, TypeVar

from graphrt.authoring.agent_info import AgentInfo, AgentLike
from graphrt.authoring.packs import Pack, Unavailable
from graphrt.base.errors import RegistrationError
from graphrt.base.frozen import Frozen

__all__ = ["AgentIndex", "ReadOnlyRegistry", "Registry"]

_R = TypeVar("_R", bound="Registry")


class AgentIndex(Frozen):
    """A pack's agent names by module, in order: `{"pack.text": ("upperAgent", ...), ...}`.

    Each module's `AGENTS` list holds exactly the names listed for it (a test of
    the pack should check that, so that the index cannot drift from the code).
    An entry point of the group `graphrt.agents` may name an AgentIndex instead
    of a list of agents.

    `packs` gives the pack of each module by the longest matching prefix
    (`{"mypack.pdf": Pack("pdf", extra="pdf", requires=("pypdf",))}`); a module
    whose pack lacks a required module is not imported: loading its agent says
    what to install. `unavailable` lists agents the pack knows of but does not
    provide, with why (validation says so instead of "unknown agent").
    """

    __slots__ = ("modules", "packs", "unavailable", "_loaded", "_pack_of")
    modules: Mapping[str, tuple[str, ...]]
    packs: Mapping[str, Pack]
    unavailable: Mapping[str, Unavailable]
    _loaded: dict[str, dict[str, AgentInfo]]  # the agents of each module imported, by name
    _pack_of: dict[str, Pack | None]  # each module's pack, once looked up

    def __init__(self, modules: Mapping[str, tuple[str, ...]], packs: Mapping[str, Pack] | None = None,
                 unavailable: Mapping[str, Unavailable] | None = None) -> None:
        self._set(modules=modules, packs={} if packs is None else packs,
                  unavailable={} if unavailable is None else unavailable, _loaded={}, _pack_of={})

    # An index is itself, whatever it holds: equal to itself alone, hashed by identity.
    __eq__ = object.__eq__
    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"AgentIndex(modules={self.modules!r}, packs={self.packs!r}, unavailable={self.unavailable!r})"

    def names(self) -> list[str]:
        """Every agent name, in index order."""
        return [name for names in self.modules.values() for name in names]

    def agents(self) -> list[AgentInfo]:
        """Every agent that can load, in index order (imports every module); those of a pack that is not
        installed are left out, as a Registry leaves them out (`Pack.not_installed` says why)."""
        return [self.load(module, name) for module, names in self.modules.items() if self.installed(module)
                for name in names]

    def installed(self, module: str) -> bool:
        """Whether `module`'s pack (if it has one) has what it needs installed; imports nothing."""
        pack = self.pack_of(module)
        return pack is None or not pack.missing()

    def pack_of(self, module: str) -> Pack | None:
        """The pack of `module`: the entry of `packs` whose key is the longest prefix of it, or None."""
        if module not in self._pack_of:
            found = None
            for prefix, pack in self.packs.items():
                if (module == prefix or module.startswith(prefix + ".")) and (found is None or len(prefix) > len(found[0])):
                    found = (prefix, pack)
            self._pack_of[module] = found[1] if found else None
        return self._pack_of[module]

    def load(self, module: str, name: str) -> AgentInfo:
        """The agent `name` of `module`'s `AGENTS`, importing the module on first use.

        Raises:
            RegistrationError: the module's pack is not installed (naming the extra to install),
                the module fails to import, or its AGENTS lacks the name.
        """
        if module not in self._loaded:
            pack = self.pack_of(module)
            reason = pack.not_installed(name) if pack else None
            if reason:
                raise RegistrationError(reason)
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


class _Indexed:
    """A registry entry whose agent is not imported yet (a plain class: one per indexed agent, built at start)."""

    __slots__ = ("index", "module", "name")

    def __init__(self, index: AgentIndex, module: str, name: str) -> None:
        self.index = index
        self.module = module
        self.name = name

    @property
    def pack(self) -> Pack | None:
        return self.index.pack_of(self.module)


class Registry:
    """The agents a graph can use, by name.

    `register` takes an AgentInfo, a function (decorated with @graphrt.agent or
    not) or a toolset class or instance (see graphrt.authoring.agent_like.as_agent);
    `add_index` takes an AgentIndex, whose agents are imported when first looked up.
    """

    def __init__(self, agents: Iterable[AgentLike] = ()) -> None:
        self._agents: dict[str, AgentInfo | _Indexed] = {}
        self._packs: dict[str, Pack] = {}  # name -> pack, for agents registered with one (indexed ones know theirs)
        self._unavailable: dict[str, Unavailable] = {}
        for info in agents:
            self.register(info)

    def register(self, agent: AgentLike, *, replace: bool = False, pack: Pack | None = None) -> AgentInfo:
        """Adds an agent (of `pack`, if given); a second agent with the same name is an error unless `replace`.

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
        same = self._holds(info)
        if info.name in self._agents and not replace and not same:
            raise RegistrationError(f"agent {info.name!r} is already registered (pass replace=True to replace it)")
        self._agents[info.name] = info
        if pack is not None:
            self._packs[info.name] = pack
        elif not same:
            self._packs.pop(info.name, None)
        return info

    def _holds(self, info: AgentInfo) -> bool:
        """Whether `info` is already the agent of its name (an indexed one compared once imported); an indexed
        entry whose pack is not installed holds nothing that can run, so it is never the same (nor imported)."""
        entry = self._agents.get(info.name)
        if isinstance(entry, _Indexed) and (entry.pack is not None and entry.pack.missing()):
            return False
        return entry is not None and self.get(info.name) is info

    def add(self, *agents: AgentLike, replace: bool = False, pack: Pack | None = None) -> None:
        """Registers several agents, toolsets or functions at once (of `pack`, if given)."""
        for agent in agents:
            self.register(agent, replace=replace, pack=pack)

    def add_index(self, index: AgentIndex, *, replace: bool = False) -> None:
        """Registers every agent of an index by name; each is imported when it is first looked up.

        The index's unavailable agents are remembered, for `why_unavailable`.

        Raises:
            RegistrationError: a name is taken (unless `replace`).
        """
        for module, names in index.modules.items():
            for name in names:
                if name in self._agents and not replace:
                    raise RegistrationError(f"agent {name!r} is already registered (pass replace=True to replace it)")
                self._agents[name] = _Indexed(index, module, name)
                self._packs.pop(name, None)
        for name, unavailable in index.unavailable.items():
            self._unavailable.setdefault(name, unavailable)

    def pack_of(self, name: str) -> Pack | None:
        """The pack of the agent `name` (from its index, or given when it was registered), or None; imports nothing."""
        entry = self._agents.get(name)
        if entry is None:
            return None
        return entry.pack if isinstance(entry, _Indexed) else self._packs.get(name)

    def why_unavailable(self, name: str) -> str | None:
        """Why a name the registry knows of cannot run, as a message naming the agent; None if it can (or is unknown).

        Either its pack's extra is not installed ("agent 'anthropicAgent' is in graphrt[anthropic],
        which is not installed ..."), or no agent of that name is registered and an index lists it
        as one of GraphAI's that it lacks ("agent 'browserlessAgent' is not available: ...").
        Imports nothing.
        """
        entry = self._agents.get(name)
        if entry is None:
            unavailable = self._unavailable.get(name)
            return unavailable.explain(name) if unavailable else None
        pack = entry.pack if isinstance(entry, _Indexed) else None  # an imported agent's modules are there
        return pack.not_installed(name) if pack else None

    def get(self, name: str) -> AgentInfo | None:
        """The agent of that name (imported now if it came from an index), or None.

        Raises:
            RegistrationError: an indexed agent's module fails to import or lacks it.
        """
        entry = self._agents.get(name)
        if isinstance(entry, _Indexed):
            pack = entry.pack
            entry = self._agents[name] = entry.index.load(entry.module, entry.name)
            if pack is not None:
                self._packs[name] = pack
        return entry

    def __getitem__(self, name: str) -> AgentInfo:
        info = self.get(name)
        if info is None:
            raise KeyError(name)
        return info

    def __contains__(self, name: object) -> bool:
        return name in self._agents

    def __iter__(self) -> Iterator[AgentInfo]:
        """Every agent that can load, in the order registered (imports every indexed agent).

        Agents whose pack is not installed are left out (see `why_unavailable`).
        """
        for name in list(self._agents):
            if self.why_unavailable(name):
                continue
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
        return self._copied(Registry())

    def read_only(self, why: str) -> "ReadOnlyRegistry":
        """A copy that refuses to change, for a registry that many share; `why` is what its refusal says."""
        return self._copied(ReadOnlyRegistry(why))

    def _copied(self, clone: _R) -> _R:
        clone._agents = dict(self._agents)
        clone._packs = dict(self._packs)
        clone._unavailable = dict(self._unavailable)
        return clone


class ReadOnlyRegistry(Registry):
    """A registry that many share (the installed agents: plugins.default_registry), which refuses to change:
    `register`, `add` and `add_index` raise RegistrationError; `copy()` gives a Registry to add agents to."""

    def __init__(self, why: str) -> None:
        super().__init__()
        self.why = why

    def register(self, agent: AgentLike, *, replace: bool = False, pack: Pack | None = None) -> AgentInfo:
        raise RegistrationError(f"this registry cannot change: {self.why}")

    def add_index(self, index: AgentIndex, *, replace: bool = False) -> None:
        raise RegistrationError(f"this registry cannot change: {self.why}")
