"""JavaScript rules several vanilla agents share: strict equality, and reading a property of null."""

from __future__ import annotations

from typing import Any

from graphrt.base.jsvalue import js_string

__all__ = ["read_error", "strict_equal"]


def strict_equal(left: Any, right: Any) -> bool:
    """JavaScript's `left === right` for JSON values: no type conversion, lists and dicts equal only themselves."""
    if _is_number(left) and _is_number(right):
        return left == right
    if isinstance(left, (bool, str)) or isinstance(right, (bool, str)):
        return type(left) is type(right) and left == right
    return left is right


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def read_error(value: Any, key: str) -> TypeError:
    """The TypeError JavaScript raises for `value[key]` when value is null or undefined."""
    return TypeError(f"Cannot read properties of {js_string(value)} (reading '{key}')")
