"""`--agents MODULE`, shared by the commands that use agents: which registry they run with."""

from __future__ import annotations

import argparse

from ..graph import make_registry
from ..plugins import module_agents
from ..registry import Registry

__all__ = ["add_agents_option", "registry_for"]


def add_agents_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--agents", action="append", default=[], metavar="MODULE",
                        help="import MODULE (dotted name or .py file) and add the agents it defines; repeatable")


def registry_for(args: argparse.Namespace) -> Registry:
    """The built-in agents (and agent packs) plus those of every `--agents` module."""
    return make_registry([info for module in args.agents for info in module_agents(module)])
