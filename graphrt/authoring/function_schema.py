"""What a Python function takes, as JSON Schema: read from its signature, type hints and docstring.

`function_schema(func)` is the one place where a function becomes data: each
named parameter gets a JSON Schema (from its hint), a description (from the
docstring), a default, and whether it is required. A parameter annotated
`AgentContext` is not data: it receives the agent's context. Every problem
found is collected, and one RegistrationError lists them all, so the author
fixes everything in one pass.
"""

from __future__ import annotations

import collections.abc
import inspect
import types
import typing
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from graphrt.authoring.agent_info import AgentContext
from graphrt.authoring.docstrings import parse_docstring
from graphrt.authoring.progress import Progress
from graphrt.base.errors import RegistrationError
from graphrt.base.schema import (
    UnsupportedType,
    coerce,
    json_default,
    needs_coercion,
    type_schema,
)

__all__ = ["Parameter", "FunctionSchema", "function_schema"]

_EMPTY = inspect.Parameter.empty


@dataclass(frozen=True)
class Parameter:
    """One data parameter of a function."""

    name: str
    schema: dict[str, Any]
    required: bool
    default: Any
    hint: Any
    coerce: bool


@dataclass(frozen=True)
class FunctionSchema:
    """A function's description, data parameters and result, ready to be called with JSON values.

    `kind` is "function", "coroutine", "generator" or "asyncgen".
    """

    func: Callable[..., Any]
    description: str
    parameters: tuple[Parameter, ...]
    context: str | None
    var_keyword: str | None
    kind: str
    output: dict[str, Any] | None

    def json_schema(self, *, closed: bool = False) -> dict[str, Any]:
        """The parameters as one object schema; `closed` forbids unknown properties (**kwargs still allows them)."""
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {parameter.name: parameter.schema for parameter in self.parameters},
        }
        required = [parameter.name for parameter in self.parameters if parameter.required]
        if required:
            schema["required"] = required
        if closed and self.var_keyword is None:
            schema["additionalProperties"] = False
        return schema

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(parameter.name for parameter in self.parameters)

    def keyword_arguments(self, values: Mapping[str, Any], context: Any = None) -> dict[str, Any]:
        """The keyword arguments for a call: JSON values converted to the hinted types, plus the context."""
        kwargs = {}
        for parameter in self.parameters:
            if parameter.name in values:
                value = values[parameter.name]
                kwargs[parameter.name] = coerce(value, parameter.hint) if parameter.coerce else value
        if self.var_keyword is not None:
            kwargs.update((key, value) for key, value in values.items() if key not in kwargs and key != self.context)
        if self.context is not None:
            kwargs[self.context] = context
        return kwargs


def function_schema(func: Callable[..., Any], *, owner: str, skip_self: bool = False) -> FunctionSchema:
    """Reads a function's signature, hints and docstring.

    Args:
        func: the function (for a method: the function in the class, with `skip_self`).
        owner: how messages name it, e.g. "agent 'greet'".
        skip_self: leave out the first parameter (`self`).

    Raises:
        RegistrationError: listing every problem found.
    """
    problems: list[str] = []
    docstring = parse_docstring(inspect.getdoc(func))
    problems.extend(f"docstring: {problem}" for problem in docstring.problems)
    try:
        hints = typing.get_type_hints(func, include_extras=True)
    except Exception as error:  # noqa: BLE001 - any failure to evaluate hints is the author's to fix
        problems.append(f"cannot read its type hints: {type(error).__name__}: {error}")
        hints = {}
    signature = inspect.signature(func)
    listed = list(signature.parameters.values())[1 if skip_self else 0 :]
    parameters: list[Parameter] = []
    context = var_keyword = None
    for item in listed:
        hint = hints.get(item.name, Any)
        if hint is AgentContext:
            if context is not None:
                problems.append(f"parameters '{context}' and '{item.name}' both take the AgentContext")
            context = item.name
        elif item.kind is inspect.Parameter.VAR_KEYWORD:
            var_keyword = item.name
        elif item.kind is inspect.Parameter.VAR_POSITIONAL:
            problems.append(f"parameter '*{item.name}' cannot be filled by name (use named parameters or **kwargs)")
        elif item.kind is inspect.Parameter.POSITIONAL_ONLY:
            problems.append(f"parameter '{item.name}' is positional-only and cannot be filled by name")
        else:
            parameter = _parameter(item, hint, docstring.params.get(item.name, ""), problems)
            if parameter is not None:
                parameters.append(parameter)
    known = {item.name for item in listed}
    for name in docstring.params:
        if name not in known:
            names = ", ".join(item.name for item in listed if item.name != context) or "none"
            problems.append(f"docstring describes '{name}', which is not a parameter (parameters: {names})")
    if problems:
        raise _problems_error(owner, problems)
    return FunctionSchema(
        func=func,
        description=docstring.description,
        parameters=tuple(parameters),
        context=context,
        var_keyword=var_keyword,
        kind=_kind(func),
        output=_output(hints.get("return", _EMPTY), docstring.returns),
    )


