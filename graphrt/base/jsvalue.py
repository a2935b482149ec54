"""JavaScript value semantics that GraphAI graph files depend on.

GraphAI runs on JavaScript, so a graph's results depend on JS rules: `undefined`
is not `null`, an empty list is truthy, `String(1.0)` is `"1"`, and
`JSON.stringify` drops undefined keys. The engine and the vanilla agents use
these helpers so that one graph file gives the same result on both runtimes.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from graphrt.base.patterns import LazyPattern

__all__ = [
    "UNDEFINED",
    "is_null",
    "is_truthy",
    "is_logically_true",
    "is_named_inputs",
    "js_string",
    "js_number",
    "json_stringify",
    "to_json_compatible",
    "without_undefined",
    "defined",
    "escape_lone_surrogates",
    "JS_WHITESPACE",
    "js_trim",
]


JS_WHITESPACE = "".join(
    ["\t\n\v\f\r \u00a0\u1680", *map(chr, range(0x2000, 0x200B)), "\u2028\u2029\u202f\u205f\u3000\ufeff"]
)
"""What JavaScript's String.prototype.trim() and the regex class \\s treat as white space (Python's str.strip()
also strips \\x1c-\\x1f and \\x85, and keeps the BOM, \\ufeff)."""


def js_trim(text: str) -> str:
    """`text.trim()` as JavaScript trims it."""
    return text.strip(JS_WHITESPACE)


class _Undefined:
    """JavaScript's `undefined`: a value that is absent, as opposed to `null` (None)."""

    _instance: "_Undefined | None" = None

    def __new__(cls) -> "_Undefined":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "UNDEFINED"

    def __reduce__(self) -> str:
        return "UNDEFINED"


UNDEFINED: Any = _Undefined()


def is_null(value: Any) -> bool:
    """True for `null` and `undefined` (GraphAI's `isNull`)."""
    return value is None or value is UNDEFINED


def is_truthy(value: Any) -> bool:
    """JavaScript truthiness: containers are always truthy, NaN is falsy."""
    if value is None or value is UNDEFINED or value is False:
        return False
    if isinstance(value, (int, float)):
        return not (value == 0 or (isinstance(value, float) and math.isnan(value)))
    if isinstance(value, str):
        return value != ""
    return True


def is_logically_true(value: Any) -> bool:
    """GraphAI's `isLogicallyTrue`: JS truthiness, except that an empty list is false."""
    if isinstance(value, list):
        return len(value) > 0
    return is_truthy(value)


def is_named_inputs(value: Any) -> bool:
    """GraphAI's `isNamedInputs`: a non-empty object (dict)."""
    return isinstance(value, dict) and len(value) > 0


