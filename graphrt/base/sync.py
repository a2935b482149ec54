"""The one way graphrt gives synchronous callers its async functions: `blocking(afunction)`.

Every entry point is written once, as a coroutine function (`arun`, `aresume`,
`Graph.arun`, ...); its synchronous form is `blocking` of it, with the same
parameters and docstring plus `backend` ("asyncio" or "trio").
"""

from __future__ import annotations

import functools
from typing import Any, Awaitable, Callable, TypeVar

import anyio

__all__ = ["blocking"]

_T = TypeVar("_T")


def blocking(function: Callable[..., Awaitable[_T]]) -> Callable[..., _T]:
    """`function` for synchronous callers: runs it to the end in a new event loop and returns its result."""

    @functools.wraps(function)
    def call(*args: Any, backend: str = "asyncio", **kwargs: Any) -> _T:
        return anyio.run(functools.partial(function, *args, **kwargs), backend=backend)

    summary = f"`{function.__name__}()` for synchronous callers; `backend` is \"asyncio\" or \"trio\"."
    call.__doc__ = f"{summary}\n\n{function.__doc__}" if function.__doc__ else summary
    return call
