"""Argument types the commands share: each refuses nonsense with one line from argparse, never a traceback later.

    parser.add_argument("--port", type=port, ...)          # 0-65535 (0: a free one)
    parser.add_argument("--max-runs", type=at_least(1), ...)
    parser.add_argument("--checkpoint", type=non_empty, ...)
    parser.add_argument("--lease-seconds", type=positive_seconds, ...)
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

__all__ = ["at_least", "non_empty", "port", "positive_seconds"]


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
