"""Rate limits per provider or model label, shared by every run of a process (and of processes on one store).

A provider limits requests and tokens per minute for each key, and a server running eight runs at
once passes those limits even when each run alone would not. The limits come from the config's
`rate_limits` (`graphrt run/batch/serve --config`, `Graph(config=...)`), and what they count is the
process's: every run of the process, whatever its Graph, takes its turns in one window of grants
(`PROCESS_WINDOW`), and the runs whose limits are the same share one `RateLimits` (`RateLimits.shared`),
which keeps their turns in the order they were asked.

    rate_limits:
      openai:gpt-4o-mini: {tokens_per_minute: 200000, requests_per_minute: 500}
      anthropic: {requests_per_minute: 50}         # a provider's label covers each of its models

A call of `openai:gpt-4o-mini` takes its turn under that label's limits and under `openai`'s, when
given. A turn is granted when the call fits in the last 60 seconds of grants: no 60-second window
ever holds more than a limit (a sliding window, not a bucket that refills: a bucket lets twice the
limit through a window that straddles a refill). A call reserves the tokens it may use (its prompt's
estimate and its `max_tokens`), and the reservation is settled to what its reply says it used, so
that a window counts real tokens. A call larger than a whole minute's tokens is let through alone,
when the window is empty, rather than never.

Turns are taken in the order they were asked within the process. Where the grants are kept is the
`RateWindow`: this process's memory (`MemoryWindow`), or a checkpoint store that several processes share
(graphrt.checkpoint's `RateWindows` ability: PostgreSQL's), which a run saved in that store is handed
(`RunOptions.rate_window`): then every process on the store counts in one window, and no 60-second window
of theirs together holds more than a limit. A provider's 429 that says when to come back (`Retry-After`)
holds the label for that long (`hold`): for every call of the process, limited or not, and in a shared
window for every limited call of every process on the store.
"""

from __future__ import annotations

import itertools
import math
import threading
import time
import weakref
from collections import deque
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Mapping, Protocol

import anyio

from graphrt.base.errors import UsageConfigError

__all__ = ["Grant", "HELD_SECONDS", "MemoryWindow", "PROCESS_WINDOW", "Rate", "RateLimits", "RateWindow", "WINDOW_SECONDS",
           "fit_wait"]

WINDOW_SECONDS = 60.0
"""The window a per-minute limit holds in."""

HELD_SECONDS = WINDOW_SECONDS + 1.0
"""How long a grant counts in the window: from its reply (when it is settled; from its grant until then), and a
second more than the minute. A provider counts a request from when it arrives, after its grant and before its
reply: counted from the grant alone, calls granted together and sent over some seconds met the next minute's
first grants inside one provider minute (bench.usage pacing measured 8,862 tokens in a minute under 6,000)."""

_RECHECK = 1.0
"""At most this many seconds between two looks at the window by a call that waits: grants settled lower, or
taken by other processes, show within it."""

_UNITS = {"requests_per_minute": "requests a minute", "tokens_per_minute": "input and output tokens a minute"}


@dataclass(frozen=True)
class Rate:
    """A label's limits; None: that one is not limited."""

    requests_per_minute: int | None = None
    tokens_per_minute: int | None = None

    @classmethod
    def from_mapping(cls, value: Any, where: str) -> "Rate":
        """`{tokens_per_minute: 6000, requests_per_minute: 500}`.

        Raises:
            UsageConfigError: not such a mapping, an unknown unit, a limit that is not a whole number above 0.
        """
        if not isinstance(value, Mapping) or not value:
            raise UsageConfigError(f"{where}: must give tokens_per_minute or requests_per_minute, e.g. "
                                   f"{{tokens_per_minute: 6000}}, got {value!r}")
        limits: dict[str, int] = {}
        for unit, limit in value.items():
            if unit not in _UNITS:
                raise UsageConfigError(f"{where}: unknown unit {unit!r} (units: {', '.join(_UNITS)})")
            number = limit
            if isinstance(limit, str):
                try:
                    number = float(limit.replace("_", ""))
                except ValueError:
                    number = None
            if isinstance(number, bool) or not isinstance(number, (int, float)) or not math.isfinite(number) \
                    or number <= 0 or number != int(number):
                raise UsageConfigError(f"{where}.{unit}: must be a whole number above 0 ({_UNITS[unit]}), "
                                       f"got {limit!r}")
            limits[unit] = int(number)
        return cls(**limits)

    def to_dict(self) -> dict[str, int]:
        return {unit: value for unit in _UNITS if (value := getattr(self, unit)) is not None}


