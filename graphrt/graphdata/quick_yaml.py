"""A fast reader for the plain YAML most graph files are written in; anything else is left to the full parser.

PyYAML, even its C loader, builds a token, an event and a node object for every
scalar before a value exists: a 10,000-node file took 5-6x js-yaml's time.
Most graph files use a small part of YAML: block mappings and sequences by
indentation, plain or quoted one-line scalars, and flow collections written as
JSON on one line (what `bench --write-workloads` and most tools write).
`quick_load` reads exactly that part, line by line, JSON through the `json`
module, and plain scalars with the loader's own rules (YAML 1.2's core schema,
as js-yaml reads them).

It returns None for anything outside that part: anchors, tags, block scalars,
multi-line or escaped strings, flow text that is not JSON, duplicate keys,
tabs, documents, characters YAML refuses, and every error. The caller then
parses the text with the full loader, which gives the same value or the
located error. So this module only ever answers for text whose value it
knows the full loader would give (tests/graphdata/test_quick_yaml.py compares
the two on every graph file of the repository and on generated ones).
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any, Callable

__all__ = ["quick_load"]

# Left to the full parser: what YAML refuses in a stream, tab, CR, BOM, and the line breaks of YAML 1.1 (NEL, LS, PS).
# The whole rule is compiled only for a text that is not ASCII (its Unicode ranges take ~3 ms to compile,
# a fifth of a small graph's whole load); for ASCII text it is the same as the short one.
_NOT_QUICK_ASCII = re.compile("[^\n\x20-\x7e]")


@functools.cache
def _not_quick() -> re.Pattern[str]:
    return re.compile("[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")
_KEY = re.compile(r"""([A-Za-z0-9_$][A-Za-z0-9_$\-./]*|"[^"\\]*"|'[^'\n]*(?:''[^'\n]*)*'):(?: +|$)""")
# A plain scalar may not start with an indicator (anchors, aliases, tags, block scalars, flow, quotes...).
_PLAIN_START = re.compile(r"""[^-?:,\[\]{}#&*!|>'"%@`\s]|[-?:][^\s,\[\]{}]""")


class _NotQuick(Exception):
    """The text is outside what this reader knows: the full parser reads it."""


def _resolvers() -> list[tuple[re.Pattern[str], Callable[[str], Any]]]:
    """The plain-scalar rules of graphrt's YAML loader (graphdata/loader.py), in its order."""
    def boolean(text: str) -> bool:
        return text[0] in "tT"

    def integer(text: str) -> int:
        sign, digits = (-1, text[1:]) if text[0] == "-" else (1, text.lstrip("+"))
        base = {"0b": 2, "0o": 8, "0x": 16}.get(digits[:2], 10)
        try:
            return sign * int(digits[2:] if base != 10 else digits, base)
        except ValueError:  # too long to convert: the full parser says so, with the position
            raise _NotQuick from None

    def real(text: str) -> float:
        value = text.lower()
        sign = -1.0 if value[0] == "-" else 1.0
        if value[0] in "+-":
            value = value[1:]
        if value == ".inf":
            return sign * float("inf")
        if value == ".nan":
            return float("nan")
        return sign * float(value)

    return [
        (re.compile(r"(?:true|True|TRUE|false|False|FALSE)\Z"), boolean),
        (re.compile(r"[-+]?(?:0b[01]+|0x[0-9a-fA-F]+|0o[0-7]+|[0-9]+)\Z"), integer),
        (re.compile(r"(?:[-+]?[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9]+(?:[eE][-+]?[0-9]+)?"
                    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))\Z"), real),
        (re.compile(r"(?:~|null|Null|NULL)\Z"), lambda text: None),
    ]


_RESOLVERS = _resolvers()
_FIRST = "tTfF-+0123456789.~nN"


def _plain(text: str) -> Any:
    """A plain scalar's value, by the loader's rules; text if none applies (a date stays text)."""
    if text[0] in _FIRST:
        for pattern, construct in _RESOLVERS:
            if pattern.match(text):
                return construct(text)
    return text


def _mapping_once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):  # a key written twice: JSON keeps the last, the full loader refuses it
        raise _NotQuick
    return found


