"""PyYAML's safe loader, set to read graph files as js-yaml does: what reads every file the quick reader leaves.

graphdata/quick_yaml.py reads the YAML graph files are written in; this module (and
PyYAML with it) is imported only for the rest: the entries the quick reader leaves
(tags, YAML's own escapes, ...: `value_or_none`, all in one text), the
files it leaves whole, and every file with an error, which gets its position here.
"""

from __future__ import annotations

import collections.abc
import re
import sys
from typing import Any

import yaml

from graphrt.base.errors import GraphLoadError, Location

__all__ = ["integer_too_long", "load", "value_or_none"]

# The C loader when PyYAML has it: the same safe constructor, several times faster.
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _GraphLoader(_SafeLoader):  # type: ignore[misc, valid-type]
    """The safe loader, reading plain scalars as js-yaml (GraphAI's YAML) does: YAML 1.2's core schema.

    PyYAML follows YAML 1.1, where `yes`, `no`, `on` and `off` are booleans,
    `012` is octal, `1:30` is 90 and `2024-01-01` a date. In a GraphAI graph
    file they are the text "yes", the number 12, the text "1:30" and so on; a
    date stays text, since graph data is JSON. Merge keys merge as in js-yaml too.
    """

    yaml_implicit_resolvers: dict = {}

    def construct_mapping(self, node: Any, deep: bool = False) -> dict:
        """A mapping, refusing a key written twice (js-yaml refuses it too; PyYAML keeps the last)."""
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.tag != "tag:yaml.org,2002:merge":
                key = (key_node.tag, key_node.value)
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"duplicated mapping key '{key_node.value}'", key_node.start_mark
                    )
                seen.add(key)
        return super().construct_mapping(node, deep=deep)

    def flatten_mapping(self, node: Any) -> None:
        """Merge keys (`<<: *base`, `<<: [*a, *b]`) as js-yaml merges them, in the order written: each adds the keys
        of its mapping, or of its list's mappings in order, that the mapping has not yet; a key written after may
        change what a merge gave, at its place. PyYAML 6 puts every merged key first, and lets a later mapping of
        a list win when its key is not the same string object (`temperature` is not, `q` is)."""
        found: list[tuple[Any, Any]] = []
        place: dict[Any, int] = {}  # a key's index in `found`
        merged: set[Any] = set()  # the keys a merge gave, not written since
        for key_node, value_node in node.value:
            if key_node.tag != "tag:yaml.org,2002:merge":
                key = self._key_of(key_node)
                if key in merged:
                    found[place[key]] = (key_node, value_node)
                    merged.discard(key)
                else:
                    place[key] = len(found)
                    found.append((key_node, value_node))
                continue
            sources = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
            for source in sources:
                if not isinstance(source, yaml.MappingNode):
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping", node.start_mark,
                        f"expected a mapping or list of mappings for merging, but found {source.id}", source.start_mark)
                self.flatten_mapping(source)
                for pair in source.value:
                    key = self._key_of(pair[0])
                    if key not in place:
                        place[key] = len(found)
                        found.append(pair)
                        merged.add(key)
        node.value = found

    def _key_of(self, key_node: Any) -> Any:
        """A key as merges compare it: its value, or the node itself where that is no value to compare."""
        if isinstance(key_node, yaml.ScalarNode):
            key = self.construct_object(key_node)
            if isinstance(key, collections.abc.Hashable):
                return key
        return key_node


def _construct_int(loader: Any, node: Any) -> int:
    text = loader.construct_scalar(node)
    sign, digits = (-1, text[1:]) if text[0] == "-" else (1, text.lstrip("+"))
    base = {"0b": 2, "0o": 8, "0x": 16}.get(digits[:2], 10)
    try:
        return sign * int(digits[2:] if base != 10 else digits, base)
    except ValueError:  # longer than Python converts (sys.get_int_max_str_digits)
        raise yaml.constructor.ConstructorError(None, None, integer_too_long(digits), node.start_mark) from None


def _refuse_bytes_and_sets(loader: Any, node: Any) -> Any:
    raise yaml.constructor.ConstructorError(
        None, None, f"a {node.tag.rsplit(':', 1)[-1]} value is not graph data (graphs hold JSON values)", node.start_mark
    )


for _tag, _pattern, _first in (
    ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("int", r"^[-+]?(?:0b[01]+|0x[0-9a-fA-F]+|0o[0-7]+|[0-9]+)$", "-+0123456789"),
    ("float", r"^(?:[-+]?[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9]+(?:[eE][-+]?[0-9]+)?"
              r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$", "-+0123456789."),
    ("null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("merge", r"^(?:<<)$", "<"),
):
    _GraphLoader.add_implicit_resolver(f"tag:yaml.org,2002:{_tag}", re.compile(_pattern), list(_first))
_GraphLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)
_GraphLoader.add_constructor("tag:yaml.org,2002:timestamp", yaml.SafeLoader.construct_yaml_str)
_GraphLoader.add_constructor("tag:yaml.org,2002:binary", _refuse_bytes_and_sets)
_GraphLoader.add_constructor("tag:yaml.org,2002:set", _refuse_bytes_and_sets)


def integer_too_long(digits: str) -> str:
    return f"an integer of {len(digits)} digits is longer than graphrt reads ({sys.get_int_max_str_digits()} digits)"


def load(text: str, file: str | None, *, max_depth: int) -> Any:
    """The value of a YAML text.

    Raises:
        GraphLoadError: the text is not valid YAML, with the position PyYAML found the problem at.
    """
    try:
        return yaml.load(text, Loader=_GraphLoader)  # noqa: S506 - a safe loader
    except RecursionError:
        raise GraphLoadError(f"not valid YAML/JSON: nested more than {max_depth} levels deep",
                             location=Location(file)) from None
    except (yaml.YAMLError, ValueError) as error:
        mark = getattr(error, "problem_mark", None)
        location = Location(file, mark.line + 1, mark.column + 1) if mark else Location(file)
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise GraphLoadError(f"not valid YAML/JSON: {problem}", location=location) from error


def value_or_none(text: str) -> Any:
    """The value of a YAML text, or None for text that is not valid YAML: what reads the entries the quick reader
    leaves (quick_yaml.quick_load's `full`); an error there leaves the whole file to `load`, which places it."""
    try:
        return yaml.load(text, Loader=_GraphLoader)  # noqa: S506 - a safe loader
    except (yaml.YAMLError, ValueError, RecursionError):
        return None