def _number_string(value: float) -> str:
    """`Number.prototype.toString()`: shortest round-trip digits, JS exponent rules."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    digits = repr(value)
    if value.is_integer() and abs(value) < 1e21:
        if "e" not in digits:
            return str(int(value))
        return _large_integer(digits)
    mantissa, _, exponent = digits.partition("e")
    if not exponent:
        return digits
    power = int(exponent)
    if -7 < power < 21:
        return format(value, "f") if power > 0 else _small_decimal(mantissa, power)
    sign = "+" if power > 0 else "-"
    return f"{mantissa.removesuffix('.0')}e{sign}{abs(power)}"


def _large_integer(digits: str) -> str:
    """An integer float past 2**53 as JS prints it: its shortest digits, then zeros (not `int()`'s digits)."""
    mantissa, _, exponent = digits.partition("e")
    negative = mantissa.startswith("-")
    whole, _, fraction = mantissa.lstrip("-").partition(".")
    text = (whole + fraction).ljust(int(exponent) + 1, "0")
    return "-" + text if negative else text


def _small_decimal(mantissa: str, power: int) -> str:
    negative = mantissa.startswith("-")
    digits = mantissa.lstrip("-").replace(".", "")
    text = "0." + "0" * (-power - 1) + digits.rstrip("0")
    return "-" + text if negative else text


def js_string(value: Any) -> str:
    """`String(value)` as JavaScript computes it."""
    if value is UNDEFINED:
        return "undefined"
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _number_string(value)
    if isinstance(value, (list, tuple)):
        return ",".join("" if is_null(item) else js_string(item) for item in value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


_NUMBER_TEXT = LazyPattern(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$", re.ASCII)  # ASCII: JS has no other digits
_RADIX_TEXT = LazyPattern(r"^0(x[0-9a-f]+|o[0-7]+|b[01]+)$")  # no sign, no `_`, unlike int()


def js_number(value: Any) -> float | int:
    """`Number(value)`; returns NaN where JavaScript does."""
    if value is None or value is False:
        return 0
    if value is True:
        return 1
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        text = value.strip()
        if text == "":
            return 0
        if _NUMBER_TEXT.match(text):
            number = float(text)
            return int(number) if number.is_integer() and abs(number) < 2**53 else number
        lowered = text.lower()
        if _RADIX_TEXT.match(lowered):
            return int(lowered[2:], {"x": 16, "o": 8, "b": 2}[lowered[1]])
        if text in ("Infinity", "+Infinity"):
            return math.inf
        if text == "-Infinity":
            return -math.inf
    return math.nan


def to_json_compatible(value: Any) -> Any:
    """What `JSON.parse(JSON.stringify(value))` gives: undefined keys dropped, NaN to null, bytes as a Buffer's JSON."""
    if isinstance(value, dict):
        return {str(k): to_json_compatible(v) for k, v in value.items() if v is not UNDEFINED}
    if isinstance(value, (list, tuple)):
        return [None if item is UNDEFINED else to_json_compatible(item) for item in value]
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return None
        return int(value) if value.is_integer() and abs(value) < 2**53 else value
    if value is UNDEFINED:
        return None
    if isinstance(value, (bytes, bytearray, memoryview)):  # Node's Buffer.toJSON (fileReadAgent's data)
        return {"type": "Buffer", "data": list(bytes(value))}
    return value


def json_stringify(value: Any, indent: int | None = None) -> str:
    """`JSON.stringify(value, null, indent)`: compact by default, floats as JS prints them."""
    if value is UNDEFINED:
        return "undefined"
    separators = (",", ":") if indent is None else (",", ": ")
    return json.dumps(to_json_compatible(value), ensure_ascii=False, indent=indent, separators=separators)


def defined(mapping: Any) -> dict[str, Any]:
    """The entries of named inputs that have a value: UNDEFINED ones left out (top level only).

    GraphAI keeps `{v: undefined}` in named inputs, and JS code reads such a key as absent
    (`x ?? default`); Python code that spreads inputs over params or defaults uses this.
    """
    return {key: value for key, value in mapping.items() if value is not UNDEFINED}


def without_undefined(value: Any) -> Any:
    """A copy with UNDEFINED removed: dropped from objects, null in lists (as JSON shows it).

    Iterative, so that results nested deeper than Python's recursion limit come out whole.
    """
    if not isinstance(value, (dict, list, tuple)):
        return value
    root: list[Any] = [None]
    pending: list[tuple[Any, Any, Any]] = [(value, root, 0)]
    while pending:
        source, parent, key = pending.pop()
        if isinstance(source, dict):
            copy: Any = {}
            for item_key, item in source.items():
                if item is UNDEFINED:
                    continue
                copy[item_key] = item
                if isinstance(item, (dict, list, tuple)):
                    pending.append((item, copy, item_key))
        else:
            copy = [None if item is UNDEFINED else item for item in source]
            for index, item in enumerate(source):
                if isinstance(item, (dict, list, tuple)):
                    pending.append((item, copy, index))
        parent[key] = copy
    return root[0]


_LONE_SURROGATE = LazyPattern("[\ud800-\udfff]")


def escape_lone_surrogates(json_text: str) -> str:
    """JSON text with lone UTF-16 surrogates written as `\\udXXX` escapes, as JavaScript's JSON.stringify
    writes them: a string can hold one (from JSON's "\\ud800"), but UTF-8 cannot encode it."""
    if not _LONE_SURROGATE.search(json_text):
        return json_text
    return _LONE_SURROGATE.sub(lambda found: f"\\u{ord(found[0]):04x}", json_text)

