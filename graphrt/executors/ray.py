"""The Ray executor: a graph's agent calls run as tasks on a Ray cluster.

    graphrt run graph.yaml --executor ray                   # a local Ray, started for the run
    graphrt run graph.yaml --executor ray --address auto    # the one Ray cluster running on this machine
    graphrt run graph.yaml --executor ray://HOST:10001      # a remote cluster, through Ray Client
    graphrt batch graph.yaml rows.jsonl --executor ray --address HOST:6379   # each row one whole run, a task
    graphrt.run(graph, executor=RayExecutor(address="auto"))

What runs where:
- The engine (readiness, the scheduler, loops, checkpoints) stays in the driver.
  Every agent call it grants a slot to becomes one Ray task, so a mapAgent's
  rows spread over the cluster while the graph's `concurrency` limits (global
  and per label) bound the tasks in flight, cluster-wide.
- Graph agents (nestedAgent, mapAgent: the orchestration) and agents whose
  function info says `runs_local` (one that asks a person, holds a live
  connection, or costs less than a task: the vanilla pack's pure data-shaping
  agents, copyAgent, stringTemplateAgent, propertyFilterAgent...) run in the
  driver (graphrt.engine.executor.must_stay_local).
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
executor (`_EventRelay`, no CPU), which the driver takes them from as they come.

Ray ships agents, inputs and results to the cluster with its own serializer
(cloudpickle): point the executor only at a cluster you trust, as any Ray job
does. Nothing read from a graph file is ever unpickled; graph text stays data.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import os
import socket
import sys
import threading
import traceback
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import anyio

from graphrt.authoring.agent_info import AgentContext, AgentInfo
from graphrt.base.extras import install_line, needs_extra
from graphrt.base.errors import AgentError, GraphError
from graphrt.base.secrets import hide_credentials
from graphrt.graphdata.loader import GraphText
from graphrt.engine.executor import Executor, ExecutorError
from graphrt.engine.graph import Graph
from graphrt.engine.options import GraphOptions, RunOptions
from graphrt.executors.loopback_ray import LOOPBACK, is_loopback, loopback_kept

try:
    import ray
    import ray.exceptions
except ImportError as missing:  # the class stays readable, so that making one can say what to install
    ray = None
    _RAY_MISSING: ImportError | None = missing
    _LOST_WORKER: tuple[type[BaseException], ...] = ()
else:
    _RAY_MISSING = None
    # Failures of the cluster rather than of the agent: the attempt fails and the node's `retry` decides.
    _LOST_WORKER = (
        ray.exceptions.WorkerCrashedError,
        ray.exceptions.RayActorError,
        ray.exceptions.NodeDiedError,
        ray.exceptions.ObjectLostError,
        ray.exceptions.OutOfMemoryError,
        ray.exceptions.LocalRayletDiedError,
    )

__all__ = ["RayExecutor", "connect_ray", "start_local_ray"]

DEFAULT_LARGE_VALUE_BYTES = 100_000  # Ray inlines smaller task arguments anyway
DEFAULT_CONNECT_TIMEOUT = 15.0  # seconds a cluster's address may take to answer
DEFAULT_ROWS_PER_TASK = 8  # a batch's rows one task runs: its cost over 8 rows, and 8 rows is a short tail
_EXTRA = install_line("ray")


def _require_ray() -> None:
    if _RAY_MISSING is not None:
        raise ExecutorError(needs_extra("the Ray executor", "ray") or f"the Ray executor cannot start: {_RAY_MISSING}")


def start_local_ray(num_cpus: int | None = None, **options: Any) -> None:
    """Starts a new Ray on this machine for this process, whose workers import what the driver imports.

    The workers get the driver's `sys.path`, so agents from test modules, `--agents`
    files and the current folder unpickle there as they were defined here. It is
    always a new one (`address="local"`): Ray would otherwise join whichever cluster
    was last started on the machine, someone else's included.
    """
    _require_ray()
    options.setdefault("include_dashboard", False)
    options.setdefault("log_to_driver", True)
    ray.init(address="local", num_cpus=num_cpus, runtime_env=_driver_imports(options.pop("runtime_env", None)),
             **options)


def connect_ray(address: str, *, connect_timeout: float = DEFAULT_CONNECT_TIMEOUT, **options: Any) -> None:
    """Connects this process to the Ray cluster at `address` ("auto", "HOST:PORT" or "ray://HOST:PORT").

    An address that does not answer within `connect_timeout` seconds is an ExecutorError
    (Ray itself would retry for minutes). A cluster on this machine's loopback
    (127.0.0.1:PORT, as graphrt.executors.local_cluster starts one) is joined there:
    Ray would rewrite it to the machine's network address and then look for a node
    of that address; its workers import what the driver imports, as with start_local_ray.

    Raises:
        ExecutorError: the cluster does not answer.
    """
    _require_ray()
    options = {"include_dashboard": False, **options}
    if address == "auto":
        address = _the_machines_cluster()
    if address != "local":
        _check_reachable(address, connect_timeout)
    if not is_loopback(address):
        ray.init(address=address, **options)
        return
    options["runtime_env"] = _driver_imports(options.get("runtime_env"))
    if not address.startswith("ray://"):
        options.setdefault("_node_ip_address", LOOPBACK)
    with loopback_kept():
        ray.init(address=address, **options)


def _the_machines_cluster() -> str:
    """What `--address auto` means: RAY_ADDRESS if set, else the one Ray cluster running on this machine.

    Ray's own "auto" joins the cluster started last when several run (a test's, another
    user's), with only a warning; here several is an error naming them, so a batch never
    lands on a cluster its user did not mean.

    Raises:
        ExecutorError: no Ray cluster runs on this machine, or several do.
    """
    from_environment = os.environ.get("RAY_ADDRESS")
    if from_environment and from_environment != "auto":
        return from_environment
    try:
        from ray._private import services
    except ImportError:  # another Ray: leave the choice to it
        return "auto"
    getattr(services, "_thread_safe_find_gcs_addresses_cache_clear", lambda: None)()  # Ray keeps the first answer
    found = sorted(services.find_gcs_addresses())
    if len(found) == 1:
        return found[0]
    if not found:
        raise ExecutorError("--address auto: no Ray cluster runs on this machine (start one with 'ray start --head')")
    raise ExecutorError(f"--address auto: {len(found)} Ray clusters run on this machine ({', '.join(found)}): "
                        "give the one to use with --address HOST:PORT (or RAY_ADDRESS)")


def _driver_imports(runtime_env: Mapping[str, Any] | None) -> dict[str, Any]:
    """A runtime env whose PYTHONPATH (unless it sets one) is the driver's working folder and `sys.path`."""
    runtime_env = dict(runtime_env or {})
    env_vars = dict(runtime_env.get("env_vars", {}))
    paths = [path for path in sys.path if path and os.path.isdir(path)]
    env_vars.setdefault("PYTHONPATH", os.pathsep.join(dict.fromkeys([os.getcwd(), *paths])))
    runtime_env["env_vars"] = env_vars
    return runtime_env


