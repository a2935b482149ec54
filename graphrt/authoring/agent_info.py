"""Agents and their function info: what an agent is, what it receives, and what a registry holds.

An agent is a function that takes an `AgentContext` and returns the node's
result. `AgentInfo` carries what GraphAI's AgentFunctionInfo carries (schemas,
samples, metadata) so that validation, tool schemas and docs come from one place.
The `Registry` of agents by name is in registry.py.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Hashable, Iterator, Mapping, Protocol

from graphrt.base.errors import Interrupt, RegistrationError
from graphrt.base.frozen import Frozen

if TYPE_CHECKING:
    from graphrt.authoring.services import RunServices
    from graphrt.base.usage import Meter
    from graphrt.graphdata.spec import GraphSpec
    from graphrt.observe.observer import Emitter
    from graphrt.observe.events import Event

__all__ = [
    "AgentContext", "AgentFunction", "AgentInfo", "AgentLike", "AgentLookup", "NestedGraph", "NestedGraphRule",
    "NestingHandle", "Sample", "is_async_callable", "node_context",
]


class AgentLookup(Protocol):
    """The agents of a run as an agent that calls others sees them (toolsAgent's tools): a `Registry`
    (registry.py, which imports this module) is one."""

    def get(self, name: str) -> "AgentInfo | None":
        """The agent of that name, or None."""
        ...

    def __contains__(self, name: object) -> bool: ...

    def __iter__(self) -> Iterator["AgentInfo"]:
        """Every agent that can load."""
        ...


class NestingHandle(Protocol):
    """What every agent call gets (`ctx.nesting`) to run graphs inside its node, as graph agents do.

    The engine's handle (graphrt.engine.nesting) satisfies it; authoring code
    names only this protocol, so that it never imports the engine.
    """

    @property
    def registry(self) -> AgentLookup:
        """The agents of the run, which every graph nested in it can use."""
        ...

    @property
    def concurrency(self) -> int:
        """The run's global concurrency limit."""
        ...

    def compile(self, graph_data: Mapping[str, Any], key: Hashable = None) -> "GraphSpec":
        """Validates and compiles a nested graph once, for any number of runs of it."""
        ...

    async def run_graph(
        self,
        graph: "GraphSpec | Mapping[str, Any]",
        *,
        inject: Mapping[str, Any] | None = None,
        all_results: bool = False,
        loop_count: int | None = None,
        map_index: int | None = None,
        journal: str | None = None,
    ) -> dict[str, Any]:
        """Runs a nested graph to its end and returns its results; with `journal` (a kind: "llm", "tool"), every
        agent call of its own nodes is journaled as a call of that kind (graphrt/engine/journal.py)."""
        ...


@dataclass(slots=True, init=False, repr=False, eq=False)
class AgentContext:
    """What an agent receives: its resolved inputs, its params and the node it runs for.

    `inputs` are GraphAI's namedInputs: the node's `inputs` with every reference
    resolved (missing values are left out). `params` are the node's literal
    params, overridden by `inputs.params` when that is an object.
    `agent_info` is the AgentInfo being called, for agent filters.
    `answer` is a person's answer to the question this node asked (see
    `ask`), when the run was resumed with one; None otherwise.
    `services` is what the whole run shares: the run-wide config
    (`services.config`) and long-lived services such as MCP connections.
    `meter` is the run's accounting (graphrt.base.usage's `Meter`): LLM agents report each request
    through it; None for a call that is not a run's (a test calling an agent directly).
    `idempotency_key` is set for a call the run journals (graphrt/engine/journal.py):
    the same for this call whenever it is made again (a resume, a retry), and
    another for every other call, for an agent to pass to a service that takes
    one (fetchAgent's `Idempotency-Key`, an MCP call's `_meta`); None otherwise.
    """

    inputs: dict[str, Any]
    params: dict[str, Any]
    node_id: str
    agent_id: str | None = None
    filter_params: dict[str, Any] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)
    retry_count: int = 0
    graph_data: dict[str, Any] | None = None
    nesting: "NestingHandle | None" = None
    log: list[Any] = field(default_factory=list)
    emitter: "Emitter | None" = None
    run_id: str = ""
    path: tuple[str | int, ...] = ()
    agent_info: "AgentInfo | None" = None
    answer: Any = None
    services: "RunServices | None" = None
    meter: "Meter | None" = None
    idempotency_key: str | None = None

    # A dataclass (fields, replace) whose methods are written here rather than generated: the generated ones are
    # compiled from source as the module is imported, ~1 ms of every command's start (base/frozen.py).
    # tests/authoring/test_written_dataclasses.py holds them to the generated ones.
    def __init__(self, inputs: dict[str, Any], params: dict[str, Any], node_id: str, agent_id: str | None = None,
                 filter_params: dict[str, Any] | None = None, config: dict[str, Any] | None = None,
                 retry_count: int = 0, graph_data: dict[str, Any] | None = None,
                 nesting: "NestingHandle | None" = None, log: list[Any] | None = None, emitter: "Emitter | None" = None,
                 run_id: str = "", path: tuple[str | int, ...] = (), agent_info: "AgentInfo | None" = None,
                 answer: Any = None, services: "RunServices | None" = None, meter: "Meter | None" = None,
                 idempotency_key: str | None = None) -> None:
        self.inputs = inputs
        self.params = params
        self.node_id = node_id
        self.agent_id = agent_id
        self.filter_params = {} if filter_params is None else filter_params
        self.config = {} if config is None else config
        self.retry_count = retry_count
        self.graph_data = graph_data
        self.nesting = nesting
        self.log = [] if log is None else log
        self.emitter = emitter
        self.run_id = run_id
        self.path = path
        self.agent_info = agent_info
        self.answer = answer
        self.services = services
        self.meter = meter
        self.idempotency_key = idempotency_key

    def __repr__(self) -> str:
        return (f"AgentContext(inputs={self.inputs!r}, params={self.params!r}, node_id={self.node_id!r}, "
                f"agent_id={self.agent_id!r}, filter_params={self.filter_params!r}, config={self.config!r}, "
                f"retry_count={self.retry_count!r}, graph_data={self.graph_data!r}, nesting={self.nesting!r}, "
                f"log={self.log!r}, emitter={self.emitter!r}, run_id={self.run_id!r}, path={self.path!r}, "
                f"agent_info={self.agent_info!r}, answer={self.answer!r}, services={self.services!r}, "
                f"meter={self.meter!r}, idempotency_key={self.idempotency_key!r})")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return _values(self) == _values(other)

    __hash__ = None  # type: ignore[assignment]  # mutable: as a dataclass that compares, not hashable

    def ask(self, question: str) -> Any:
        """The answer to `question` if the run was resumed with one; else stops the run to ask it.

        Raises:
            Interrupt: no answer yet; the run saves its state and raises GraphInterrupted.
        """
        if self.answer is None:
            raise Interrupt(question)
        return self.answer

    def emit(self, event_type: "type[Event]", **fields: Any) -> None:
        """Reports an event of this node to the run's subscribers (cheap when nobody listens)."""
        if self.emitter:
            self.emitter.emit(event_type(run_id=self.run_id, path=self.path, node_id=self.node_id, **fields))

    def stream_token(self, token: str) -> None:
        """Reports one streamed piece of text (an LLM token) as a TokenDelta event."""
        from graphrt.observe.events import TokenDelta

        self.emit(TokenDelta, token=token)

    def progress(self, message: str, data: Any = None) -> None:
        """Reports progress while the agent works, as an AgentProgress event."""
        from graphrt.observe.events import AgentProgress

        self.emit(AgentProgress, message=message, data=data)

    async def run_graph(
        self,
        graph_data: Mapping[str, Any],
        *,
        inject: Mapping[str, Any] | None = None,
        all_results: bool = False,
        loop_count: int | None = None,
        map_index: int | None = None,
        journal: str | None = None,
    ) -> dict[str, Any]:
        """Runs a nested graph under this run's scheduler, filters and config; with `journal` (a kind: "llm",
        "tool"), the agent calls of its nodes are journaled as calls of that kind, whatever their agents.

        Raises:
            RuntimeError: a programming error, not the graph's: the context was not made by a run
                (the engine gives every agent call its nesting handle, `nesting`), e.g. an agent
                called directly, or sent to an executor without declaring `has_graph_data`.
        """
        if self.nesting is None:
            raise RuntimeError(f"agent {self.agent_id!r} runs a nested graph, but its context is not a run's "
                               "(an agent that runs graphs declares has_graph_data, so that it runs in the driver)")
        return await self.nesting.run_graph(
            graph_data, inject=inject, all_results=all_results, loop_count=loop_count, map_index=map_index,
            journal=journal,
        )


