"""GraphData compiled for running: every reference parsed once, every default filled.

`compile_graph` takes GraphData that passed validation and builds a
`GraphSpec`: the nodes as `StaticNodeSpec`/`ComputedNodeSpec`, who waits for
whom, and the loop and concurrency settings. A spec does not change once built
and can be run many times (loop iterations, mapAgent rows).

The specs are plain classes, not dataclasses: a dataclass's generated methods are
compiled as its module is imported, which cost every command that runs a graph ~2.5 ms
of its start for these four (`python -m bench startup`); nothing compares or copies a
spec. The node specs are not frozen either, though nothing changes them after
`compile_graph`: a frozen class sets each field through `object.__setattr__`, which
made a ComputedNodeSpec (22 fields) 2.5 times as slow to build, a tenth of building a
1,000-node graph.
"""

from __future__ import annotations

import math
import sys
import weakref
from functools import cached_property, partial
from typing import Any, Callable, Hashable

from graphrt.base.errors import GraphValidationError, ValidationIssue
from graphrt.base.jsvalue import UNDEFINED, is_named_inputs, is_truthy, js_number
from graphrt.graphdata.loader import GraphSource
from graphrt.graphdata.refs import (
    LOOP_COUNTER,
    DictOf,
    Literal,
    NodeRef,
    Source,
    compile_inputs,
    compile_output,
    compile_self_path,
    node_references,
    parse_ref,
)

__all__ = [
    "DEFAULT_CONCURRENCY",
    "StaticNodeSpec",
    "ComputedNodeSpec",
    "NodeSpec",
    "LoopSpec",
    "GraphSpec",
    "NestedSpecs",
    "check_injectable",
    "compile_graph",
]

DEFAULT_CONCURRENCY = 8


class StaticNodeSpec:
    """A node that holds a value: `value`, injected, or `update`d from the last loop iteration."""

    __slots__ = ("node_id", "value", "update", "is_result", "console")

    def __init__(self, node_id: str, value: Any = UNDEFINED, update: NodeRef | None = None, is_result: bool = False,
                 console: Any = None) -> None:
        self.node_id = node_id
        self.value = value
        self.update = update
        self.is_result = is_result
        self.console = console

    def __repr__(self) -> str:
        return f"StaticNodeSpec({self.node_id!r})"


class ComputedNodeSpec:
    """A node that runs an agent once its inputs are ready."""

    __slots__ = ("node_id", "agent", "agent_ref", "inputs", "params", "dependencies", "is_result", "any_input",
                 "output", "pass_through", "filter_params", "retry", "repeat_until", "timeout", "if_ref",
                 "unless_ref", "default_value", "graph", "graph_loader", "priority", "label", "console")

    def __init__(self, node_id: str, agent: str | Callable[..., Any], agent_ref: NodeRef | None, inputs: Source,
                 params: dict[str, Any], dependencies: tuple[str, ...], is_result: bool = False,
                 any_input: bool = False, output: Source | None = None, pass_through: Source | None = None,
                 filter_params: dict[str, Any] | None = None, retry: int | None = None,
                 repeat_until: Source | None = None, timeout: float | None = None, if_ref: NodeRef | None = None,
                 unless_ref: NodeRef | None = None, default_value: Any = UNDEFINED,
                 graph: dict[str, Any] | NodeRef | None = None, graph_loader: dict[str, Any] | None = None,
                 priority: float = 0, label: str | None = None, console: Any = None) -> None:
        self.node_id = node_id
        self.agent = agent
        self.agent_ref = agent_ref
        self.inputs = inputs
        self.params = params
        self.dependencies = dependencies
        self.is_result = is_result
        self.any_input = any_input
        self.output = output
        self.pass_through = pass_through
        self.filter_params: dict[str, Any] = {} if filter_params is None else filter_params
        self.retry = retry
        self.repeat_until = repeat_until
        self.timeout = timeout
        self.if_ref = if_ref
        self.unless_ref = unless_ref
        self.default_value = default_value
        self.graph = graph
        self.graph_loader = graph_loader
        self.priority = priority
        self.label = label
        self.console = console

    def __repr__(self) -> str:
        return f"ComputedNodeSpec({self.node_id!r}, agent={self.agent!r})"


NodeSpec = StaticNodeSpec | ComputedNodeSpec


class LoopSpec:
    """`loop: {count}` or `loop: {while}`: run the graph again while the condition holds."""

    __slots__ = ("count", "while_")

    def __init__(self, count: int | None = None, while_: Source | None = None) -> None:
        self.count = count
        self.while_ = while_

    def __repr__(self) -> str:
        return f"LoopSpec(count={self.count!r}, while_={self.while_!r})"