def _check_reachable(address: str, timeout: float) -> None:
    """Raises ExecutorError unless something answers at the address's host and port within `timeout` seconds."""
    where = address.partition("://")[2] or address
    host, _, port = where.rpartition(":")
    host = host.strip("[]")
    shown = hide_credentials(address)
    if not host or not port.isdigit():
        raise ExecutorError(f"the Ray address {shown!r} is not HOST:PORT, ray://HOST:PORT or auto")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            pass
    except OSError as error:
        reason = (f"no answer within {timeout:g} s" if isinstance(error, TimeoutError)
                  else error.strerror or type(error).__name__)
        raise ExecutorError(f"cannot reach the Ray cluster at {shown}: {reason} "
                            "(is it running? start one with 'ray start --head', or use --address auto "
                            "for the one on this machine)") from None


# ----- what crosses to a worker and back -----


@dataclass
class _Call:
    """One agent call as a worker receives it: the context without the driver-only parts."""

    inputs: dict[str, Any]
    params: dict[str, Any]
    node_id: str
    agent_id: str | None
    filter_params: dict[str, Any]
    config: dict[str, Any]
    retry_count: int
    run_id: str
    path: tuple[str | int, ...]
    answer: Any
    relay: Any = None  # the driver has event subscribers: the actor the agent's events go to, as they happen
    key: str = ""  # this call's events in the relay


