"""What a run may spend: limits on tokens, cost, LLM calls, tool calls and seconds, for the run and for nodes.

A budget is a run option (`RunOptions.budget`, `graphrt run/batch/serve --budget`, the API's run
body) or the config file's `budget`, never a key of the graph: GraphAI refuses keys it does not
know, and a graph file stays one that GraphAI runs.

    budget:
      tokens: 20000          # input and output tokens of every LLM call, retried ones included
      cost: 0.50             # USD, from the config's prices (a call whose cost is unknown cannot be kept under it)
      llm_calls: 40
      tool_calls: 100
      seconds: 300           # wall-clock time; checked before each call (the run's `timeout` cancels instead)
      nodes:
        react: {tokens: 2000}   # each node of that id (nested graphs included), with what its nested graphs spend

On the command line the same is `--budget tokens=20000,cost=0.5,react.tokens=2000` (a unit after a
node's id and a dot is that node's). Bad input is one line: a limit that is not a number above 0,
a unit that is not one of the five.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from graphrt.base.errors import UsageConfigError

__all__ = ["Budget", "Limits", "UNITS"]

UNITS: dict[str, str] = {
    "tokens": "input and output tokens of every LLM call, retried ones included",
    "cost": "USD, from the config's prices",
    "llm_calls": "LLM requests, each attempt counted",
    "tool_calls": "tool calls an LLM made (toolsAgent, ReAct)",
    "seconds": "wall-clock seconds of the run, across its resumptions",
}
"""The units a budget limits, with what each counts."""

_WHOLE = frozenset({"tokens", "llm_calls", "tool_calls"})


@dataclass(frozen=True)
class Limits:
    """The limits of one budget (the run's, or a node's); None: no limit on that unit."""

    tokens: int | None = None
    cost: float | None = None
    llm_calls: int | None = None
    tool_calls: int | None = None
    seconds: float | None = None

    def __bool__(self) -> bool:
        return any(getattr(self, unit) is not None for unit in UNITS)

    def items(self) -> list[tuple[str, float]]:
        """The units limited, with their limits."""
        return [(unit, value) for unit in UNITS if (value := getattr(self, unit)) is not None]

    def over(self, other: "Limits") -> "Limits":
        """These limits, and `other`'s where these have none."""
        return replace(other, **{unit: value for unit, value in self.items()})

    def within(self, cap: "Limits") -> "Limits":
        """These limits, none above `cap`'s: each unit the smaller of the two, and `cap`'s where these have none."""
        return replace(cap, **{unit: value if getattr(cap, unit) is None else min(value, getattr(cap, unit))
                               for unit, value in self.items()})

    def to_dict(self) -> dict[str, float]:
        return dict(self.items())

    @classmethod
    def from_mapping(cls, mapping: Any, where: str) -> "Limits":
        """Limits from `{tokens: 2000, cost: 0.5}`.

        Raises:
            UsageConfigError: not a mapping, a unit that is not one of UNITS, a limit that is not a number above 0.
        """
        if not isinstance(mapping, Mapping):
            raise UsageConfigError(f"{where}: must map units to limits, e.g. {{tokens: 2000, cost: 0.5}}, "
                                   f"got {mapping!r}")
        return cls(**{_unit(str(unit), where): _limit(str(unit), value, f"{where}.{unit}")
                      for unit, value in mapping.items()})


def _unit(unit: str, where: str) -> str:
    if unit not in UNITS:
        raise UsageConfigError(f"{where}: unknown unit {unit!r} (units: {', '.join(UNITS)})")
    return unit


def _limit(unit: str, value: Any, where: str) -> float:
    """A limit: a number above 0 (a whole one for counts), from a number or its text."""
    number = value
    if isinstance(value, str):
        text = value.strip().lstrip("$")
        try:
            number = float(text.replace("_", ""))
        except ValueError:
            raise UsageConfigError(f"{where}: must be a number above 0, got {value!r}") from None
    if isinstance(number, bool) or not isinstance(number, (int, float)) or not math.isfinite(number) or number <= 0:
        raise UsageConfigError(f"{where}: must be a number above 0, got {value!r}")
    if unit in _WHOLE:
        if number != int(number):
            raise UsageConfigError(f"{where}: must be a whole number above 0, got {value!r}")
        return int(number)
    return float(number)


