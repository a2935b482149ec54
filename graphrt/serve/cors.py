"""Cross-origin requests: which web pages on other origins may call the API (`--cors-origin`).

Off unless origins are given. The CORS layer sits outside the API key's guard, so
that a browser's preflight (an OPTIONS request, which never carries the key) is
answered; the request that follows carries the key and meets the guard as any other.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["with_cors"]

_HEADERS = ["Authorization", "Content-Type", "X-API-Key", "Last-Event-ID"]  # what a page may send
_EXPOSED = ["Location", "Retry-After", "X-Graphrt-Run"]  # what a page may read of an answer


def with_cors(app: Any, origins: Sequence[str]) -> Any:
    """`app` answering cross-origin requests from `origins` (`*`: any); `app` itself when there are none."""
    if not origins:
        return app
    from starlette.middleware.cors import CORSMiddleware

    wrapped = CORSMiddleware(app, allow_origins=list(origins), allow_methods=["GET", "POST"],
                             allow_headers=_HEADERS, expose_headers=_EXPOSED, max_age=600)
    wrapped.state = app.state  # type: ignore[attr-defined] - callers reach the service through what they hold
    return wrapped
