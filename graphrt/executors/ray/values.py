"""Large values by reference: put in Ray's object store once, then passed on as their object ref.

A value of `large_value_bytes` or more (an agent's input, or a result a worker put
there) travels by its object ref: put once per run and value, and every later edge
of that run passes the ref, not a copy. Smaller values go inline (Ray inlines small
task arguments anyway). A run's refs are let go when the run ends.
"""

from __future__ import annotations

from typing import Any

from graphrt.executors.ray.installed import ray

__all__ = ["RunValues", "is_large", "materialized"]


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


class RunValues:
    """In the driver: each run's large values and their object refs, kept until the run ends.

    A value is known by its identity (the value is kept with its ref, so that its id
    is not reused while the entry lives), per run: `forget` at a run's end lets go of
    that run's refs only, while other runs on the executor go on.
    """

    def __init__(self, large_value_bytes: int) -> None:
        self.large_value_bytes = large_value_bytes
        self._runs: dict[str, dict[int, tuple[Any, Any]]] = {}  # run id -> id(value) -> (value, its object ref)

    def by_reference(self, run_id: str, inputs: dict[str, Any]) -> dict[str, Any]:
        """The inputs with each large value replaced by its object ref (put once per value and run)."""
        replaced = None
        known = self._runs.get(run_id)
        for key, value in inputs.items():
            if value is None or isinstance(value, (bool, int, float)):
                continue
            entry = known.get(id(value)) if known is not None else None
            if entry is None or entry[0] is not value:
                if not is_large(value, self.large_value_bytes):
                    continue
                entry = (value, ray.put(value))
                known = self._runs.setdefault(run_id, {})
                known[id(value)] = entry
            if replaced is None:
                replaced = dict(inputs)
            replaced[key] = entry[1]
        return inputs if replaced is None else replaced

    def keep(self, run_id: str, value: Any, ref: Any) -> None:
        """A value of the run that is in the object store already (a large result a worker put there)."""
        self._runs.setdefault(run_id, {})[id(value)] = (value, ref)

    def forget(self, run_id: str) -> None:
        """Lets go of the run's refs (the run has ended)."""
        self._runs.pop(run_id, None)

    def clear(self) -> None:
        """Lets go of every run's refs (the executor closes)."""
        self._runs.clear()
