"""Regular expressions compiled on first use.

Most of graphrt's patterns serve rare paths: redacting a credential, reading a
malformed number, an error's position. Compiling them all when their modules are
imported cost every command ~3 ms of its start (`python -m bench startup`), for
patterns a run mostly never uses. A `LazyPattern` compiles when it is first used,
and from then on hands out the compiled pattern's own methods, so a call costs
what a call on `re.compile`'s result costs. Patterns on the per-node path
(references, the YAML reader) stay plain `re.compile`.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["LazyPattern"]


class LazyPattern:
    """`re.compile(source, flags)`, compiled when an attribute (`search`, `sub`, `pattern`...) is first asked for."""

    def __init__(self, source: str, flags: int = 0) -> None:
        self._source = source
        self._flags = flags

    @property
    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern, for code that needs an `re.Pattern` itself (`re.sub(pattern, ...)`)."""
        compiled = self.__dict__.get("_compiled")
        if compiled is None:
            compiled = self.__dict__["_compiled"] = re.compile(self._source, self._flags)
        return compiled

    def __getattr__(self, name: str) -> Any:
        # Only called for what the instance lacks: the first use of each method. Keep it on the
        # instance, so that the next lookup finds the compiled pattern's bound method directly.
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(self.compiled, name)
        self.__dict__[name] = value
        return value

    def __repr__(self) -> str:
        return f"LazyPattern({self._source!r}, {self._flags!r})"
