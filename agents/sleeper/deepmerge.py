"""npm `deepmerge` (4.x, default options), which @graphai/sleeper_agents merges its inputs with.

Objects merge key by key, recursively; lists concatenate; anything else from the
source replaces the target. Every object and list in the result is a copy, so the
result shares nothing with the inputs.
"""

from __future__ import annotations

from typing import Any

from graphrt.base.jsvalue import is_null

__all__ = ["deepmerge"]

# Keys every JS object has through its prototype: deepmerge refuses to write them (prototype pollution).
_PROTOTYPE_KEYS = frozenset({
    "__proto__", "constructor", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable", "toLocaleString",
    "toString", "valueOf", "__defineGetter__", "__defineSetter__", "__lookupGetter__", "__lookupSetter__",
})


def _mergeable(value: Any) -> bool:
    """`is-mergeable-object`: objects and arrays (not strings, numbers, null)."""
    return isinstance(value, (dict, list))


def _clone(value: Any) -> Any:
    if isinstance(value, list):
        return [_clone(item) for item in value]
    if isinstance(value, dict):
        return {key: _clone(item) for key, item in value.items()}
    return value


def _own_keys(value: Any) -> list[str]:
    """`Object.keys(value)`; null and undefined throw, as in JavaScript."""
    if is_null(value):
        raise TypeError("Cannot convert undefined or null to object")
    if isinstance(value, dict):
        return list(value)
    if isinstance(value, str):
        return [str(index) for index in range(len(value))]
    return []


def _merge_object(target: Any, source: Any) -> dict[str, Any]:
    merged = {key: _clone(item) for key, item in target.items()} if isinstance(target, dict) else {}
    for key in _own_keys(source):
        item = source[key] if isinstance(source, dict) else source[int(key)]
        if isinstance(target, dict) and key in _PROTOTYPE_KEYS and key not in target:
            continue
        if isinstance(target, dict) and key in target and _mergeable(item):
            merged[key] = deepmerge(target[key], item)
        else:
            merged[key] = _clone(item)
    return merged


def deepmerge(target: Any, source: Any) -> Any:
    """`deepmerge(target, source)`: a new value, `source` merged over `target`."""
    if isinstance(source, list) != isinstance(target, list):
        return _clone(source)
    if isinstance(source, list):
        return [_clone(item) for item in (*target, *source)]
    return _merge_object(target, source)