def node_context(inputs: dict[str, Any], params: dict[str, Any], node_id: str, agent_id: str | None,
                 filter_params: dict[str, Any], config: dict[str, Any], retry_count: int,
                 graph_data: dict[str, Any] | None, nesting: "NestingHandle", emitter: "Emitter | None", run_id: str,
                 path: tuple[str | int, ...], answer: Any, services: "RunServices | None",
                 meter: "Meter | None") -> AgentContext:
    """The context of a run's agent call: the engine makes one per call, so the fields go in by position, which
    costs half what keywords cost; their order is the class's, written beside it (tests/authoring checks)."""
    return AgentContext(inputs, params, node_id, agent_id, filter_params, config, retry_count, graph_data, nesting,
                        [], emitter, run_id, path, None, answer, services, meter)


AgentFunction = Callable[[AgentContext], Awaitable[Any] | Any]


class Sample(Frozen):
    """An example call of an agent: documentation and test in one."""

    __slots__ = ("inputs", "params", "result", "graph", "description")
    inputs: Any
    params: dict[str, Any]
    result: Any
    graph: dict[str, Any] | None
    description: str

    def __init__(self, inputs: Any, params: dict[str, Any], result: Any, graph: dict[str, Any] | None = None,
                 description: str = "") -> None:
        self._set(inputs=inputs, params=params, result=result, graph=graph, description=description)


