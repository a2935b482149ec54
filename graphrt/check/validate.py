"""Checks GraphData before anything runs and reports every problem at once.

GraphAI's rules are in rules.py, graphrt's own checks (the GraphData schema,
agents' schemas, nested graphs, unused results) in lint.py; this module runs
both. Each issue names the node and field, and the file position when the
graph came from a file.
"""

from __future__ import annotations

from typing import Any, Container

from graphrt.base.collector import collector_paused
from graphrt.base.errors import GraphValidationError, ValidationIssue
from graphrt.check.lint import lint_issues
from graphrt.check.rules import COMPUTED_NODE_KEYS, GRAPH_KEYS, MAX_SUGGESTED, STATIC_NODE_KEYS, rule_issues
from graphrt.graphdata.loader import GraphSource

__all__ = ["GRAPH_KEYS", "COMPUTED_NODE_KEYS", "STATIC_NODE_KEYS", "MAX_SUGGESTED", "collect_issues", "validate_graph"]


def collect_issues(
    data: dict[str, Any], agents: Container[str], source: GraphSource | None = None, *, warnings: bool = True
) -> list[ValidationIssue]:
    """Every problem of a graph: GraphAI's rules (rules.py), then graphrt's own checks (lint.py).

    `agents` holds the registered agent names; a Registry also lets lint.py check
    agent schemas. `warnings=False` skips the checks that can only warn, which
    cost more than a small run.
    """
    with collector_paused():  # walking a large graph makes many objects; the collector would walk the graph each time
        issues = rule_issues(data, agents, source)
        return issues + lint_issues(data, agents, source, issues, warnings=warnings)


def validate_graph(
    data: dict[str, Any], agents: Container[str], source: GraphSource | None = None, *, warnings: bool = False
) -> list[ValidationIssue]:
    """Raises GraphValidationError listing every error; returns the warnings found.

    Every error is found either way; the checks that can only warn run with `warnings=True`.
    """
    issues = collect_issues(data, agents, source, warnings=warnings)
    errors = [issue for issue in issues if issue.severity == "error"]
    if errors:
        raise GraphValidationError(errors)
    return issues
