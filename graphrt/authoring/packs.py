"""Agent packs: which pack an agent is in, what the pack needs installed, and GraphAI's agents graphrt lacks.

An `AgentIndex` (registry.py) says, beside its agents by module, which pack each
module belongs to (`Pack`, by module prefix) and which of GraphAI's agents it does
not provide (`Unavailable`). A `Pack` with an `extra` needs that pip extra of graphrt
(`graphrt[anthropic]`); when a module the extra installs cannot be found, the pack's
agents stay known by name, and validation, `graphrt agents` and the first use of such
an agent all say which extra to install instead of "unknown agent". graphrt's own
table is in `graphrt_agents` (agents/__init__.py); a third-party pack declares its own
in its AgentIndex the same way.
"""

from __future__ import annotations

from graphrt.base.frozen import Frozen

__all__ = ["Pack", "Unavailable"]


class Pack(Frozen):
    """A group of agents that is installed together, e.g. `Pack("anthropic", extra="anthropic", requires=("anthropic",))`.

    `name` is what `graphrt agents` shows. `extra` is graphrt's pip extra that installs
    the pack's dependencies (empty: they come with graphrt); `requires` names the
    top-level modules that extra installs, which are looked for (not imported) to tell
    whether it is installed. `distribution` is the package to pip-install: "graphrt" for
    graphrt's own packs, a third-party pack's own name otherwise.
    """

    __slots__ = ("name", "extra", "requires", "distribution")
    name: str
    extra: str
    requires: tuple[str, ...]
    distribution: str

    def __init__(self, name: str, extra: str = "", requires: tuple[str, ...] = (), distribution: str = "graphrt") -> None:
        self._set(name=name, extra=extra, requires=requires, distribution=distribution)

    @property
    def install(self) -> str:
        """What to install: `graphrt[anthropic]` (or the distribution alone for a pack without an extra)."""
        if not self.extra:
            return self.distribution
        from graphrt.base.extras import install_line

        return install_line(self.extra, self.distribution)

    def missing(self) -> tuple[str, ...]:
        """The modules of `requires` that cannot be found (empty when the pack is usable)."""
        if not self.requires:  # most packs need nothing more than graphrt: nothing to look for
            return ()
        from graphrt.base.extras import missing

        return missing(self.requires)

    def not_installed(self, agent: str) -> str | None:
        """Why `agent` of this pack cannot run, naming what to install; None when its modules are there."""
        missing = self.missing()
        if not missing:
            return None
        return (f"agent '{agent}' is in {self.install}, which is not installed (no module {', '.join(missing)}): "
                f"pip install '{self.install}'")


class Unavailable(Frozen):
    """One of GraphAI's agents that a pack knows of but does not provide, and why (e.g. it needs a paid service)."""

    __slots__ = ("graphai_package", "reason", "instead")
    graphai_package: str
    reason: str
    instead: str

    def __init__(self, graphai_package: str, reason: str, instead: str = "") -> None:
        self._set(graphai_package=graphai_package, reason=reason, instead=instead)

    def explain(self, agent: str) -> str:
        """The validation message: `agent 'browserlessAgent' (GraphAI's @graphai/...) is not available: <reason>`."""
        text = f"agent '{agent}' (GraphAI's {self.graphai_package}) is not available: {self.reason}"
        return f"{text}; {self.instead}" if self.instead else text