@dataclass
class _Outcome:
    """What a worker sends back: the result (or its object ref), or the exception (events go by the relay)."""

    result: Any = None
    result_ref: Any = None
    error: BaseException | None = None
    error_type: str = ""
    error_text: str = ""


_END = "graphrt:end-of-events"  # the last item a call pushes to the relay: the driver stops taking


class _Relayed:
    """The emitter of an agent on a worker: each event goes to the driver's relay at once (none without one).

    Events are numbered: an async actor may run one caller's calls out of order, the relay puts them back.
    """

    def __init__(self, relay: Any, key: str) -> None:
        self.relay = relay
        self.key = key
        self.sent = 0

    def __bool__(self) -> bool:
        return self.relay is not None

    def emit(self, event: Any) -> None:
        if self.relay is not None:
            self.relay.push.remote(self.key, self.sent, event)
            self.sent += 1

    def close(self) -> None:
        """Marks the end of the call's events, once every event before it has reached the relay."""
        if self.relay is None:
            return
        try:
            ray.get(self.relay.push.remote(self.key, self.sent, _END))
        except Exception:  # noqa: BLE001 - the relay is gone (the executor shut down): nobody waits for the end
            pass


class _EventRelay:
    """An async actor: workers push their calls' numbered events, the driver takes each call's in order, as they come."""

    def __init__(self) -> None:
        self._pending: dict[str, dict[int, Any]] = {}  # call -> events by number, not taken yet
        self._next: dict[str, int] = {}  # call -> the number of the next event to hand on
        self._ready: dict[str, asyncio.Event] = {}

    async def push(self, key: str, number: int, event: Any) -> None:
        self._pending.setdefault(key, {})[number] = event
        ready = self._ready.get(key)
        if ready is not None:
            ready.set()

    async def take(self, key: str) -> list[Any]:
        """The call's events that follow the last taken, in order; waits until the next one has come."""
        while self._next.get(key, 0) not in self._pending.get(key, {}):
            ready = self._ready.setdefault(key, asyncio.Event())
            await ready.wait()
            ready.clear()
        pending, number, events = self._pending[key], self._next.get(key, 0), []
        while number in pending:
            events.append(pending.pop(number))
            number += 1
        self._next[key] = number
        if events[-1] == _END:
            self._drop(key)
        return events

    async def forget(self, key: str) -> None:
        """Drops what a call left (the driver stopped waiting for it: it failed, or was cancelled)."""
        self._drop(key)

    def _drop(self, key: str) -> None:
        self._pending.pop(key, None)
        self._next.pop(key, None)
        self._ready.pop(key, None)


def _materialized(inputs: dict[str, Any]) -> dict[str, Any]:
    """The inputs with the object refs the driver put in their place fetched from the object store."""
    if not any(isinstance(value, ray.ObjectRef) for value in inputs.values()):
        return inputs
    return {key: ray.get(value) if isinstance(value, ray.ObjectRef) else value for key, value in inputs.items()}


def _invoke(call: Any, request: _Call, large_value_bytes: int) -> _Outcome:
    """Runs an agent on a worker, as graphrt.engine.executor.call_in_process does in the driver.

    A sync agent runs on the worker's main thread, so that `ray.cancel` interrupts it.
    """
    recorder = _Relayed(request.relay, request.key)
    ctx = AgentContext(
        inputs=_materialized(request.inputs), params=request.params, node_id=request.node_id,
        agent_id=request.agent_id, filter_params=request.filter_params, config=request.config,
        retry_count=request.retry_count, emitter=recorder, run_id=request.run_id,  # type: ignore[arg-type]
        path=request.path, answer=request.answer, agent_info=call if isinstance(call, AgentInfo) else None,
    )
    try:
        if isinstance(call, AgentInfo):
            result = asyncio.run(call.func(ctx)) if call.is_async else call.func(ctx)
        else:
            result = call(ctx)
        if inspect.isawaitable(result):
            result = asyncio.run(_awaited(result))
    except Exception as error:  # noqa: BLE001 - every agent failure goes back to the driver
        return _failure(error)
    finally:
        recorder.close()
    if _is_large(result, large_value_bytes):
        return _Outcome(result_ref=ray.put(result))
    return _Outcome(result=result)


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


