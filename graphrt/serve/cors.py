"""Cross-origin requests: which web pages on other origins may call the API (`--cors-origin`).

Off unless origins are given. The CORS layer sits outside the API key's guard, so
that a browser's preflight (an OPTIONS request, which never carries the key) is
answered; the request that follows carries the key and meets the guard as any other.
Whether an origin may come in at all is serve/origin.py's to decide (it refuses
the others with 403 before they get here); this module only adds the headers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["with_cors"]

# what a page may send (the MCP endpoint's session headers too)
_HEADERS = ["Authorization", "Content-Type", "X-API-Key", "Last-Event-ID", "Mcp-Session-Id", "Mcp-Protocol-Version"]
_EXPOSED = ["Location", "Retry-After", "X-Graphrt-Run", "Mcp-Session-Id"]  # what a page may read of an answer


def with_cors(app: Any, origins: Sequence[str]) -> Any:
    """`app` answering cross-origin requests from `origins` (`*`: any); `app` itself when there are none."""
    if not origins:
        return app
    from starlette.middleware.cors import CORSMiddleware

    return CORSMiddleware(app, allow_origins=list(origins), allow_methods=["GET", "POST"],
                          allow_headers=_HEADERS, expose_headers=_EXPOSED, max_age=600)
