"""MCP servers restarted when they die: what a long-running process (graphrt serve, graphrt mcp) needs.

A server that exited (its connection ended) or failed to start is started again by
the next call that needs it, so one crash does not fail every later run until the
whole process restarts. An HTTP server (streamable HTTP) that went away (killed,
refusing connections, answering 5xx, or restarted and no longer knowing the
session) is reached again the same way, in a new session; its errors say at which
URL and why (http_watch.py), and "tried again" where a stdio server is "started again". Restarts back off: the first is at once, then each failure
in a row doubles the wait (0.5 s, 1 s, 2 s, ... bounded at 60 s); a call during the
wait fails at once, saying when the next start is, rather than waiting. A call that
gets an answer resets the count. The count is kept per set of run services (a
server's shared services, or one run's) and per MCP server, by the run services
themselves (`RunServices.record`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from graphrt.authoring.services import RunServices

__all__ = ["MAX_BACKOFF_SECONDS", "Restarts", "restarts_of"]

FIRST_BACKOFF_SECONDS = 0.5
MAX_BACKOFF_SECONDS = 60.0


@dataclass
class Restarts:
    """One MCP server's failures in a row, and when it may be started again."""

    failures: int = 0
    retry_at: float = 0.0  # time.monotonic()
    problem: str = ""  # how it last failed
    _last: Any = field(default=None, repr=False)  # what failed last (a connection, a start's error): counted once

    def failed(self, problem: str, what: Any = None) -> None:
        """The server died or could not start (`what`: the connection or error, counted once): the next start
        waits a little longer."""
        if what is not None and what is self._last:
            return
        self._last = what
        self.failures += 1
        self.problem = problem
        backoff = 0.0 if self.failures == 1 else min(MAX_BACKOFF_SECONDS,
                                                     FIRST_BACKOFF_SECONDS * 2 ** (self.failures - 2))
        self.retry_at = time.monotonic() + backoff

    def answered(self) -> None:
        """The server answered a request: it is healthy again."""
        self.failures = 0
        self.problem = ""

    def wait_left(self) -> float:
        """Seconds until the server may be started again (0: now)."""
        return max(0.0, self.retry_at - time.monotonic())


def restarts_of(services: RunServices, server: str) -> Restarts:
    """The restart record of MCP server `server` in a set of run services (made on first use)."""
    return services.record(("mcp restarts", server), Restarts)