@dataclass(frozen=True)
class Budget:
    """The limits of a run, and of its nodes by id (`nodes`): each node of that id, nested graphs included,
    with what the graphs nested in it spend."""

    run: Limits = field(default_factory=Limits)
    nodes: Mapping[str, Limits] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.run) or any(self.nodes.values())

    def over(self, other: "Budget | None") -> "Budget":
        """This budget, and `other`'s limits where this one has none (a run's option over the config's)."""
        if other is None:
            return self
        nodes = {node: limits.over(other.nodes.get(node, Limits())) for node, limits in self.nodes.items()}
        return Budget(self.run.over(other.run), {**other.nodes, **nodes})

    def within(self, cap: "Budget | None") -> "Budget":
        """This budget, no limit above `cap`'s (a server's budget for each run, which a run's request may lower
        and not raise)."""
        if cap is None:
            return self
        nodes = {node: limits.within(cap.nodes.get(node, Limits())) for node, limits in self.nodes.items()}
        return Budget(self.run.within(cap.run), {**cap.nodes, **nodes})

    def to_dict(self) -> dict[str, Any]:
        shown: dict[str, Any] = self.run.to_dict()
        if self.nodes:
            shown["nodes"] = {node: limits.to_dict() for node, limits in self.nodes.items()}
        return shown

    @classmethod
    def of(cls, value: "Budget | Mapping[str, Any] | str | None", where: str = "budget") -> "Budget | None":
        """A budget from what a caller gives: a Budget, a mapping (the config's, the API's), or `--budget` text."""
        if value is None or isinstance(value, Budget):
            return value
        if isinstance(value, str):
            return cls.parse(value, where)
        return cls.from_mapping(value, where)

    @classmethod
    def from_mapping(cls, mapping: Any, where: str = "budget") -> "Budget":
        """A budget from `{tokens: 2000, nodes: {react: {tokens: 500}}}`.

        Raises:
            UsageConfigError: said in one line, naming `where`.
        """
        if not isinstance(mapping, Mapping):
            raise UsageConfigError(f"{where}: must map units to limits, e.g. {{tokens: 2000, cost: 0.5, "
                                   f"nodes: {{react: {{tokens: 500}}}}}}, got {mapping!r}")
        run = {unit: value for unit, value in mapping.items() if unit != "nodes"}
        nodes = mapping.get("nodes", {})
        if not isinstance(nodes, Mapping):
            raise UsageConfigError(f"{where}.nodes: must map node ids to limits, e.g. {{react: {{tokens: 500}}}}")
        return cls(Limits.from_mapping(run, where),
                   {str(node): Limits.from_mapping(limits, f"{where}.nodes.{node}") for node, limits in nodes.items()})

    @classmethod
    def parse(cls, text: str, where: str = "--budget") -> "Budget":
        """A budget from `tokens=2000,cost=0.5,react.tokens=500` (`NODE.UNIT=LIMIT` is a node's).

        Raises:
            UsageConfigError: an item that is not UNIT=LIMIT, an unknown unit, a limit that is not a number above 0.
        """
        run: dict[str, Any] = {}
        nodes: dict[str, dict[str, Any]] = {}
        for item in (part.strip() for part in text.split(",")):
            if not item:
                continue
            key, equals, value = item.partition("=")
            if not equals or not key.strip():
                raise UsageConfigError(f"{where}: {item!r} is not UNIT=LIMIT (units: {', '.join(UNITS)}; "
                                       "NODE.UNIT=LIMIT for a node's)")
            node, dot, unit = key.strip().rpartition(".")
            (nodes.setdefault(node, {}) if dot else run)[unit] = value
        if not run and not nodes:
            raise UsageConfigError(f"{where}: no limit given, e.g. tokens=2000,cost=0.5")
        return cls.from_mapping({**run, "nodes": nodes}, where)

    def merged(self, other: "Budget") -> "Budget":
        """This budget with `other`'s limits added (each `--budget` given adds to the ones before)."""
        return other.over(self)