class NestedGraph(Frozen):
    """How an agent runs one node's `graph:`, as checks and drawings of the file need to know it.

    `inputs` are the static nodes the graph gets from the node (nestedAgent: its
    inputs; mapAgent: them, with the row as `row`), `all_results` that the agent
    returns every node's result (so none is unused), and `fails_node` that a
    failure of the graph fails the node (an agent may turn it into a value
    instead), so that an error in the graph is an error of the file.
    """

    __slots__ = ("inputs", "all_results", "fails_node")
    inputs: frozenset[str]
    all_results: bool
    fails_node: bool

    def __init__(self, inputs: frozenset[str], all_results: bool = False, fails_node: bool = False) -> None:
        self._set(inputs=inputs, all_results=all_results, fails_node=fails_node)


NestedGraphRule = Callable[[frozenset[str], Mapping[str, Any]], NestedGraph]
"""What an agent does with its node's graph, from the node's input names and its params."""


@dataclass(slots=True, init=False, repr=False, eq=False)
class AgentInfo(Frozen):
    """An agent and its function info (GraphAI's AgentFunctionInfo).

    `func` is `async def f(ctx) -> result`, or a plain function, which runs in a
    worker thread so that it cannot block the other nodes.
    """

    name: str
    func: AgentFunction
    description: str = ""
    inputs: dict[str, Any] | None = None
    params: dict[str, Any] | None = None
    output: dict[str, Any] | None = None
    config: dict[str, Any] | None = None
    tools: tuple[dict[str, Any], ...] = ()
    samples: tuple[Sample, ...] = ()
    category: tuple[str, ...] = ()
    author: str = ""
    repository: str = ""
    source: str = ""
    package: str = ""
    license: str = ""
    cache_type: str | None = None
    environment_variables: tuple[str, ...] = ()
    stream: bool = False
    # GraphAI's hasGraphData: the agent runs graphs (ctx.run_graph). As in GraphAI it gets the run's whole
    # config, to pass on, and it stays in the driver's process under any executor, as it drives the
    # scheduler there. Every agent gets its nesting handle and its node's `graph` without it.
    has_graph_data: bool = False
    # Where the call may run (graphrt.engine.executor): `runs_local` keeps it in the driver's process under
    # any executor (it asks a person, holds a live connection, or is so quick, as the pure data-shaping
    # agents of the vanilla pack are, that sending it to a worker would cost more than the call); `stateful` agents (toolsets) keep their
    # state in one place, e.g. one Ray actor, so that every call sees the same state.
    runs_local: bool = False
    stateful: bool = False
    # The agent checks its own inputs against `inputs` (as @graphrt.agent functions and toolsAgent do): it refuses
    # a literal that breaks the schema whenever the node runs, which lint reports as an error (for any other
    # agent, a warning), and input_validation_filter leaves the check to it.
    checks_inputs: bool = False
    # How the agent runs its node's `graph:` (graph agents: nestedAgent, mapAgent), for lint and viz; None: the
    # graph gets the node's inputs, and a problem in it is only a warning.
    nested_graph: NestedGraphRule | None = None
    mock: AgentFunction | None = None  # GraphAI's `mock`: a stand-in that needs no outside service; samples run it
    # What a call does outside the run, which its journal reads (graphrt/engine/journal.py): `outside` agents ask
    # something of the world (an LLM, a web service) and `side_effects` agents change it (send, pay, write); each
    # call of either is journaled, so that a resumed, retried or replayed run takes its result instead of making
    # it again. A call with side effects is also marked as started before it is made: one that started and left
    # no result is made again only if the agent is `idempotent` (making it twice does what making it once does),
    # else the run asks a person whether it happened, or fails, as it is told. Either may be a rule of the call
    # (fetchAgent's: its HTTP method). A call without side effects is made again whenever in doubt.
    outside: bool = False
    side_effects: bool | Callable[[AgentContext], bool] = False
    idempotent: bool | Callable[[AgentContext], bool] = False
    is_async: bool = field(init=False, default=False)

    # A dataclass (fields, replace) whose methods are written here, and whose repr, equality, hash and refusal of
    # assignment are Frozen's (base/frozen.py): the generated ones are compiled from source as the module is
    # imported, ~1.4 ms of every command's start for this class alone. tests/authoring/test_written_dataclasses.py
    # holds them to the generated ones.
    def __init__(self, name: str, func: AgentFunction, description: str = "", inputs: dict[str, Any] | None = None,
                 params: dict[str, Any] | None = None, output: dict[str, Any] | None = None,
                 config: dict[str, Any] | None = None, tools: tuple[dict[str, Any], ...] = (),
                 samples: tuple[Sample, ...] = (), category: tuple[str, ...] = (), author: str = "",
                 repository: str = "", source: str = "", package: str = "", license: str = "",
                 cache_type: str | None = None, environment_variables: tuple[str, ...] = (), stream: bool = False,
                 has_graph_data: bool = False, runs_local: bool = False, stateful: bool = False,
                 checks_inputs: bool = False, nested_graph: NestedGraphRule | None = None,
                 mock: AgentFunction | None = None, outside: bool = False,
                 side_effects: bool | Callable[[AgentContext], bool] = False,
                 idempotent: bool | Callable[[AgentContext], bool] = False) -> None:
        self._set(name=name, func=func, description=description, inputs=inputs, params=params, output=output,
                  config=config, tools=tools, samples=samples, category=category, author=author,
                  repository=repository, source=source, package=package, license=license, cache_type=cache_type,
                  environment_variables=environment_variables, stream=stream, has_graph_data=has_graph_data,
                  runs_local=runs_local, stateful=stateful, checks_inputs=checks_inputs, nested_graph=nested_graph,
                  mock=mock, outside=outside, side_effects=side_effects, idempotent=idempotent, is_async=False)
        self.__post_init__()

    @property
    def journaled(self) -> bool:
        """Whether the run journals each call of it: it reaches outside the run, or may change the world."""
        return self.outside or self.side_effects is not False

    def has_side_effects(self, ctx: AgentContext) -> bool:
        """Whether this call changes the world (`side_effects`, or its rule for this call)."""
        side_effects = self.side_effects
        return bool(side_effects(ctx)) if callable(side_effects) else bool(side_effects)

    def is_idempotent(self, ctx: AgentContext) -> bool:
        """Whether making this call again is harmless: it has no side effects, or making it twice does what making
        it once does (`idempotent`, or its rule for this call)."""
        if not self.has_side_effects(ctx):
            return True
        idempotent = self.idempotent
        return bool(idempotent(ctx)) if callable(idempotent) else bool(idempotent)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise RegistrationError(f"agent name must be a non-empty string, got {self.name!r}")
        if "--" in self.name:
            raise RegistrationError(f"agent {self.name!r}: a name cannot contain '--' (tool names use it: agent--func)")
        if not callable(self.func):
            raise RegistrationError(f"agent {self.name!r}: func must be callable, got {type(self.func).__name__}")
        if inspect.isasyncgenfunction(self.func):
            object.__setattr__(self, "func", _drained(self.func))
        object.__setattr__(self, "is_async", is_async_callable(self.func))

    def to_dict(self) -> dict[str, Any]:
        """The function info as GraphAI spells it (AgentFunctionInfo's camelCase keys), without the function."""
        samples = []
        for sample in self.samples:
            entry = {"inputs": sample.inputs, "params": sample.params, "result": sample.result}
            if sample.graph is not None:
                entry["graph"] = sample.graph
            if sample.description:
                entry["description"] = sample.description
            samples.append(entry)
        info: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "category": list(self.category),
            "author": self.author,
            "repository": self.repository,
            "source": self.source,
            "package": self.package,
            "license": self.license,
            "inputs": self.inputs,
            "params": self.params,
            "output": self.output,
            "config": self.config,
            "tools": list(self.tools),
            "samples": samples,
            "cacheType": self.cache_type,
            "environmentVariables": list(self.environment_variables),
            "stream": self.stream,
            "hasGraphData": self.has_graph_data,
        }
        if self.runs_local:
            info["runsLocal"] = True
        if self.stateful:
            info["stateful"] = True
        if self.outside:
            info["outside"] = True
        if self.side_effects is True:
            info["sideEffects"] = True
        if self.idempotent is True:
            info["idempotent"] = True
        return {key: value for key, value in info.items() if value is not None}


def _values(context: AgentContext) -> tuple[Any, ...]:
    return tuple(getattr(context, name) for name in context.__slots__)  # type: ignore[attr-defined]


def _drained(func: Callable[[AgentContext], Any]) -> AgentFunction:
    """An async generator agent `f(ctx)` as an agent whose result is its last item (see graphrt.authoring.progress)."""
    from graphrt.authoring.progress import drain  # on first use: most agents are not generators

    async def run(ctx: AgentContext) -> Any:
        return await drain(func(ctx), ctx)

    run.__name__ = run.__qualname__ = getattr(func, "__name__", "agent")
    return run


AgentLike = Any
"""An AgentInfo, a function (decorated with @graphrt.agent or not), or a toolset class or instance."""


def is_async_callable(func: Any) -> bool:
    """True for `async def` functions and methods, and for objects whose `__call__` is one.

    Agents and agent filters share this test, so both accept the same callables.
    """
    return inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(getattr(func, "__call__", None))  # noqa: B004 - reads the method
