"""The Ray executor: a graph's agent calls run as tasks on a Ray cluster.

    graphrt run graph.yaml --executor ray                   # a local Ray, started for the command
    graphrt run graph.yaml --executor ray --address auto    # the one Ray cluster running on this machine
    graphrt run graph.yaml --executor ray://HOST:10001      # a remote cluster, through Ray Client
    graphrt batch graph.yaml rows.jsonl --executor ray --address HOST:6379   # each row one whole run, a task
    graphrt.run(graph, executor="ray")                      # made, opened and closed for the run
    async with RayExecutor(address="auto") as executor:     # yours: you open and close it, your runs borrow it
        await graphrt.arun(graph, executor=executor)

What runs where:
- The engine (readiness, the scheduler, loops, checkpoints) stays in the driver.
  Every agent call it grants a slot to becomes one Ray task, so a mapAgent's
  rows spread over the cluster while the graph's `concurrency` limits (global
  and per label) bound the tasks in flight, cluster-wide.
- Graph agents (nestedAgent, mapAgent: the orchestration) and agents whose
  function info says `runs_local` (one that asks a person, holds a live
  connection, or costs less than a task: the vanilla pack's pure data-shaping
  agents, copyAgent, stringTemplateAgent, propertyFilterAgent...) run in the
  driver (graphrt.engine.node.must_stay_local).
- A `stateful` agent (a toolset) lives in one Ray actor: every call, from any
  node or run, sees the same state. The actor starts from a copy of the
  registered instance; the driver's instance does not see its changes.
- Values of `large_value_bytes` or more (inputs and results) go through Ray's
  object store: put once, and every later edge passes the reference, not a copy.
- Timeouts and aborts cancel the remote task (`ray.cancel`). An agent's
  exception comes back as itself, so the node fails with the same GraphError,
  node and location as in-process. A worker that dies mid-call fails the
  attempt with an AgentError: the node's `retry` runs it again (Ray's own task
  retries are off, so that `retry` alone decides), else the node fails.

A batch's rows (graphrt.batches) go to the cluster whole: `run_whole` sends one
run as one task, `run_wholes` several (`rows_per_task`, 8: a batch takes that
many rows together, fewer near its end), which the task runs one after another.
The worker builds the graph once (from the text the driver read) and runs each
row in its own process, so the driver schedules rows, not agent calls, and the
cluster's size bounds the throughput. Several rows a task because a task's cost
is mostly not the row's: a worker lease from the node's raylet and the task's
trip (measured: 6.5 ms of raylet and 6.4 ms of driver CPU a row at one row a
task, on 4 nodes), paid once for the task's rows.

Connecting: an address that does not answer within `connect_timeout` (15 s) is
an ExecutorError, not minutes of Ray's retries; a cluster on 127.0.0.1 is
joined there (graphrt.executors.loopback_ray), and without an address a new
local Ray is started, never the machine's latest cluster.

Events an agent reports on the cluster (progress, streamed tokens) reach the
driver's subscribers as they happen, while the call runs: when the run has
subscribers, the worker pushes each event to one small async actor of the
executor (`EventRelay`, no CPU), which the driver takes them from as they come.

Ray ships agents, inputs and results to the cluster with its own serializer
(cloudpickle): point the executor only at a cluster you trust, as any Ray job
does. Nothing read from a graph file is ever unpickled; graph text stays data.

One module a job:
- `executor`: `RayExecutor`, the driver's side (its lifetime, calls, whole runs, what it keeps);
- `connection`: joining Ray (`connect_ray`, `start_local_ray`);
- `installed`: Ray itself, imported in this one place, so that the package imports without it;
- `wire`: what crosses to a worker and back (`Call`, `Outcome`, errors that survive the trip);
- `values`: large values by object ref, per run;
- `relay`: an agent's events from a worker to the driver's subscribers, as they happen;
- `tasks`: what a worker runs for one agent call (a task, or a stateful agent's actor);
- `whole_runs`: whole runs on a worker (a batch's rows), the graph built once per worker;
- `shipping`: agents' modules a worker cannot import, sent by value;
- `awaiting`: an object ref awaited under asyncio or trio.
"""

from __future__ import annotations

from graphrt.executors.ray.connection import connect_ray, start_local_ray
from graphrt.executors.ray.executor import RayExecutor

__all__ = ["RayExecutor", "connect_ray", "start_local_ray"]