class GraphSpec:
    """A compiled graph: nodes in file order, plus who is waiting for whom."""

    def __init__(self, nodes: dict[str, NodeSpec], waitlists: dict[str, tuple[str, ...]], loop: LoopSpec | None,
                 concurrency: int, label_limits: dict[str, int], retry: int | None, source: GraphSource) -> None:
        self.nodes = nodes
        self.waitlists = waitlists
        self.loop = loop
        self.concurrency = concurrency
        self.label_limits = label_limits
        self.retry = retry
        self.source = source

    def __repr__(self) -> str:
        return f"GraphSpec(nodes={list(self.nodes)!r})"

    @cached_property
    def computed(self) -> tuple[ComputedNodeSpec, ...]:
        """The computed nodes, in file order."""
        return tuple(node for node in self.nodes.values() if isinstance(node, ComputedNodeSpec))

    @cached_property
    def statics(self) -> tuple[StaticNodeSpec, ...]:
        """The static nodes (the loop counter too), in file order."""
        return tuple(node for node in self.nodes.values() if isinstance(node, StaticNodeSpec))

    @cached_property
    def updated_statics(self) -> tuple[StaticNodeSpec, ...]:
        """The static nodes that take a new value from `update` after each iteration."""
        return tuple(node for node in self.statics if node.update is not None)

    @cached_property
    def fixed_statics(self) -> tuple[StaticNodeSpec, ...]:
        """The static nodes without `update`: each iteration starts with their value again."""
        return tuple(node for node in self.statics if node.update is None)

    @cached_property
    def console_statics(self) -> tuple[StaticNodeSpec, ...]:
        """The static nodes with `console`: each loop update prints what it asks for."""
        return tuple(node for node in self.statics if node.console)


class NestedSpecs:
    """Graphs that graph agents compiled from a node's `graph`, kept for their next calls, by the graph
    they are written in (see NestingPort.compile).

    A prepared Graph keeps one for all its runs, so a nestedAgent in a loop, in map rows or in every
    run of a served graph is validated and compiled once; GraphSpecs, shared by those runs, do not
    change. The graphs written in a graph given at run time (a graph agent's `graph: ":source"`) are
    kept as long as that graph is: its entry goes with it.
    """

    __slots__ = ("_within",)

    def __init__(self) -> None:
        self._within: dict[int, tuple[weakref.ref[GraphSpec], dict[Hashable, GraphSpec]]] = {}

    def get(self, within: GraphSpec, key: Hashable) -> GraphSpec | None:
        """The graph compiled for `key` from a node of `within`, if one was kept."""
        entry = self._within.get(id(within))
        return entry[1].get(key) if entry is not None and entry[0]() is within else None

    def keep(self, within: GraphSpec, key: Hashable, spec: GraphSpec) -> None:
        """Keeps `spec`, compiled for `key` from a node of `within`, for as long as `within` lives."""
        ident = id(within)
        entry = self._within.get(ident)
        if entry is None or entry[0]() is not within:
            entry = self._within[ident] = (weakref.ref(within, partial(self._forget, ident)), {})
        entry[1][key] = spec

    def _forget(self, ident: int, gone: weakref.ref[GraphSpec]) -> None:
        entry = self._within.get(ident)
        if entry is not None and entry[0] is gone:
            del self._within[ident]


