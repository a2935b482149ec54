"""`graphrt validate FILE...`: every static problem of graph files, one line each.

Lines read `FILE:LINE:COL: node NAME: field: message`, in file order, warnings
marked `warning:` after the position; the exit code is 1 when any file has an
error. The checks are those `graphrt run` makes before it runs (validate.py and
lint.py), with the warnings included.
"""

from __future__ import annotations

import argparse
import sys

from graphrt.authoring.registry import Registry
from graphrt.base.errors import GraphLoadError, ValidationIssue
from graphrt.check.validate import collect_issues
from graphrt.cli.run_options import add_agents_option, registry_for
from graphrt.graphdata.loader import load_graph

__all__ = ["add_arguments", "format_issue", "handle"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="graph files (YAML or JSON)")
    add_agents_option(parser)
    parser.set_defaults(handler=handle)


def format_issue(issue: ValidationIssue, file: str | None = None) -> str:
    """`FILE:LINE:COL: [warning: ]node NAME: field: message`; NAME is `outer > inner` in nested graphs."""
    location = issue.location
    parts = [str(location) if location is not None and location.file else file or "<graph>"]
    if issue.severity != "error":
        parts.append(issue.severity)
    if issue.node_id is not None:
        parts.append("node " + " > ".join((issue.node_id, *getattr(issue, "nested", ()))))
    if issue.field:
        parts.append(issue.field)
    parts.append(issue.message)
    return ": ".join(parts)


def _position(issue: ValidationIssue) -> tuple[int, int]:
    location = issue.location
    return (location.line or 0, location.column or 0) if location is not None else (0, 0)


def check_file(path: str, registry: Registry) -> list[ValidationIssue]:
    """Every issue of one file, in file order; a file that cannot be read or parsed is one error."""
    try:
        data, source = load_graph(path)
    except GraphLoadError as error:
        return [ValidationIssue(error.message, location=error.location)]
    return sorted(collect_issues(data, registry, source), key=_position)


def handle(args: argparse.Namespace) -> int:
    errors = warnings = 0
    registry = registry_for(args)
    for path in args.files:
        for issue in check_file(path, registry):
            print(format_issue(issue, path))
            if issue.severity == "error":
                errors += 1
            else:
                warnings += 1
    files = f"{len(args.files)} file{'s' if len(args.files) != 1 else ''}"
    counts = f"{errors} error{'s' if errors != 1 else ''}, {warnings} warning{'s' if warnings != 1 else ''}"
    print(f"graphrt validate: {counts} in {files}", file=sys.stderr)
    return 1 if errors else 0
