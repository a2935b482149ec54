"""A fast yes for valid values of simple JSON Schemas, so checking inputs costs microseconds.

jsonschema takes tens of microseconds per call, which would dominate quick
agents, and tens of milliseconds to import, which would dominate a command's
start. The schemas derived from type hints, and graphrt's GraphData schema, use
a handful of keywords, so they compile here into plain Python predicates. A
predicate only ever says "valid" when jsonschema would: a schema with any
keyword not understood here gets no predicate, and a value the predicate
rejects goes to jsonschema, which says why.
"""

from __future__ import annotations

import numbers
import re
from typing import Any, Callable, Mapping

__all__ = ["compile_check"]

Check = Callable[[Any], bool]

_ANNOTATIONS = {"description", "default", "title", "examples", "$comment", "deprecated", "readOnly", "writeOnly",
                "$schema"}
_KNOWN = _ANNOTATIONS | {"type", "properties", "required", "additionalProperties", "items", "enum", "anyOf",
                         "$ref", "$defs", "if", "then", "else", "minimum", "minLength", "minProperties", "pattern"}


def _is_integer(value: Any) -> bool:
    return (type(value) is int) or (type(value) is float and value.is_integer())


_TYPES: dict[str, Check] = {
    "string": lambda value: type(value) is str,
    "integer": _is_integer,
    "number": lambda value: type(value) in (int, float),
    "boolean": lambda value: type(value) is bool,
    "null": lambda value: value is None,
    "object": lambda value: type(value) is dict,
    "array": lambda value: type(value) is list,
}


def compile_check(schema: Any) -> Check | None:
    """A predicate that is True only for values valid under `schema`; None if the schema is not simple.

    `$ref`s point into the same schema (`#`, `#/$defs/name`).
    """
    return _Compiler(schema).compile(schema)


