"""One HTTP call of a net agent: sent within the agent's limits (graphrt_agents._http), read as text or JSON."""

from __future__ import annotations

from typing import Any, Mapping

from graphrt.authoring.agent_info import AgentContext

from .._http import Limits, Response, send

__all__ = ["call"]


async def call(ctx: AgentContext, agent: str, method: str, url: str, headers: Mapping[str, Any],
               body: str | None = None) -> Response:
    """Sends one request as fetch does, bounded by the agent's config (`timeout`, `maxBytes`, `maxRedirects`).

    Raises:
        FetchFailed: no connection, no answer in time, or an answer past the limits (fetch's "fetch failed").
    """
    return await send(method, url, headers, body, Limits.from_config(ctx.config, agent))
