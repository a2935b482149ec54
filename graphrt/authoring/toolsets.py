"""Toolsets: a class whose `@graphrt.tool` methods become one agent with many functions.

    class Counter:
        '''Counts things, and remembers the count between calls.'''

        def __init__(self) -> None:
            self.count = 0

        @graphrt.tool
        def add(self, n: int = 1) -> int:
            '''Adds n to the count and returns it.'''
            self.count += n
            return self.count

        def helper(self) -> None:  # not marked: the LLM never sees it
            ...

Registering the class (it must construct with no arguments) or an instance
makes one agent, named after the class unless `@graphrt.toolset(name=...)`
says otherwise. It keeps that one instance, and so its state, for every call
in every run that uses the registry. `AgentInfo.tools` lists each marked
method as the OpenAI function `Counter--add`. The agent is called with the
tool-call inputs `{func, arg, tool_call, data}` (see graphrt.authoring.tool_calls): it
finds the method named by `func`, checks `arg` against the method's
parameters, calls it (sync methods in a worker thread, so they may run at the
same time: guard shared state if that matters) and returns a tool result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, TypeVar, overload

from graphrt.authoring.function_schema import FunctionSchema, function_schema
from graphrt.authoring.functions import (
    call_with_arguments,
    check_options,
    normalize_options,
)
from graphrt.authoring.agent_info import AgentContext, AgentInfo
from graphrt.authoring.tool_calls import (
    check_arguments,
    error_result,
    function_tool,
    is_tool_call,
    read_arguments,
    tool_name,
    tool_result,
)
from graphrt.base.errors import AgentError, RegistrationError, ToolCallError

__all__ = ["tool", "toolset", "tool_options", "is_toolset", "build_toolset"]

F = TypeVar("F", bound=Callable[..., Any])
C = TypeVar("C", bound=type)

_TOOL = "__graphrt_tool__"
_TOOLSET = "__graphrt_toolset__"


@dataclass(frozen=True)
class _ToolOptions:
    name: str | None = None
    description: str | None = None


@overload
def tool(func: F, /) -> F: ...
@overload
def tool(func: None = None, /, *, name: str | None = None, description: str | None = None) -> Callable[[F], F]: ...


def tool(func: Any = None, /, *, name: str | None = None, description: str | None = None) -> Any:
    """Marks a method as a tool of its class: `@graphrt.tool` or `@graphrt.tool(name=..., description=...)`."""
    def mark(target: F) -> F:
        setattr(target, _TOOL, _ToolOptions(name, description))
        return target

    return mark(func) if func is not None else mark


def toolset(cls: Any = None, /, **options: Any) -> Any:
    """Sets a toolset class's function info: `@graphrt.toolset(name=..., description=..., category=...)`.

    The options are AgentInfo fields; they win over what is read from the class.
    """
    def mark(target: C) -> C:
        setattr(target, _TOOLSET, dict(options))
        return target

    return mark(cls) if cls is not None else mark


def is_toolset(obj: Any) -> bool:
    """Whether `obj` is a class with `@graphrt.tool` methods, or an instance of one."""
    cls = obj if isinstance(obj, type) else type(obj)
    return any(tool_options(value) is not None for klass in cls.__mro__ for value in vars(klass).values())


@dataclass(frozen=True)
class _Method:
    attribute: str
    schema: FunctionSchema
    description: str


def build_toolset(target: Any, **overrides: Any) -> AgentInfo:
    """The agent of a toolset class (constructed with no arguments) or instance.

    Raises:
        RegistrationError: the class cannot be constructed, has no tools, or its
            methods' signatures and docstrings have problems (all listed).
    """
    cls = target if isinstance(target, type) else type(target)
    options = {**vars(cls).get(_TOOLSET, {}), **overrides}
    name = options.pop("name", None) or cls.__name__
    check_options(f"toolset {name}", options)
    methods = _methods(cls, name)
    instance = _construct(cls, name) if isinstance(target, type) else target
    bound = {func: getattr(instance, method.attribute) for func, method in methods.items()}
    parameters = {func: method.schema.json_schema(closed=True) for func, method in methods.items()}
    names = ", ".join(methods)

    async def run(ctx: AgentContext) -> Any:
        if not is_tool_call(ctx.inputs):
            raise AgentError(f"toolset {name} needs inputs.func (one of: {names}) and inputs.arg",
                             agent_id=name, field="inputs.func")
        func = ctx.inputs.get("func")
        method = methods.get(func) if isinstance(func, str) else None
        if method is None:
            asked = tool_name(name, func) if isinstance(func, str) and func else name
            known = ", ".join(tool_name(name, key) for key in methods)
            return error_result(f"unknown tool {asked!r}; the tools are: {known}")
        full_name = tool_name(name, func)
        try:
            arguments = read_arguments(ctx.inputs.get("arg"), full_name)
            check_arguments(parameters[func], arguments, full_name)
            result = await call_with_arguments(method.schema, bound[func], arguments, ctx)
        except ToolCallError as error:
            return error_result(error)
        return tool_result(result)

    run.__name__ = run.__qualname__ = name
    tools = tuple(function_tool(tool_name(name, func), method.description, parameters[func])
                  for func, method in methods.items())
    normalize_options(options)
    options.setdefault("description", _class_description(cls))
    options.setdefault("inputs", _inputs_schema(list(methods)))
    options.setdefault("stateful", True)  # one instance, one state: an executor keeps it in one place
    return AgentInfo(name=name, func=run, tools=tools, **options)


def tool_options(value: Any) -> _ToolOptions | None:
    """The options of a function marked @graphrt.tool, or None."""
    options = getattr(value, _TOOL, None)
    return options if isinstance(options, _ToolOptions) else None


def _methods(cls: type, name: str) -> dict[str, _Method]:
    """The marked methods by tool function name, in definition order (base classes first)."""
    found: dict[str, tuple[str, Any, _ToolOptions]] = {}
    for klass in reversed(cls.__mro__):
        for attribute, value in vars(klass).items():
            options = tool_options(value)
            if options is not None:
                found[attribute] = (attribute, value, options)
    if not found:
        raise RegistrationError(f"toolset {name}: no method is marked @graphrt.tool")
    methods: dict[str, _Method] = {}
    problems: list[str] = []
    for attribute, value, options in found.values():
        func_name = options.name or attribute
        static = isinstance(value, staticmethod)
        function = value.__func__ if isinstance(value, (staticmethod, classmethod)) else value
        try:
            schema = function_schema(function, owner=f"tool '{tool_name(name, func_name)}'", skip_self=not static)
        except RegistrationError as error:
            problems.append(error.message)
            continue
        methods[func_name] = _Method(attribute, schema, options.description or schema.description)
    if problems:
        raise RegistrationError("\n".join(problems))
    return methods


def _construct(cls: type, name: str) -> Any:
    try:
        return cls()
    except Exception as error:  # noqa: BLE001 - any constructor failure is reported the same way
        raise RegistrationError(
            f"toolset {name}: cannot construct {cls.__qualname__}() ({type(error).__name__}: {error}); "
            "register an instance instead"
        ) from error


def _class_description(cls: type) -> str:
    from graphrt.authoring.docstrings import parse_docstring

    return parse_docstring(cls.__doc__).description if cls.__doc__ else ""


def _inputs_schema(funcs: list[str]) -> Mapping[str, Any]:
    return {
        "type": "object",
        "properties": {
            "func": {"type": "string", "enum": funcs, "description": "the function to call"},
            "arg": {"type": ["object", "string"], "description": "its arguments (an object, or its JSON text)"},
            "tool_call": {"type": "object", "description": "the LLM's tool call, as it came"},
            "data": {"description": "passed through by the caller"},
        },
        "required": ["func"],
    }
