"""Asking an LLM again: the one retry loop every provider's requests go through.

A request whose failure its provider reads as transient (`Provider.read`: a timeout, a dropped
connection, a 429 or 5xx, a reply that is no reply) is asked again, at most `maxRetries` times,
after the wait the server asked for (`retry-after-ms`, `retry-after`) or else an exponential
backoff from `retryDelay` with jitter, never more than 20 s. Each attempt is reported on its own
(LlmCallStarted, then LlmCallFinished with its usage or its error), each wait is the node's
progress ("retrying in 1.0s: ..."; tokens a failed attempt streamed are said to be void), and
the last failure is one LLMRequestError that says how many attempts were made. The SDKs' own
retries are off, so no request is retried twice over, and every provider retries alike.
"""

from __future__ import annotations

import random
from typing import Any, Awaitable, Callable, TypeVar

import anyio

from graphrt.authoring.agent_info import AgentContext

from .provider import Failure, LlmCall, Provider, llm_call
from .settings import RetryPolicy, ServerSettings

__all__ = ["MAX_RETRY_DELAY", "ask", "backoff"]

MAX_RETRY_DELAY = 20.0
"""The longest wait before a retry, in seconds, whatever the server asks."""

T = TypeVar("T")


def backoff(failure: Failure, attempt: int, base: float) -> float:
    """Seconds to wait before retry number `attempt + 1`: the server's when it said, else `base` doubled per
    attempt with up to a quarter more of jitter; at most MAX_RETRY_DELAY."""
    if failure.retry_after is not None:
        return min(max(failure.retry_after, 0.0), MAX_RETRY_DELAY)
    return min(base * 2**attempt * (1 + random.random() / 4), MAX_RETRY_DELAY)


async def ask(ctx: AgentContext, provider: Provider, server: ServerSettings, model: str | None, policy: RetryPolicy,
              attempt: Callable[[LlmCall], Awaitable[T]], *,
              recover: Callable[[Exception, str], bool] | None = None, system: str | None = None,
              prompt: Any = None, max_tokens: Any = None) -> T:
    """Makes a request, and makes it again while it fails in a way worth another attempt.

    Args:
        ctx: the node's context, which gets the events and the progress.
        provider: whose request it is: how its errors read, its name in events and errors.
        server: where it goes, for the error text (and its key, which that text never shows).
        model: the model asked, for LlmCallStarted.
        policy: how many retries, and the first wait.
        attempt: makes one request; it reports its reply with `call.finished(...)` and streams
            with `call.token(text)`.
        recover: a refusal the request can do without: given the error and its text, it changes the
            request and says True to ask again at once, uncounted (openAIAgent's grammar).
        system, prompt, max_tokens: what the run's usage names the provider (default `provider.system`), what is
            sent, and the most the reply may write: see `llm_call`.

    Returns:
        What the attempt that succeeded returned.

    Raises:
        LLMRequestError: the request failed in a way not worth retrying, or on every attempt.
        BudgetExceeded: the next attempt would pass a budget of the run: it is not made.
    """
    attempts = 0
    while True:
        call: LlmCall | None = None
        try:
            async with llm_call(ctx, provider, model, server, system=system, prompt=prompt,
                                max_tokens=max_tokens) as call:
                return await attempt(call)
        except Exception as error:
            failure = provider.read(error)
            if failure is None:
                raise
            if failure.retry_after is not None and ctx.meter is not None:  # every call of the label waits, not this one
                ctx.meter.throttled(system or provider.system, model, failure.retry_after)
            said = provider.said(error, server)
            if recover is not None and recover(error, said):
                continue
            if not failure.transient or attempts >= policy.retries:
                raise provider.failure(server, failure.what, attempts + 1, agent=ctx.agent_id) from None
            # Tokens that streamed from a failed attempt are void: its LlmCallFinished carries the error.
            void = f" (the {call.tokens} tokens streamed are void)" if call is not None and call.tokens else ""
            wait = backoff(failure, attempts, policy.delay)
            ctx.progress(f"retrying in {wait:.1f}s: {said}{void}", {"attempt": attempts + 1})
            await anyio.sleep(wait)
            attempts += 1
