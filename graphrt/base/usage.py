"""What LLM calls cost: one call's usage as its provider said it, sums of calls, and the user's prices.

The one vocabulary of usage: LLM agents report a `CallUsage` per request they make (through the
retry loop, graphrt_agents.llm.retries), the run's meter sums them (graphrt.observe.meter), and
events, checkpoints, `graphrt serve`, the CLI and OpenTelemetry show the sums as `Usage.to_dict()`
spells them.

Counts are normalised across providers so that sums mean one thing: `input_tokens` counts every
token of the prompt, cached ones included (`cached_tokens` is the part read from the provider's
prompt cache: Anthropic's cache reads are added back in); `output_tokens` counts every token of the
reply, reasoning included (`reasoning_tokens` is that part: Gemini's thoughts are added back in).

Unknown is never 0. A count no reply gave is None, and a sum says how many of its calls lacked it
(`calls_without_tokens`, `calls_without_cost`): 1,200 tokens from three calls where one server sent
no usage is "1,200 and one call unknown", never 1,200 flat. Zero calls is a known zero.
"""

from __future__ import annotations

import json
import math
from typing import Any, Callable, Mapping, Protocol

from graphrt.base.errors import UsageConfigError

__all__ = ["CallUsage", "Meter", "MeteredCall", "PriceTable", "Price", "Tally", "Usage", "estimate_tokens", "label_of"]


def label_of(provider: str, model: str | None) -> str:
    """`openai:gpt-4o-mini`: how a model is named in prices, rate limits and usage by model."""
    return f"{provider}:{model}" if model else provider


class _Shown:
    """One `__repr__` for the classes of this module (plain classes, not dataclasses: a dataclass's generated
    methods are compiled at every start, and every run imports this module)."""

    __slots__ = ()

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({shown})"


class CallUsage(_Shown):
    """What one request's reply said it used (None: the reply did not say).

    Attributes:
        provider: who answered, as prices and rate limits name it (`openai`, `anthropic`, `gemini`, `groq`,
            `azure`, `local` for the embedded model).
        model: the model that answered (the reply's, else the one asked).
        input_tokens: every token of the prompt, cached ones included.
        output_tokens: every token of the reply, reasoning included.
        cached_tokens: of the prompt, those read from the provider's cache (where it says).
        reasoning_tokens: of the reply, those spent thinking (where it says).
        asked: the model the request named, when the reply names another (`gpt-4o-mini` for a reply from
            `gpt-4o-mini-2024-07-18`): prices are looked up under either.
    """

    __slots__ = ("provider", "model", "input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens", "asked")

    def __init__(self, provider: str, model: str | None = None, input_tokens: int | None = None,
                 output_tokens: int | None = None, cached_tokens: int | None = None,
                 reasoning_tokens: int | None = None, asked: str | None = None) -> None:
        self.provider = provider
        self.model = model
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens
        self.cached_tokens = cached_tokens
        self.reasoning_tokens = reasoning_tokens
        self.asked = asked

    @property
    def label(self) -> str:
        return label_of(self.provider, self.model)

    @property
    def has_tokens(self) -> bool:
        """The reply said how many tokens it used (input or output)."""
        return self.input_tokens is not None or self.output_tokens is not None


