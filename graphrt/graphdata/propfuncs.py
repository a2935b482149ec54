"""GraphAI's prop functions: `:node.items.length()`, `:n.add(1)`, `:s.split(,)` ...

A reference walks into a value one property at a time. A property that looks
like a call (`name(args)`) is offered to the function of the value's type; if
that gives nothing, it is looked up like any other property. Each function
follows GraphAI 2.0.18, including which argument spellings its patterns accept.
"""

from __future__ import annotations

import json
import math
import sys
from functools import lru_cache
from typing import Any, Callable

from graphrt.base.errors import ResolveError
from graphrt.base.limits import MAX_DEPTH  # as for graph files: deeper values overflow Python's stack later
from graphrt.base.jsvalue import (
    UNDEFINED,
    is_null,
    js_number,
    js_string,
    json_stringify,
)
from graphrt.base.patterns import LazyPattern

__all__ = ["is_prop_function", "apply_prop_function", "compile_prop_function"]

_CALL = LazyPattern(r"^[a-zA-Z]+\([^)]*\)$")
_JOIN = LazyPattern(r"^join\(([,\-\s]?)\)$")
_STRING_EQUAL = LazyPattern(r"^equal\(([A-Za-z0-9!#$%&()*+,\-./:;<=>?@]+)\)")
_NUMBER_EQUAL = LazyPattern(r"^equal\(([A-Za-z0-9!#$%&()*+,\-/:;<=>?@]+)\)")
_DEFAULT = LazyPattern(r"^default\(([A-Za-z0-9!#$%&()*+,\-/:;<=>?@]+)\)")
_SLICE = LazyPattern(r"^slice\((-?\d+)(?:,\s*(-?\d+))?\)")
_SPLIT = LazyPattern(r"^split\(([-_:;.,\s\n]+)\)$")
_ADD = LazyPattern(r"^add\((-?\d+)\)$")
_CODE_BLOCK = LazyPattern(r"\n```[a-zA-Z]*([\s\S]*?)\n```")
_INTEGER_TEXT = LazyPattern(r"^[0-9-]+$")


def is_prop_function(prop: str) -> bool:
    """True if the property is written as a call, like `length()` or `join(,)`."""
    return prop.endswith(")") and _CALL.match(prop) is not None


def _is_number(value: Any) -> bool:
    if isinstance(value, int):  # every int is finite, and one past a float's range has no float to ask
        return not isinstance(value, bool)
    return isinstance(value, float) and math.isfinite(value)


def _integer(text: str, prop: str) -> int:
    """The integer argument of `prop` (`add(1)`, `slice(2)`).

    Raises:
        ResolveError: it has more digits than Python reads (sys.get_int_max_str_digits()).
    """
    try:
        return int(text)
    except ValueError:
        raise ResolveError(f"{prop[:prop.index('(')]}(): its argument has {len(text.lstrip('-')):,} digits, more than "
                           f"graphrt reads ({sys.get_int_max_str_digits():,})") from None


def _numbers(values: list) -> list:
    return [js_number(v) if not _is_number(v) else v for v in values]


def _array_function(value: list, prop: str) -> Any:
    if prop == "length()":
        return len(value)
    if prop == "flat()":
        return [item for entry in value for item in (entry if isinstance(entry, list) else [entry])]
    if prop == "toJSON()":
        return json_stringify(value, indent=2)
    if prop == "isEmpty()":
        return len(value) == 0
    if prop in ("average()", "mean()"):
        return sum(_numbers(value)) / len(value) if value else 0
    if prop == "sum()":
        return sum(_numbers(value))
    if prop == "max()":
        return max(_numbers(value)) if value else 0
    if prop == "min()":
        return min(_numbers(value)) if value else 0
    match = _JOIN.match(prop)
    if match:
        return match.group(1).join("" if is_null(item) else js_string(item) for item in value)
    return UNDEFINED


def _object_function(value: dict | list, prop: str) -> Any:
    if prop == "keys()":
        return list(value.keys()) if isinstance(value, dict) else [str(i) for i in range(len(value))]
    if prop == "values()":
        return list(value.values()) if isinstance(value, dict) else list(value)
    if prop == "toJSON()":
        return json_stringify(value, indent=2)
    return UNDEFINED


def _deeper_than(value: Any, limit: int) -> bool:
    """True if lists and objects nest more than `limit` levels in `value`."""
    level = [value] if isinstance(value, (dict, list)) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        level = [child for item in level for child in (item.values() if isinstance(item, dict) else item)
                 if isinstance(child, (dict, list))]
    return False


def _code_block(value: str) -> str | None:
    match = _CODE_BLOCK.search("\n" + value)
    return match.group(1) if match else None


