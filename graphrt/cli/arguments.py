"""Argument types the commands share: each refuses nonsense with one line from argparse, never a traceback later.

    parser.add_argument("--port", type=port, ...)          # 0-65535 (0: a free one)
    parser.add_argument("--max-runs", type=at_least(1), ...)
    parser.add_argument("--checkpoint", type=non_empty, ...)
    parser.add_argument("--lease-seconds", type=positive_seconds, ...)
    parser.add_argument("-i", "--inject", type=node_value, ...)   # NODE=VALUE: JSON, else text
    parser.add_argument("--budget", type=budget, action="append")   # tokens=2000,cost=0.5,react.tokens=500

and help text worked out only when it is shown (`shown_later`).
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable
from typing import Any

__all__ = ["at_least", "budget", "budgets", "node_value", "non_empty", "port", "positive_seconds", "shown_later"]


def _integer(text: str) -> int:
    if not (text.strip().lstrip("+-").isascii() and text.strip().lstrip("+-").isdigit()) or len(text) > 18:
        raise argparse.ArgumentTypeError(f"not a whole number: {text[:40]!r}")
    return int(text)


def port(text: str) -> int:
    """A TCP port: 0 to 65535 (0: the system picks a free one)."""
    number = _integer(text)
    if not 0 <= number <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535, not {number}")
    return number


def at_least(smallest: int) -> Callable[[str], int]:
    """A whole number no smaller than `smallest`."""

    def parse(text: str) -> int:
        number = _integer(text)
        if number < smallest:
            raise argparse.ArgumentTypeError(f"must be at least {smallest}, not {number}")
        return number

    parse.__name__ = f"a number of at least {smallest}"
    return parse


def non_empty(text: str) -> str:
    """A text that is not empty (a path, a URL)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    return text


def positive_seconds(text: str) -> float:
    """A length of time in seconds, more than 0 and finite (not NaN, not inf)."""
    try:
        number = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text[:40]!r}") from None
    if not (math.isfinite(number) and number > 0):
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds, not {text[:40]!r}")
    return number


def node_value(text: str) -> tuple[str, Any]:
    """`NODE=VALUE` (`graphrt run -i`, `graphrt fork --set`): VALUE as JSON when it parses, else as text.

    A JSON number too big for a float (`1e400`) or JavaScript's `NaN`/`Infinity` is refused, as JSON has no
    such number (it would be saved as null), and so is JSON nested too deeply to read.
    """
    node_id, separator, raw = text.partition("=")
    if not separator or not node_id:
        raise argparse.ArgumentTypeError(f"expected NODE=VALUE, got {text[:80]!r}")
    unheld: list[str] = []  # the numbers JSON cannot hold, as written

    def number(written: str) -> float:
        value = float(written)
        if not math.isfinite(value):
            unheld.append(written)
        return value

    def constant(written: str) -> float:
        unheld.append(written)
        return float(written)

    try:
        value = json.loads(raw, parse_float=number, parse_constant=constant)
    except RecursionError:
        raise argparse.ArgumentTypeError(f"the value of {node_id} is nested too deeply") from None
    except ValueError:
        return node_id, raw
    if unheld:
        raise argparse.ArgumentTypeError(f"the value of {node_id} holds {unheld[0][:40]}, a number JSON cannot "
                                         "hold (give a finite number, or quote it as text)")
    return node_id, value


class _Later:
    """A part of an option's help, worked out when argparse writes it (`%(name)s` formats it with str())."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], str]) -> None:
        self.make = make

    def __str__(self) -> str:
        return self.make()


def shown_later(action: argparse.Action, **parts: Callable[[], str]) -> argparse.Action:
    """Gives an option's help the parts its `%(name)s` specifiers name, each worked out only when the help is
    shown (argparse fills them in from the option's attributes, as it does `%(default)s`): what is read off the
    installed packages (the stores a `--checkpoint` may name) costs a command that shows no help nothing."""
    for name, make in parts.items():
        setattr(action, name, _Later(make))
    return action


def budget(text: str) -> Any:
    """A budget: `UNIT=LIMIT,...` (tokens, cost, llm_calls, tool_calls, seconds), `NODE.UNIT=LIMIT` for a node's
    (graphrt.base.budget)."""
    from graphrt.base.budget import Budget
    from graphrt.base.errors import UsageConfigError

    try:
        return Budget.parse(text, where=repr(text))
    except UsageConfigError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def budgets(given: list[Any] | None) -> Any:
    """The budget of every `--budget` given, the later ones over the earlier (None: none given)."""
    if not given:
        return None
    merged = given[0]
    for more in given[1:]:
        merged = more.over(merged)
    return merged
