"""Large values by reference: put in Ray's object store once, then passed on as their object ref.

A value of `large_value_bytes` or more (an agent's input, or a result a worker put
there) travels by its object ref: put once per run and value, and every later edge
of that run passes the ref, not a copy. Smaller values go inline (Ray inlines small
task arguments anyway).
"""

from __future__ import annotations

from typing import Any

from graphrt.executors.ray.installed import ray

__all__ = ["is_large", "materialized"]


def is_large(value: Any, limit: int) -> bool:
    """Whether a value's size reaches `limit` bytes, roughly, stopping as soon as it does."""
    budget = limit
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (str, bytes, bytearray)):
            budget -= len(item)
        elif isinstance(item, dict):
            budget -= 16 * len(item)
            stack.extend(item.values())
            stack.extend(key for key in item if isinstance(key, str))
        elif isinstance(item, (list, tuple)):
            budget -= 8 * len(item)
            stack.extend(item)
        else:
            nbytes = getattr(item, "nbytes", None)  # numpy arrays and the like
            budget -= nbytes if isinstance(nbytes, int) else 8
        if budget <= 0:
            return True
    return False


def materialized(inputs: dict[str, Any]) -> dict[str, Any]:
    """In a worker: the inputs with the object refs the driver put in their place fetched from the object store."""
    if not any(isinstance(value, ray.ObjectRef) for value in inputs.values()):
        return inputs
    return {key: ray.get(value) if isinstance(value, ray.ObjectRef) else value for key, value in inputs.items()}

