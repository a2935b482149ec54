"""What a request to the run service is refused with, besides a GraphError of the graph: each with its HTTP status.

They are RequestErrors (graphrt.base.errors): app.py answers each with its `status` and `headers`.
"""

from __future__ import annotations

from graphrt.base.errors import RequestError

__all__ = ["QueueFull", "RunConflict", "RunNotFound"]


class RunNotFound(RequestError):
    """Raised for a run (or graph) this server does not have."""

    status = 404


class RunConflict(RequestError):
    """Raised when the run is not in a state that allows the request (answering a run that asks nothing, ...)."""

    status = 409


class QueueFull(RequestError):
    """Raised when the queue is at its bound; `retry_after` is a guess in seconds of when a slot frees up."""

    status = 429

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"the run queue is full; retry after {retry_after} s",
                         headers={"Retry-After": str(retry_after)})
        self.retry_after = retry_after

