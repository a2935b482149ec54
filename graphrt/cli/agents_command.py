"""`graphrt agents [NAME ...] [--json]`: the registered agents, their descriptions and schemas."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from graphrt.authoring.agent_info import AgentInfo
from graphrt.base.jsvalue import to_json_compatible
from graphrt.cli.agent_modules import add_agents_option, named_agents

__all__ = ["add_parser", "handle", "describe"]


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("agents", help="list the registered agents, their descriptions and schemas")
    parser.add_argument("names", nargs="*", metavar="NAME", help="show these agents in full (default: list all)")
    parser.add_argument("--json", action="store_true", help="print the function info of each agent as JSON")
    add_agents_option(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, stdout: TextIO | None = None) -> int:
    stdout = stdout or sys.stdout
    _, agents = named_agents(args)
    if args.json:
        json.dump(to_json_compatible([info.to_dict() for info in agents]), stdout, indent=2, ensure_ascii=False)
        stdout.write("\n")
    elif args.names:
        stdout.write("\n\n".join(describe(info) for info in agents) + "\n")
    else:
        width = max((len(info.name) for info in agents), default=0)
        for info in agents:
            summary = info.description.strip().splitlines()[0] if info.description.strip() else ""
            stdout.write(f"{info.name:<{width}}  {summary}".rstrip() + "\n")
    return 0


def describe(info: AgentInfo) -> str:
    """An agent in full: description, schemas, tools and samples, as text."""
    lines = [info.name, "=" * len(info.name)]
    if info.description:
        lines += [info.description.strip(), ""]
    facts = {"category": ", ".join(info.category), "package": info.package, "license": info.license,
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