@dataclass
class Grant:
    """A call's turn: what it reserved under which labels, and how long it waited for it."""

    labels: tuple[str, ...]
    tokens: int
    waited: float = 0.0
    ids: Any = None  # the window's own names for its grants (settled through them)


class RateWindow(Protocol):
    """Where grants are kept and counted: this process's memory, or a store several processes share."""

    async def take(self, labels: Mapping[str, Rate], tokens: int) -> tuple[Any, float]:
        """Grants `tokens` (and one request) under every label if they fit in the last minute: (its ids, 0).
        Else nothing is granted: (None, the seconds until they may fit)."""
        ...

    def settle(self, ids: Any, tokens: int) -> None:
        """A granted call ended: it used `tokens`, not what it reserved, and counts from now (its reply)."""
        ...

    def hold(self, label: str, seconds: float) -> None:
        """Nothing is granted under `label` for `seconds` (a provider asked to wait)."""
        ...

    async def held(self, *labels: str) -> float:
        """Seconds until none of `labels` is held any more; 0 when none is."""
        ...


def fit_wait(entries: "deque[list[Any]] | list[tuple[float, int]]", now: float, rate: Rate, tokens: int) -> float:
    """Seconds until one more request of `tokens` fits under `rate`, given the (time, tokens) grants of the last
    window, oldest first; 0 when it fits now. A request larger than the whole token limit fits an empty window."""
    wait = 0.0
    if rate.requests_per_minute is not None and len(entries) + 1 > rate.requests_per_minute:
        out = len(entries) + 1 - rate.requests_per_minute  # grants that must leave the window first
        wait = max(wait, entries[out - 1][0] + HELD_SECONDS - now)
    if rate.tokens_per_minute is not None:
        room = rate.tokens_per_minute - min(tokens, rate.tokens_per_minute)
        held = sum(entry[1] for entry in entries)
        for entry in entries:
            if held <= room:
                break
            held -= entry[1]
            wait = max(wait, entry[0] + HELD_SECONDS - now)
    return max(wait, 0.0)