_JSON = json.JSONDecoder(object_pairs_hook=_mapping_once, parse_constant=lambda name: _refuse())  # NaN: not JSON to YAML


def _refuse() -> Any:
    raise _NotQuick


def _comment_or_end(text: str, at: int) -> None:
    """After a value only spaces, or spaces and a comment."""
    rest = text[at:]
    if rest and not rest.isspace():
        stripped = rest.lstrip(" ")
        if not stripped.startswith("#") or len(stripped) == len(rest):
            raise _NotQuick


def _single_quote_end(text: str, start: int) -> int:
    """Where the single-quoted scalar whose text begins at `start` closes (`''` is a quote inside it)."""
    end = start
    while True:
        end = text.find("'", end)
        if end < 0:
            raise _NotQuick
        if not text.startswith("''", end):
            return end
        end += 2


def _scalar(text: str, reader: "_Reader", depth: int) -> Any:
    """The value written after `key: ` or `- ` on one line (flow JSON, quoted or plain scalar), at `depth`."""
    first = text[0]
    if first in "{[":
        if "\\" in text:  # escapes: YAML's and JSON's differ at the edges
            raise _NotQuick
        try:
            value, end = _JSON.raw_decode(text)
        except ValueError:  # YAML's flow style, plain scalars and all (`[a, b]`, `{key: value}`)
            value, end = _Flow(text).value()
        reader.measure(value, depth)
        _comment_or_end(text, end)
        return value
    if first == '"':
        end = text.find('"', 1)
        if end < 0 or "\\" in text[:end]:
            raise _NotQuick
        _comment_or_end(text, end + 1)
        return text[1:end]
    if first == "'":
        end = _single_quote_end(text, 1)
        _comment_or_end(text, end + 1)
        return text[1:end].replace("''", "'")
    if not _PLAIN_START.match(text):
        raise _NotQuick
    comment = text.find(" #")
    if comment >= 0:
        text = text[:comment]
    text = text.rstrip(" ")
    if ": " in text or text.endswith(":"):  # a mapping where a scalar stands: an error the full parser locates
        raise _NotQuick
    return _plain(text)


_FLOW_PLAIN = re.compile(r"""[^-?:,\[\]{}#&*!|>'"%@`\s][^,\[\]{}#:?]*|-[^\s,\[\]{}#:?][^,\[\]{}#:?]*""")