def check_injectable(spec: GraphSpec, node_id: str) -> None:
    """The one check of a value given to a node before a run (`Graph.inject`, a graph agent's inputs).

    Only a static node of the graph takes one; not the loop counter, nor a
    computed node, whose value is its agent's result.

    Raises:
        GraphValidationError: naming the node, what it is, and the static nodes it may have meant.
    """
    node = spec.nodes.get(node_id)
    if isinstance(node, StaticNodeSpec) and node_id != LOOP_COUNTER:
        return
    if node is not None:
        kind = "a computed node" if isinstance(node, ComputedNodeSpec) else "the loop counter"
    else:
        import difflib  # only a wrong injection needs it

        static = [name for name, spec_ in spec.nodes.items() if isinstance(spec_, StaticNodeSpec) and not name.startswith("__")]
        close = difflib.get_close_matches(node_id, static, n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else f" (its static nodes: {', '.join(static) or 'none'})"
        kind = f"not a node of this graph{hint}"
    location = spec.source.locate("nodes", node_id)
    raise GraphValidationError([ValidationIssue(f"cannot inject a value: '{node_id}' is {kind}", node_id, None, location)])


def _number(value: Any) -> float:
    """A number field as GraphAI reads it: JS's Number() (`"100"` is 100), 0 when it is no number."""
    number = js_number(value) if value is not None else 0
    if isinstance(number, int):  # past a float's range it is JS's Infinity, which is no number here either
        return number if abs(number) <= sys.float_info.max else 0
    return number if isinstance(number, float) and math.isfinite(number) else 0


def _mapping(value: Any) -> dict[str, Any]:
    """`params`/`filterParams` as a dict of their own; anything but a mapping gives {}."""
    return dict(value) if isinstance(value, dict) else {}


def _output(output: Any) -> Source:
    """A node's `output`: GraphAI builds it key by key, so a list gives an object keyed "0", "1", ..."""
    if isinstance(output, list):
        output = {str(index): item for index, item in enumerate(output)}
    return compile_output(output)


def _static(node_id: str, node: dict[str, Any]) -> StaticNodeSpec:
    return StaticNodeSpec(
        node_id=node_id,
        value=node.get("value", UNDEFINED),
        update=parse_ref(node.get("update")),
        is_result=is_truthy(node.get("isResult")),
        console=node.get("console"),
    )


_SINGLE_REF_FIELDS = frozenset({"if", "unless", "agent", "graph"})


def _computed(node_id: str, node: dict[str, Any]) -> ComputedNodeSpec:
    agent = node["agent"]
    inputs = node.get("inputs")
    graph = node.get("graph")
    timeout = _number(node.get("timeout"))
    repeat_until = node.get("repeatUntil") if isinstance(node.get("repeatUntil"), dict) else {}
    compiled_inputs = compile_inputs(inputs) if isinstance(inputs, dict) and inputs else DictOf({})  # a new {} each call
    pass_through = compile_inputs(node["passThrough"]) if is_named_inputs(node.get("passThrough")) else None
    refs: dict[str, NodeRef] = {}  # if, unless, agent, graph: those that are references
    dependencies: dict[str, None] = {}  # the nodes it waits for, in order, once each
    for where, text in node_references(node):
        ref = parse_ref(text)
        dependencies[ref.node_id] = None  # type: ignore[union-attr]
        if where in _SINGLE_REF_FIELDS:
            refs[where] = ref  # type: ignore[assignment]
    return ComputedNodeSpec(
        node_id=node_id,
        agent=agent,
        agent_ref=refs.get("agent"),
        inputs=compiled_inputs,
        params=_mapping(node.get("params")),
        dependencies=tuple(dependencies),
        is_result=is_truthy(node.get("isResult")),
        any_input=is_truthy(node.get("anyInput")),
        output=_output(node["output"]) if node.get("output") is not None else None,
        pass_through=pass_through,
        filter_params=_mapping(node.get("filterParams")),
        retry=_number(node["retry"]) if node.get("retry") is not None else None,
        repeat_until=compile_self_path(repeat_until["exists"]) if "exists" in repeat_until else None,
        timeout=timeout / 1000 if timeout > 0 else None,
        if_ref=refs.get("if"),
        unless_ref=refs.get("unless"),
        default_value=node.get("defaultValue", UNDEFINED),
        graph=refs.get("graph") if isinstance(graph, str) else graph,
        graph_loader=node.get("graphLoader"),
        priority=_number(node.get("priority")),
        label=node.get("label"),
        console=node.get("console"),
    )


def compile_graph(data: dict[str, Any], source: GraphSource | None = None) -> GraphSpec:
    """Builds the spec of validated GraphData (see `validate.validate_graph`)."""
    nodes: dict[str, NodeSpec] = {}
    for node_id, node in data["nodes"].items():
        node_id = str(node_id)
        nodes[node_id] = _computed(node_id, node) if "agent" in node else _static(node_id, node)
    nodes[LOOP_COUNTER] = StaticNodeSpec(LOOP_COUNTER, value=0, update=parse_ref(f":{LOOP_COUNTER}.add(1)"))

    waitlists: dict[str, list[str]] = {}
    for node in nodes.values():
        if isinstance(node, ComputedNodeSpec):
            for dependency in node.dependencies:
                waitlists.setdefault(dependency, []).append(node.node_id)

    loop = data.get("loop")
    concurrency = data.get("concurrency", DEFAULT_CONCURRENCY)
    if isinstance(concurrency, dict):
        limit, labels = concurrency["global"], dict(concurrency.get("labels") or {})
    else:
        limit, labels = concurrency, {}
    return GraphSpec(
        nodes=nodes,
        waitlists={node_id: tuple(waiters) for node_id, waiters in waitlists.items()},
        loop=LoopSpec(count=_number(loop["count"]) if "count" in loop else None, while_=_while_source(loop)) if loop else None,
        concurrency=limit,
        label_limits=labels,
        retry=_number(data["retry"]) if data.get("retry") is not None else None,
        source=source or GraphSource(),
    )


def _while_source(loop: dict[str, Any]) -> Source | None:
    if "while" not in loop:
        return None
    ref = parse_ref(loop["while"])
    return ref if ref is not None else Literal(loop["while"])

