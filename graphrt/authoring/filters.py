"""Agent filters: middleware around every agent call, as GraphAI's agentFilters.

A filter is `async def f(ctx: AgentContext, next: Next) -> Any`. It may change
the context, call `await next(ctx)` (the next filter, and after the last one
the agent itself) once, several times or not at all, and change the result:

    async def timing(ctx, next):
        started = time.perf_counter()
        try:
            return await next(ctx)
        finally:
            print(ctx.node_id, time.perf_counter() - started)

    graphrt.run("graph.yaml", filters=[timing, AgentFilter(audit, agent_ids=["fetchAgent"])])

Filters run in the order given. A filter scoped by `agent_ids` or `node_ids`
applies to a call when either list names the call's agent or node; one with
neither applies to every call (GraphAI's shouldApplyAgentFilter). Its
`filter_params` are defaults: the node's own `filterParams` override them.
Nested graphs (nestedAgent, mapAgent, ...) run with their parent's filters.
`ctx.agent_info` is the AgentInfo being called (None for a bare function).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Iterable, Mapping, Sequence

from graphrt.authoring.agent_info import AgentContext, AgentInfo, is_async_callable
from graphrt.base.errors import RegistrationError

__all__ = ["AgentFilter", "FilterFunction", "Next", "as_filters", "apply_filters"]

Next = Callable[[AgentContext], Awaitable[Any]]
FilterFunction = Callable[[AgentContext, Next], Awaitable[Any]]


@dataclass(frozen=True)
class AgentFilter:
    """A filter and where it applies (GraphAI's AgentFilterInfo).

    Args:
        func: `async def f(ctx, next) -> result`.
        agent_ids: apply to calls of these agents (None: no scope by agent).
        node_ids: apply to calls for these nodes (None: no scope by node).
        filter_params: defaults for `ctx.filter_params`; a node's `filterParams` win.
        name: a name for messages; the function's name by default.
    """

    func: FilterFunction
    agent_ids: Sequence[str] | None = None
    node_ids: Sequence[str] | None = None
    filter_params: Mapping[str, Any] = field(default_factory=dict)
    name: str = ""

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", getattr(self.func, "__name__", type(self.func).__name__))
        if not is_async_callable(self.func):
            raise RegistrationError(f"agent filter {self.name!r} must be an async function: async def f(ctx, next)")

    def applies_to(self, agent_id: str | None, node_id: str) -> bool:
        """GraphAI's rule: a listed agent or node matches; no lists at all match everything."""
        if self.agent_ids and agent_id in self.agent_ids:
            return True
        if self.node_ids and node_id in self.node_ids:
            return True
        return self.agent_ids is None and self.node_ids is None


def as_filters(filters: Iterable[AgentFilter | FilterFunction] | None) -> tuple[AgentFilter, ...]:
    """AgentFilters from filters and bare filter functions (which apply to every call)."""
    return tuple(item if isinstance(item, AgentFilter) else AgentFilter(item) for item in filters or ())


async def apply_filters(
    filters: Sequence[AgentFilter], call: Any, ctx: AgentContext, invoke: Callable[[Any, AgentContext], Awaitable[Any]]
) -> Any:
    """Calls `invoke(call, ctx)` through the filters that apply to this call, in order."""
    ctx.filter_params = dict(ctx.filter_params)  # the node's dict belongs to the compiled graph
    if isinstance(call, AgentInfo):
        ctx.agent_info = call
    active = tuple(item for item in filters if item.applies_to(ctx.agent_id, ctx.node_id))
    return await _Chain(active, 0, call, invoke)(ctx)


class _Chain:
    """`next` for the filter at `index - 1`: the filters from `index` on, then the agent."""

    __slots__ = ("filters", "index", "call", "invoke")

    def __init__(self, filters: tuple[AgentFilter, ...], index: int, call: Any,
                 invoke: Callable[[Any, AgentContext], Awaitable[Any]]) -> None:
        self.filters = filters
        self.index = index
        self.call = call
        self.invoke = invoke

    async def __call__(self, ctx: AgentContext) -> Any:
        if self.index == len(self.filters):
            return await self.invoke(self.call, ctx)
        agent_filter = self.filters[self.index]
        if agent_filter.filter_params:
            ctx.filter_params = {**agent_filter.filter_params, **ctx.filter_params}
        return await agent_filter.func(ctx, _Chain(self.filters, self.index + 1, self.call, self.invoke))
