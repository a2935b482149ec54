"""Generator agents: progress updates and partial results while an agent works.

An agent written as a generator (async or not) reports as it goes:

    @graphrt.agent
    async def crawl(urls: list[str]) -> AsyncIterator[list[str] | Progress]:
        pages = []
        for n, url in enumerate(urls, 1):
            yield Progress(f"fetching {url}", data={"done": n - 1, "total": len(urls)})
            pages.append(await fetch(url))
            yield pages

- `yield Progress(message, data)` reports progress: an AgentProgress event
  (`ctx.progress`) that every subscriber of the run sees. It
  does not change the result.
- Any other value yielded is the node's result so far; it is reported as an
  AgentProgress event with message "partial result" and the value as data.
- The node's result is the last value yielded (None if nothing was).

A generator stopped early (timeout, abort) is closed, so its `finally` blocks run.
"""

from __future__ import annotations

from contextlib import aclosing, closing
from dataclasses import dataclass
from typing import Any, AsyncIterator, Iterator, Protocol

__all__ = ["Progress", "PARTIAL_RESULT", "Reporter", "drain", "drain_sync"]

PARTIAL_RESULT = "partial result"


class Reporter(Protocol):
    """Where a generator agent's items are reported: its call's AgentContext (graphrt.authoring.agent_info), which
    imports this module, so this one names only the method it calls."""

    def progress(self, message: str, data: Any = None) -> None:
        """Reports progress as an AgentProgress event."""
        ...


@dataclass(frozen=True)
class Progress:
    """A progress update a generator agent yields; `data` is any extra detail (JSON-like)."""

    message: str
    data: Any = None


def _report(ctx: Reporter, item: Any) -> bool:
    """Reports one yielded item; True when it is a (partial) result."""
    if isinstance(item, Progress):
        ctx.progress(item.message, item.data)
        return False
    ctx.progress(PARTIAL_RESULT, item)
    return True


async def drain(items: AsyncIterator[Any], ctx: Reporter) -> Any:
    """Runs an async generator agent to its end; returns the last result it yielded."""
    result = None
    async with aclosing(items):  # type: ignore[type-var]
        async for item in items:
            if _report(ctx, item):
                result = item
    return result


def drain_sync(items: Iterator[Any], ctx: Reporter) -> Any:
    """`drain` for a plain generator (it runs in a worker thread)."""
    result = None
    with closing(items):  # type: ignore[type-var]
        for item in items:
            if _report(ctx, item):
                result = item
    return result
