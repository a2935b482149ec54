"""`graphrt agents [NAME ...] [--json]`: the registered agents, their packs, descriptions and schemas.

The list shows each agent's pack; an agent whose pack's extra is not installed is listed
with what to install (`pip install 'graphrt[anthropic]'`) in place of its summary.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from graphrt.authoring.agent_info import AgentInfo
from graphrt.authoring.packs import Pack
from graphrt.base.jsvalue import to_json_compatible
from graphrt.cli.run_options import add_agents_option, named_agents, not_installed

__all__ = ["add_arguments", "handle", "describe"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("names", nargs="*", metavar="NAME", help="show these agents in full (default: list all)")
    parser.add_argument("--json", action="store_true", help="print the function info of each agent as JSON")
    add_agents_option(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, stdout: TextIO | None = None) -> int:
    stdout = stdout or sys.stdout
    registry, agents = named_agents(args)
    packs = {info.name: registry.pack_of(info.name) for info in agents}
    if args.json:
        infos = [{**info.to_dict(), "pack": pack.name if (pack := packs[info.name]) else None} for info in agents]
        json.dump(to_json_compatible(infos), stdout, indent=2, ensure_ascii=False)
        stdout.write("\n")
    elif args.names:
        stdout.write("\n\n".join(describe(info, packs[info.name]) for info in agents) + "\n")
    else:
        # Agents whose pack is not installed are listed by name, with what to install instead of a summary.
        rows = [(info.name, _pack_name(packs[info.name]), _summary(info)) for info in agents]
        rows += [(name, _pack_name(registry.pack_of(name)), registry.why_unavailable(name) or "")
                 for name in not_installed(registry)]
        rows.sort()
        name_width = max((len(name) for name, _, _ in rows), default=0)
        pack_width = max((len(pack) for _, pack, _ in rows), default=0)
        for name, pack, summary in rows:
            stdout.write(f"{name:<{name_width}}  {pack:<{pack_width}}  {summary}".rstrip() + "\n")
    return 0


def _summary(info: AgentInfo) -> str:
    return info.description.strip().splitlines()[0] if info.description.strip() else ""


def _pack_name(pack: Pack | None) -> str:
    return pack.name if pack else "-"


def describe(info: AgentInfo, pack: Pack | None = None) -> str:
    """An agent in full: description, schemas, tools and samples, as text."""
    lines = [info.name, "=" * len(info.name)]
    if info.description:
        lines += [info.description.strip(), ""]
    facts = {"pack": pack.name if pack else "", "category": ", ".join(info.category), "package": info.package,
             "license": info.license,
             "cache type": info.cache_type or "", "environment": ", ".join(info.environment_variables),
             "streams": "yes" if info.stream else "", "runs graphs": "yes" if info.has_graph_data else ""}
    lines += [f"{key}: {value}" for key, value in facts.items() if value]
    for title, schema in (("inputs", info.inputs), ("params", info.params), ("output", info.output)):
        if schema:
            lines.append(f"{title}: {_json(schema)}")
    for tool in info.tools:
        function = tool.get("function", {})
        lines.append(f"tool {function.get('name')}: {function.get('description', '')}".rstrip(": "))
    lines.append(f"samples: {len(info.samples)}")
    return "\n".join(lines)


def _json(value: Any) -> str:
    return json.dumps(to_json_compatible(value), ensure_ascii=False)
