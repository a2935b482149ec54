"""One local Ray (2 CPUs, no dashboard) for the whole test session, and a RayExecutor on it."""

from __future__ import annotations

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
