"""graphrt's built-in agent filters: a result cache, input validation, token streaming.

    graphrt.run(graph, filters=[input_validation_filter(), cache_filter(store), stream_filter()])

Each returns an AgentFilter; `agent_ids` / `node_ids` scope it (see graphrt.authoring.filters).
"""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass
from typing import Any, Callable, MutableMapping, Sequence

from graphrt.authoring.filters import AgentFilter, Next
from graphrt.authoring.functions import inputs_error
from graphrt.authoring.agent_info import AgentContext
from graphrt.base.jsvalue import json_stringify, to_json_compatible
from graphrt.base.schema import violations

__all__ = ["Cache", "cache_key", "cache_filter", "input_validation_filter", "stream_filter"]

PURE = "pureAgent"
IMPURE = "impureAgent"


def cache_key(ctx: AgentContext) -> str:
    """A hash of the agent id, the inputs and the params (object keys sorted, as GraphAI's)."""
    seed = {"agentId": ctx.agent_id, "namedInputs": to_json_compatible(ctx.inputs), "params": to_json_compatible(ctx.params)}
    text = json.dumps(seed, sort_keys=True, ensure_ascii=False, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class Cache:
    """What an impure agent finds in `ctx.filter_params["cache"]` to cache what it chooses."""

    store: MutableMapping[str, Any]

    def key(self, ctx: AgentContext) -> str:
        return cache_key(ctx)

    def get(self, key: str, default: Any = None) -> Any:
        return copy.deepcopy(self.store.get(key, default))

    def set(self, key: str, value: Any) -> None:
        self.store[key] = copy.deepcopy(value)


def cache_filter(
    store: MutableMapping[str, Any] | None = None,
    *,
    agent_ids: Sequence[str] | None = None,
    node_ids: Sequence[str] | None = None,
    cache_undeclared: bool = False,
) -> AgentFilter:
    """Caches the results of pure agents (GraphAI's cacheAgentFilter).

    An agent declared `cache_type="pureAgent"` is called once per key
    (`cache_key`: agent, inputs, params); later calls get a copy of the stored
    result. An agent declared `"impureAgent"` is always called, with a `Cache`
    in `ctx.filter_params["cache"]`. Agents that declare neither are called as
    usual, unless `cache_undeclared` (GraphAI caches them too).

    Args:
        store: where results are kept, e.g. a dict or a shelve; a new dict by default.
        agent_ids: only these agents.
        node_ids: only these nodes.
        cache_undeclared: also cache agents without a cache type.
    """
    cache = Cache({} if store is None else store)

    async def cache_results(ctx: AgentContext, next: Next) -> Any:
        cache_type = ctx.agent_info.cache_type if ctx.agent_info is not None else None
        if cache_type == IMPURE:
            ctx.filter_params["cache"] = cache
            return await next(ctx)
        if cache_type != PURE and not (cache_type is None and cache_undeclared):
            return await next(ctx)
        key = cache_key(ctx)
        if key in cache.store:
            return cache.get(key)
        result = await next(ctx)
        cache.set(key, result)
        return result

    return AgentFilter(cache_results, agent_ids=agent_ids, node_ids=node_ids, name="cache")


def input_validation_filter(*, agent_ids: Sequence[str] | None = None, node_ids: Sequence[str] | None = None) -> AgentFilter:
    """Checks every agent's inputs against its `inputs` schema before it runs (GraphAI's namedInputValidatorFilter).

    Agents made with @graphrt.agent check their arguments themselves; this
    filter brings the same check to hand-written agents. An `array` schema (old
    positional inputs) is not checked, as in GraphAI.

    Raises:
        AgentError: from the agent call, naming the node, the agent and the field.
    """
    async def validate_inputs(ctx: AgentContext, next: Next) -> Any:
        info = ctx.agent_info
        schema = info.inputs if info is not None else None
        if schema and schema.get("type") != "array" and not info.checks_inputs:
            inputs = {key: value for key, value in ctx.inputs.items() if key != "params"}  # merged into params
            found = violations(schema, inputs)
            if found:
                raise inputs_error(found, ctx.agent_id)
        return await next(ctx)

    return AgentFilter(validate_inputs, agent_ids=agent_ids, node_ids=node_ids, name="input validation")


def stream_filter(
    callback: Callable[[AgentContext, Any], Any] | None = None,
    *,
    agent_ids: Sequence[str] | None = None,
    node_ids: Sequence[str] | None = None,
) -> AgentFilter:
    """Forwards what agents stream through `filter_params["streamTokenCallback"]` (GraphAI's convention).

    By default each piece becomes a TokenDelta event (`ctx.stream_token`);
    a piece that is not text is sent as its JSON. `callback(ctx, data)`
    replaces that, as GraphAI's streamAgentFilterGenerator does.
    """
    def forward(ctx: AgentContext, data: Any) -> None:
        ctx.stream_token(data if isinstance(data, str) else json_stringify(data))

    send = callback or forward

    async def stream_tokens(ctx: AgentContext, next: Next) -> Any:
        ctx.filter_params["streamTokenCallback"] = lambda data: send(ctx, data)
        return await next(ctx)

    return AgentFilter(stream_tokens, agent_ids=agent_ids, node_ids=node_ids, name="stream")
