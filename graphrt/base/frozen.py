"""`Frozen`: the base of graphrt's small read-only value classes, which a command makes at import.

A frozen dataclass compiles its generated methods (`__init__`, `__repr__`, `__eq__`,
`__hash__`, `__setattr__`, `__delattr__`) from source text as its module is imported:
~0.3-1.4 ms of every command's start for each class on CPython 3.11, where a hello run
spends ~30 ms of its own. A `Frozen` class names its fields in `__slots__` (its own
and its bases', in order) and writes its `__init__` (setting them with `_set`); it gets
the rest from here, as a frozen dataclass would have them: the repr `Name(field=value,
...)` in field order, equality with an object of the same class whose fields are equal,
the hash of the fields, no assignment after `__init__`, pickling. A class that users
handle as a dataclass (`dataclasses.replace`, `fields`) stays one, declared
`@dataclass(slots=True, init=False, repr=False, eq=False)` over `Frozen`: nothing is
generated, the fields are there. tests/base/test_frozen.py holds every such class to the
frozen dataclass of the same fields.
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from typing import Any

__all__ = ["Frozen"]


class Frozen:
    """A read-only value: its fields are its `__slots__` (in order), set once by `__init__` through `_set`."""

    __slots__ = ()
    _names: tuple[str, ...] = ()  # every field, bases' first: the class's and its bases' __slots__

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._names = tuple(name for klass in reversed(cls.__mro__) for name in klass.__dict__.get("__slots__", ()))

    def _set(self, **fields: Any) -> None:
        """Sets fields in `__init__` (assignment is refused afterwards)."""
        for name, value in fields.items():
            object.__setattr__(self, name, value)

    def _fields(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._names)

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._names)
        return f"{type(self).__qualname__}({shown})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._fields() == other._fields()  # type: ignore[attr-defined]
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._fields())

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __getstate__(self) -> tuple[Any, ...]:
        return self._fields()

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        for name, value in zip(self._names, state):
            object.__setattr__(self, name, value)