class _Compiler:
    """Compiles the subschemas of one root schema, each `$ref` target once (a target may refer back)."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self.targets: dict[str, Check | None] = {}

    def compile(self, schema: Any) -> Check | None:
        return _compile(schema, self)

    def ref(self, pointer: Any) -> Check | None:
        if pointer not in self.targets:
            target = _resolve(self.root, pointer)
            if target is None:
                return None
            self.targets[pointer] = lambda value: False  # refused while being compiled: no loop can say yes wrongly
            compiled = self.compile(target)
            self.targets[pointer] = compiled
            if compiled is None:
                return None
        if self.targets[pointer] is None:
            return None
        return lambda value: self.targets[pointer](value)  # type: ignore[misc]  # looked up late: it may refer back


def _resolve(root: Any, pointer: Any) -> Any:
    """The subschema a local `$ref` (`#` or `#/a/b`) names; None for any other reference."""
    if not isinstance(pointer, str) or not (pointer == "#" or pointer.startswith("#/")):
        return None
    target = root
    for part in pointer[2:].split("/") if pointer != "#" else ():
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(target, Mapping) or part not in target:
            return None
        target = target[part]
    return target


def _compile(schema: Any, compiler: _Compiler) -> Check | None:
    if schema is True or schema == {}:
        return lambda value: True
    if not isinstance(schema, Mapping) or not set(schema) <= _KNOWN:
        return None
    checks: list[Check] = []
    kinds = schema.get("type")
    if kinds is not None:
        names = [kinds] if isinstance(kinds, str) else list(kinds)
        if not all(name in _TYPES for name in names):
            return None
        tests = [_TYPES[name] for name in names]
        checks.append(tests[0] if len(tests) == 1 else (lambda value: any(test(value) for test in tests)))
    if "enum" in schema:
        options = schema["enum"]
        if not all(isinstance(option, str) or option is None for option in options):
            return None  # jsonschema's equality of numbers and booleans is subtler than ==
        checks.append(lambda value: (value is None or type(value) is str) and value in options)
    if "anyOf" in schema:
        branches = [compiler.compile(branch) for branch in schema["anyOf"]]
        if any(branch is None for branch in branches):
            return None
        checks.append(lambda value: any(branch(value) for branch in branches))  # type: ignore[misc]
    if "items" in schema:
        item_check = compiler.compile(schema["items"])
        if item_check is None:
            return None
        checks.append(lambda value: not isinstance(value, list) or (type(value) is list and all(item_check(item) for item in value)))
    object_check = _object_check(schema, compiler)
    if object_check is False:
        return None
    if object_check is not None:
        checks.append(object_check)
    others = _other_checks(schema, compiler)
    if others is None:
        return None
    checks.extend(others)
    if not checks:
        return lambda value: True  # annotations only
    if len(checks) == 1:
        return checks[0]
    return lambda value: all(check(value) for check in checks)


def _object_check(schema: Mapping[str, Any], compiler: _Compiler) -> Check | None | bool:
    """The check of properties, required and additionalProperties; False when one is not simple."""
    if not {"properties", "required", "additionalProperties"} & set(schema):
        return None
    properties = {}
    for name, subschema in (schema.get("properties") or {}).items():
        check = compiler.compile(subschema)
        if check is None:
            return False
        properties[name] = check
    required = tuple(schema.get("required") or ())
    extra = schema.get("additionalProperties", True)
    extra_check = None if extra is True else (lambda value: False) if extra is False else compiler.compile(extra)
    if extra is not True and extra is not False and extra_check is None:
        return False

    def check(value: Any) -> bool:
        if not isinstance(value, dict):
            return True  # only "type" says what a non-object may be
        if type(value) is not dict:
            return False  # a dict subclass: jsonschema decides
        for name in required:
            if name not in value:
                return False
        for name, item in value.items():
            test = properties.get(name, extra_check)
            if test is not None and not test(item):
                return False
        return True

    return check


def _other_checks(schema: Mapping[str, Any], compiler: _Compiler) -> list[Check] | None:
    """The checks of `$ref`, `if`/`then`/`else` and the bounds; None when one is not simple."""
    checks: list[Check] = []
    if "$ref" in schema:
        target = compiler.ref(schema["$ref"])
        if target is None:
            return None
        checks.append(target)
    if "if" in schema:
        condition = _exact_check(schema["if"])
        then = compiler.compile(schema.get("then", True))
        otherwise = compiler.compile(schema.get("else", True))
        if condition is None or then is None or otherwise is None:
            return None
        checks.append(lambda value: then(value) if condition(value) else otherwise(value))
    elif "then" in schema or "else" in schema:
        pass  # without `if`, jsonschema ignores them
    bound = schema.get("minimum")
    if bound is not None:
        if type(bound) not in (int, float):
            return None
        checks.append(lambda value: value >= bound if type(value) in (int, float)
                      else isinstance(value, bool) or not isinstance(value, numbers.Number))
    length = schema.get("minLength")
    if length is not None:
        if type(length) is not int:
            return None
        checks.append(lambda value: not isinstance(value, str) or len(value) >= length)
    count = schema.get("minProperties")
    if count is not None:
        if type(count) is not int:
            return None
        checks.append(lambda value: not isinstance(value, dict) or len(value) >= count)
    pattern = schema.get("pattern")
    if pattern is not None:
        try:
            compiled = re.compile(pattern)
        except (re.error, TypeError):
            return None
        checks.append(lambda value: not isinstance(value, str) or compiled.search(value) is not None)
    return checks


_EXACT_TYPES: dict[str, Check] = {  # jsonschema's own type checks: an `if` must be decided both ways
    "string": lambda value: isinstance(value, str),
    "object": lambda value: isinstance(value, dict),
    "array": lambda value: isinstance(value, list),
    "boolean": lambda value: isinstance(value, bool),
    "null": lambda value: value is None,
}


def _exact_check(schema: Any) -> Check | None:
    """The predicate of an `if` schema that is True exactly when jsonschema says valid (only `type` and `required`)."""
    if schema is True or schema == {}:
        return lambda value: True
    if not isinstance(schema, Mapping) or not set(schema) <= _ANNOTATIONS | {"type", "required"}:
        return None
    checks: list[Check] = []
    if "type" in schema:
        if not isinstance(schema["type"], str) or schema["type"] not in _EXACT_TYPES:
            return None
        checks.append(_EXACT_TYPES[schema["type"]])
    if "required" in schema:
        required = tuple(schema["required"])
        checks.append(lambda value: not isinstance(value, dict) or all(name in value for name in required))
    return lambda value: all(check(value) for check in checks)
