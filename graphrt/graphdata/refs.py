"""References in graph files, compiled once so that a run never re-parses them.

`":node.a.$0"` reads a node's result, `"${:node.x}"` formats one into text,
`"@loop"` is the loop counter, and lists and objects in `inputs` hold any of
these. `compile_inputs` turns such a structure into a tree of `Source`s whose
`resolve(results)` gives the value; `results` maps node ids to their results.

`node_references` is the one place that knows which fields of a node read other
nodes: the compiler (spec.py), validation (check/rules.py), lint and viz all
find references through it, so a new reference syntax is added here only.
"""

from __future__ import annotations

import re
import time
from functools import lru_cache
from typing import Any, Iterator, Mapping

from graphrt.base.jsvalue import UNDEFINED, is_named_inputs, js_string
from graphrt.graphdata.propfuncs import compile_prop_function, is_prop_function

__all__ = [
    "LOOP_COUNTER",
    "Source",
    "Literal",
    "NodeRef",
    "compile_inputs",
    "compile_output",
    "graph_references",
    "node_references",
    "parse_ref",
    "ref_node_id",
    "template_refs",
]

LOOP_COUNTER = "__loopIndex"

_PROP_SEPARATOR = re.compile(r"(?<!\()\.(?!\))")
_TEMPLATE = re.compile(r"\$\{([:@][^}]+)\}")
_ARRAY_INDEX = re.compile(r"^\$(\d+)$")


_KEY, _INDEX, _LAST, _CALL = range(4)


def _compile_prop(prop: str, prop_functions: bool) -> tuple[int, Any]:
    """Classifies a property once, so that resolving it needs no pattern matching."""
    if prop_functions and is_prop_function(prop):
        return _CALL, (prop, compile_prop_function(prop))
    if prop == "$last":
        return _LAST, prop
    match = _ARRAY_INDEX.match(prop)
    if match:
        return _INDEX, int(match.group(1))
    return _KEY, prop


def _get_prop(value: Any, kind: int, arg: Any) -> Any:
    """One step into a value: a prop function, `$N`/`$last` of a list, or a key of an object."""
    if kind == _KEY:
        return value.get(arg, UNDEFINED) if type(value) is dict or isinstance(value, dict) else UNDEFINED
    if kind == _CALL:
        prop, function = arg
        found = function(value)
        if found is not UNDEFINED:
            return found
        return value.get(prop, UNDEFINED) if isinstance(value, dict) else UNDEFINED
    if not isinstance(value, list):
        return value.get("$last" if kind == _LAST else f"${arg}", UNDEFINED) if isinstance(value, dict) else UNDEFINED
    if kind == _LAST:
        return value[-1] if value else UNDEFINED
    return value[arg] if arg < len(value) else UNDEFINED


class Source:
    """Something in a graph file that becomes a value when the run resolves it."""

    __slots__ = ()

    def resolve(self, results: Mapping[str, Any]) -> Any:
        raise NotImplementedError


class Literal(Source):
    """A value written in the file, used as it is."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def resolve(self, results: Mapping[str, Any]) -> Any:
        return self.value

    def __repr__(self) -> str:
        return f"Literal({self.value!r})"


class NodeRef(Source):
    """`:node.prop.prop`: a node's result, walked into one property at a time."""

    __slots__ = ("node_id", "props", "text", "_steps")

    def __init__(self, node_id: str, props: tuple[str, ...], text: str, prop_functions: bool = True) -> None:
        self.node_id = node_id
        self.props = props
        self.text = text
        self._steps = tuple(_compile_prop(prop, prop_functions) for prop in props)

    def resolve(self, results: Mapping[str, Any]) -> Any:
        value = results.get(self.node_id, UNDEFINED)
        for kind, arg in self._steps:  # a key and a prop function, the usual steps, as _get_prop takes them
            if kind == _KEY:
                value = value.get(arg, UNDEFINED) if type(value) is dict or isinstance(value, dict) else UNDEFINED
            elif kind == _CALL:
                found = arg[1](value)
                if found is UNDEFINED:
                    found = value.get(arg[0], UNDEFINED) if isinstance(value, dict) else UNDEFINED
                value = found
            else:
                value = _get_prop(value, kind, arg)
        return value

    def __repr__(self) -> str:
        return f"NodeRef({self.text!r})"