class MemoryWindow:
    """Grants kept in this process's memory: every run handed the same RateLimits shares them."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()  # runs on event loops of their own (threads) may share one RateLimits
        self._grants: dict[str, deque[list[Any]]] = {}  # label -> [time, tokens], oldest first
        self._held: dict[str, float] = {}  # label -> clock() until which nothing is granted

    def _window(self, label: str, now: float) -> deque[list[Any]]:
        entries = self._grants.setdefault(label, deque())
        while entries and entries[0][0] <= now - HELD_SECONDS:
            entries.popleft()
        return entries

    async def take(self, labels: Mapping[str, Rate], tokens: int) -> tuple[Any, float]:
        with self._lock:
            now = self._clock()
            wait = 0.0
            for label, rate in labels.items():
                wait = max(wait, self._held.get(label, 0.0) - now, fit_wait(self._window(label, now), now, rate, tokens))
            if wait > 0:
                return None, wait
            ids = []
            for label in labels:
                entry = [now, tokens]
                self._grants[label].append(entry)
                ids.append((label, entry))
            return ids, 0.0

    def settle(self, ids: Any, tokens: int) -> None:
        with self._lock:
            now = self._clock()
            for label, entry in ids:  # counted from now, the latest the provider may have counted it from
                entries = self._grants.setdefault(label, deque())
                for index, kept in enumerate(entries):
                    if kept is entry:
                        del entries[index]
                        break
                entry[0], entry[1] = now, tokens
                entries.append(entry)  # every other entry is from before now: the window stays oldest first

    def hold(self, label: str, seconds: float) -> None:
        with self._lock:
            self._held[label] = max(self._held.get(label, 0.0), self._clock() + seconds)

    async def held(self, *labels: str) -> float:
        return self.held_now(*labels)

    def held_now(self, *labels: str) -> float:
        """`held` without a wait: this window is in memory."""
        with self._lock:
            now = self._clock()
            return max([0.0, *(self._held.get(label, 0.0) - now for label in labels)])


PROCESS_WINDOW = MemoryWindow()
"""The grants of every run of this process: the one window the limits of any config count in (and where a
provider's Retry-After holds a label)."""


class _Turns:
    """The calls of this process waiting under one label, in the order they asked (a ticket each)."""

    __slots__ = ("tickets", "wakers")

    def __init__(self) -> None:
        self.tickets: deque[int] = deque()
        self.wakers: dict[int, tuple[int, anyio.Event]] = {}  # ticket -> (its thread, its event)


_SHARED: dict[tuple[Any, ...], "RateLimits"] = {}  # the process's RateLimits, by their limits
_SHARED_LOCK = threading.Lock()


class RateLimits:
    """Requests and tokens per minute per label (`openai:gpt-4o-mini`, or a provider: `openai`), shared by every
    run it is handed to.

    Args:
        limits: the limits by label: Rates, or `{tokens_per_minute: N, requests_per_minute: N}` mappings.
        window: where grants are kept; this process's memory by default.
        where: where the limits came from, for errors (`config.yaml: rate_limits`).

    Raises:
        UsageConfigError: a limit that is not a whole number above 0, an unknown unit (one line).
    """

    def __init__(self, limits: Mapping[str, Rate | Mapping[str, Any]], *, window: RateWindow | None = None,
                 where: str = "rate_limits") -> None:
        if not isinstance(limits, Mapping):
            raise UsageConfigError(f"{where}: must map labels (openai:gpt-4o-mini, or a provider) to limits, e.g. "
                                   "{openai:gpt-4o-mini: {tokens_per_minute: 6000}}")
        self.rates: dict[str, Rate] = {
            str(label): rate if isinstance(rate, Rate) else Rate.from_mapping(rate, f"{where}.{label}")
            for label, rate in limits.items()}
        self.window: RateWindow = window if window is not None else PROCESS_WINDOW
        self._lock = threading.Lock()
        self._turns: dict[str, _Turns] = {}
        self._tickets = itertools.count()
        # `over`'s, by their window's id: each holds its window, so an id is not reused while its entry lives
        self._over: weakref.WeakValueDictionary[int, RateLimits] = weakref.WeakValueDictionary()

    @classmethod
    def shared(cls, limits: Mapping[str, Any], where: str = "rate_limits") -> "RateLimits":
        """The process's RateLimits for these limits: one object for every config that gives the same, so that their
        runs take their turns in one order.

        Raises:
            UsageConfigError: a limit that is not a whole number above 0, an unknown unit (one line).
        """
        made = cls(limits, where=where)
        key = tuple(sorted((label, rate.requests_per_minute, rate.tokens_per_minute)
                           for label, rate in made.rates.items()))
        with _SHARED_LOCK:
            return _SHARED.setdefault(key, made)

    def over(self, window: RateWindow) -> "RateLimits":
        """These limits with their grants kept in `window` (a store's, which several processes share): one object
        per window while a run holds it, so that the process's runs handed the same window take their turns in one
        order."""
        if window is self.window:
            return self
        with _SHARED_LOCK:
            found = self._over.get(id(window))
            if found is None:
                found = self._over[id(window)] = RateLimits(self.rates, window=window)
            return found

    def __bool__(self) -> bool:
        return bool(self.rates)

    def to_dict(self) -> dict[str, dict[str, int]]:
        return {label: rate.to_dict() for label, rate in self.rates.items()}

    async def _held(self, label: str) -> float:
        """Seconds until a call of `label` may go after a provider's Retry-After (held under it or its provider)."""
        return await self.window.held(*dict.fromkeys((label, label.partition(":")[0])))

    def limiting(self, label: str) -> dict[str, Rate]:
        """The limits a call of `label` takes its turn under: its own, and its provider's."""
        provider = label.partition(":")[0]
        return {name: self.rates[name] for name in dict.fromkeys((label, provider)) if name in self.rates}

    async def acquire(self, label: str, tokens: int,
                      on_wait: Callable[[float, str], None] | None = None) -> Grant | None:
        """Waits for a call's turn under the limits of `label` (and for a hold a provider asked for); None when
        nothing limits it.

        Args:
            tokens: what the call may use (its prompt's estimate and its max_tokens), reserved until `settle`.
            on_wait: called once if the call has to wait, with the first wait expected and the label that holds it.
        """
        labels = self.limiting(label)
        started = time.monotonic()
        told = False
        while not labels:  # not limited here: only a provider's hold makes it wait
            held = await self._held(label)
            if held <= 0:
                return Grant((), 0, time.monotonic() - started) if told else None
            if not told and on_wait is not None:
                on_wait(held, label)
            told = True
            await anyio.sleep(min(held, _RECHECK))
        tokens = max(int(tokens), 0)
        ticket = next(self._tickets)
        turns = self._enter(labels, ticket)
        try:
            while True:
                wait = await self._held(label)
                ids = None
                if wait <= 0:
                    ids, wait = (await self.window.take(labels, tokens)) if self._first(turns, ticket) \
                        else (None, _RECHECK)
                if ids is not None:  # waited: only a call that had to (it was told)
                    return Grant(tuple(labels), tokens, time.monotonic() - started if told else 0.0, ids)
                if not told and on_wait is not None:
                    on_wait(wait, next(iter(labels)))
                told = True
                await self._sleep(turns, ticket, min(wait, _RECHECK))
        finally:
            self._leave(turns, ticket)

    def settle(self, grant: Grant | None, tokens: int | None) -> None:
        """A granted call ended having used `tokens` (None: unknown, the reservation stands), counted from now; the
        next waiter looks again."""
        if grant is None or grant.ids is None:
            return
        self.window.settle(grant.ids, grant.tokens if tokens is None else tokens)
        self._wake_first(grant.labels)

    def hold(self, label: str, seconds: float) -> None:
        """The provider asked to wait `seconds` before the next call of `label` (a 429's Retry-After): every call of
        the label in the process waits, limited or not."""
        if seconds > 0:
            self.window.hold(label, seconds)

    # ----- the order of turns within the process -----

    def _enter(self, labels: Mapping[str, Rate], ticket: int) -> list[_Turns]:
        with self._lock:
            turns = [self._turns.setdefault(label, _Turns()) for label in labels]
            for queue in turns:
                queue.tickets.append(ticket)
            return turns

    def _first(self, turns: list[_Turns], ticket: int) -> bool:
        with self._lock:
            return all(queue.tickets[0] == ticket for queue in turns)

    async def _sleep(self, turns: list[_Turns], ticket: int, seconds: float) -> None:
        """Sleeps `seconds`, or until the ticket before it in line goes (or settles), whichever comes first."""
        event = anyio.Event()
        with self._lock:
            for queue in turns:
                queue.wakers[ticket] = (threading.get_ident(), event)
        with anyio.move_on_after(seconds):
            await event.wait()

    def _leave(self, turns: list[_Turns], ticket: int) -> None:
        with self._lock:
            for queue in turns:
                if ticket in queue.tickets:
                    queue.tickets.remove(ticket)
                queue.wakers.pop(ticket, None)
            firsts = [queue for queue in turns if queue.tickets]
        for queue in firsts:
            self._wake(queue)

    def _wake_first(self, labels: tuple[str, ...]) -> None:
        for label in labels:
            queue = self._turns.get(label)
            if queue is not None and queue.tickets:
                self._wake(queue)

    def _wake(self, queue: _Turns) -> None:
        """Wakes the first waiter of a label now if it waits on this thread's loop; one on another loop looks
        again within _RECHECK seconds."""
        with self._lock:
            first = queue.tickets[0] if queue.tickets else None
            waker = queue.wakers.get(first) if first is not None else None
        if waker is not None and waker[0] == threading.get_ident():
            waker[1].set()