def _problems_error(owner: str, problems: list[str]) -> RegistrationError:
    """One RegistrationError for all the problems: one line for one problem, a list for more."""
    if len(problems) == 1:
        return RegistrationError(f"{owner}: {problems[0]}")
    listed = "\n".join(f"  - {problem}" for problem in problems)
    return RegistrationError(f"{owner}: {len(problems)} problems:\n{listed}")


def _parameter(item: inspect.Parameter, hint: Any, description: str, problems: list[str]) -> Parameter | None:
    try:
        schema = dict(type_schema(hint))
    except UnsupportedType as error:
        problems.append(f"parameter '{item.name}': {error}")
        return None
    if description:
        schema["description"] = description
    required = item.default is _EMPTY
    if not required:
        has_default, default = json_default(item.default)
        if has_default:
            schema["default"] = default
        if item.default is None and schema and not _allows_null(schema):
            schema = _with_null(schema)
    return Parameter(item.name, schema, required, item.default, hint, needs_coercion(hint))


def _allows_null(schema: dict[str, Any]) -> bool:
    kinds = schema.get("type")
    if kinds == "null" or (isinstance(kinds, list) and "null" in kinds):
        return True
    return any(_allows_null(option) for option in schema.get("anyOf", ())) or None in schema.get("enum", [0])


def _with_null(schema: dict[str, Any]) -> dict[str, Any]:
    """`x: str = None` allows None, as the default says."""
    kinds = schema.get("type")
    if isinstance(kinds, str) and "enum" not in schema:
        return {**schema, "type": [kinds, "null"]}
    if isinstance(kinds, list) and "enum" not in schema:
        return {**schema, "type": [*kinds, "null"]}
    if "enum" in schema:
        return {**schema, "enum": [*schema["enum"], None], **({"type": [schema["type"], "null"]} if "type" in schema else {})}
    extra = {key: schema[key] for key in ("description", "default") if key in schema}
    core = {key: value for key, value in schema.items() if key not in extra}
    return {"anyOf": [core, {"type": "null"}], **extra}


def _kind(func: Callable[..., Any]) -> str:
    if inspect.isasyncgenfunction(func):
        return "asyncgen"
    if inspect.iscoroutinefunction(func):
        return "coroutine"
    if inspect.isgeneratorfunction(func):
        return "generator"
    return "function"


def _output(hint: Any, description: str) -> dict[str, Any] | None:
    """The result's schema from the return hint (a generator's items, less Progress); None when unknown."""
    if hint is _EMPTY or hint is Any:
        return None
    origin = typing.get_origin(hint)
    if origin in (collections.abc.AsyncIterator, collections.abc.AsyncGenerator, collections.abc.AsyncIterable,
                  collections.abc.Iterator, collections.abc.Generator, collections.abc.Iterable):
        hint = typing.get_args(hint)[0] if typing.get_args(hint) else Any
        if typing.get_origin(hint) in (typing.Union, types.UnionType):
            rest = tuple(arg for arg in typing.get_args(hint) if arg is not Progress)
            hint = typing.Union[rest] if rest else Any  # type: ignore[valid-type]
        elif hint is Progress:
            hint = Any
    try:
        schema = dict(type_schema(hint))
    except UnsupportedType:
        return None
    if not schema:
        return None
    if description:
        schema["description"] = description
    return schema
