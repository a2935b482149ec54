"""One local Ray (2 CPUs, no dashboard) for the whole test session, and a RayExecutor on it."""

from __future__ import annotations

import time
from typing import Any, Callable

import pytest

ray = pytest.importorskip("ray", reason="the Ray executor's tests need: pip install 'graphrt[ray]'")


@pytest.fixture(scope="session")
def ray_executor():
    from graphrt.executors.ray import RayExecutor, start_local_ray

    started = not ray.is_initialized()
    if started:
        start_local_ray(num_cpus=2, include_dashboard=False, log_to_driver=False)
    executor = RayExecutor()
    yield executor
    executor.shutdown()
    if started:
        ray.shutdown()


def wait_until(condition: Callable[[], Any], what: str, seconds: float = 60) -> None:
    """Polls `condition` (a file a Ray worker or another process writes) until it holds.

    The deadline only guards against a hang: when it passes, the test fails saying `what` never happened.
    """
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {seconds:g} s")
        time.sleep(0.02)
