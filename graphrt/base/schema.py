"""JSON Schemas from Python type hints, and values checked against JSON Schemas.

    str, int, float, bool, None      {"type": "string" | "integer" | "number" | "boolean" | "null"}
    list[X], set[X], tuple[X, ...]   {"type": "array", "items": X}
    tuple[X, Y]                      {"type": "array", "prefixItems": [X, Y], "minItems": 2, "maxItems": 2}
    dict[str, X], Mapping[str, X]    {"type": "object", "additionalProperties": X}
    X | None, Optional[X], Union     {"type": ["string", "null"]} for plain types, else {"anyOf": [...]}
    Literal["a", "b"], an Enum       {"type": "string", "enum": ["a", "b"]}
    TypedDict, dataclass             {"type": "object", "properties": {...}, "required": [...]}
    Annotated[X, "text"]             X with "description": "text" (a dict in Annotated is merged in)
    Any, object, no hint             {} (any value)

Anything else (a class, a callable, ...) has no JSON Schema: `type_schema`
raises `UnsupportedType`, which the caller turns into a RegistrationError.
`coerce` turns the JSON values an agent receives into the dataclasses and Enum
members its hints ask for.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import json
import types
import typing
from typing import TYPE_CHECKING, Any, Callable, Literal, Mapping, Union

if TYPE_CHECKING:
    import jsonschema

from graphrt.base.errors import RegistrationError
from graphrt.base.frozen import Frozen
from graphrt.base.jsvalue import without_undefined
from graphrt.base.quick_check import compile_check

__all__ = [
    "UnsupportedType", "Violation", "type_schema", "needs_coercion", "coerce", "violations", "validator_of", "quick_check_of",
    "format_path",
    "json_default",
]

_PLAIN = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}
_ARRAYS = {list, set, frozenset, collections.abc.Sequence, collections.abc.MutableSequence, collections.abc.Set,
           collections.abc.Iterable, collections.abc.Collection}
_OBJECTS = {dict, collections.abc.Mapping, collections.abc.MutableMapping}


class UnsupportedType(RegistrationError):
    """Raised when a type hint has no JSON Schema."""

    def __init__(self, hint: Any, reason: str = "") -> None:
        self.hint = hint
        super().__init__(f"no JSON Schema for type {_type_name(hint)}" + (f" ({reason})" if reason else ""))


def _type_name(hint: Any) -> str:
    return hint.__qualname__ if isinstance(hint, type) else repr(hint).replace("typing.", "")


def type_schema(hint: Any) -> dict[str, Any]:
    """The JSON Schema of the values a type hint allows."""
    return _schema(hint, ())


def _schema(hint: Any, seen: tuple[Any, ...]) -> dict[str, Any]:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Annotated:
        return _annotated(args, seen)
    if hint is Any or hint is object:
        return {}
    if hint is None or (isinstance(hint, type) and hint in _PLAIN):
        return {"type": _PLAIN[type(None) if hint is None else hint]}
    if origin is Union or origin is types.UnionType:
        return _union([_schema(arg, seen) for arg in args])
    if origin is Literal:
        return _enum(list(args))
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return _enum([member.value for member in hint])
    if isinstance(hint, type) and (hint in _ARRAYS or hint is tuple):
        return {"type": "array"}
    if isinstance(hint, type) and hint in _OBJECTS:
        return {"type": "object"}
    if origin in _ARRAYS:
        return {"type": "array", "items": _schema(args[0], seen)} if args else {"type": "array"}
    if origin is tuple:
        return _tuple(args, seen)
    if origin in _OBJECTS:
        if args and args[0] is not str:
            raise UnsupportedType(hint, "object keys are strings")
        return {"type": "object", "additionalProperties": _schema(args[1], seen)} if args else {"type": "object"}
    if any(hint is outer for outer in seen):
        raise UnsupportedType(hint, "it refers to itself")
    if typing.is_typeddict(hint):
        hints = typing.get_type_hints(hint, include_extras=True)
        required = [name for name in hints if name in hint.__required_keys__]
        return _object({name: _schema(h, (*seen, hint)) for name, h in hints.items()}, required)
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return _dataclass(hint, seen)
    raise UnsupportedType(hint)


def _annotated(args: tuple[Any, ...], seen: tuple[Any, ...]) -> dict[str, Any]:
    schema = dict(_schema(args[0], seen))
    for meta in args[1:]:
        if isinstance(meta, str):
            schema["description"] = meta
        elif isinstance(meta, dict):
            schema.update(meta)
    return schema


def _union(schemas: list[dict[str, Any]]) -> dict[str, Any]:
    if any(not schema for schema in schemas):
        return {}
    if all(set(schema) == {"type"} for schema in schemas):
        names: list[str] = []
        for schema in schemas:
            for name in schema["type"] if isinstance(schema["type"], list) else [schema["type"]]:
                if name not in names:
                    names.append(name)
        return {"type": names[0] if len(names) == 1 else names}
    return {"anyOf": schemas}


def _enum(values: list[Any]) -> dict[str, Any]:
    kinds = {_json_type(value) for value in values}
    return {"type": kinds.pop(), "enum": values} if len(kinds) == 1 else {"enum": values}


def _json_type(value: Any) -> str:
    for python_type in (bool, int, float, str, type(None)):
        if type(value) is python_type:
            return _PLAIN[python_type]
    return "object"


def _tuple(args: tuple[Any, ...], seen: tuple[Any, ...]) -> dict[str, Any]:
    if len(args) == 2 and args[1] is Ellipsis:
        return {"type": "array", "items": _schema(args[0], seen)}
    if args == ((),):
        return {"type": "array", "maxItems": 0}
    items = [_schema(arg, seen) for arg in args]
    return {"type": "array", "prefixItems": items, "minItems": len(items), "maxItems": len(items)}


def _dataclass(hint: type, seen: tuple[Any, ...]) -> dict[str, Any]:
    hints = typing.get_type_hints(hint, include_extras=True)
    properties: dict[str, Any] = {}
    required = []
    for item in dataclasses.fields(hint):
        if not item.init:
            continue
        properties[item.name] = _schema(hints.get(item.name, Any), (*seen, hint))
        if item.default is dataclasses.MISSING and item.default_factory is dataclasses.MISSING:
            required.append(item.name)
        else:
            has_default, default = json_default(item.default)
            if has_default:
                properties[item.name] = {**properties[item.name], "default": default}
    return _object(properties, required)


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def json_default(value: Any) -> tuple[bool, Any]:
    """`(True, json_value)` when `value` can be a schema's "default" (an Enum gives its value), else `(False, None)`."""
    if isinstance(value, enum.Enum):
        value = value.value
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return False, None
    return True, value