class _Flow:
    """A flow collection on one line, in the plain form: `[a, "b", {c: 1}]`. Anything else is not read here."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0

    def _skip(self) -> None:
        text, at = self.text, self.at
        while at < len(text) and text[at] == " ":
            at += 1
        self.at = at

    def value(self) -> tuple[Any, int]:
        """The collection at the start and where it ends."""
        return self._node(), self.at

    def _node(self) -> Any:
        text = self.text
        if self.at >= len(text):
            raise _NotQuick
        first = text[self.at]
        if first == "[":
            return self._sequence()
        if first == "{":
            return self._mapping()
        return self._scalar()

    def _sequence(self) -> list[Any]:
        self.at += 1
        found: list[Any] = []
        self._skip()
        if self.text.startswith("]", self.at):
            self.at += 1
            return found
        while True:
            found.append(self._node())
            self._skip()
            if self.text.startswith("]", self.at):
                self.at += 1
                return found
            self._comma()

    def _mapping(self) -> dict[str, Any]:
        self.at += 1
        found: dict[str, Any] = {}
        self._skip()
        if self.text.startswith("}", self.at):
            self.at += 1
            return found
        while True:
            quoted = self.text.startswith(("'", '"'), self.at)
            key = self._scalar()
            if not isinstance(key, str) or key in found:
                raise _NotQuick  # a key that is not text, or written twice: the full loader's to say
            text = self.text
            if not text.startswith(":", self.at):
                raise _NotQuick
            self.at += 1
            if not quoted and not text.startswith(" ", self.at):
                raise _NotQuick
            self._skip()
            found[key] = self._node()
            self._skip()
            if text.startswith("}", self.at):
                self.at += 1
                return found
            self._comma()

    def _comma(self) -> None:
        if not self.text.startswith(",", self.at):
            raise _NotQuick
        self.at += 1
        self._skip()
        if self.text.startswith(("]", "}", ","), self.at):
            raise _NotQuick  # an empty entry

    def _scalar(self) -> Any:
        text, at = self.text, self.at
        if at >= len(text):
            raise _NotQuick  # the flow text ended where a value should be (`- {`): the full loader's to say
        quote = text[at]
        if quote == '"':
            end = text.find('"', at + 1)
            if end < 0 or "\\" in text[at:end]:
                raise _NotQuick
            self.at = end + 1
            return text[at + 1:end]
        if quote == "'":
            end = _single_quote_end(text, at + 1)
            self.at = end + 1
            return text[at + 1:end].replace("''", "'")
        match = _FLOW_PLAIN.match(text, at)
        if match is None:
            raise _NotQuick
        self.at = match.end()
        written = match.group().rstrip(" ")
        after = text[self.at:self.at + 2]
        if after[:1] in ("#", "?") or (after[:1] == ":" and after != ": "):  # a comment, `a?`, `a:b`: not here
            raise _NotQuick
        return _plain(written)


def _key(match: re.Match[str]) -> str:
    written = match.group(1)
    if written[0] == '"':
        return written[1:-1]
    if written[0] == "'":
        return written[1:-1].replace("''", "'")
    if not isinstance(_plain(written), str):  # `1:`, `true:`, `null:` are not text keys
        raise _NotQuick
    return written


class _Reader:
    """The text's content lines, (indentation, text without it) with comments and blank lines left out, read
    in order; and what the full loader checks of a graph's shape: values in all, containers' depth."""

    def __init__(self, text: str, max_depth: int, max_values: int) -> None:
        self.items: list[tuple[int, str]] = []
        for line in text.split("\n"):
            content = line.lstrip(" ")
            if not content or content[0] == "#":
                continue
            indent = len(line) - len(content)
            if indent == 0 and (content.startswith(("---", "...", "%"))):
                raise _NotQuick  # documents and directives
            self.items.append((indent, content.rstrip(" ")))
        self.at = 0
        self.runs_from = 0  # lines before it were tried as a JSON run and are not JSON
        self.values = 1  # the top value
        self.max_depth = max_depth
        self.max_values = max_values

    def count(self, container: dict[str, Any] | list[Any], depth: int) -> None:
        """Counts a block container's values; past the loader's limits, the full loader says so."""
        if depth > self.max_depth:
            raise _NotQuick
        self.values += len(container)
        if self.values > self.max_values:
            raise _NotQuick

    def measure(self, value: Any, depth: int) -> None:
        """Counts a flow value's values, as `count` does a block's."""
        if type(value) is dict:
            children = value.values()
        elif type(value) is list:
            children = value
        else:
            return
        self.count(value, depth)
        for child in children:
            if type(child) is dict or type(child) is list:
                self.measure(child, depth + 1)


def _block(lines: _Reader, indent: int, depth: int) -> Any:
    """The block (mapping or sequence) whose lines start at `indent`, at `depth`."""
    content = lines.items[lines.at][1]
    if content == "-" or content.startswith("- "):
        return _sequence(lines, indent, depth)
    return _mapping(lines, indent, None, depth)


def _mapping(lines: _Reader, indent: int, first: str | None, depth: int) -> dict[str, Any]:
    """A block mapping at `indent`; `first`: its first line's text, when it followed a `- ` on that line."""
    found: dict[str, Any] = {}
    items = lines.items
    while True:
        if first is not None:
            content, first = first, None
        else:
            if lines.at >= len(items) or items[lines.at][0] != indent:
                break
            content = items[lines.at][1]
            lines.at += 1
        match = _KEY.match(content)
        if match is None:
            raise _NotQuick
        key = _key(match)
        if key in found:
            raise _NotQuick
        rest = content[match.end():]
        if rest[:1] in ("{", "[") and rest[-1] in "}]" and lines.at > lines.runs_from and _json_run(
                lines, indent, key, rest, found, depth + 1):
            continue
        if rest and rest[0] != "#":
            value = _scalar(rest, lines, depth + 1)
            if lines.at < len(items) and items[lines.at][0] > indent:  # a scalar that goes on: the full parser's
                raise _NotQuick
        else:
            value = _nested(lines, indent, depth + 1, sequence_here=True)
        found[key] = value
    if lines.at < len(items) and items[lines.at][0] > indent:
        raise _NotQuick
    lines.count(found, depth)
    return found


