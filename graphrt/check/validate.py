"""Checks GraphData before anything runs and reports every problem at once.

GraphAI's rules are in rules.py, graphrt's own checks (nested graphs, unused
results, and through graphdata_schema.py and agent_schemas.py the GraphData schema
and agents' schemas) in lint.py; this module runs both. Each issue names the node
and field, and the file position when the graph came from a file.
"""

from __future__ import annotations

from typing import Any, Container

from graphrt.base.collector import collector_paused, is_large
from graphrt.base.errors import GraphValidationError, ValidationIssue
from graphrt.check.lint import lint_issues
from graphrt.check.rules import COMPUTED_NODE_KEYS, GRAPH_KEYS, MAX_SUGGESTED, STATIC_NODE_KEYS, rule_issues
from graphrt.graphdata.loader import GraphSource

__all__ = [
    "GRAPH_KEYS", "COMPUTED_NODE_KEYS", "STATIC_NODE_KEYS", "MAX_SUGGESTED", "collect_issues", "rule_issues", "validate_graph",
]


def collect_issues(
    data: dict[str, Any], agents: Container[str], source: GraphSource | None = None, *, warnings: bool = True,
    rule_found: list[ValidationIssue] | None = None,
) -> list[ValidationIssue]:
    """Every problem of a graph: GraphAI's rules (rules.py), then graphrt's own checks (lint.py).

    `agents` holds the registered agent names; a Registry also lets lint.py check
    agent schemas. `warnings=False` skips the checks that can only warn, which
    cost more than a small run. `rule_found` is what `rule_issues` found in this
    same graph, when the caller has it already (a Graph keeps its validation's for
    its warnings): the rules, a third of a large graph's checks, are not run again.
    """
    # Walking a large graph makes many objects; the collector would walk the graph each time.
    with collector_paused(is_large(data)):
        issues = rule_issues(data, agents, source) if rule_found is None else list(rule_found)
        return issues + lint_issues(data, agents, source, issues, warnings=warnings)


def validate_graph(
    data: dict[str, Any], agents: Container[str], source: GraphSource | None = None, *, warnings: bool = False,
    rule_found: list[ValidationIssue] | None = None,
) -> list[ValidationIssue]:
    """Raises GraphValidationError listing every error; returns the warnings found.

    Every error is found either way; the checks that can only warn run with `warnings=True`.
    `rule_found`: as for `collect_issues`.
    """
    issues = collect_issues(data, agents, source, warnings=warnings, rule_found=rule_found)
    errors = [issue for issue in issues if issue.severity == "error"]
    if errors:
        raise GraphValidationError(errors)
    return issues