def _count(value: Any) -> int | None:
    """A token count from a reply: a whole number from 0, else None (unknown, never 0)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or value < 0:
        return None
    return int(value)


def _add(total: int | float | None, value: int | float | None) -> int | float | None:
    if value is None:
        return total
    return value if total is None else total + value


_TALLY_FIELDS = ("calls", "input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens", "cost_usd",
                 "calls_without_tokens", "calls_without_cost")


class Tally(_Shown):
    """The sum of some LLM calls: how many, their tokens and their cost in USD.

    A sum is of the calls that said it; it is None when calls were made and none said it, 0 when no call
    was made. `calls_without_tokens` and `calls_without_cost` count the calls a sum lacks.
    """

    __slots__ = _TALLY_FIELDS

    def __init__(self, calls: int = 0) -> None:
        self.calls = calls
        self.input_tokens: int | None = None
        self.output_tokens: int | None = None
        self.cached_tokens: int | None = None
        self.reasoning_tokens: int | None = None
        self.cost_usd: float | None = None
        self.calls_without_tokens = 0
        self.calls_without_cost = 0

    def add(self, usage: CallUsage | None, cost: float | None) -> None:
        """Counts one call: its usage (None: the attempt failed before its reply said anything) and its cost."""
        self.calls += 1
        if usage is None or not usage.has_tokens:
            self.calls_without_tokens += 1
        if usage is not None:
            self.input_tokens = _add(self.input_tokens, usage.input_tokens)
            self.output_tokens = _add(self.output_tokens, usage.output_tokens)
            self.cached_tokens = _add(self.cached_tokens, usage.cached_tokens)
            self.reasoning_tokens = _add(self.reasoning_tokens, usage.reasoning_tokens)
        if cost is None:
            self.calls_without_cost += 1
        else:
            self.cost_usd = _add(self.cost_usd, cost)

    def merge(self, other: "Tally") -> None:
        """Adds another sum to this one."""
        self.calls += other.calls
        for name in ("input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens", "cost_usd"):
            setattr(self, name, _add(getattr(self, name), getattr(other, name)))
        self.calls_without_tokens += other.calls_without_tokens
        self.calls_without_cost += other.calls_without_cost

    @property
    def tokens(self) -> int:
        """Input and output tokens the calls said they used (the known part: see `calls_without_tokens`)."""
        return (self.input_tokens or 0) + (self.output_tokens or 0)

    @property
    def known_cost(self) -> float:
        """The cost of the calls whose cost is known (see `calls_without_cost`)."""
        return self.cost_usd or 0.0

    def to_dict(self) -> dict[str, Any]:
        """The sum as JSON: each count, `total_tokens` (None when no call said any), and what is unknown."""
        shown: dict[str, Any] = {"calls": self.calls}
        for name in ("input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens"):
            shown[name] = 0 if self.calls == 0 and name in ("input_tokens", "output_tokens") else getattr(self, name)
        known = self.input_tokens is not None or self.output_tokens is not None
        shown["total_tokens"] = self.tokens if known or self.calls == 0 else None
        shown["cost_usd"] = 0.0 if self.calls == 0 else (round(self.cost_usd, 10) if self.cost_usd is not None else None)
        shown["calls_without_tokens"] = self.calls_without_tokens
        shown["calls_without_cost"] = self.calls_without_cost
        return shown

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Tally":
        """A sum as `to_dict` wrote it (a checkpoint's); what is missing or not a number is unknown."""
        tally = cls(calls=_count(data.get("calls")) or 0)
        for name in ("input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens"):
            setattr(tally, name, _count(data.get(name)) if tally.calls else None)
        cost = data.get("cost_usd")
        tally.cost_usd = float(cost) if isinstance(cost, (int, float)) and not isinstance(cost, bool) \
            and math.isfinite(cost) and cost >= 0 and tally.calls else None
        tally.calls_without_tokens = _count(data.get("calls_without_tokens")) or 0
        tally.calls_without_cost = _count(data.get("calls_without_cost")) or 0
        return tally


class Usage(_Shown):
    """What a run (or a node, or a nested graph) spent: its LLM calls, tool calls, and waits for rate limits.

    `used` sums the attempts whose reply an agent kept; `retried` those that failed (asked again, or the
    last of a request that failed for good): both were paid for, and the totals (`total`, `tokens`,
    `cost_usd`, `llm_calls`) count both, once each. `by_model` splits the total by `provider:model`.
    `seconds` is wall-clock time, counted by the run (0 for a node), across its resumptions.
    """

    __slots__ = ("used", "retried", "tool_calls", "waited", "seconds", "by_model")

    def __init__(self, *, tool_calls: int = 0, waited: float = 0.0, seconds: float = 0.0) -> None:
        self.used = Tally()
        self.retried = Tally()
        self.tool_calls = tool_calls
        self.waited = waited
        self.seconds = seconds
        self.by_model: dict[str, Tally] = {}

    def add_call(self, usage: CallUsage | None, cost: float | None, *, kept: bool, label: str | None = None) -> None:
        """Counts one attempt of an LLM request, kept or not; `label` names its model when `usage` is None."""
        (self.used if kept else self.retried).add(usage, cost)
        name = usage.label if usage is not None else label
        if name is not None:
            tally = self.by_model.get(name)
            if tally is None:
                tally = self.by_model[name] = Tally()
            tally.add(usage, cost)

    def merge(self, other: "Usage") -> None:
        """Adds another usage to this one (a resumed run's spend before it, a batch's rows)."""
        self.used.merge(other.used)
        self.retried.merge(other.retried)
        self.tool_calls += other.tool_calls
        self.waited += other.waited
        self.seconds += other.seconds
        for name, tally in other.by_model.items():
            self.by_model.setdefault(name, Tally()).merge(tally)

    @property
    def total(self) -> Tally:
        """Every attempt, kept and retried."""
        total = Tally()
        total.merge(self.used)
        total.merge(self.retried)
        return total

    @property
    def llm_calls(self) -> int:
        return self.used.calls + self.retried.calls

    @property
    def tokens(self) -> int:
        """Tokens the calls said they used, kept and retried (the known part)."""
        return self.used.tokens + self.retried.tokens

    @property
    def cost_usd(self) -> float | None:
        """The cost of every attempt whose cost is known; None when calls were made and none is priced."""
        return self.total.to_dict()["cost_usd"]

    @property
    def calls_without_tokens(self) -> int:
        return self.used.calls_without_tokens + self.retried.calls_without_tokens

    @property
    def calls_without_cost(self) -> int:
        return self.used.calls_without_cost + self.retried.calls_without_cost

    def __bool__(self) -> bool:
        """Whether anything was spent that a summary would show."""
        return bool(self.llm_calls or self.tool_calls or self.waited)

    def to_dict(self) -> dict[str, Any]:
        """As `Run.usage`, `GET /runs/{id}`, checkpoints and batches spell it: the totals of every attempt,
        then `used` and `retried` apart, tool calls, seconds waited for rate limits and run, and the totals
        by model."""
        total = self.total.to_dict()
        return {
            "llm_calls": total.pop("calls"), **total,
            "used": self.used.to_dict(), "retried": self.retried.to_dict(),
            "tool_calls": self.tool_calls, "waited_seconds": round(self.waited, 3), "seconds": round(self.seconds, 3),
            "by_model": {name: tally.to_dict() for name, tally in self.by_model.items()},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> "Usage":
        """A usage as `to_dict` wrote it (a checkpoint's, an event log's); anything else is no usage."""
        usage = cls()
        if not isinstance(data, Mapping):
            return usage
        for name in ("used", "retried"):
            if isinstance(data.get(name), Mapping):
                setattr(usage, name, Tally.from_dict(data[name]))
        usage.tool_calls = _count(data.get("tool_calls")) or 0
        for name, key in (("waited", "waited_seconds"), ("seconds", "seconds")):
            value = data.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0:
                setattr(usage, name, float(value))
        models = data.get("by_model")
        if isinstance(models, Mapping):
            usage.by_model = {str(name): Tally.from_dict(tally) for name, tally in models.items()
                              if isinstance(tally, Mapping)}
        return usage

    def summary(self) -> str:
        """One line for a person: `3 LLM calls (1 retried), 1,234 tokens (812 in, 422 out), $0.0021, 2 tool calls`;
        what is unknown says so."""
        total = self.total
        parts = [f"{_plural(self.llm_calls, 'LLM call')}" + (f" ({self.retried.calls:,} retried)"
                                                             if self.retried.calls else "")]
        if self.llm_calls:
            if total.input_tokens is None and total.output_tokens is None:
                parts.append("tokens unknown")
            else:
                unknown = f", {_plural(total.calls_without_tokens, 'call')} did not say" \
                    if total.calls_without_tokens else ""
                parts.append(f"{total.tokens:,} tokens ({_count_text(total.input_tokens)} in, "
                             f"{_count_text(total.output_tokens)} out{unknown})")
            if total.cost_usd is None:
                parts.append("cost unknown (no price for " + ", ".join(sorted(
                    name for name, tally in self.by_model.items() if tally.calls_without_cost)) + ")")
            else:
                unpriced = sorted(name for name, tally in self.by_model.items() if tally.calls_without_cost)
                parts.append(f"${total.cost_usd:.4f}" + (f" (and unknown for {', '.join(unpriced)})" if unpriced else ""))
        if self.tool_calls:
            parts.append(_plural(self.tool_calls, "tool call"))
        if self.waited >= 0.05:
            parts.append(f"{self.waited:.1f} s waiting for rate limits")
        return ", ".join(parts)


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def _count_text(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"


# ----- prices -----

_PRICE_KEYS = {"input": "USD per million input tokens",
               "output": "USD per million output tokens (reasoning included)",
               "cached_input": "USD per million input tokens read from the cache (default: input's)"}


class Price(_Shown):
    """A model's prices in USD per million tokens."""

    __slots__ = ("input", "output", "cached_input")

    def __init__(self, input: float, output: float, cached_input: float | None = None) -> None:  # noqa: A002
        self.input = input
        self.output = output
        self.cached_input = cached_input

    def cost(self, usage: CallUsage) -> float | None:
        """The call's cost in USD; None when the reply did not say its input and output tokens."""
        if usage.input_tokens is None or usage.output_tokens is None:
            return None
        cached = min(usage.cached_tokens or 0, usage.input_tokens)
        cached_price = self.input if self.cached_input is None else self.cached_input
        return ((usage.input_tokens - cached) * self.input + cached * cached_price
                + usage.output_tokens * self.output) / 1_000_000


class PriceTable:
    """The user's prices, per provider and model, as the config file's `prices` gives them:

        prices:
          openai:
            gpt-4o-mini: {input: 0.15, output: 0.60, cached_input: 0.075}   # USD per million tokens
          local:
            "*": {input: 0, output: 0}                                       # every model of the provider

    A model with no price (none under its name, the name it was asked by, or `*`) has an unknown cost.

    Raises:
        UsageConfigError: the table is not a mapping of providers to models to prices that are numbers from 0
            (its one line names where: `config.yaml: prices.openai.gpt-4o-mini.input`).
    """

    __slots__ = ("_prices",)

    def __init__(self, table: Mapping[str, Any] | None = None, *, where: str = "prices") -> None:
        self._prices: dict[tuple[str, str], Price] = {}
        if table is None:
            return
        if not isinstance(table, Mapping):
            raise UsageConfigError(f"{where}: must map providers to models to prices, e.g. "
                                   "{openai: {gpt-4o-mini: {input: 0.15, output: 0.6}}}")
        for provider, models in table.items():
            if not isinstance(models, Mapping):
                raise UsageConfigError(f"{where}.{provider}: must map model names to prices, "
                                       "e.g. {gpt-4o-mini: {input: 0.15, output: 0.6}}")
            for model, price in models.items():
                self._prices[(str(provider), str(model))] = _price(price, f"{where}.{provider}.{model}")

    def __bool__(self) -> bool:
        return bool(self._prices)

    def price(self, usage: CallUsage) -> Price | None:
        """The price of the call's model: under the reply's model, the asked one, else the provider's `*`."""
        for model in (usage.model, usage.asked, "*"):
            if model is not None:
                found = self._prices.get((usage.provider, model))
                if found is not None:
                    return found
        return None

    def cost(self, usage: CallUsage | None) -> float | None:
        """The call's cost in USD; None when unknown (no price for its model, or no token counts)."""
        if usage is None:
            return None
        price = self.price(usage)
        return price.cost(usage) if price is not None else None


def _price(value: Any, where: str) -> Price:
    if not isinstance(value, Mapping):
        raise UsageConfigError(f"{where}: must be {{input: USD, output: USD}} per million tokens, got {value!r}")
    unknown = sorted(str(key) for key in value if key not in _PRICE_KEYS)
    if unknown:
        raise UsageConfigError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(_PRICE_KEYS)})")
    numbers: dict[str, float] = {}
    for key in _PRICE_KEYS:
        if key not in value:
            if key == "cached_input":
                continue
            raise UsageConfigError(f"{where}: no {key!r} ({_PRICE_KEYS[key]})")
        given = value[key]
        if isinstance(given, bool) or not isinstance(given, (int, float)) or not math.isfinite(given) or given < 0:
            raise UsageConfigError(f"{where}.{key}: must be a number from 0 ({_PRICE_KEYS[key]}), got {given!r}")
        numbers[key] = float(given)
    return Price(numbers["input"], numbers["output"], numbers.get("cached_input"))


# ----- what an agent call gets -----


def estimate_tokens(value: Any) -> int:
    """About how many tokens a request's prompt holds, before it is sent: its text's UTF-8 bytes over 3, rounded
    up (a token is 3 to 4 bytes of English, one CJK character), so that a budget or a rate limit reserves
    enough rather than too little; the reply's count replaces it."""
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError, RecursionError):
            text = str(value)
    return -(-len(text.encode("utf-8", "replace")) // 3)


class MeteredCall:
    """One LLM request's attempt as the meter follows it, from its budget check to its reply.

    Attributes:
        path, node_id: the node that makes it.
        provider, model: its label's parts (`openai`, `gpt-4o-mini`).
        tokens: what it may use: its prompt's estimate and its max_tokens (what rate limits reserve).
        prompt_tokens: its prompt's estimate (what a budget checks before it).
        waited: seconds it waited for its turn under the rate limits.
    """

    __slots__ = ("path", "node_id", "provider", "model", "tokens", "prompt_tokens", "waited", "grant", "held")

    def __init__(self, path: tuple[str | int, ...], node_id: str, provider: str, model: str | None, *, tokens: int,
                 prompt_tokens: int) -> None:
        self.path = path
        self.node_id = node_id
        self.provider = provider
        self.model = model
        self.tokens = tokens
        self.prompt_tokens = prompt_tokens
        self.waited = 0.0
        self.grant: Any = None  # its turn under the rate limits, settled when it ends
        self.held: Any = None  # what the budgets hold for it while it is in flight

    @property
    def label(self) -> str:
        return label_of(self.provider, self.model)


class Meter(Protocol):
    """What every agent call gets as `ctx.meter`: the run's accounting, budgets and pacing (graphrt.observe.meter's
    RunMeter implements it). Declared here so that agents need no engine or observe import.

    An LLM agent's request goes `start_call` (the budgets are checked: BudgetExceeded before a call that would
    pass one), `wait_turn` (the rate limits), then `end_call` with what its reply said, each attempt apart.
    """

    def start_call(self, path: tuple[str | int, ...], node_id: str, provider: str, model: str | None, *,
                   prompt_tokens: int, max_tokens: int | None = None) -> MeteredCall:
        """Checks the budgets before an LLM request's attempt; raises BudgetExceeded when it would pass one."""
        ...

    async def wait_turn(self, call: MeteredCall, on_wait: Callable[[float, str], None] | None = None) -> None:
        """Waits for the call's turn under the rate limits of its label; `on_wait(seconds, label)` is told once
        if it has to wait."""
        ...

    def end_call(self, call: MeteredCall, usage: CallUsage | None, *, kept: bool) -> float | None:
        """Counts the attempt (`usage` None: its reply said nothing); returns its cost in USD (None: unknown)."""
        ...

    def tool_call(self, path: tuple[str | int, ...], node_id: str) -> None:
        """Checks the budgets before a tool call an LLM asked for (BudgetExceeded), and counts it."""
        ...

    def throttled(self, provider: str, model: str | None, seconds: float) -> None:
        """The provider refused a call for its rate limit and asked to wait `seconds` (a 429's Retry-After): every
        call of that label in the process waits with it."""
        ...