def _json_run(lines: _Reader, indent: int, key: str, value: str, found: dict[str, Any], depth: int) -> bool:
    """Reads `key: value` and the lines after it that are `key: {JSON}` too as one JSON text, into `found`.

    A file of one node a line (what tools write) is then one call into the json module, not one a line.
    False, with nothing read, if the text is not JSON (YAML's own flow style): each line is read alone."""
    items = lines.items
    start = lines.at
    pairs = [(key, value)]
    while lines.at < len(items) and items[lines.at][0] == indent:
        content = items[lines.at][1]
        match = _KEY.match(content)
        if match is None:
            break
        written = content[match.end():]
        if written[:1] not in ("{", "[") or written[-1] not in "}]":
            break
        pairs.append((_key(match), written))
        lines.at += 1
    text = ",".join(f'"{each}":{written}' for each, written in pairs)
    if "\\" in text or any('"' in each for each, _ in pairs):
        lines.at, lines.runs_from = start, lines.at
        return False
    try:
        values = _JSON.decode("{" + text + "}")  # a key written twice, here too, is refused by _mapping_once
    except ValueError:
        lines.at, lines.runs_from = start, lines.at  # not again for these lines
        return False
    if len(values) != len(pairs) or any(each in found for each in values):
        raise _NotQuick
    if lines.at < len(items) and items[lines.at][0] > indent:
        raise _NotQuick
    for each in values.values():
        lines.measure(each, depth)
    found.update(values)
    return True


def _sequence(lines: _Reader, indent: int, depth: int) -> list[Any]:
    found: list[Any] = []
    items = lines.items
    while lines.at < len(items) and items[lines.at][0] == indent:
        content = items[lines.at][1]
        if content != "-" and not content.startswith("- "):
            break
        lines.at += 1
        rest = content[1:].lstrip(" ")
        if not rest or rest[0] == "#":
            found.append(_nested(lines, indent, depth + 1, sequence_here=False))
            continue
        if rest.startswith(("- ", "? ")) or rest == "-":
            raise _NotQuick
        column = indent + len(content) - len(rest)
        if _KEY.match(rest):
            found.append(_mapping(lines, column, rest, depth + 1))
            continue
        found.append(_scalar(rest, lines, depth + 1))
        if lines.at < len(items) and items[lines.at][0] > indent:
            raise _NotQuick
    if lines.at < len(items) and items[lines.at][0] > indent:
        raise _NotQuick
    lines.count(found, depth)
    return found


def _nested(lines: _Reader, indent: int, depth: int, *, sequence_here: bool) -> Any:
    """The value of a `key:` or `-` with nothing after it: the block below it, or null.

    A mapping's value may be a sequence at the key's own indentation (`key:` then `- a`)."""
    items = lines.items
    if lines.at < len(items):
        below, content = items[lines.at]
        if below > indent:
            return _block(lines, below, depth)
        if sequence_here and below == indent and (content == "-" or content.startswith("- ")):
            return _sequence(lines, indent, depth)
    return None


def quick_load(text: str, *, max_depth: int, max_values: int) -> Any | None:
    """The value of a YAML text written in the plain part of YAML graph files use; None for any other text,
    and for a value nested more than `max_depth` levels or of more than `max_values` values (the full
    loader's limits: it gives the error)."""
    if (_NOT_QUICK_ASCII if text.isascii() else _not_quick()).search(text):
        return None
    try:
        lines = _Reader(text, max_depth, max_values)
        if not lines.items or lines.items[0][0] != 0:
            return None
        value = _block(lines, 0, 0)
        if lines.at != len(lines.items):
            return None
        return value
    except (_NotQuick, RecursionError):
        return None
