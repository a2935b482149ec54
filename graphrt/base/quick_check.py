"""A fast yes for valid values of simple JSON Schemas, so checking inputs costs microseconds.

jsonschema takes tens of microseconds per call, which would dominate quick
agents. The schemas derived from type hints use a handful of keywords, so they
compile here into plain Python predicates. A predicate only ever says "valid"
when jsonschema would: a schema with any keyword not understood here gets no
predicate, and a value the predicate rejects goes to jsonschema, which says why.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

__all__ = ["compile_check"]

Check = Callable[[Any], bool]

_ANNOTATIONS = {"description", "default", "title", "examples", "$comment", "deprecated", "readOnly", "writeOnly"}
_KNOWN = _ANNOTATIONS | {"type", "properties", "required", "additionalProperties", "items", "enum", "anyOf"}


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
    """A predicate that is True only for values valid under `schema`; None if the schema is not simple."""
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
        branches = [compile_check(branch) for branch in schema["anyOf"]]
        if any(branch is None for branch in branches):
            return None
        checks.append(lambda value: any(branch(value) for branch in branches))  # type: ignore[misc]
    if "items" in schema:
        item_check = compile_check(schema["items"])
        if item_check is None:
            return None
        checks.append(lambda value: type(value) is not list or all(item_check(item) for item in value))
    object_check = _object_check(schema)
    if object_check is False:
        return None
    if object_check is not None:
        checks.append(object_check)
    if len(checks) == 1:
        return checks[0]
    return lambda value: all(check(value) for check in checks)


def _object_check(schema: Mapping[str, Any]) -> Check | None | bool:
    """The check of properties, required and additionalProperties; False when one is not simple."""
    if not {"properties", "required", "additionalProperties"} & set(schema):
        return None
    properties = {}
    for name, subschema in (schema.get("properties") or {}).items():
        check = compile_check(subschema)
        if check is None:
            return False
        properties[name] = check
    required = tuple(schema.get("required") or ())
    extra = schema.get("additionalProperties", True)
    extra_check = None if extra is True else (lambda value: False) if extra is False else compile_check(extra)
    if extra is not True and extra is not False and extra_check is None:
        return False

    def check(value: Any) -> bool:
        if type(value) is not dict:
            return True  # only "type" says what a non-object may be
        for name in required:
            if name not in value:
                return False
        for name, item in value.items():
            test = properties.get(name, extra_check)
            if test is not None and not test(item):
                return False
        return True

    return check
