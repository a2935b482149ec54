"""`--agents MODULE`, shared by the commands that use agents: which registry they run with."""

from __future__ import annotations

import argparse

from graphrt.authoring.agent_info import AgentInfo
from graphrt.authoring.plugins import make_registry
from graphrt.authoring.registry import Registry
from graphrt.base.errors import RegistrationError

__all__ = ["add_agents_option", "registry_for", "named_agents", "not_installed"]


def add_agents_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--agents", action="append", default=[], metavar="MODULE",
                        help="import MODULE (dotted name or .py file) and add the agents it defines; repeatable")


def registry_for(args: argparse.Namespace) -> Registry:
    """The built-in agents (and agent packs) plus those of every `--agents` module; the default registry if none."""
    if not args.agents:
        return make_registry(None)
    from graphrt.authoring.agent_like import module_agents  # only with --agents: it imports the authoring tools

    return make_registry([info for module in args.agents for info in module_agents(module)] or None)


def named_agents(args: argparse.Namespace) -> tuple[Registry, list[AgentInfo]]:
    """The registry of `registry_for`, and the agents `args.names` names (all of them if none), in name order.

    Listing all, an agent whose pack is not installed is left out (`not_installed` names them).

    Raises:
        RegistrationError: naming the agents that are not registered, or the first named one that cannot
            load (its pack's extra is not installed, or graphrt does not provide it).
    """
    from graphrt.testing.samples import select_agents

    registry = registry_for(args)
    for name in args.names:
        reason = registry.why_unavailable(name)
        if reason:
            raise RegistrationError(reason)
    try:
        names = args.names or [name for name in registry.names() if not registry.why_unavailable(name)]
        return registry, select_agents(registry, names)
    except KeyError as error:
        raise RegistrationError(f"no agent named {error.args[0]} (see: graphrt agents)") from None


def not_installed(registry: Registry) -> list[str]:
    """The registered agents whose pack's extra is not installed, in name order."""
    return [name for name in registry.names() if registry.why_unavailable(name)]
