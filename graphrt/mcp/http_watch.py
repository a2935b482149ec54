"""Why an HTTP MCP server's requests failed: what the SDK's "Connection closed" does not say.

The SDK's streamable HTTP client turns a request that could not be made (the
server was killed, its port refuses connections, it answered 5xx or no longer
knows the session) into a closed connection, and the reason is gone. The HTTP
client graphrt gives it sends every request through a `WatchedTransport`,
which remembers the last failure, so that the error can say which server, at
which URL, and why; and supervision.py can tell a server that went away from
one that answered.
"""

from __future__ import annotations

from typing import Any

__all__ = ["WatchedTransport", "watched_http_client", "describe_http_failure"]


def describe_http_failure(error: BaseException) -> str:
    """A request's failure as a person reads it (the refused connection, the timeout, ...)."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, ConnectionRefusedError):
            return "the connection was refused (is it running?)"
        seen = seen.__cause__ or seen.__context__
    text = str(error)
    if "refused" in text.lower() or "connect call failed" in text.lower():
        return "the connection was refused (is it running?)"
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def watched_http_client(headers: dict[str, str] | None) -> tuple[Any, "WatchedTransport"]:
    """An HTTP client as the SDK makes one (its timeouts), whose requests a WatchedTransport watches."""
    import httpx2
    from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT

    watch = WatchedTransport(httpx2.AsyncHTTPTransport())
    client = httpx2.AsyncClient(timeout=httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT),
                                headers=headers or None, transport=watch)
    return client, watch


def _base() -> type:
    import httpx2

    return httpx2.AsyncBaseTransport


class WatchedTransport(_base()):  # type: ignore[misc] - httpx2's base, imported with the mcp extra
    """A transport that remembers why the last request failed (None once one succeeds)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.problem: str | None = None

    async def handle_async_request(self, request: Any) -> Any:
        try:
            response = await self.inner.handle_async_request(request)
        except Exception as error:  # noqa: BLE001 - remembered, then raised as it was
            self.problem = describe_http_failure(error)
            raise
        if response.status_code >= 500:
            self.problem = f"it answered HTTP {response.status_code}"
        elif response.status_code == 404 and request.headers.get("mcp-session-id"):
            self.problem = "it no longer knows the session (did it restart?)"
        elif response.status_code < 400:
            self.problem = None
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()
