"""The hostile values the cases feed in, by name: a case names them (`{"$h": name}`) and the worker makes them.

Sizes are the old suite's: 10 MB strings, integers at and past Python's 4,300-digit
text limit and past what a float holds, a billion, nesting past any parser, a million items.
"""

from __future__ import annotations

import json
import sys
from typing import Any

LIMIT_DIGITS = sys.get_int_max_str_digits() or 4300

VALUES: dict[str, Any] = {
    "str_10mb": lambda: "x" * 10_000_000,
    "words_2mb": lambda: "ab cd " * 350_000,
    "lines_1mb": lambda: "line\n" * 200_000,
    "nul": lambda: "a\0b",
    "surrogate": lambda: "\ud800",
    "digits_5000": lambda: "9" * 5000,
    "int_at_limit": lambda: int("9" * LIMIT_DIGITS),  # one more digit is past what str() writes
    "int_past_float": lambda: 10 ** 400,
    "neg_past_float": lambda: -(10 ** 400),
    "billion": lambda: 10 ** 9,
    "e18": lambda: 10 ** 18,
    "float_max": lambda: 1.7976931348623157e308,
    "deep_list": lambda: _deep(5000),
    "million_list": lambda: list(range(1_000_000)),
    "wide_dict": lambda: {f"k{i}": i for i in range(200_000)},
    "long_key": lambda: {"k" * 1_000_000: 1},
    "ints_past_float": lambda: [10 ** 400] * 3,
    "empty": lambda: "",
    "null": lambda: None,
    "minus_one": lambda: -1,
}
"""Every hostile value by name; each is made when a case needs it."""

FEW = ["str_10mb", "int_at_limit", "int_past_float", "billion", "deep_list", "surrogate", "minus_one", "digits_5000"]
"""The values tried where every value would be too many cases (agents' params)."""


def _deep(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def dumps(template: Any) -> str:
    """`template` as JSON text with each placeholder written as its value (nesting deeper than json.dumps goes too)."""
    names: list[str] = []

    def mark(item: Any) -> Any:
        if isinstance(item, dict):
            if set(item) == {"$h"}:
                names.append(item["$h"])
                return f"\x00H{len(names) - 1}\x00"
            return {key: mark(value) for key, value in item.items()}
        if isinstance(item, list):
            return [mark(value) for value in item]
        return item

    text = json.dumps(mark(template))
    for number, name in enumerate(names):
        written = "[" * 5000 + "]" * 5000 if name == "deep_list" else json.dumps(VALUES[name]())
        text = text.replace(json.dumps(f"\x00H{number}\x00"), written, 1)
    return text


def make(template: Any) -> Any:
    """`template` with each `{"$h": name}` replaced by the value of that name."""
    if isinstance(template, dict):
        if set(template) == {"$h"}:
            return VALUES[template["$h"]]()
        return {key: make(value) for key, value in template.items()}
    if isinstance(template, list):
        return [make(item) for item in template]
    return template


def h(name: str) -> dict[str, str]:
    """A placeholder for the hostile value `name`."""
    assert name in VALUES, name
    return {"$h": name}
