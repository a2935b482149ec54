"""`RunMeter`: what a run spends, counted as its calls are made.

Every agent call of a run, nested ones included, gets the run's one meter (`ctx.meter`, typed by
graphrt.base.usage's `Meter`). An LLM agent's every attempt goes through it (graphrt_agents.llm.retries):
`start_call` before it is sent, `end_call` with what its reply said, priced from the config's
`prices`, into the run's `UsageLedger` (per node, nested graph and map row, and for the run). A
tool call an LLM asked for goes through `tool_call`. A node run again for its `retry` tells the
meter (`attempt_started`, `void`), so that what its failed attempt spent counts as retried, not used.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Mapping

from graphrt.base.usage import CallUsage, MeteredCall, PriceTable, Usage
from graphrt.observe.usage_ledger import Path, UsageLedger

__all__ = ["RunMeter", "UsageSettings", "USAGE_KEYS"]

USAGE_KEYS = ("prices",)
"""The config file's keys that are usage settings, not an agent's config."""


class UsageSettings:
    """What the config file says of usage (`prices`), read once per prepared graph.

    Raises:
        UsageConfigError: the prices cannot be used; its one line names `where` and the key.
    """

    __slots__ = ("prices",)

    def __init__(self, config: Mapping[str, Any] | None = None, where: str = "config") -> None:
        config = config or {}
        self.prices = PriceTable(config.get("prices"), where=f"{where}: prices")


_NO_SETTINGS = UsageSettings()


class RunMeter:
    """The meter of one run: its ledger of what was spent, and its prices.

    Args:
        settings: the config's prices.
        before: what the run spent before it was resumed: its totals go on from it.
    """

    __slots__ = ("prices", "ledger", "_started", "_ended", "_before_seconds")

    def __init__(self, settings: UsageSettings | None = None, *, before: Usage | None = None) -> None:
        settings = settings or _NO_SETTINGS
        self.prices = settings.prices
        self.ledger = UsageLedger(before)
        self._started = time.monotonic()
        self._ended: float | None = None
        self._before_seconds = before.seconds if before is not None else 0.0

    # ----- reading it -----

    @property
    def seconds(self) -> float:
        """The run's wall-clock time, across its resumptions."""
        end = self._ended if self._ended is not None else time.monotonic()
        return self._before_seconds + end - self._started

    def usage(self) -> Usage:
        """What the run spent so far (its nodes, nested graphs and map rows are in `ledger`)."""
        usage = self.ledger.run
        usage.seconds = self.seconds
        return usage

    def ended(self) -> None:
        """The run stopped: its time stops with it."""
        if self._ended is None:
            self._ended = time.monotonic()

    # ----- node attempts (the engine's) -----

    def attempt_started(self, path: Path, node_id: str) -> None:
        """A node with retries starts an attempt: what it spends from here on is the attempt's (see `void`)."""
        self.ledger.attempt_started(path, node_id)

    def void(self, path: Path, node_id: str) -> None:
        """The node's attempt failed and it runs again: what that attempt spent counts as retried, not used."""
        self.ledger.void(path, node_id)

    # ----- calls (the agents') -----

    def start_call(self, path: Path, node_id: str, provider: str, model: str | None, *, prompt_tokens: int,
                   max_tokens: int | None = None) -> MeteredCall:
        prompt_tokens = max(int(prompt_tokens), 1)
        return MeteredCall(path, node_id, provider, model, tokens=prompt_tokens + max(int(max_tokens or 0), 0),
                           prompt_tokens=prompt_tokens)

    async def wait_turn(self, call: MeteredCall, on_wait: Callable[[float, str], None] | None = None) -> None:
        return None

    def end_call(self, call: MeteredCall, usage: CallUsage | None, *, kept: bool) -> float | None:
        cost = self.prices.cost(usage)
        self.ledger.add_call(call.path, call.node_id, usage, cost, kept=kept, label=call.label)
        return cost

    def tool_call(self, path: Path, node_id: str) -> None:
        self.ledger.add_tool_call(path, node_id)

    def throttled(self, provider: str, model: str | None, seconds: float) -> None:
        return None