def _string_function(value: str, prop: str) -> Any:
    if prop == "codeBlock()":
        block = _code_block(value)
        if block is not None:
            return block
    if prop == "codeBlockOrRaw()":
        block = _code_block(value)
        return value if block is None else block
    if prop == "jsonParse()":
        too_deep = f"jsonParse() failed: the JSON is nested more than {MAX_DEPTH} levels deep"
        try:
            parsed = json.loads(value)
        except ValueError as error:
            raise ResolveError(f"jsonParse() failed: {error}") from error
        except RecursionError:
            raise ResolveError(too_deep) from None
        if _deeper_than(parsed, MAX_DEPTH):
            raise ResolveError(too_deep)
        return parsed
    if prop == "toNumber()":
        number = js_number(value)
        if not (isinstance(number, float) and math.isnan(number)):
            return number
    if prop == "trim()":
        return value.strip()
    if prop == "toLowerCase()":
        return value.lower()
    if prop == "toUpperCase()":
        return value.upper()
    match = _STRING_EQUAL.match(prop)
    if match:
        return value == match.group(1)
    match = _SLICE.match(prop)
    if match:
        start = _integer(match.group(1), prop)
        end = None if match.group(2) is None else _integer(match.group(2), prop)
        return value[start:end]
    match = _SPLIT.match(prop)
    if match:
        return value.split(match.group(1))
    return UNDEFINED


def _number_function(value: int | float, prop: str) -> Any:
    if prop == "toString()":
        return js_string(value)
    match = _ADD.match(prop)
    if match:
        return value + _integer(match.group(1), prop)
    match = _NUMBER_EQUAL.match(prop)
    if match:
        return value == js_number(match.group(1))
    return UNDEFINED


def _default_function(prop: str) -> Any:
    match = _DEFAULT.match(prop)
    if not match:
        return UNDEFINED
    text = match.group(1)
    return int(text) if _INTEGER_TEXT.match(text) and _is_int_text(text) else text


def _is_int_text(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


def _number_trouble(error: ValueError | OverflowError) -> str:
    """What went wrong with a number, said without Python's advice to raise its limit."""
    if "integer string conversion" in str(error):
        return f"an integer of more than {sys.get_int_max_str_digits():,} digits, more than graphrt writes"
    if isinstance(error, OverflowError):
        return "a number past what a float holds (about 1.8e308)"
    return str(error)


_FUNCTIONS: list[tuple[Callable[[Any], bool], Callable[[Any, str], Any]]] = [
    (lambda v: isinstance(v, list), _array_function),
    (lambda v: isinstance(v, (dict, list)), _object_function),
    (lambda v: isinstance(v, str), _string_function),
    (_is_number, _number_function),
    (lambda v: isinstance(v, bool), lambda v, p: (not v) if p == "not()" else UNDEFINED),
]


def apply_prop_function(value: Any, prop: str) -> Any:
    """Applies a call-like property to a value; UNDEFINED if no function claims it.

    Raises:
        ResolveError: the function failed on the value (e.g. `jsonParse()` of bad JSON).
    """
    if value is UNDEFINED:
        return _default_function(prop)
    if prop.startswith("default("):
        # GraphAI gives nothing here; a default on a value that exists keeps the value.
        return value
    for applies, function in _FUNCTIONS:
        if applies(value):
            try:
                result = function(value, prop)
            except (ValueError, OverflowError) as error:  # an integer past what Python writes or a float holds
                raise ResolveError(f"{prop} failed: {_number_trouble(error)}") from None
            if not is_null(result):
                return result
    return UNDEFINED


@lru_cache(maxsize=4096)
def compile_prop_function(prop: str) -> Callable[[Any], Any]:
    """`apply_prop_function` for one property, decided once: references call it on every run.

    The common arithmetic and size functions get a direct callable; the rest
    go through the per-type dispatch.
    """
    match = _ADD.match(prop)
    if match:
        try:
            amount = _integer(match.group(1), prop)
        except ResolveError:  # the reference still parses; reading it says what is wrong, as jsonParse() does
            return lambda value: apply_prop_function(value, prop)
        # No other type has add(); an int (not a bool, whose type is bool) needs no other test.
        return lambda value: value + amount if type(value) is int or _is_number(value) else UNDEFINED
    if prop == "length()":
        return lambda value: len(value) if isinstance(value, list) else apply_prop_function(value, prop)
    if prop == "not()":
        return lambda value: (not value) if isinstance(value, bool) else apply_prop_function(value, prop)
    match = _NUMBER_EQUAL.match(prop)
    if match:  # a number's equal() reads its argument once here (a loop's `while` asks it every iteration)
        number = js_number(match.group(1))
        return lambda value: value == number if type(value) is int or _is_number(value) else apply_prop_function(value, prop)
    return lambda value: apply_prop_function(value, prop)
