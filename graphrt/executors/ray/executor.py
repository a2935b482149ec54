"""`RayExecutor`, the driver's side: agent calls sent to Ray as tasks (stateful agents to actors), whole runs too.

It keeps, for as long as it is open, what it sent once to be reused: each agent as
an object ref, each stateful agent's actor, each graph's recipe, the event relay;
and for each run its large values (graphrt.executors.ray.values), let go when the
run ends (`run_ended`). Closing it ends its actors, and disconnects from Ray
(stopping a local Ray) when it is the one that started or joined it.
"""

from __future__ import annotations

import os
import threading
import uuid
from typing import Any, Mapping, Sequence

import anyio

from graphrt.authoring.agent_info import AgentContext, AgentInfo
from graphrt.base.errors import AgentError, GraphError
from graphrt.base.extras import install_line
from graphrt.base.secrets import hide_credentials
from graphrt.engine.executor import Executor, ExecutorError
from graphrt.engine.graph import Graph
from graphrt.engine.options import RunOptions
from graphrt.executors.ray.awaiting import resolved
from graphrt.executors.ray.connection import DEFAULT_CONNECT_TIMEOUT, connect_ray, start_local_ray
from graphrt.executors.ray.installed import LOST_WORKER, ray, require_ray
from graphrt.executors.ray.relay import EventRelay, with_events
from graphrt.executors.ray.shipping import ship_unimportable_modules
from graphrt.executors.ray.tasks import AgentActor, invoke
from graphrt.executors.ray.values import RunValues
from graphrt.executors.ray.whole_runs import recipe_of, run_whole, run_wholes
from graphrt.executors.ray.wire import Call, Outcome, rebuilt

__all__ = ["DEFAULT_LARGE_VALUE_BYTES", "DEFAULT_ROWS_PER_TASK", "RayExecutor"]

DEFAULT_LARGE_VALUE_BYTES = 100_000  # Ray inlines smaller task arguments anyway
DEFAULT_ROWS_PER_TASK = 8  # a batch's rows one task runs: its cost over 8 rows, and 8 rows is a short tail
_EXTRA = install_line("ray")


