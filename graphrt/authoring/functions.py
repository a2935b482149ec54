"""`@graphrt.agent`: a plain Python function becomes an agent, its function info read from its code.

    @graphrt.agent
    def greet(name: str, punctuation: Literal["!", "."] = "!") -> str:
        '''Greets someone by name.

        Args:
            name: who to greet.
            punctuation: how to end the greeting.
        '''
        return f"Hello, {name}{punctuation}"

The name is the function's, the description and the parameters' descriptions
come from the docstring (Google, NumPy or reST), the JSON Schemas from the
type hints. Arguments given to the decorator (`inputs=`, `description=`, ...)
win over what is read. The decorator returns the function unchanged, so it
can still be called (and tested) as plain Python.

How a node fills the parameters:

- each parameter by name from the node's `inputs`; a parameter that is not an
  input comes from the node's `params`; one in neither takes its default;
- a parameter annotated `AgentContext` receives the context (node id, params,
  `ctx.progress`, `ctx.stream_token`, ...). A function whose only parameter is
  the context is called with it, as a hand-written agent is;
- `**kwargs` receives the inputs that match no parameter.

Before the call, the arguments are checked against the inputs schema (the
derived or the given one); a violation fails the node with an AgentError that
names the node, the agent and the field (`inputs.x`, or `params.x` when the
value came from params). Dataclass and Enum parameters are built from the JSON
values. A sync function runs in a worker thread; a generator reports progress
(see graphrt.authoring.progress). Called as a tool (inputs `{func, arg, tool_call,
data}`, see graphrt.authoring.tool_calls) the function takes its arguments from `arg`
and its result is a tool result.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, Callable, Collection, Iterable, Mapping, TypeVar, overload

import anyio

from graphrt.authoring.function_schema import FunctionSchema, function_schema
from graphrt.authoring.progress import drain, drain_sync
from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.authoring.tool_calls import (
    check_arguments,
    error_result,
    function_tool,
    is_tool_call,
    read_arguments,
    tool_result,
)
from graphrt.base.errors import AgentError, RegistrationError, ToolCallError
from graphrt.base.jsvalue import defined
from graphrt.base.schema import Violation, format_path, violations

__all__ = [
    "agent",
    "agent_info_of",
    "function_agent",
    "check_options",
    "normalize_options",
    "inputs_error",
    "call_with_arguments",
]

F = TypeVar("F", bound=Callable[..., Any])

_ATTRIBUTE = "__graphrt_agent__"
_OPTIONS = "__graphrt_agent_options__"
_OPTION_NAMES = frozenset(field.name for field in dataclasses.fields(AgentInfo) if field.init) - {"func"}
_RESERVED = frozenset({"params"})  # a node's `inputs.params` merges into its params, never a **kwargs entry


@overload
def agent(func: F, /) -> F: ...
@overload
def agent(
    func: None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    inputs: Mapping[str, Any] | None = None,
    params: Mapping[str, Any] | None = None,
    output: Mapping[str, Any] | None = None,
    config: Mapping[str, Any] | None = None,
    tools: Iterable[Mapping[str, Any]] | None = None,
    samples: Iterable[Sample | Mapping[str, Any]] = (),
    category: Iterable[str] = (),
    author: str = "",
    repository: str = "",
    source: str = "",
    package: str = "",
    license: str = "",
    cache_type: str | None = None,
    environment_variables: Iterable[str] = (),
    stream: bool = False,
    has_graph_data: bool = False,
    outside: bool = False,
    side_effects: bool | Callable[[AgentContext], bool] = False,
    idempotent: bool | Callable[[AgentContext], bool] = False,
) -> Callable[[F], F]: ...


def agent(func: Callable[..., Any] | None = None, /, **options: Any) -> Any:
    """Makes a function an agent: `@graphrt.agent` or `@graphrt.agent(name=..., ...)`.

    Args:
        func: the function (when used without arguments).
        **options: AgentInfo fields (name, description, inputs, params, output,
            samples, category, author, license, cache_type, stream, ...);
            they win over what is read from the function.

    Returns:
        The function itself, carrying its AgentInfo (see `agent_info_of`).

    Raises:
        RegistrationError: listing every problem in the signature and docstring.
    """
    def decorate(target: F) -> F:
        setattr(target, _ATTRIBUTE, build_function_agent(target, options))
        setattr(target, _OPTIONS, options)
        return target

    return decorate(func) if func is not None else decorate


def agent_info_of(func: Any) -> AgentInfo | None:
    """The AgentInfo a decorated function carries, or None."""
    info = getattr(func, _ATTRIBUTE, None)
    return info if isinstance(info, AgentInfo) else None


def function_agent(func: Callable[..., Any], **overrides: Any) -> AgentInfo:
    """The AgentInfo of a function, decorated or not, with some options changed (e.g. `name=`)."""
    info = agent_info_of(func)
    if info is not None and not overrides:
        return info
    return build_function_agent(func, {**getattr(func, _OPTIONS, {}), **overrides})


def _as_samples(samples: Iterable[Sample | Mapping[str, Any]]) -> tuple[Sample, ...]:
    """Samples from Sample objects or dicts with GraphAI's keys (inputs, params, result, graph, description)."""
    out = []
    for sample in samples:
        if isinstance(sample, Sample):
            out.append(sample)
        elif isinstance(sample, Mapping) and "result" in sample:
            out.append(Sample(inputs=sample.get("inputs", {}), params=dict(sample.get("params") or {}),
                              result=sample["result"], graph=sample.get("graph"),
                              description=sample.get("description", "")))
        else:
            raise RegistrationError(f"a sample must be a Sample or a dict with 'inputs', 'params' and 'result', got {sample!r}")
    return tuple(out)


