"""`RunMeter`: what a run spends, counted as its calls are made, and what it may spend.

Every agent call of a run, nested ones included, gets the run's one meter (`ctx.meter`, typed by
graphrt.base.usage's `Meter`). An LLM agent's every attempt goes through it (graphrt_agents.llm.retries):
`start_call` checks the budgets (graphrt.base.budget) before it is sent and holds what the call may
spend while it is in flight, `end_call` counts what its reply said, priced from the config's
`prices`, into the run's `UsageLedger` (per node, nested graph and map row, and for the run). A
tool call an LLM asked for goes through `tool_call`. A node run again for its `retry` tells the
meter (`attempt_started`, `void`), so that what its failed attempt spent counts as retried, not used.

A budget stops the run before a call that would pass it, never during one: the run keeps every
result it has, and its error is a `BudgetExceeded` that names the limit, what was spent and the
node. Once the run's budget is spent, every later call of the run is refused alike (the meter is
`stopped`), so nodes in flight end their call and make no other; a node's budget (`nodes:` of the
budget) refuses the calls of that node (each instance of it: a map row's apart) only.

What "would pass" means, per unit: `llm_calls` and `tool_calls` count the call itself; `tokens`
counts what was spent, what calls in flight may spend (their prompt and `max_tokens`) and the call's
prompt, as estimated before it is sent, so that a reply may go past the limit by at most what it
writes (its `max_tokens`); `cost` the same in USD, so a cost limit refuses a call whose model has no
price (its cost could not be kept under it); `seconds` the run's time across its resumptions (a node's:
from its first call).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable, Mapping

from graphrt.base.errors import BudgetExceeded, UsageConfigError

if TYPE_CHECKING:
    from graphrt.base.budget import Budget, Limits
    from graphrt.base.usage import CallUsage, MeteredCall, PriceTable, Usage
    from graphrt.observe.rate_limits import RateWindow
    from graphrt.observe.usage_ledger import Path, UsageLedger

    _Key = tuple[Path, str] | None  # a budget: the run's (None), or a node instance's (its path and id)

# A run that calls no LLM and has no budget (most runs of plain agents) imports none of the modules above: what it
# spends is counted from its first call on (base/usage.py, usage_ledger.py), its budget read when it has one.

__all__ = ["RunMeter", "UsageSettings", "USAGE_KEYS"]

USAGE_KEYS = ("prices", "budget", "rate_limits")
"""The config file's keys that are usage settings, not an agent's config."""


class UsageSettings:
    """What the config file says of usage (`prices`, `budget`, `rate_limits`), read once per prepared graph;
    `prices` and `budget` are None when it gives none.

    Raises:
        UsageConfigError: one of them cannot be used; its one line names `where` and the key.
    """

    __slots__ = ("prices", "budget", "rate_limits")

    def __init__(self, config: Mapping[str, Any] | None = None, where: str = "config") -> None:
        config = config or {}
        self.prices: PriceTable | None = None
        if config.get("prices") is not None:
            from graphrt.base.usage import PriceTable

            self.prices = PriceTable(config["prices"], where=f"{where}: prices")
        given = config.get("budget")
        self.budget: Budget | None = None
        if given is not None:
            from graphrt.base.budget import Budget

            self.budget = Budget.of(given, f"{where}: budget")
        limits = config.get("rate_limits")
        self.rate_limits: Any = None  # the process's RateLimits for them (graphrt.observe.rate_limits)
        if limits is not None:
            from graphrt.observe.rate_limits import RateLimits  # a config without limits never imports the pacing

            self.rate_limits = RateLimits.shared(limits, where=f"{where}: rate_limits")


_NO_SETTINGS = UsageSettings()


class _Held:
    """What a budget holds for its calls in flight, so that calls at once cannot pass it together."""

    __slots__ = ("calls", "tokens", "cost")

    def __init__(self) -> None:
        self.calls = 0
        self.tokens = 0
        self.cost = 0.0


class RunMeter:
    """The meter of one run: its ledger of what was spent, its prices and its budget.

    Args:
        settings: the config's prices and budget.
        budget: the run's own budget (RunOptions.budget), over the config's.
        before: what the run spent before it was resumed: its totals go on from it, and its budget counts it.
        rate_window: where the rate limits count the run's calls (a graphrt.observe.rate_limits RateWindow: its
            store's, which the processes on the store share); None: this process's memory.

    Raises:
        UsageConfigError: a limit of the run's budget is not above what it spent before it was resumed.
    """

    __slots__ = ("prices", "budget", "rate_limits", "stopped", "_ledger", "_before", "_started", "_ended",
                 "_before_seconds", "_held", "_node_started", "_refused")

    def __init__(self, settings: UsageSettings | None = None, *, budget: Budget | None = None,
                 before: Usage | None = None, rate_window: RateWindow | None = None) -> None:
        settings = settings or _NO_SETTINGS
        self.prices = settings.prices
        merged = budget.over(settings.budget) if budget is not None else settings.budget
        self.budget: Budget | None = merged if merged else None
        self.rate_limits = settings.rate_limits  # None: only a provider's Retry-After paces the calls
        if self.rate_limits is not None and rate_window is not None:
            self.rate_limits = self.rate_limits.over(rate_window)
        self._ledger: UsageLedger | None = None  # made on first use: a run that spends nothing needs none
        self._before = before
        self.stopped: BudgetExceeded | None = None  # the run's budget was spent: every call is refused
        self._started = time.monotonic()
        self._ended: float | None = None
        self._before_seconds = before.seconds if before is not None else 0.0
        self._held: dict[_Key, _Held] = {}
        self._node_started: dict[tuple[Path, str], float] = {}  # budgeted nodes' first call, for their `seconds`
        self._refused: set[tuple[Path, str]] = set()  # node instances their own budget stopped
        if self.budget is not None and before is not None:
            self._check_room(before)

    def _check_room(self, before: Usage) -> None:
        for unit, limit in self.budget.run.items():  # type: ignore[union-attr]
            spent = _spent(before, unit)
            if spent >= limit:
                shown = f"{spent:.4f}" if unit == "cost" else f"{spent:g}"
                raise UsageConfigError(f"budget: {unit}={limit:g} is not above what the run spent before it was "
                                       f"resumed ({shown}): give a larger budget to resume it")

    # ----- reading it -----

    @property
    def seconds(self) -> float:
        """The run's wall-clock time, across its resumptions."""
        end = self._ended if self._ended is not None else time.monotonic()
        return self._before_seconds + end - self._started

    @property
    def ledger(self) -> UsageLedger:
        """What the run spent, per node, nested graph and map row, and in all."""
        if self._ledger is None:
            from graphrt.observe.usage_ledger import UsageLedger

            self._ledger = UsageLedger(self._before)
        return self._ledger

    @property
    def counted(self) -> bool:
        """Whether the run may have spent anything: False when nothing was counted (no ledger made) and nothing
        came before it (a resumed run's), so that `usage()` would be empty but for its seconds."""
        return self._ledger is not None or self._before is not None

    def usage(self) -> Usage:
        """What the run spent so far (its nodes, nested graphs and map rows are in `ledger`)."""
        if self._ledger is None and self._before is None:  # nothing spent, nothing before: no ledger to make
            from graphrt.base.usage import Usage

            usage = Usage()
        else:
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

    def refuses(self, path: Path, node_id: str) -> bool:
        """Whether a budget stopped the node (the run's, or its own): running it again would be refused too."""
        return self.stopped is not None or (path, node_id) in self._refused

    # ----- calls (the agents') -----

    def start_call(self, path: Path, node_id: str, provider: str, model: str | None, *, prompt_tokens: int,
                   max_tokens: int | None = None) -> MeteredCall:
        from graphrt.base.usage import CallUsage, MeteredCall

        prompt_tokens = max(int(prompt_tokens), 1)
        call = MeteredCall(path, node_id, provider, model, tokens=prompt_tokens + max(int(max_tokens or 0), 0),
                           prompt_tokens=prompt_tokens)
        if self.stopped is not None:
            raise self._again(path, node_id)
        if self.budget is not None:
            price = self.prices.price(CallUsage(provider, model, asked=model)) if self.prices is not None else None
            budgets = self._budgets(path, node_id)
            for key, limits, spent in budgets:
                self._check(key, limits, spent, path, node_id, llm=True, tokens=prompt_tokens,
                            cost=None if price is None else prompt_tokens * price.input / 1_000_000,
                            label=call.label)
            # Held while in flight: its whole prompt and its most output, at the dearer of the two prices.
            cost = call.tokens * max(price.input, price.output) / 1_000_000 if price is not None else 0.0
            for key, _, _ in budgets:
                hold = self._held.get(key)
                if hold is None:
                    hold = self._held[key] = _Held()
                hold.calls += 1
                hold.tokens += call.tokens
                hold.cost += cost
            call.held = ([key for key, _, _ in budgets], cost)
        return call

    async def wait_turn(self, call: MeteredCall, on_wait: Callable[[float, str], None] | None = None) -> None:
        limits = self.rate_limits
        if limits is None:
            from graphrt.observe.rate_limits import PROCESS_WINDOW  # a provider's Retry-After holds every call

            if PROCESS_WINDOW.held_now(call.label, call.provider) <= 0:
                return
            limits = _holds()
        grant = await limits.acquire(call.label, call.tokens, on_wait)
        if grant is not None:
            call.grant = (limits, grant)
            if grant.waited:
                call.waited = grant.waited
                self.ledger.add_wait(call.path, call.node_id, grant.waited)

    def end_call(self, call: MeteredCall, usage: CallUsage | None, *, kept: bool) -> float | None:
        if call.held is not None:
            keys, cost = call.held
            call.held = None
            for key in keys:
                hold = self._held[key]
                hold.calls -= 1
                hold.tokens -= call.tokens
                hold.cost -= cost
        cost = self.prices.cost(usage) if self.prices is not None else None
        self.ledger.add_call(call.path, call.node_id, usage, cost, kept=kept, label=call.label)
        if call.grant is not None:  # the window counts what the reply said it used, not what was reserved
            limits, grant = call.grant
            call.grant = None
            said = usage is not None and usage.has_tokens
            limits.settle(grant, (usage.input_tokens or 0) + (usage.output_tokens or 0) if said else None)
        return cost

    def tool_call(self, path: Path, node_id: str) -> None:
        if self.stopped is not None:
            raise self._again(path, node_id)
        if self.budget is not None:
            for key, limits, spent in self._budgets(path, node_id):
                self._check(key, limits, spent, path, node_id, llm=False)
        self.ledger.add_tool_call(path, node_id)

    def throttled(self, provider: str, model: str | None, seconds: float) -> None:
        from graphrt.observe.rate_limits import PROCESS_WINDOW

        label = f"{provider}:{model}" if model else provider
        PROCESS_WINDOW.hold(label, seconds)  # every call of the process
        if self.rate_limits is not None and self.rate_limits.window is not PROCESS_WINDOW:
            self.rate_limits.hold(label, seconds)  # and the limited calls of every process that shares the window

    # ----- budgets -----

    def _budgets(self, path: Path, node_id: str) -> list[tuple[_Key, Limits, Usage]]:
        """The budgets a call of the node at `path` spends from: the run's, and each budgeted node it is in (or is)."""
        from graphrt.base.usage import Usage

        budget = self.budget
        found: list[tuple[_Key, Limits, Usage]] = []
        if budget.run:  # type: ignore[union-attr]
            found.append((None, budget.run, self.usage()))  # type: ignore[union-attr]
        nodes = budget.nodes  # type: ignore[union-attr]
        if nodes:
            where = (*path, node_id)
            for depth, step in enumerate(where):
                if isinstance(step, str) and step in nodes:
                    key = (where[:depth], step)
                    self._node_started.setdefault(key, time.monotonic())
                    found.append((key, nodes[step], self.ledger.node(*key) or Usage()))
        return found

    def _check(self, key: _Key, limits: Limits, spent: Usage, path: Path, node_id: str, *, llm: bool,
               tokens: int = 0, cost: float | None = None, label: str = "") -> None:
        """Raises BudgetExceeded when the call would pass one of the budget's limits."""
        hold = self._held.get(key)
        for unit, allowed in limits.items():
            need: float | None = None
            if unit == "seconds":
                used = self.seconds if key is None else time.monotonic() - self._node_started[key]
                over = used >= allowed
            elif not llm:
                if unit != "tool_calls":
                    continue
                used = spent.tool_calls
                over = used + 1 > allowed
            elif unit == "llm_calls":
                used = spent.llm_calls + (hold.calls if hold else 0)
                over = used + 1 > allowed
            elif unit == "tokens":
                used = spent.tokens + (hold.tokens if hold else 0)
                need = tokens
                over = used + tokens > allowed
            elif unit == "cost":
                used = (spent.cost_usd or 0.0) + (hold.cost if hold else 0.0)
                if cost is None:
                    self._refuse(key, unit, allowed, used, path, node_id, unpriced=label)
                need = cost
                over = used + cost > allowed  # type: ignore[operator]
            else:
                continue
            if over:
                self._refuse(key, unit, allowed, used, path, node_id, need=need)

    def _refuse(self, key: _Key, unit: str, allowed: float, spent: float, path: Path, node_id: str, *,
                need: float | None = None, unpriced: str | None = None) -> None:
        from graphrt.observe.usage_ledger import usage_key

        error = BudgetExceeded(limit=unit, allowed=allowed, spent=spent, need=need, unpriced=unpriced,
                               budget_node=None if key is None else usage_key(*key), at=usage_key(path, node_id))
        if key is None:
            self.stopped = error
        else:
            self._refused.add(key)
        raise error

    def _again(self, path: Path, node_id: str) -> BudgetExceeded:
        """The run's budget refuses another call: the same limit, said for this call (a new exception: the first
        one is the node's that met it)."""
        from graphrt.observe.usage_ledger import usage_key

        stopped = self.stopped
        return BudgetExceeded(limit=stopped.limit, allowed=stopped.allowed, spent=stopped.spent,  # type: ignore[union-attr]
                              budget_node=None, at=usage_key(path, node_id))


def _holds() -> Any:
    """The RateLimits of no limits: a call of a label a provider asked to wait for waits, and nothing more."""
    from graphrt.observe.rate_limits import RateLimits

    return RateLimits.shared({})


def _spent(usage: Usage, unit: str) -> float:
    """What a usage spent in a budget's unit."""
    if unit == "tokens":
        return usage.tokens
    if unit == "cost":
        return usage.cost_usd or 0.0
    if unit == "llm_calls":
        return usage.llm_calls
    if unit == "tool_calls":
        return usage.tool_calls
    return usage.seconds