def _failure(error: Exception) -> _Outcome:
    """The agent's exception as it is, when the driver can rebuild it; else its type name and text."""
    error.__traceback__ = None
    if _rebuildable(error):
        return _Outcome(error=error)
    text = "".join(traceback.format_exception_only(type(error), error)).strip()
    return _Outcome(error_type=type(error).__name__, error_text=str(error) or text)


def _rebuildable(error: Exception) -> bool:
    """Whether an exception survives the trip: rebuilt as `type(*args)` (BaseException's reduce), or its own reduce.

    An exception whose `__init__` wants other arguments than its `args` pickles but
    cannot be unpickled on the driver; it goes back as its type name and text instead.
    """
    if type(error).__reduce__ is not BaseException.__reduce__ or type(error).__reduce_ex__ is not BaseException.__reduce_ex__:
        return True
    try:
        type(error)(*error.args)
    except Exception:  # noqa: BLE001 - any constructor failure means: send the text
        return False
    return True


class _AgentActor:
    """Holds one stateful agent (a toolset instance) for every call of it on the cluster."""

    def __init__(self, call: Any, large_value_bytes: int) -> None:
        self._call = call
        self._large = large_value_bytes

    def run(self, request: _Call) -> _Outcome:
        return _invoke(self._call, request, self._large)


# ----- whole runs (a batch's rows): one task per run, the graph built once per worker -----


@dataclass
class _GraphRecipe:
    """What a worker builds a Graph from: the file's text and name (or the data), and the Graph's options."""

    source: Any  # a GraphText, or GraphData given as a dict
    options: GraphOptions


_PREPARED: dict[str, Any] = {}  # in a worker: the recipe's object ref (hex) -> its Graph, the last few
_PREPARED_KEPT = 8


def _prepared(holder: list[Any]) -> Any:
    """The Graph of a recipe, built on this worker's first run of it (validated and compiled once, not per row)."""
    ref = holder[0]
    graph = _PREPARED.get(ref.hex())
    if graph is None:
        recipe: _GraphRecipe = ray.get(ref)
        graph = Graph(recipe.source, recipe.options)
        if len(_PREPARED) >= _PREPARED_KEPT:
            _PREPARED.pop(next(iter(_PREPARED)))
        _PREPARED[ref.hex()] = graph
    return graph


_LOOP: asyncio.AbstractEventLoop | None = None  # in a worker: the event loop its whole runs run on, one after another


def _run_whole(holder: list[Any], options: RunOptions) -> _Outcome:
    """One whole run on a worker; its results, or its error as the driver can rebuild it.

    The runs share one event loop (a new loop per run costs more than a small graph's run);
    a run cut short by `ray.cancel` (KeyboardInterrupt) leaves the next one a new loop.
    """
    global _LOOP
    if _LOOP is None:
        _LOOP = asyncio.new_event_loop()
    try:
        results = _LOOP.run_until_complete(_prepared(holder).arun(options))
    except KeyboardInterrupt:
        _LOOP = None
        raise
    except Exception as error:  # noqa: BLE001 - every failure of the run goes back to the driver
        return _Outcome(error=_portable(GraphError.from_exception(error, doing="the run failed")))
    return _Outcome(result=results)


def _run_wholes(holder: list[Any], options: list[RunOptions]) -> list[_Outcome]:
    """Several whole runs in one task, one after another on the worker's loop (the graph built once)."""
    return [_run_whole(holder, one) for one in options]


def _portable(error: GraphError) -> GraphError:
    """The error itself if it survives pickling both ways, else a GraphError with its message, node and place."""
    from ray import cloudpickle

    error.__traceback__ = None
    try:
        cloudpickle.loads(cloudpickle.dumps(error))
        return error
    except Exception:  # noqa: BLE001 - any failure to cross: send what the message is made of
        plain = GraphError(error.message, node_id=error.node_id, field=error.field, location=error.location)
        plain.nested = error.nested
        return plain