class Utility(Source):
    """`@loop`, `@now`, `@now_ms`, `@now_s`; any other `@name` is an empty string, as in GraphAI."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def resolve(self, results: Mapping[str, Any]) -> Any:
        if self.name == "@loop":
            return results.get(LOOP_COUNTER, UNDEFINED)
        if self.name in ("@now", "@now_ms"):
            return int(time.time() * 1000)
        if self.name == "@now_s":
            return int(time.time())
        return ""


class Template(Source):
    """A string with `${:node.x}` placeholders, each replaced by its value as JS prints it."""

    __slots__ = ("text", "parts")

    def __init__(self, text: str, parts: list[tuple[str, Source]]) -> None:
        self.text = text
        self.parts = parts

    def resolve(self, results: Mapping[str, Any]) -> Any:
        text = self.text
        for placeholder, source in self.parts:
            text = text.replace(placeholder, js_string(source.resolve(results)))
        return text


class ListOf(Source):
    """A list in `inputs`: each item resolved; a missing item becomes None (JSON null)."""

    __slots__ = ("items",)

    def __init__(self, items: list[Source]) -> None:
        self.items = items

    def resolve(self, results: Mapping[str, Any]) -> Any:
        return [None if value is UNDEFINED else value for value in (item.resolve(results) for item in self.items)]

    def any_defined(self, results: Mapping[str, Any]) -> bool:
        """True if at least one item has a value (anyInput readiness)."""
        return any(item.resolve(results) is not UNDEFINED for item in self.items)


class DictOf(Source):
    """An object in `inputs`: each value resolved.

    A value that does not resolve stays as UNDEFINED under its key, as GraphAI keeps
    `{v: undefined}`: the key counts (copyAgent sees named inputs, a template shows
    "undefined"), and JSON output drops it.
    """

    __slots__ = ("items",)

    def __init__(self, items: dict[str, Source]) -> None:
        self.items = items

    def resolve(self, results: Mapping[str, Any]) -> Any:
        return {key: source.resolve(results) for key, source in self.items.items()}


def parse_ref(text: Any) -> NodeRef | None:
    """`":node.a.b"` as a NodeRef; None for anything that is not a reference."""
    if not isinstance(text, str) or not text.startswith(":"):
        return None
    return _parse_ref_text(text)


@lru_cache(maxsize=65536)
def _parse_ref_text(text: str) -> NodeRef:
    """Parses a reference once however often a graph (or a loop of graphs) writes it; NodeRefs are immutable."""
    node_id, *props = _PROP_SEPARATOR.split(text[1:])
    return NodeRef(node_id, tuple(props), text)


def ref_node_id(text: Any) -> str | None:
    """The node id a `:node.a.b` reference reads; None for anything else. Cheaper than parse_ref."""
    if not isinstance(text, str) or not text.startswith(":"):
        return None
    if "(" in text or ")" in text:
        return _PROP_SEPARATOR.split(text[1:], 1)[0]
    return text[1:].split(".", 1)[0]


@lru_cache(maxsize=65536)
def _texts_of(text: str) -> tuple[str, ...]:
    """The `":node..."` references one string reads, as GraphAI's inputs2dataSources finds them:
    `${:x}` placeholders win, even in text that starts with ":"; else the text itself if it is one."""
    if "${" in text:
        placeholders = tuple(inner for inner in template_refs(text) if inner.startswith(":"))
        if placeholders:
            return placeholders
    return (text,) if text.startswith(":") else ()


def _texts_in(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """Every `(field path, ":node..." text)` an `inputs`-like structure reads, templates included."""
    if isinstance(value, str):
        for text in _texts_of(value):
            yield path, text
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str):
                if item[:1] == ":" and "${" not in item:  # the common case, `:node.prop`, without a lookup
                    yield f"{path}.{key}", item
                    continue
                texts = _texts_of(item)
                if texts:
                    where = f"{path}.{key}"
                    for text in texts:
                        yield where, text
            elif isinstance(item, (list, dict)):
                yield from _texts_in(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, (str, list, dict)):
                yield from _texts_in(item, f"{path}.{index}")


_SINGLE_REF_FIELDS = ("if", "unless", "agent", "graph")


def node_references(node: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """Every `(field path, ":node..." text)` a node of GraphData reads, in the order the run waits for them.

    A computed node (one with `agent`) reads its `inputs` (templates included,
    e.g. `("inputs.q.0", ":a.b")`), then `if`, `unless`, `agent` and `graph`
    when they are references, then the values of a `passThrough` mapping (the
    run ignores a `passThrough` that is no mapping). A static node reads the
    node its `update` names. A nested graph's own references are its own.
    """
    if "agent" not in node:
        update = node.get("update")
        if isinstance(update, str) and update.startswith(":"):
            yield "update", update
        return
    yield from _texts_in(node.get("inputs"), "inputs")
    for field in _SINGLE_REF_FIELDS:
        text = node.get(field)
        if isinstance(text, str) and text.startswith(":"):
            yield field, text
    pass_through = node.get("passThrough")
    if isinstance(pass_through, dict):
        yield from _texts_in(pass_through, "passThrough")


def graph_references(data: Mapping[str, Any]) -> Iterator[tuple[str | None, str, NodeRef]]:
    """Every reference of a graph as `(node id, field path, reference)`, nested graphs excluded.

    `loop.while` comes first, with node id None; then each node's `node_references`.
    """
    loop = data.get("loop")
    if isinstance(loop, dict):
        for path, text in _texts_in(loop.get("while"), "loop.while"):
            yield None, path, _parse_ref_text(text)
    nodes = data.get("nodes")
    if not isinstance(nodes, dict):
        return
    for node_id, node in nodes.items():
        if isinstance(node, dict):
            for path, text in node_references(node):
                yield node_id, path, _parse_ref_text(text)


def template_refs(text: str) -> list[str]:
    """The `${...}` placeholders of a template string, without the braces."""
    return _TEMPLATE.findall(text)


@lru_cache(maxsize=65536)
def _compile_string(text: str) -> Source:
    placeholders = template_refs(text) if "${" in text else ()
    if placeholders:
        parts = [("${" + inner + "}", _compile_string(inner)) for inner in dict.fromkeys(placeholders)]
        return Template(text, parts)
    ref = parse_ref(text)
    if ref is not None:
        return ref
    if text.startswith("@"):
        return Utility(text)
    return Literal(text)


def compile_inputs(value: Any) -> Source:
    """Compiles a node's `inputs` (or `passThrough`, or one reference) into a Source."""
    if isinstance(value, str):
        return _compile_string(value)
    if isinstance(value, list):
        return ListOf([compile_inputs(item) for item in value])
    if is_named_inputs(value):
        return DictOf({key: compile_inputs(item) for key, item in value.items()})
    return Literal(value)


_SELF = "self"


def compile_output(value: Any) -> Source:
    """Compiles an `output` mapping, whose `.a.b` paths read the node's own result.

    Resolve it against `{"self": result}`. As in GraphAI, `:node` references
    mean nothing here and stay literal text.
    """
    if isinstance(value, str):
        if value.startswith("."):
            return NodeRef(_SELF, tuple(value.split(".")[1:]), value)
        placeholders = [inner for inner in template_refs(value) if inner.startswith("@")]
        if placeholders:
            return Template(value, [("${" + inner + "}", Utility(inner)) for inner in dict.fromkeys(placeholders)])
        return Literal(value)
    if isinstance(value, list):
        return ListOf([compile_output(item) for item in value])
    if is_named_inputs(value):
        return DictOf({key: compile_output(item) for key, item in value.items()})
    return Literal(value)


def compile_self_path(path: Any) -> Source:
    """`repeatUntil.exists`: a `.a.b` path into the node's own result, without prop functions."""
    if isinstance(path, str) and path.startswith("."):
        return NodeRef(_SELF, tuple(path.split(".")[1:]), path, prop_functions=False)
    return Literal(path)
