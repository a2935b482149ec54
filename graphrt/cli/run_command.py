"""`graphrt run FILE`: run a graph file and print its results as JSON."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..api import run
from ..jsvalue import to_json_compatible

__all__ = ["add_parser", "parse_injection"]


def parse_injection(text: str) -> tuple[str, Any]:
    """`NODE=VALUE`: VALUE as JSON when it parses, else as a string."""
    node_id, separator, raw = text.partition("=")
    if not separator or not node_id:
        raise argparse.ArgumentTypeError(f"expected NODE=VALUE, got {text!r}")
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    return node_id, value


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("run", help="run a graph file and print its results as JSON")
    parser.add_argument("file", help="a graph file (YAML or JSON)")
    parser.add_argument("--all", action="store_true", help="print every node's result, not only isResult nodes")
    parser.add_argument("-i", "--inject", action="append", type=parse_injection, default=[], metavar="NODE=VALUE",
                        help="set a static node's value before the run (VALUE is JSON, or else a string); repeatable")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    results = run(args.file, inject=dict(args.inject), all_results=args.all)
    json.dump(to_json_compatible(results), sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0
