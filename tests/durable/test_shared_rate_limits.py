"""Rate limits shared through a PostgreSQL store: every process on it counts its calls in one window.

The window's rule is the memory window's (graphrt.observe.rate_limits); what is tested here is that it holds
across windows on one database: two windows (two processes' stores) on a clock the test moves never let a
60-second window of their grants together pass a limit, a turn taken at once by both is taken by one, a
provider's Retry-After reaches the other, and a run saved in the store waits for a call another process made.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

import graphrt
from graphrt.checkpoint import SQLiteStore
from graphrt.checkpoint.base import Abilities
from graphrt.checkpoint.errors import CheckpointError
from graphrt.checkpoint.guard import GuardedStore
from graphrt.durable import arun_checkpointed
from graphrt.observe import rate_limits
from graphrt.observe.events import LlmCallWaiting
from graphrt.observe.rate_limits import HELD_SECONDS, Rate, RateLimits
from tests.commands import GRAPHRT

pytestmark = pytest.mark.anyio

LIMIT = {"openai:m": Rate(tokens_per_minute=6000, requests_per_minute=40)}


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def _window(url: str, clock: Clock) -> Any:
    from graphrt.checkpoint.postgres import _SCHEMA_LOCK
    from graphrt.checkpoint.postgres_rates import PostgresRateWindow

    return PostgresRateWindow(url, schema_lock=_SCHEMA_LOCK, clock=clock)


def _most_in_a_minute(grants: list[tuple[float, int]]) -> tuple[int, int]:
    """The most tokens, and the most requests, of any 60-second window of (time, tokens) grants (the windows that
    start at a grant: the others hold no more)."""
    tokens = requests = 0
    for start, _ in grants:
        inside = [used for at, used in grants if start <= at < start + 60]
        tokens, requests = max(tokens, sum(inside)), max(requests, len(inside))
    return tokens, requests


async def test_two_windows_on_one_database_keep_every_minute_of_their_calls_under_the_limit(postgres_url):
    clock = Clock()
    windows = [_window(postgres_url, clock), _window(postgres_url, clock)]
    replies: list[tuple[float, int]] = []  # when each call's reply came, and what it used
    waited = [0, 0]
    try:
        for call in range(120):
            index = call % 2  # the two processes' calls, one after the other
            window = windows[index]
            reserved = 350 + call * 37 % 200
            ids, wait = await window.take(LIMIT, reserved)
            if ids is None:  # the caller sleeps until it fits: then it fits
                assert wait > 0
                waited[index] += 1
                clock.now += wait
                ids, wait = await window.take(LIMIT, reserved)
            assert ids is not None, (call, wait)
            clock.now += 0.5  # its reply, half a second on
            used = reserved - call % 150
            window.settle(ids, used)
            await window.held("openai:m")  # the window's calls are made in order: the settle is in
            replies.append((clock.now, used))
    finally:
        for window in windows:
            window.close()
    most_tokens, most_requests = _most_in_a_minute(replies)
    assert most_tokens <= 6000 and most_requests <= 40
    assert waited[0] > 0 and waited[1] > 0  # each was held back, by the calls of both
    span = replies[-1][0] - replies[0][0] + HELD_SECONDS
    # Paced, not starved: a call needs room for what it reserves, and counts 61 s, so a minute holds less than the limit.
    assert sum(used for _, used in replies) / span * 60 > 0.8 * 6000


async def test_turns_asked_at_once_by_two_windows_are_granted_while_they_fit_and_no_more(postgres_url):
    clock = Clock()
    windows = [_window(postgres_url, clock) for _ in range(2)]
    limit = {"openai": Rate(tokens_per_minute=1000)}
    try:
        async with anyio.create_task_group() as group:
            results: list[Any] = []

            async def take(window: Any) -> None:
                results.append(await window.take(limit, 300))

            for index in range(10):
                group.start_soon(take, windows[index % 2])
    finally:
        for window in windows:
            window.close()
    granted = [ids for ids, _ in results if ids is not None]
    assert len(granted) == 3  # 3 x 300 fit in 1,000; the other seven wait for the first to leave the minute
    assert sorted(wait for ids, wait in results if ids is None) == [pytest.approx(HELD_SECONDS)] * 7


async def test_a_providers_retry_after_in_one_window_holds_the_label_in_the_other(postgres_url):
    clock = Clock()
    first, second = _window(postgres_url, clock), _window(postgres_url, clock)
    try:
        first.hold("openai", 30)
        await first.held("openai")  # made
        assert await second.held("openai:m", "openai") == pytest.approx(30)
        assert await second.held("anthropic") == 0
        ids, wait = await second.take({"openai": Rate(requests_per_minute=5)}, 10)
        assert ids is None and wait == pytest.approx(30)
        clock.now += 30
        assert (await second.take({"openai": Rate(requests_per_minute=5)}, 10))[0] is not None
    finally:
        first.close()
        second.close()


async def test_a_run_saved_in_the_store_waits_for_a_call_another_process_made(openai_server, reply, postgres_url,
                                                                              tmp_path: Path, monkeypatch):
    """One `graphrt run --checkpoint postgresql://...` fills the label's minute; a run of this process saved in the
    same store waits for its turn (in its own memory it would have gone at once: nothing of it was granted)."""
    monkeypatch.setattr(rate_limits, "_RECHECK", 0.05)
    openai_server.script(reply.text("first"), reply.text("second"))
    graph = {"version": 0.5, "nodes": {"ask": {"agent": "openAIAgent", "inputs": {"prompt": "hi"}, "isResult": True}}}
    config = {"rate_limits": {"openai:gpt-4o": {"requests_per_minute": 1}}}
    (tmp_path / "ask.json").write_text(json.dumps(graph), encoding="utf-8")
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    other = subprocess.run([*GRAPHRT, "run", "ask.json", "--config", "config.json", "--checkpoint", postgres_url],
                           cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert other.returncode == 0, other.stderr
    assert len(openai_server.requests) == 1

    waiting: list[LlmCallWaiting] = []
    with anyio.CancelScope() as scope:
        def watch(event: Any) -> None:
            if isinstance(event, LlmCallWaiting):
                waiting.append(event)
                scope.cancel()  # it waits: that is all this test asks of it

        await arun_checkpointed(graphrt.Graph(graph, config=config), postgres_url, subscribe=[watch])
    assert [(event.node_id, event.label) for event in waiting] == [("ask", "openai:gpt-4o")]
    assert 50 < waiting[0].seconds <= HELD_SECONDS
    assert len(openai_server.requests) == 1  # its call was never sent


async def test_only_postgresql_shares_its_window_and_a_store_without_one_says_so(tmp_path: Path, postgres_url):
    from graphrt.checkpoint.postgres import PostgresStore

    postgres = PostgresStore(postgres_url)
    try:
        assert Abilities.of(postgres).rate_windows
        assert postgres.rate_window() is postgres.rate_window()
    finally:
        await postgres.close()
    sqlite = GuardedStore(SQLiteStore(tmp_path / "runs.db"))
    assert not sqlite.abilities.rate_windows
    with pytest.raises(CheckpointError) as raised:
        sqlite.rate_window()
    assert "\n" not in str(raised.value)
    await sqlite.close()


def test_limits_over_one_window_are_one_object_while_a_run_holds_them(postgres_url):
    limits = RateLimits({"openai": {"tokens_per_minute": 100}})
    window = _window(postgres_url, Clock())
    assert limits.over(window) is limits.over(window)
    assert limits.over(window).window is window and limits.window is rate_limits.PROCESS_WINDOW


@pytest.mark.parametrize("limit, said", [
    ("{tokens_per_minute: -5}", "rate_limits.openai.tokens_per_minute: must be a whole number above 0"),
    ("{tokens_per_hour: 5}", "rate_limits.openai: unknown unit 'tokens_per_hour'"),
])
def test_a_bad_limit_for_a_store_shared_by_processes_is_one_line_and_saves_nothing(tmp_path: Path, postgres_url,
                                                                                   limit, said):
    (tmp_path / "ask.json").write_text(json.dumps({"version": 0.5, "nodes": {"a": {"value": 1}}}), encoding="utf-8")
    (tmp_path / "config.yaml").write_text(f"rate_limits:\n  openai: {limit}\n", encoding="utf-8")
    done = subprocess.run([*GRAPHRT, "run", "ask.json", "--config", "config.yaml", "--checkpoint", postgres_url],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert done.stderr.count("\n") == 1 and "config.yaml" in done.stderr and said in done.stderr, done.stderr
    import psycopg

    with psycopg.connect(postgres_url) as db:  # nothing was saved: the store was not even set up
        assert db.execute("SELECT to_regclass('runs'), to_regclass('rate_grants')").fetchone() == (None, None)


async def test_a_store_that_lost_its_lease_still_counts_the_calls_it_makes(postgres_url):
    """Its run writes are refused (LeaseLost), but a call it still sends reaches the provider: it is counted."""
    import time

    from graphrt.checkpoint.errors import LeaseLost
    from graphrt.checkpoint.postgres import PostgresStore
    from graphrt.checkpoint.records import RunRecord

    first, second = GuardedStore(PostgresStore(postgres_url)), GuardedStore(PostgresStore(postgres_url))
    limit = {"openai": Rate(requests_per_minute=1)}
    try:
        now = time.time()
        await first.take_lease("serve", "first", "{}", until=now + 300, now=now)
        first.fence_writes("serve", "first")
        await second.take_lease("serve", "second", "{}", until=now + 300, now=now, replacing="first")
        with pytest.raises(LeaseLost):
            await first.create_run(RunRecord(run_id="r1", graph_file=None, graph_text="nodes: {}", graph_hash="abc"))
        assert (await first.rate_window().take(limit, 10))[0] is not None
        ids, wait = await second.rate_window().take(limit, 10)
        assert ids is None and wait > 50
    finally:
        await first.close()
        await second.close()


async def test_a_providers_retry_after_to_a_limited_run_holds_the_label_in_its_stores_window(postgres_url,
                                                                                            monkeypatch):
    from graphrt.observe.meter import RunMeter, UsageSettings

    monkeypatch.setattr(rate_limits, "PROCESS_WINDOW", rate_limits.MemoryWindow())
    clock = Clock()
    mine, theirs = _window(postgres_url, clock), _window(postgres_url, clock)
    try:
        meter = RunMeter(UsageSettings({"rate_limits": {"openai": {"requests_per_minute": 50}}}), rate_window=mine)
        assert meter.rate_limits.window is mine
        meter.throttled("openai", "m", 20)
        await mine.held("openai:m")  # made
        assert await theirs.held("openai:m") == pytest.approx(20)  # another process's window: held there too
        assert rate_limits.PROCESS_WINDOW.held_now("openai:m") == pytest.approx(20, abs=1)  # and in this process
        unlimited = RunMeter(UsageSettings({}), rate_window=mine)  # a run without limits counts nothing in the store
        assert unlimited.rate_limits is None
    finally:
        mine.close()
        theirs.close()
