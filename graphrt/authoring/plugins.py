"""Agent packs: the agents installed packages declare, and the default registry.

A package ships agents by declaring the entry point group `graphrt.agents`;
each entry point names an agent-like object or a list of them (see
agent_like.as_agent), a module whose `AGENTS` lists them, or an `AgentIndex`
(registry.py), whose agents are imported only when a graph uses them:

    [project.entry-points."graphrt.agents"]
    weather = "weather_pack:AGENTS"

`default_registry()` holds graphrt's own agent library (`graphrt_agents`, an
index) and then every pack; a pack's agent replaces a built-in one of the
same name. An index says which pack each of its agents is in (packs.py); the
agents of a plain list are in the pack named by their entry point. It is made
from the entry points once per reading of them, kept with that reading
(base/entry_points.py: `derived`), and it is read-only: every graph that brings
no agents of its own shares it, so nothing, an imported module least of all,
writes into it. `graphrt run FILE --agents my.module` adds a module's agents on
top, in a copy (agent_like.module_agents, `make_registry`).
"""

from __future__ import annotations

from typing import Iterable

from graphrt.authoring.agent_info import AgentInfo, AgentLike
from graphrt.authoring.packs import Pack
from graphrt.authoring.registry import AgentIndex, Registry
from graphrt.base.entry_points import EntryPoint, derived, entry_points
from graphrt.base.errors import RegistrationError

__all__ = ["AgentsArg", "ENTRY_POINT_GROUP", "default_registry", "entry_point_agents", "make_registry"]

ENTRY_POINT_GROUP = "graphrt.agents"


def entry_point_agents(group: str = ENTRY_POINT_GROUP) -> list[AgentInfo]:
    """Every agent the installed packages declare under the entry point group (indexes imported whole).

    Raises:
        RegistrationError: naming the entry point that failed to load.
    """
    found: list[AgentInfo] = []
    for point in _entry_points(group):
        loaded = _load(point)
        found.extend(loaded.agents() if isinstance(loaded, AgentIndex) else loaded)
    return found


def _load(point: EntryPoint) -> AgentIndex | list[AgentInfo]:
    try:
        loaded = point.load()
        if isinstance(loaded, AgentIndex):
            return loaded
        from graphrt.authoring.agent_like import agents_of  # on first use: it imports the authoring tools

        return agents_of(loaded)
    except Exception as error:  # noqa: BLE001 - a broken pack is reported by name
        reason = error.message if isinstance(error, RegistrationError) else f"{type(error).__name__}: {error}"
        raise RegistrationError(
            f"agent pack '{point.name} = {point.value}' (entry point group {point.group}) cannot be loaded: {reason}"
        ) from error


def _entry_points(group: str) -> Iterable[EntryPoint]:
    """graphrt's own agent library first, then the packs in name order, so that a pack can replace a built-in."""
    return sorted(entry_points(group), key=lambda point: (not point.builtin, point.name))


def _installed_agents() -> Registry:
    """The agents the entry point group `graphrt.agents` declares, graphrt's own first, in a read-only registry."""
    registry = Registry()
    for point in _entry_points(ENTRY_POINT_GROUP):
        loaded = _load(point)
        if isinstance(loaded, AgentIndex):
            registry.add_index(loaded, replace=not point.builtin)
        else:  # a plain list of agents: the entry point's name is their pack
            registry.add(*loaded, replace=not point.builtin, pack=Pack(point.name, distribution=point.dist_name or ""))
    return registry.read_only(
        "the registry of the installed agents is every graph's: add agents to a copy (default_registry().copy(), "
        "or graphrt.Graph(..., agents=[...])), list a module's agents in its AGENTS (graphrt run --agents MODULE), "
        "or declare a pack's (entry point group graphrt.agents)")


def default_registry() -> Registry:
    """The registry of every installed agent: graphrt's agent library (`graphrt_agents`), then agent packs;
    read-only (`copy()` it to add agents).

    Both come through the entry point group `graphrt.agents`; a pack's agent replaces a
    built-in one of the same name. It is made once per reading of the installed packages.
    """
    return derived(ENTRY_POINT_GROUP, _installed_agents)


AgentsArg = Registry | Iterable[AgentLike] | None


def make_registry(agents: AgentsArg) -> Registry:
    """A Registry as given, or the built-in agents plus the ones listed."""
    if agents is None:
        return default_registry()
    if isinstance(agents, Registry):
        return agents
    registry = default_registry().copy()
    for info in agents:
        registry.register(info, replace=True)
    return registry