# ----- from JSON values to what the hints ask for -----


def needs_coercion(hint: Any) -> bool:
    """Whether values of this hint must be converted (they contain dataclasses or Enums)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Annotated:
        return needs_coercion(args[0])
    if isinstance(hint, type) and (issubclass(hint, enum.Enum) or dataclasses.is_dataclass(hint)):
        return True
    if origin is Literal:
        return False
    return any(needs_coercion(arg) for arg in args if arg is not Ellipsis)


def coerce(value: Any, hint: Any) -> Any:
    """Converts a JSON value (already checked against the hint's schema) to the hint's Python type."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Annotated:
        return coerce(value, args[0])
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return hint(value)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint) and isinstance(value, dict):
        hints = typing.get_type_hints(hint)
        return hint(**{key: coerce(item, hints.get(key, Any)) for key, item in value.items()})
    if origin is Union or origin is types.UnionType:
        for arg in args:
            if _accepts(arg, value):
                return coerce(value, arg)
        return value
    if origin in _ARRAYS and args and isinstance(value, list):
        items = [coerce(item, args[0]) for item in value]
        return set(items) if origin in (set, frozenset, collections.abc.Set) else items
    if origin is tuple and isinstance(value, list):
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(coerce(item, args[0]) for item in value)
        return tuple(coerce(item, arg) for item, arg in zip(value, args, strict=False))  # the schema checked the length
    if origin in _OBJECTS and len(args) == 2 and isinstance(value, dict):
        return {key: coerce(item, args[1]) for key, item in value.items()}
    return value


def _accepts(hint: Any, value: Any) -> bool:
    import jsonschema  # on first use: importing it costs ~50 ms at start

    try:
        return not any(jsonschema.Draft202012Validator(type_schema(hint)).iter_errors(value))
    except UnsupportedType:
        return False


# ----- checking values -----


class Violation(Frozen):
    """One way a value breaks its schema: where (a path of keys and indexes) and what."""

    __slots__ = ("path", "message")
    path: tuple[str | int, ...]
    message: str

    def __init__(self, path: tuple[str | int, ...], message: str) -> None:
        self._set(path=path, message=message)


_MAX_CACHED = 512
_checks: dict[int, tuple[Mapping[str, Any], Callable[[Any], bool] | None]] = {}
_validators: dict[int, tuple[Mapping[str, Any], "jsonschema.protocols.Validator"]] = {}


def quick_check_of(schema: Mapping[str, Any]) -> Callable[[Any], bool] | None:
    """The schema's quick check (quick_check.py), kept per schema object; None when it has none."""
    cached = _checks.get(id(schema))
    if cached is None or cached[0] is not schema:
        if len(_checks) >= _MAX_CACHED:
            _checks.clear()
        cached = _checks[id(schema)] = (schema, compile_check(schema))
    return cached[1]


def validator_of(schema: Mapping[str, Any]) -> jsonschema.protocols.Validator:
    """The jsonschema validator of a schema, kept per schema object, for callers that need its errors."""
    cached = _validators.get(id(schema))
    if cached is None or cached[0] is not schema:
        if len(_validators) >= _MAX_CACHED:
            _validators.clear()
        import jsonschema  # only when a quick check cannot say yes: importing it costs ~50 ms at start

        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        cached = _validators[id(schema)] = (schema, cls(schema))
    return cached[1]


def violations(schema: Mapping[str, Any], value: Any) -> list[Violation]:
    """Every way `value` breaks `schema`, in order of where they are; empty when it is valid."""
    quick = quick_check_of(schema)
    if quick is not None and quick(value):
        return []
    value = without_undefined(value)  # a key whose value is undefined is absent (as ajv sees `{v: undefined}`)
    if quick is not None and quick(value):
        return []
    found = []
    for error in validator_of(schema).iter_errors(value):
        path = tuple(error.absolute_path)
        if error.validator == "required":
            missing = [name for name in error.validator_value if name not in error.instance]
            found.extend(Violation((*path, name), "a required value is missing") for name in missing)
        elif error.validator == "additionalProperties" and error.validator_value is False:
            allowed = error.schema.get("properties", {})
            extra = [name for name in error.instance if name not in allowed]
            found.extend(Violation((*path, name), "unexpected: the schema has no such property") for name in extra)
        else:
            found.append(Violation(path, error.message))
    unique = list(dict.fromkeys(found))  # one `required` error comes per missing name, each listing them all
    return sorted(unique, key=lambda v: [str(part) for part in v.path])


def format_path(path: tuple[str | int, ...], root: str = "") -> str:
    """`items[0].name`-style text for a violation's path, under `root`."""
    text = root
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text