def check_options(owner: str, options: Mapping[str, Any]) -> None:
    """Raises RegistrationError for options that are not AgentInfo fields."""
    unknown = sorted(set(options) - _OPTION_NAMES)
    if unknown:
        raise RegistrationError(f"{owner}: unknown option {', '.join(map(repr, unknown))} "
                                f"(options: {', '.join(sorted(_OPTION_NAMES))})")


def normalize_options(options: dict[str, Any]) -> None:
    """Turns the options users write as lists and dicts into AgentInfo's tuples and Samples, in place."""
    options["samples"] = _as_samples(options.get("samples", ()))
    for key in ("category", "environment_variables"):
        if key in options:
            options[key] = tuple(options[key])


def build_function_agent(func: Callable[..., Any], options: Mapping[str, Any]) -> AgentInfo:
    """The AgentInfo of a function: read from its code, then `options` applied."""
    options = dict(options)
    name = options.pop("name", None) or getattr(func, "__name__", "")
    if not name or name == "<lambda>":
        raise RegistrationError("a lambda needs a name: graphrt.agent(name=...)(func)")
    check_options(f"agent '{name}'", options)
    schema = function_schema(func, owner=f"agent '{name}'")
    raw = not schema.parameters and schema.var_keyword is None and schema.context is not None
    inputs = options.pop("inputs", None)
    if inputs is None and not raw:
        inputs = schema.json_schema()
    tools = options.pop("tools", None)
    if tools is None:
        tools = () if raw else (function_tool(name, options.get("description") or schema.description,
                                              schema.json_schema(closed=True)),)
    normalize_options(options)
    options.setdefault("description", schema.description)
    options.setdefault("output", schema.output)
    options.setdefault("checks_inputs", not raw)  # the runner checks the arguments it reads from the inputs
    runner = _raw_runner(schema) if raw else _runner(schema, name, inputs)
    return AgentInfo(name=name, func=runner, inputs=inputs, tools=tuple(tools), **options)


# ----- calling -----


def _raw_runner(schema: FunctionSchema) -> Callable[[AgentContext], Any]:
    """`f(ctx)`: the function is the agent; a generator's items are drained (AgentInfo drains an async one)."""
    func = schema.func
    if schema.kind == "generator":
        return functools.wraps(func)(lambda ctx: drain_sync(func(ctx), ctx))
    return func


