"""Retry-After from the runs in the slots (serve/waits.py): the wait a 429 names is the likely real one."""

from __future__ import annotations

import pytest

from graphrt.serve.waits import RunTimes, retry_after

pytestmark = pytest.mark.needs("serve")


def test_a_long_run_in_the_only_slot_with_nothing_known_is_waited_as_long_again():
    assert retry_after([("slow", 12.0)], RunTimes(), queued=0, max_runs=1) == 12  # was 2: the default 1 s mean


def test_a_graph_whose_runs_take_12_s_frees_its_slot_when_its_run_should_end():
    times = RunTimes()
    times.add("slow", 12.0)
    times.add("quick", 0.1)
    assert retry_after([("slow", 10.0)], times, queued=0, max_runs=1) == 2
    assert retry_after([("slow", 10.0), ("quick", 0.05)], times, queued=0, max_runs=2) == 1  # the first slot to free


def test_each_round_of_queued_runs_ahead_adds_a_typical_run():
    times = RunTimes()
    times.add("g", 5.0)
    assert retry_after([("g", 2.0)], times, queued=2, max_runs=1) == 3 + 2 * 5
    assert retry_after([("g", 2.0), ("g", 4.0)], times, queued=2, max_runs=2) == 1 + 5
