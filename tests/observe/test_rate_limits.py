"""Rate limits per label: a sliding minute of grants, shared by every run of the process, in the order asked."""

from __future__ import annotations

import anyio
import pytest

from graphrt.base.errors import UsageConfigError
from graphrt.observe import rate_limits
from graphrt.observe.rate_limits import MemoryWindow, Rate, RateLimits, fit_wait

pytestmark = pytest.mark.anyio


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_request_fits_when_the_minute_has_room_else_says_when_it_will():
    rate = Rate(requests_per_minute=2, tokens_per_minute=100)
    assert fit_wait([], 0.0, rate, 60) == 0
    # A grant counts 61 seconds: a minute, and a second for the provider's clock, which counts from arrival.
    assert fit_wait([[0.0, 60]], 10.0, rate, 60) == pytest.approx(51.0)  # 120 tokens: the first must leave
    assert fit_wait([[0.0, 10], [5.0, 10]], 10.0, rate, 10) == pytest.approx(51.0)  # a third request
    assert fit_wait([[0.0, 10]], 10.0, rate, 500) == pytest.approx(51.0)  # larger than a minute: alone


async def test_a_call_past_the_limit_waits_for_the_minute_to_move_on_and_says_so(monkeypatch):
    monkeypatch.setattr(rate_limits, "_RECHECK", 0.01)  # a waiting call looks again soon after the clock moves
    clock = Clock()
    limits = RateLimits({"openai:m": {"requests_per_minute": 1}}, window=MemoryWindow(clock))
    first = await limits.acquire("openai:m", 10)
    assert first is not None and first.waited == 0
    limits.settle(first, 12)  # its reply came: it counts from now
    waiting = anyio.Event()
    told: list[tuple[float, str]] = []
    got = []

    def on_wait(seconds: float, label: str) -> None:
        told.append((seconds, label))
        waiting.set()

    async def second() -> None:
        got.append(await limits.acquire("openai:m", 10, on_wait))

    async with anyio.create_task_group() as group:
        group.start_soon(second)
        await waiting.wait()
        assert told == [(pytest.approx(61.0), "openai:m")] and got == []
        clock.now += 61  # a minute (and the provider's second) after its reply: the first call leaves the window
    assert got[0] is not None and got[0].labels == ("openai:m",)


async def test_a_provider_label_limits_each_of_its_models_and_other_labels_go_on():
    clock = Clock()
    limits = RateLimits({"openai": {"tokens_per_minute": 100}}, window=MemoryWindow(clock))
    assert (await limits.acquire("openai:a", 80)).labels == ("openai",)
    assert limits.limiting("openai:b") == {"openai": Rate(tokens_per_minute=100)}
    assert await limits.acquire("anthropic:c", 1000) is None  # not limited


async def test_a_call_counts_from_its_reply_as_the_provider_may_have_counted_it_then():
    clock = Clock()
    window = MemoryWindow(clock)
    limits = RateLimits({"openai": {"requests_per_minute": 1}}, window=window)
    grant = await limits.acquire("openai:a", 10)
    clock.now += 50
    limits.settle(grant, 10)  # its reply, 50 s after its grant
    assert fit_wait(list(window._window("openai", clock.now)), clock.now, Rate(requests_per_minute=1), 1) == \
        pytest.approx(61.0)


async def test_what_a_call_used_replaces_what_it_reserved():
    clock = Clock()
    window = MemoryWindow(clock)
    limits = RateLimits({"openai": {"tokens_per_minute": 100}}, window=window)
    grant = await limits.acquire("openai:a", 90)
    limits.settle(grant, 20)
    assert (await limits.acquire("openai:a", 70)) is not None  # 20 + 70 fit; 90 + 70 would not


async def test_a_providers_retry_after_holds_the_label_for_every_call():
    clock = Clock()
    window = MemoryWindow(clock)
    limits = RateLimits({}, window=window)
    limits.hold("openai:m", 30)
    assert window.held_now("openai:m") == pytest.approx(30)
    waited = anyio.Event()

    def on_wait(seconds: float, label: str) -> None:
        clock.now += 30  # the hold runs out
        waited.set()

    grant = await limits.acquire("openai:m", 10, on_wait)
    assert waited.is_set() and grant is not None


def test_identical_limits_are_one_object_in_the_process():
    one = RateLimits.shared({"openai:m": {"requests_per_minute": 7}})
    assert RateLimits.shared({"openai:m": {"requests_per_minute": 7}}) is one
    assert RateLimits.shared({"openai:m": {"requests_per_minute": 8}}) is not one


@pytest.mark.parametrize("limits, said", [
    ({"openai": {"tokens_per_minute": 0}},
     "rate_limits.openai.tokens_per_minute: must be a whole number above 0 (input and output tokens a minute), got 0"),
    ({"openai": {"tokens_per_hour": 5}},
     "rate_limits.openai: unknown unit 'tokens_per_hour' (units: requests_per_minute, tokens_per_minute)"),
    ({"openai": 500}, "rate_limits.openai: must give tokens_per_minute or requests_per_minute, e.g. "
                      "{tokens_per_minute: 6000}, got 500"),
])
def test_a_limit_that_cannot_be_used_is_one_line(limits, said):
    with pytest.raises(UsageConfigError) as caught:
        RateLimits(limits)
    assert str(caught.value) == said