def _runner(schema: FunctionSchema, name: str, inputs_schema: Mapping[str, Any] | None) -> Callable[[AgentContext], Any]:
    """The agent function: arguments from the context, checked, then the call (sync stays sync)."""
    tool_parameters = schema.json_schema(closed=True)
    takes_tool_calls = not {"tool_call", "arg"} & set(schema.names)

    def prepare(ctx: AgentContext) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        """(node arguments, None) for a node call, (None, tool arguments) for a tool call."""
        if takes_tool_calls and is_tool_call(ctx.inputs):
            arguments = read_arguments(ctx.inputs.get("arg"), name)
            check_arguments(tool_parameters, arguments, name)
            return None, arguments
        return node_arguments(schema, ctx, name, inputs_schema), None

    if schema.kind in ("coroutine", "asyncgen"):
        async def run_async(ctx: AgentContext) -> Any:
            try:
                node_args, tool_args = prepare(ctx)
                result = await call_with_arguments(schema, schema.func, node_args or tool_args or {}, ctx)
            except ToolCallError as error:
                if not is_tool_call(ctx.inputs):
                    raise
                return error_result(error)
            return result if tool_args is None else tool_result(result)

        return functools.wraps(schema.func)(run_async)

    def run_sync(ctx: AgentContext) -> Any:
        try:
            node_args, tool_args = prepare(ctx)
            result = _call_with_arguments_sync(schema, schema.func, node_args or tool_args or {}, ctx)
        except ToolCallError as error:
            if not is_tool_call(ctx.inputs):
                raise
            return error_result(error)
        return result if tool_args is None else tool_result(result)

    return functools.wraps(schema.func)(run_sync)


async def call_with_arguments(schema: FunctionSchema, func: Callable[..., Any], arguments: Mapping[str, Any],
                              ctx: AgentContext) -> Any:
    """Calls `func` (the function or a bound method) with checked JSON arguments, from async code."""
    kwargs = schema.keyword_arguments(arguments, ctx)
    if schema.kind == "coroutine":
        return await func(**kwargs)
    if schema.kind == "asyncgen":
        return await drain(func(**kwargs), ctx)
    return await anyio.to_thread.run_sync(functools.partial(_call_with_arguments_sync, schema, func, arguments, ctx))


def _call_with_arguments_sync(schema: FunctionSchema, func: Callable[..., Any], arguments: Mapping[str, Any],
                              ctx: AgentContext) -> Any:
    """Calls a sync function or generator with checked JSON arguments (in a worker thread)."""
    result = func(**schema.keyword_arguments(arguments, ctx))
    return drain_sync(result, ctx) if schema.kind == "generator" else result


def node_arguments(schema: FunctionSchema, ctx: AgentContext, name: str,
                   inputs_schema: Mapping[str, Any] | None) -> dict[str, Any]:
    """The arguments of a node call: inputs by name, then params; checked against the inputs schema.

    Raises:
        AgentError: naming the field (`inputs.x` or `params.x`) of every violation.
    """
    inputs, params = ctx.inputs, ctx.params
    arguments: dict[str, Any] = {}
    from_params: set[str] = set()
    inputs = defined(inputs)  # an input whose reference found nothing leaves the parameter to its default
    for parameter in schema.parameters:
        if parameter.name in inputs:
            arguments[parameter.name] = inputs[parameter.name]
        elif parameter.name in params:
            arguments[parameter.name] = params[parameter.name]
            from_params.add(parameter.name)
    if schema.var_keyword is not None:
        arguments.update((key, value) for key, value in inputs.items() if key not in arguments and key not in _RESERVED)
    if inputs_schema:
        found = violations(inputs_schema, arguments)
        if found:
            raise inputs_error(found, name, from_params)
    return arguments


def inputs_error(found: list[Violation], agent_id: str | None, from_params: Collection[str] = ()) -> AgentError:
    """One AgentError for the violations of an agent's inputs: the first one's field, then the others."""
    fields = [(format_path(v.path, "params" if v.path[:1] and v.path[0] in from_params else "inputs"), v.message)
              for v in found]
    message = fields[0][1]
    if len(fields) > 1:
        message += "; also " + "; ".join(f"{field}: {text}" for field, text in fields[1:])
    return AgentError(message, agent_id=agent_id, field=fields[0][0])