def _is_large(value: Any, limit: int) -> bool:
    """Whether a value's size reaches `limit` bytes, roughly, stopping as soon as it does."""
    budget = limit
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (str, bytes, bytearray)):
            budget -= len(item)
        elif isinstance(item, dict):
            budget -= 16 * len(item)
            stack.extend(item.values())
            stack.extend(key for key in item if isinstance(key, str))
        elif isinstance(item, (list, tuple)):
            budget -= 8 * len(item)
            stack.extend(item)
        else:
            nbytes = getattr(item, "nbytes", None)  # numpy arrays and the like
            budget -= nbytes if isinstance(nbytes, int) else 8
        if budget <= 0:
            return True
    return False


class _RemoteException(Exception):
    """An agent's exception that could not cross the wire; it keeps the type's name in messages."""


def _rebuilt(outcome: _Outcome) -> BaseException:
    if outcome.error is not None:
        return outcome.error
    kind = type(outcome.error_type or "Exception", (_RemoteException,), {"__module__": __name__})
    return kind(outcome.error_text)


# ----- the driver's side -----


class RayExecutor(Executor):
    """Runs agent calls as Ray tasks (and stateful agents in Ray actors).

    Args:
        address: the cluster: None starts a local Ray for the run (unless this process
            is connected already, or RAY_ADDRESS is set), "auto" the one running on
            this machine, "ray://HOST:PORT" a remote one through Ray Client.
        num_cpus: the CPUs of a local Ray that this executor starts.
        task_options: Ray options for every task (e.g. `num_cpus`, `resources`, `runtime_env`).
        agent_options: Ray options by agent name, over `task_options` (e.g. `{"fetchAgent": {"num_cpus": 0.25}}`).
        large_value_bytes: values this large or larger travel by object ref.
        force_cancel: `ray.cancel(force=True)` on timeout or abort (kills the worker process;
            needed for agents stuck in native code). By default the task gets KeyboardInterrupt.
        init_options: more options for `ray.init` when this executor starts or connects to Ray.
        connect_timeout: seconds the cluster at `address` may take to answer before ExecutorError.
        rows_per_task: whole runs (a batch's rows) one task runs, one after another (1: a task a row).
    """

    name = "ray"
    schemes = ("ray",)  # `--executor ray` (with `--address`, or none: a local Ray) or `--executor ray://HOST:PORT`
    extra = _EXTRA

    @classmethod
    def from_target(cls, target: str, *, address: str | None = None, **options: Any) -> "RayExecutor":
        """`ray` (a local Ray, or the cluster at `address`) or `ray://HOST:PORT` (a cluster through Ray Client).

        Raises:
            ExecutorError: two different addresses, or Ray is not installed.
        """
        if target.startswith("ray://"):
            if address is not None and address != target:
                raise ExecutorError(f"two addresses for the Ray cluster: {hide_credentials(target)} and "
                                    f"{hide_credentials(address)}")
            address = target
        elif target != "ray":
            raise ExecutorError(f"the Ray executor is named ray or ray://HOST:PORT, not {hide_credentials(target)!r}")
        return cls(address, **options)

    def __init__(
        self,
        address: str | None = None,
        *,
        num_cpus: int | None = None,
        task_options: Mapping[str, Any] | None = None,
        agent_options: Mapping[str, Mapping[str, Any]] | None = None,
        large_value_bytes: int = DEFAULT_LARGE_VALUE_BYTES,
        force_cancel: bool = False,
        init_options: Mapping[str, Any] | None = None,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        rows_per_task: int = DEFAULT_ROWS_PER_TASK,
    ) -> None:
        _require_ray()
        if rows_per_task < 1:
            raise ExecutorError(f"a Ray task runs at least one row, not {rows_per_task}")
        self.rows_per_task = rows_per_task
        self.connect_timeout = connect_timeout
        self.address = address
        self.num_cpus = num_cpus
        self.task_options = {"num_cpus": 1, **(task_options or {})}
        self.agent_options = {name: dict(options) for name, options in (agent_options or {}).items()}
        self.large_value_bytes = large_value_bytes
        self.force_cancel = force_cancel
        self.init_options = dict(init_options or {})
        self.started_ray = False  # this executor started (or connected) Ray, so `shutdown` disconnects
        self._lock = threading.Lock()
        self._task: Any = None
        self._task_options: dict[str | None, dict[str, Any]] = {}
        self._functions: dict[int, tuple[Any, Any]] = {}  # id(agent) -> (agent, its object ref)
        self._values: dict[int, tuple[Any, Any]] = {}  # id(value) -> (value, its object ref), for one run
        self._actors: dict[int, tuple[Any, Any]] = {}  # id(stateful agent) -> (agent, its actor)
        self._recipes: dict[int, tuple[Any, Any]] = {}  # id(Graph) -> (graph, its recipe's object ref)
        self._relay: Any = None  # the _EventRelay actor, once a call has subscribers
        self._whole: Any = None
        self._wholes: Any = None

    # ----- lifecycle -----

    async def open(self) -> None:
        with self._lock:
            if not ray.is_initialized():
                if self.address is None and not os.environ.get("RAY_ADDRESS"):
                    start_local_ray(self.num_cpus, **self.init_options)
                else:
                    connect_ray(self.address or os.environ["RAY_ADDRESS"], connect_timeout=self.connect_timeout,
                                **self.init_options)
                self.started_ray = True
            if self._task is None:
                self._task = ray.remote(_invoke)
                self._whole = ray.remote(_run_whole)
                self._wholes = ray.remote(_run_wholes)

    async def close(self) -> None:
        """Lets go of the run's values in the object store (the actors stay for the next run)."""
        self._values.clear()

    def shutdown(self) -> None:
        """Ends the actors, and disconnects from Ray (stopping a local Ray) if this executor started it."""
        for _, actor in self._actors.values():
            ray.kill(actor)
        self._actors.clear()
        if self._relay is not None:
            ray.kill(self._relay)
            self._relay = None
        self._functions.clear()
        self._values.clear()
        self._recipes.clear()
        self._task = self._whole = self._wholes = None
        if self.started_ray and ray.is_initialized():
            ray.shutdown()
        self.started_ray = False

    @property
    def location(self) -> str:
        return hide_credentials(self.address) if self.address else "a local Ray"

    def __repr__(self) -> str:
        return f"RayExecutor(address={self.location if self.address else None!r})"

    # ----- calls -----

    async def call(self, call: Any, ctx: AgentContext) -> Any:
        if self._task is None:
            await self.open()
        relay = self._event_relay() if ctx.emitter else None
        request = _Call(
            inputs=self._by_reference(ctx.inputs), params=ctx.params, node_id=ctx.node_id, agent_id=ctx.agent_id,
            filter_params=ctx.filter_params, config=ctx.config, retry_count=ctx.retry_count, run_id=ctx.run_id,
            path=ctx.path, answer=ctx.answer, relay=relay, key=uuid.uuid4().hex if relay is not None else "",
        )
        stateful = isinstance(call, AgentInfo) and call.stateful
        if stateful:
            ref = self._actor(call).run.remote(request)
        else:
            ref = self._task.options(**self._options(ctx.agent_id)).remote(self._shared(call), request,
                                                                           self.large_value_bytes)
        try:
            outcome: _Outcome = (await _resolved(ref) if relay is None
                                 else await _with_events(ref, relay, request.key, ctx.emitter))
            if outcome.result_ref is not None:
                outcome.result = await _resolved(outcome.result_ref)
                self._values[id(outcome.result)] = (outcome.result, outcome.result_ref)
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True):
                ray.cancel(ref, force=self.force_cancel and not stateful)
            raise
        except _LOST_WORKER as lost:
            if stateful:
                self._actors.pop(id(call), None)  # a new actor (with a fresh state) takes the next call
            where = "actor" if stateful else "worker"
            raise AgentError(f"the Ray {where} running this call died ({type(lost).__name__}: {_first_line(lost)})",
                             agent_id=ctx.agent_id) from lost
        except ray.exceptions.TaskCancelledError as cancelled:
            raise AgentError("the Ray task was cancelled from outside the run", agent_id=ctx.agent_id) from cancelled
        except ray.exceptions.RayError as failed:  # e.g. the agent cannot be unpickled on the worker
            raise AgentError(f"Ray could not run this call ({type(failed).__name__}: {_first_line(failed)})",
                             agent_id=ctx.agent_id) from failed
        if outcome.error is not None or outcome.error_type:
            raise _rebuilt(outcome)
        return outcome.result

    # ----- whole runs -----

    def whole_run_slots(self) -> int | None:
        """The whole runs the cluster runs at once: its CPUs over the CPUs a task asks for (`task_options`)."""
        if not ray.is_initialized():
            return None
        cpus = ray.cluster_resources().get("CPU", 0)
        per_task = self.task_options.get("num_cpus", 1) or 1
        return max(int(cpus / per_task), 1) if cpus else None

    async def run_whole(self, graph: Graph, options: RunOptions) -> dict[str, Any]:
        """Runs one whole run of `graph` as one Ray task: the graph runs in a worker, in that worker's process.

        The worker builds the graph once (from the text the driver read, so that errors name the
        file and line) and runs each run it is given; the driver only schedules runs. Events of
        the run stay on the worker. A worker or node that dies fails the run (GraphError).
        """
        outcome: _Outcome = await self._remote_whole(False, graph, options.replace(subscribe=(), progress=None))
        if outcome.error is not None:
            raise outcome.error
        return outcome.result

    async def run_wholes(self, graph: Graph, options: "Sequence[RunOptions]") -> list[dict[str, Any] | GraphError]:
        """Several whole runs of `graph` in one Ray task, one after another; each one's results or GraphError.

        A worker or node that dies fails them all (GraphError, raised).
        """
        outcomes: list[_Outcome] = await self._remote_whole(
            True, graph, [one.replace(subscribe=(), progress=None) for one in options])
        return [outcome.result if outcome.error is None else outcome.error for outcome in outcomes]

    async def _remote_whole(self, several: bool, graph: Graph, options: Any) -> Any:
        """Sends a whole run (or `several`, a list) of `graph` to the cluster as one task; what the task returns."""
        if self._whole is None:
            await self.open()
        remote = self._wholes if several else self._whole
        holder = [self._recipe(graph)]  # in a list: the worker gets the ref itself, and builds the graph once per ref
        ref = remote.options(**self._options(None)).remote(holder, options)
        try:
            return await _resolved(ref)
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True):
                ray.cancel(ref, force=self.force_cancel)
            raise
        except _LOST_WORKER as lost:
            raise GraphError(f"the Ray worker running this run died ({type(lost).__name__}: {_first_line(lost)})") from lost
        except ray.exceptions.RayError as failed:
            raise GraphError(f"Ray could not run this run ({type(failed).__name__}: {_first_line(failed)})") from failed

    def _recipe(self, graph: Graph) -> Any:
        """The graph's recipe as an object ref: put once per Graph, so a batch's rows share it."""
        entry = self._recipes.get(id(graph))
        if entry is None or entry[0] is not graph:
            source = graph.spec.source
            built_from = GraphText(source.text, source.file) if source.text is not None else dict(graph.data)
            _ship_unimportable_modules()
            options = dataclasses.replace(graph.options, executor=None, services=None)
            entry = (graph, ray.put(_GraphRecipe(built_from, options)))
            self._recipes[id(graph)] = entry
        return entry[1]

    def _event_relay(self) -> Any:
        """The executor's one event relay actor (made on the first call with subscribers; it asks for no CPU)."""
        with self._lock:
            if self._relay is None:
                self._relay = ray.remote(_EventRelay).options(num_cpus=0, max_concurrency=10_000).remote()
            return self._relay

    def _options(self, agent_id: str | None) -> dict[str, Any]:
        """The Ray options of an agent's tasks: no Ray retries (the node's `retry` decides), then the user's."""
        options = self._task_options.get(agent_id)
        if options is None:
            options = {**self.task_options, **self.agent_options.get(agent_id or "", {}), "max_retries": 0}
            self._task_options[agent_id] = options
        return options

    def _shared(self, call: Any) -> Any:
        """The agent as an object ref: pickled and uploaded once, not at every call."""
        entry = self._functions.get(id(call))
        if entry is None or entry[0] is not call:
            _ship_unimportable_modules()
            entry = (call, ray.put(call))
            self._functions[id(call)] = entry
        return entry[1]

    def _actor(self, call: AgentInfo) -> Any:
        entry = self._actors.get(id(call))
        if entry is None or entry[0] is not call:
            _ship_unimportable_modules()
            options = self.agent_options.get(call.name, {})
            actor_class = ray.remote(_AgentActor).options(max_restarts=0, max_task_retries=0, **options)
            entry = (call, actor_class.remote(call, self.large_value_bytes))
            self._actors[id(call)] = entry
        return entry[1]

    def _by_reference(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """The inputs with each large value replaced by its object ref (put once per value and run)."""
        replaced = None
        for key, value in inputs.items():
            if value is None or isinstance(value, (bool, int, float)):
                continue
            entry = self._values.get(id(value))
            if entry is None or entry[0] is not value:
                if not _is_large(value, self.large_value_bytes):
                    continue
                entry = (value, ray.put(value))
                self._values[id(value)] = entry
            if replaced is None:
                replaced = dict(inputs)
            replaced[key] = entry[1]
        return inputs if replaced is None else replaced


_CHECKED_MODULES: set[str] = set()


def _ship_unimportable_modules() -> None:
    """Pickles by value the modules a worker could not import by name (e.g. `--agents path/to/file.py`).

    cloudpickle sends a module-level function as "module.name", which a worker
    imports; a module loaded from a file path has a name no worker can import.
    A module counts as importable when any import finder finds it without the agent
    files' folders: a package installed in editable mode (`pip install -e`, graphrt
    itself in a checkout) is found by its own finder, not on `sys.path`, and pickling
    such a package by value fails (Ray's "excessively deep recursion", or a lock that
    cannot be pickled) when the driver runs from another folder.
    """
    from ray import cloudpickle

    from graphrt.authoring.agent_like import AGENT_FILE_FOLDERS

    worker_path = [folder for folder in sys.path if folder not in AGENT_FILE_FOLDERS]
    for name, module in list(sys.modules.items()):
        if name in _CHECKED_MODULES or module is None:
            continue
        _CHECKED_MODULES.add(name)
        if getattr(module, "__file__", None) is None or name == "__main__":
            continue  # built in, or pickled by value by cloudpickle anyway
        if not _importable(name.partition(".")[0], worker_path):
            cloudpickle.register_pickle_by_value(module)


def _importable(top: str, path: list[str]) -> bool:
    """Whether a worker whose `sys.path` is `path` imports the top-level module `top` (every finder asked)."""
    if top in sys.builtin_module_names:
        return True
    for finder in sys.meta_path:
        find_spec = getattr(finder, "find_spec", None)
        if find_spec is None:
            continue
        try:
            if find_spec(top, path) is not None:
                return True
        except (ImportError, ValueError, TypeError):
            continue
    return False


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


async def _with_events(ref: Any, relay: Any, key: str, emitter: Any) -> Any:
    """The call's outcome, while its events are handed to `emitter` as they reach the relay."""
    failure: BaseException | None = None
    outcome = None
    async with anyio.create_task_group() as group:
        group.start_soon(_forward_events, relay, key, emitter)
        try:
            outcome = await _resolved(ref)
        except anyio.get_cancelled_exc_class():
            group.cancel_scope.cancel()
            relay.forget.remote(key)
            raise
        except BaseException as error:  # noqa: BLE001 - raised after the forwarding stopped
            failure = error
            group.cancel_scope.cancel()
    if failure is not None:
        relay.forget.remote(key)
        raise failure
    return outcome


async def _forward_events(relay: Any, key: str, emitter: Any) -> None:
    """Takes a call's events from the relay as they come, until the call's last."""
    while True:
        for event in await _resolved(relay.take.remote(key)):
            if isinstance(event, str) and event == _END:
                return
            emitter.emit(event)


async def _resolved(ref: Any) -> Any:
    """The value of an object ref, awaited under asyncio or trio alike (an abort or timeout stops the wait)."""
    future = ref.future()
    if not future.done():
        event = anyio.Event()
        wake = _waker(event)
        future.add_done_callback(lambda _: wake())
        await event.wait()
    return future.result()


def _waker(event: anyio.Event) -> Callable[[], None]:
    """A function that sets `event` from any thread (Ray completes futures on its own threads)."""
    import sniffio

    if sniffio.current_async_library() == "trio":
        import trio

        token = trio.lowlevel.current_trio_token()
        schedule: Callable[[Callable[[], Any]], Any] = token.run_sync_soon
    else:
        schedule = asyncio.get_running_loop().call_soon_threadsafe

    def wake() -> None:
        try:
            schedule(event.set)
        except RuntimeError:  # the run is over (its loop closed) before the abandoned call ended
            pass

    return wake
