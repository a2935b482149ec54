"""The LLM pack's errors: a request that failed, and a reply that is no reply.

They are every provider's, so they sit below every provider: `provider.py` hands them out
with the rest of what providers share, and no agent's module is imported to raise one.
"""

from __future__ import annotations

from graphrt.base.errors import AgentError

__all__ = ["LLMRequestError", "MalformedReplyError"]


class LLMRequestError(AgentError):
    """Raised when the server refuses a request, or keeps failing after every retry."""


class MalformedReplyError(LLMRequestError):
    """Raised when a server answers, but not with a whole reply (not the API's shape, a stream cut short,
    no text and no tool call); every LLM agent raises it, and retries it. A lost reply never looks like one."""