class RayExecutor(Executor):
    """Runs agent calls as Ray tasks (and stateful agents in Ray actors).

    Its maker opens it (connects to Ray) and closes it, once each (`async with executor:`);
    one used before it is opened connects on first use, as `graphrt.run(g, executor=RayExecutor())`
    does. Its runs and batches borrow it.

    Args:
        address: the cluster: None starts a local Ray when it opens (unless this process
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
        require_ray()
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
        self.started_ray = False  # this executor started (or connected) Ray, so `close` disconnects
        self._lock = threading.Lock()
        self._task: Any = None
        self._task_options: dict[str | None, dict[str, Any]] = {}
        self._functions: dict[int, tuple[Any, Any]] = {}  # id(agent) -> (agent, its object ref)
        self._values = RunValues(large_value_bytes)  # each run's large values and their object refs
        self._actors: dict[int, tuple[Any, Any]] = {}  # id(stateful agent) -> (agent, its actor)
        self._recipes: dict[int, tuple[Any, Any]] = {}  # id(Graph) -> (graph, its recipe's object ref)
        self._relay: Any = None  # the EventRelay actor, once a call has subscribers
        self._whole: Any = None
        self._wholes: Any = None

    # ----- its maker's: open, close -----

    async def open(self) -> None:
        """Connects to Ray: the cluster at `address` (or RAY_ADDRESS), or a new local Ray; none if connected already.

        Raises:
            ExecutorError: the cluster does not answer.
        """
        self._connect()

    def _connect(self) -> None:
        """Connected to Ray, with the remote functions made: by `open`, or by a first use before it."""
        with self._lock:
            if not ray.is_initialized():
                if self.address is None and not os.environ.get("RAY_ADDRESS"):
                    start_local_ray(self.num_cpus, **self.init_options)
                else:
                    connect_ray(self.address or os.environ["RAY_ADDRESS"], connect_timeout=self.connect_timeout,
                                **self.init_options)
                self.started_ray = True
            if self._task is None:
                self._task = ray.remote(invoke)
                self._whole = ray.remote(run_whole)
                self._wholes = ray.remote(run_wholes)

    async def close(self) -> None:
        """Ends the actors, lets go of all it put in the object store, and disconnects from Ray (stopping a local
        Ray) if this executor started or joined it."""
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

    # ----- its borrowers': calls, whole runs -----

    async def call(self, call: Any, ctx: AgentContext) -> Any:
        if self._task is None:
            self._connect()
        relay = self._event_relay() if ctx.emitter else None
        request = Call(
            inputs=self._values.by_reference(ctx.run_id, ctx.inputs), params=ctx.params, node_id=ctx.node_id,
            agent_id=ctx.agent_id, filter_params=ctx.filter_params, config=ctx.config, retry_count=ctx.retry_count,
            run_id=ctx.run_id, path=ctx.path, answer=ctx.answer, relay=relay,
            key=uuid.uuid4().hex if relay is not None else "",
        )
        stateful = isinstance(call, AgentInfo) and call.stateful
        if stateful:
            ref = self._actor(call).run.remote(request)
        else:
            ref = self._task.options(**self._options(ctx.agent_id)).remote(self._shared(call), request,
                                                                           self.large_value_bytes)
        try:
            outcome: Outcome = (await resolved(ref) if relay is None
                                else await with_events(ref, relay, request.key, ctx.emitter))
            if outcome.result_ref is not None:
                outcome.result = await resolved(outcome.result_ref)
                self._values.keep(ctx.run_id, outcome.result, outcome.result_ref)
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True):
                ray.cancel(ref, force=self.force_cancel and not stateful)
            raise
        except LOST_WORKER as lost:
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
            raise rebuilt(outcome)
        return outcome.result

    def run_ended(self, run_id: str) -> None:
        """Lets go of the run's large values in the object store; the actors and shipped agents stay for the next."""
        self._values.forget(run_id)

    def whole_run_slots(self) -> int | None:
        """The whole runs the cluster runs at once: its CPUs over the CPUs a task asks for (`task_options`)."""
        if self._task is None:
            self._connect()
        cpus = ray.cluster_resources().get("CPU", 0)
        per_task = self.task_options.get("num_cpus", 1) or 1
        return max(int(cpus / per_task), 1) if cpus else None

    async def run_whole(self, graph: Graph, options: RunOptions) -> dict[str, Any]:
        """Runs one whole run of `graph` as one Ray task: the graph runs in a worker, in that worker's process.

        The worker builds the graph once (from the text the driver read, so that errors name the
        file and line) and runs each run it is given; the driver only schedules runs. Events of
        the run stay on the worker; what it spent comes back to `options.on_usage`. A worker or
        node that dies fails the run (GraphError).
        """
        outcome: Outcome = await self._remote_whole(False, graph, _shipped(options))
        _report_usage(options, outcome)
        if outcome.error is not None:
            raise outcome.error
        return outcome.result

    async def run_wholes(self, graph: Graph, options: "Sequence[RunOptions]") -> list[dict[str, Any] | GraphError]:
        """Several whole runs of `graph` in one Ray task, one after another; each one's results or GraphError.

        A worker or node that dies fails them all (GraphError, raised).
        """
        outcomes: list[Outcome] = await self._remote_whole(True, graph, [_shipped(one) for one in options])
        for one, outcome in zip(options, outcomes):
            _report_usage(one, outcome)
        return [outcome.result if outcome.error is None else outcome.error for outcome in outcomes]

    async def _remote_whole(self, several: bool, graph: Graph, options: Any) -> Any:
        """Sends a whole run (or `several`, a list) of `graph` to the cluster as one task; what the task returns."""
        if self._whole is None:
            self._connect()
        remote = self._wholes if several else self._whole
        holder = [self._recipe(graph)]  # in a list: the worker gets the ref itself, and builds the graph once per ref
        ref = remote.options(**self._options(None)).remote(holder, options)
        try:
            return await resolved(ref)
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True):
                ray.cancel(ref, force=self.force_cancel)
            raise
        except LOST_WORKER as lost:
            raise GraphError(f"the Ray worker running this run died ({type(lost).__name__}: {_first_line(lost)})"
                             ) from lost
        except ray.exceptions.RayError as failed:
            raise GraphError(f"Ray could not run this run ({type(failed).__name__}: {_first_line(failed)})") from failed

    def _recipe(self, graph: Graph) -> Any:
        """The graph's recipe as an object ref: put once per Graph, so a batch's rows share it."""
        entry = self._recipes.get(id(graph))
        if entry is None or entry[0] is not graph:
            ship_unimportable_modules()
            entry = (graph, ray.put(recipe_of(graph)))
            self._recipes[id(graph)] = entry
        return entry[1]

    def _event_relay(self) -> Any:
        """The executor's one event relay actor (made on the first call with subscribers; it asks for no CPU)."""
        with self._lock:
            if self._relay is None:
                self._relay = ray.remote(EventRelay).options(num_cpus=0, max_concurrency=10_000).remote()
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
            ship_unimportable_modules()
            entry = (call, ray.put(call))
            self._functions[id(call)] = entry
        return entry[1]

    def _actor(self, call: AgentInfo) -> Any:
        entry = self._actors.get(id(call))
        if entry is None or entry[0] is not call:
            ship_unimportable_modules()
            options = self.agent_options.get(call.name, {})
            actor_class = ray.remote(AgentActor).options(max_restarts=0, max_task_retries=0, **options)
            entry = (call, actor_class.remote(call, self.large_value_bytes))
            self._actors[id(call)] = entry
        return entry[1]


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _shipped(options: RunOptions) -> RunOptions:
    """A whole run's options as a worker gets them: no event subscribers, display or usage callback, which are the
    driver's (the worker sends back what the run spent, given to `on_usage` here)."""
    return options.replace(subscribe=(), progress=None, on_usage=None)


def _report_usage(options: RunOptions, outcome: Outcome) -> None:
    """What a whole run spent on its worker, said to the driver's `on_usage` as a run in this process says it."""
    if options.on_usage is not None and outcome.usage is not None:
        options.on_usage(outcome.usage)
