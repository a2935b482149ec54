"""One real Ray cluster for the whole test session, and a RayExecutor on it.

The cluster is separate processes on 127.0.0.1 (graphrt.executors.local_cluster):
a head that only schedules (no CPUs) and two worker nodes of one declared CPU
each, every one its own `ray start`, joined over loopback as machines join over
the network. The test session is its driver; tests that start another driver
(`graphrt run --address ...` in a subprocess) join the same cluster. Starting it
takes a while, so every Ray test shares it.
"""

from __future__ import annotations

import pytest

from ..conftest import need

need("ray")  # before the import below: without it, every test of this folder is skipped

import ray  # noqa: E402

WORKER_NODES = 2


async def _warm_agent(ctx):
    import anyio

    await anyio.sleep(0.5)  # long enough that the other call takes the other node's CPU
    return ctx.node_id


def _warm_up(executor) -> None:
    """A worker started on every node and graphrt imported there, before any test's time limit runs."""
    import graphrt

    graph = {"version": 0.5, "nodes": {f"n{index}": {"agent": "warmAgent", "isResult": True}
                                       for index in range(WORKER_NODES)}}
    graphrt.run(graph, agents=[graphrt.AgentInfo("warmAgent", _warm_agent)], executor=executor)


@pytest.fixture(scope="session")
def ray_cluster():
    from graphrt.executors.local_cluster import LocalRayCluster

    with LocalRayCluster(head_cpus=0) as cluster:
        cluster.add_nodes(WORKER_NODES, num_cpus=1)
        yield cluster


@pytest.fixture(scope="session")
def ray_executor(ray_cluster):
    """The session's RayExecutor: the fixture made it, so the fixture opens it and closes it; tests borrow it."""
    import anyio

    from graphrt.executors.ray import RayExecutor, connect_ray

    started = not ray.is_initialized()
    if started:
        connect_ray(ray_cluster.address, log_to_driver=False)
    executor = RayExecutor()
    anyio.run(executor.open)
    _warm_up(executor)
    yield executor
    anyio.run(executor.close)
    if started:
        ray.shutdown()
