"""`graphrt viz FILE [--format mermaid|dot]`: draw a graph file, offline, as Mermaid or DOT text.

The graph is validated first (errors stop it, as for `graphrt run`); the
drawing comes from viz.py. Paste Mermaid into Markdown (GitHub draws it), or
pipe DOT into Graphviz: `graphrt viz g.yaml --format dot | dot -Tsvg > g.svg`.
"""

from __future__ import annotations

import argparse
import sys

from graphrt.check.validate import validate_graph
from graphrt.check.viz import graph_model, to_dot, to_mermaid
from graphrt.cli.run_options import add_agents_option, registry_for
from graphrt.graphdata.loader import load_graph

__all__ = ["add_arguments", "handle"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a graph file (YAML or JSON)")
    parser.add_argument("--format", choices=("mermaid", "dot"), default="mermaid", help="the diagram language (default: mermaid)")
    parser.add_argument("--direction", choices=("TD", "LR"), default="TD", help="top-down or left-right (default: TD)")
    add_agents_option(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    data, source = load_graph(args.file)
    registry = registry_for(args)
    validate_graph(data, registry, source)
    model = graph_model(data, registry)
    if args.format == "dot":
        text = to_dot(model, name=args.file, direction=args.direction)
    else:
        text = to_mermaid(model, direction=args.direction)
    sys.stdout.write(text)
    return 0
