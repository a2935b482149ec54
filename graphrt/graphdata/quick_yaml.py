"""A fast reader for the YAML graph files are written in; what it does not know is left to the full parser.

PyYAML, even its C loader, builds a token, an event and a node object for every
scalar before a value exists: a 50,000-node file takes it 10-30x js-yaml's time.
Most graph files use a small part of YAML: block mappings and sequences by
indentation, scalars (plain, single-quoted, double-quoted with JSON's escapes, over
one line or several), literal and folded block scalars (prompts) with their chomping
and indentation indicators, anchors and aliases on a mapping's values and sequence items
and inside flow collections, merge keys (`<<: *defaults`), and flow collections, in YAML's flow style
or as JSON (what `bench --write-workloads` and most tools write), on one line or
wrapped over several; a file that is one JSON object; Windows' line breaks, a byte
order mark, tabs inside text, and the markers of the document's start and end. `quick_load`
reads exactly that part, line by line (a line of the plainest kinds with one regular
expression's match, the mappings below keys on a stack in one loop): flow collections
as tokens turned into JSON's text, the file's flow values read by the `json` module
at once, at its end, and plain scalars with the loader's own rules (YAML 1.2's core
schema, as js-yaml reads them); merge keys merge as js-yaml merges them, as the full
loader does (full_yaml._GraphLoader.flatten_mapping).

What it does not know (tags, YAML's own escapes, a scalar over several lines inside a
flow collection, ...) is left to the full parser by the entry of the block mapping
that holds it, or the entry around that: given `full`, those entries are read by the
full loader, all in one call, and put in their places; the rest of the file stays
here. The whole file is left (None) for an entry tied to the rest (an anchor or alias
in it, or anywhere in a file with such entries), anchors inside flow collections or on
a sequence item's key, duplicate keys or anchors, tabs where YAML reads them as white space,
documents, characters YAML refuses, and every error: the caller then parses the text
with the full loader, which gives the same value or the located error. So this module
only ever answers for text whose value it knows the full loader would give
(tests/graphdata/test_quick_yaml.py compares the two, alone and in pieces, on every
graph file of the repository and on generated ones). No library on PyPI did this as
exactly: rapidyaml, yaml-rs and ryaml each read some scalars or merge keys otherwise
than YAML 1.2's core schema and js-yaml (BENCHMARKS.md, "YAML parsing").
"""

from __future__ import annotations

import functools
import json
import math
import re
from typing import Any, Callable, Iterable

from graphrt.base.patterns import LazyPattern

__all__ = ["quick_load"]

# Left to the full parser: what YAML refuses in a stream, a lone CR, a BOM past the start, and the line breaks of
# YAML 1.1 (NEL, LS, PS).
# The whole rule is compiled only for a text that is not ASCII (its Unicode ranges take ~3 ms to compile,
# a fifth of a small graph's whole load); for ASCII text it is the same as the short one. A tab is _TAB by then.
_NOT_QUICK_ASCII = re.compile("[^\n\x01\x20-\x7e]")


@functools.cache
def _not_quick() -> re.Pattern[str]:
    return re.compile("[^\n\x01\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")


# A tab is read as this character, which YAML refuses in a text (so none is there), and is a tab again in the
# value (_with_tabs): then it is text like any other, as YAML reads a tab inside a scalar (`id<tab>name`,
# `"a<tab>b"`, literal text). Where a tab is white space in YAML, the text is the full parser's: after spaces
# that follow text, at a line's end, before a comment or an indicator (_BAD_TAB); after `-`, `?`, `:` or a flow
# indicator, where no plain scalar starts or goes on (_PLAIN_START, _LINE, _FLOW_TOKEN); at a line's start, only
# where the reader reads it as text (a literal scalar's code): a line going on a plain, quoted or flow value, or
# starting a block scalar's text, is the full parser's, and a folded one is more indented.
_TAB = "\x01"
_BAD_TAB = LazyPattern(r"[^\s] +\t|\t(?=[ \n#:,\[\]{}]|\Z)")
_DOCUMENTS = re.compile(r"^(?:---|\.\.\.|%)", re.MULTILINE)  # documents and directives: the full parser's
# ... but for the marker of the one document's start, on a line of its own (after comments): a line like any other.
_DOCUMENT_START = LazyPattern(r"\A(?:\ *(?:\#[^\n]*)?\n)*(---(?:\ +\#[^\n]*|\ *))\n")
# ... and for the marker of its end, after which only comments and empty lines come.
_DOCUMENT_END = LazyPattern(r"\n(\.\.\.(?:\ +\#[^\n]*|\ *))(?:\n\ *(?:\#[^\n]*)?)*\Z")
# A mapping's key on its line, then `: ` or the line's end: a plain scalar (on one line, so no ` #` and no `: ` in it;
# spaces, brackets and `:x` may be), a single-quoted one, or a double-quoted one whose escapes are JSON's.
_KEY = re.compile(r"""(
    (?:[^-?:,\[\]{}\#&*!|>'"%@`\s\x01]|[-?:][^\s\x01])(?:[^\s:\x01]++|:(?=[^\s\x01])|\ +(?=[^\s\#:\x01]))*+
  | "(?:[^"\\\n]++|\\["\\/bfnrt]|\\u(?![dD][89a-fA-F])[0-9a-fA-F]{4})*+"
  | '[^'\n]*(?:''[^'\n]*)*'
):(?:\ +|$)""", re.VERBOSE)
_LONGEST_KEY = 1000  # YAML's implicit keys are at most 1,024 characters: a longer one is the full parser's to refuse
# A plain scalar may not start with an indicator (anchors, aliases, tags, block scalars, flow, quotes...).
_PLAIN_START = re.compile(r"""[^-?:,\[\]{}#&*!|>'"%@`\s\x01]|[-?:][^\s\x01,\[\]{}]""")  # \x01: a tab (_TAB)


class _NotQuick(Exception):
    """The text is outside what this reader knows: the full parser reads it (the entry it is in, or the file)."""


class _Whole(_NotQuick):
    """The whole file is the full parser's, not only the entry where this was met (past a limit, an anchor)."""


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
# A key is its text unless it starts as a number, `~` or a quote does, or is a boolean or null word.
_KEY_FIRST = "-+0123456789.~'\""
_KEY_WORDS = frozenset(("true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL"))
# Whether any rule may apply: one match for the many names that start like a number, a boolean or null.
_MAYBE_NOT_TEXT = re.compile("|".join(f"(?:{pattern.pattern})" for pattern, _ in _RESOLVERS))


def _plain(text: str) -> Any:
    """A plain scalar's value, by the loader's rules; text if none applies (a date stays text)."""
    if text[0] in _FIRST and _MAYBE_NOT_TEXT.match(text):
        for pattern, construct in _RESOLVERS:
            if pattern.match(text):
                return construct(text)
    return text


def _mapping_once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):  # a key written twice: JSON keeps the last, the full loader refuses it
        raise _NotQuick
    return found


# NaN is text in YAML, not a number. Not strict: a string holds the tabs of the text as _TAB, a control character.
_JSON = json.JSONDecoder(object_pairs_hook=_mapping_once, parse_constant=lambda name: _refuse(), strict=False)


_JSON_PLAIN = json.JSONDecoder(strict=False)  # for text made here: NaN and Infinity are .nan and .inf
_SCAN = _JSON_PLAIN.scan_once  # the C scanner itself: text made here has no spaces around it to skip


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
        return _flow_values(reader, [text], depth)[0]
    if first == '"':
        match = _DOUBLE_QUOTED.match(text)
        if match is None:
            match = _YAML_DOUBLE_QUOTED.match(text)  # YAML's own escapes
            if match is None:
                raise _NotQuick
            _comment_or_end(text, match.end())
            return _yaml_escapes(match.group()[1:-1])
        _comment_or_end(text, match.end())
        written = match.group()
        return _JSON_PLAIN.decode(written) if "\\" in written else written[1:-1]
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
    if ": " in text or ":" + _TAB in text or text.endswith(":"):  # a mapping where a scalar stands: an error
        raise _NotQuick
    return _plain(text)


# Flow collections, each written on one line, as tokens: YAML's flow style (`{agent: copyAgent, inputs: {v: ':n0'}}`)
# and JSON alike. Each token becomes JSON's text for it and the lines are read by the json module at once, so a
# line costs a regular expression's pass, not a Python call per character. What YAML reads otherwise than JSON
# would is no token: anchors, tags, `?` keys, `:` with no space after a plain key, a plain scalar starting with `:`
# or `?` (PyYAML refuses it in flow). Text with such a thing is not covered by its tokens, and the full parser reads
# it. YAML's own escapes (`\x41`, `\N`) are made JSON's (_json_scalar); an escaped surrogate is the full parser's
# (PyYAML refuses it).
_FLOW_SCALAR = r"""(?:
        [^-?:,\[\]{}\#&*!|>'"%@`\s\x01][^\s,\[\]{}:]*            # a plain scalar: where it may start, and go on
        (?:(?::(?=[^\s\x01,\[\]{}])|\ +(?=[^\s,\[\]{}:\#]))[^\s,\[\]{}:]*)*
      | '[^'\n]*(?:''[^'\n]*)*'
      | "[^"\\\n]*(?:\\[^\n][^"\\\n]*)*"                           # YAML's escapes too (_json_scalar)
      | -(?=[^\s\x01,\[\]{}])[^\s,\[\]{}:]*
        (?:(?::(?=[^\s\x01,\[\]{}])|\ +(?=[^\s,\[\]{}:\#]))[^\s,\[\]{}:]*)*
      | \*[A-Za-z0-9_-]+(?=[\ \n,\]}]|\Z)                          # an alias (_ALIAS)
    )"""
# `{`, `}`, `[`, `]`, `,`, `: ` after a key (`"key":value` as JSON writes it), and the next line's collection.
_FLOW_MARK = r"""(?:\ *(?:[\[\]{},]|:(?=[\ \n]|\Z)|(?<=["']):)|\n)"""
_FLOW_COMMENT = r"\ +\#[^\n]*"  # to the end of the line
_FLOW_TOKEN = LazyPattern(r"\ *" + _FLOW_SCALAR + "|" + _FLOW_MARK + "|" + _FLOW_COMMENT, re.VERBOSE)
# The same tokens, a scalar and the marks after it taken together (`inputs: {`): a third as many, for the lines
# read at once (_flow_values), each made JSON once (_TokenMemo).
_FLOW_CHUNK = LazyPattern(r"\ *" + _FLOW_SCALAR + _FLOW_MARK + "*|" + _FLOW_MARK + "+|" + _FLOW_COMMENT, re.VERBOSE)
_MARKS = " []{},:\n"
# A double-quoted scalar whose escapes are JSON's too, with the meaning they have in YAML.
_DOUBLE_QUOTED = re.compile(r'"(?:[^"\\]++|\\["\\/bfnrt]|\\u(?![dD][89a-fA-F])[0-9a-fA-F]{4})*+"')
# One with any escape on one line: YAML's own (`\x41`, `\U0001F600`, `\e`, ...) are read by _yaml_escapes.
_YAML_DOUBLE_QUOTED = LazyPattern(r'"(?:[^"\\\n]++|\\[^\n])*+"')
_ESCAPE = LazyPattern(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", re.DOTALL)
_ESCAPED = {"0": "\x00", "a": "\x07", "b": "\b", "t": "\t", _TAB: _TAB, "n": "\n", "v": "\x0b", "f": "\f",
            "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0", "L": "\u2028",
            "P": "\u2029"}


def _escaped(match: re.Match[str]) -> str:
    written = match.group(1)
    if len(written) == 1:
        if written not in _ESCAPED:  # no escape in YAML: an error
            raise _NotQuick
        return _ESCAPED[written]
    point = int(written[1:], 16)
    if 0xD800 <= point <= 0xDFFF or point > 0x10FFFF:  # a surrogate, or no character: PyYAML refuses it
        raise _NotQuick
    return chr(point)


def _yaml_escapes(body: str) -> str:
    r"""The text of a double-quoted scalar's `body` (between its quotes, on one line) with YAML's escapes: JSON's and
    its own (`\x41`, `\U0001F600`, `\e`, `\N`, an escaped space or tab, ...)."""
    return _ESCAPE.sub(_escaped, body)


# Each line's collection is the value of a mapping of its own, `{"":...}`: a line whose brackets close on
# another line makes JSON that the json module refuses (`,{` where a key must be, `}` for a `[`), and a line
# that holds two values makes one mapping too many.
_NEXT_LINE = '},{"":'
_STRUCTURE_FIRST = frozenset('{}[],:\n#"\'')  # a token starting so is no plain scalar


def _json_string(text: str) -> str:
    if '"' in text or "\\" in text:
        return json.dumps(text, ensure_ascii=False)
    return '"' + text + '"'


def _json_scalar(written: str) -> str:
    """JSON's text for a flow scalar as written, in full (_scalar_json takes the common cases first)."""
    first = written[0]
    if first == '"':
        if _DOUBLE_QUOTED.fullmatch(written):
            return written  # the escapes it holds mean the same in JSON
        return _json_string(_yaml_escapes(written[1:-1]))
    if first == "'":
        return _json_string(written[1:-1].replace("''", "'"))
    value = _plain(written)
    if type(value) is str:
        return _json_string(value)
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if type(value) is float and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return repr(value)


# A plain scalar written as JSON writes a number: its value in YAML's core schema is JSON's.
_JSON_NUMBER = LazyPattern(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?\Z")


# In the JSON text made of flow collections, an alias is a string of its name after this character, and a merge key
# (`<<`, plain) this character alone: YAML refuses both characters in a text, so no string of it starts so.
# Both are replaced once the JSON is read (_resolved).
_ALIAS = "\x02"
_MERGE = "\x03"


def _scalar_json(written: str) -> str:
    """JSON's text for a flow scalar as written."""
    first = written[0]
    if first == "*":
        return '"' + _ALIAS + written[1:] + '"'
    if written == "<<":
        return '"' + _MERGE + '"'
    if '"' in written or "\\" in written:
        return _json_scalar(written)
    if first == "'" and "''" not in written:  # single-quoted text that JSON writes as it is
        return '"' + written[1:-1] + '"'
    if first not in _STRUCTURE_FIRST and (first not in _FIRST or not _MAYBE_NOT_TEXT.match(written)):
        return '"' + written + '"'  # plain text that no rule of the loader reads as other than text
    if _JSON_NUMBER.match(written):
        return written
    return _json_scalar(written)


class _TokenMemo(dict[str, str]):
    """Flow chunks (_FLOW_CHUNK) read so far and their JSON: a chunk met again (most are) is a lookup in C. A key's
    colon is written `:` and a tab, so that the keys are counted in the JSON text (a tab of the text is _TAB, and
    one in a string JSON writes `\\t`: no other tab is there)."""

    def __missing__(self, chunk: str) -> str:
        written = chunk.rstrip(_MARKS)  # a scalar ends with none of the marks' characters (a quote, or no `:`)
        marks = chunk[len(written):]
        written = written.lstrip(" ")
        if not written:
            piece = ""
        elif written[0] == "#":  # a comment is nothing
            piece = marks = ""
        else:
            piece = _scalar_json(written)
        if marks:
            piece += marks.replace(" ", "").replace(":", ":\t").replace("\n", _NEXT_LINE)
        self[chunk] = piece
        return piece


def _json_values(lines: "_Reader", written: list[str], depth: int) -> list[Any] | None:
    """The values of lines that are JSON's text (what tools write), read by the json module as they are; None if
    they are not all JSON (YAML's flow style: _flow_values reads them)."""
    text = _NEXT_LINE.join(written)
    if "\\" in text:  # escapes: YAML's and JSON's differ at the edges
        return None
    try:
        values = _JSON.decode('[{"":' + text + "}]")  # a key written twice is refused by _mapping_once
    except (ValueError, _NotQuick):  # `[NaN]`: text in YAML
        return None
    if len(values) != len(written) or any(len(each) != 1 for each in values):
        raise _NotQuick
    found = [each[""] for each in values]
    for each in found:
        lines.measure(each, depth)
    return found


def _flow_values(lines: "_Reader", written: list[str], depth: int, places: list[int] | None = None) -> list[Any]:
    """The values of flow collections each written alone on a line, read by the json module at once; `places`: the
    index in `items` of the line after each one's key (an alias there is of an anchor before it), or None for
    values read as the reader reaches them."""
    text = "\n".join(written)
    chunks = _FLOW_CHUNK.findall(text)
    if "".join(chunks) != text:
        raise _NotQuick
    made = '[{"":' + "".join(map(lines.memo.__getitem__, chunks)) + "}]"
    try:
        values, stop = _SCAN(made, 0)
    except (ValueError, StopIteration):  # JSON refuses what YAML reads otherwise: `[a: 1]`, `[1,]`, `{a}`, a key
        raise _NotQuick from None  # that is not text
    if stop != len(made) or len(values) != len(written) or any(len(each) != 1 for each in values):
        raise _NotQuick
    found = [each[""] for each in values]
    tied = _ALIAS in made or _MERGE in made
    if tied:  # aliases and merge keys: the keys counted as written, then the values they stand for
        if _keys(found) != made.count("\t"):
            raise _NotQuick
        found = [_resolved(lines, each, None if places is None else places[number] - 1)
                 for number, each in enumerate(found)]
    keys = lines.keys
    for each in found:
        lines.measure(each, depth)
    if not tied and lines.keys - keys != made.count("\t"):  # a key written twice: JSON keeps the last, YAML refuses it
        raise _NotQuick
    return found


def _keys(values: list[Any]) -> int:
    """The keys of the mappings in `values`, at every depth."""
    count = 0
    for value in values:
        if type(value) is dict:
            count += len(value) + _keys(list(value.values()))
        elif type(value) is list:
            count += _keys(value)
    return count


def _resolved(lines: "_Reader", value: Any, line: int | None) -> Any:
    """A flow value read as JSON with its aliases and merge keys (_ALIAS, _MERGE) made what they stand for: an
    alias the anchor's value (an anchor on a line before `line`, any read so far where None), a mapping with
    merge keys the keys they give it where they stand, as js-yaml merges them (_merge_into)."""
    if type(value) is str:
        if value[:1] == _ALIAS:
            name = value[1:]
            at = lines.anchored_at.get(name)
            if at is None or (line is not None and at >= line):  # no anchor before it: the full parser says so
                raise _NotQuick
            return lines.anchors[name]
        if value == _MERGE:  # a merge key where a value stands
            raise _NotQuick
        return value
    if type(value) is list:
        return [_resolved(lines, item, line) for item in value]
    if type(value) is not dict:
        return value
    found: dict[str, Any] = {}
    merged: set[str] = set()  # the keys a merge gave, not written since
    for key, item in value.items():
        if key[:1] == _ALIAS:  # an alias as a key
            raise _NotQuick
        if key == _MERGE:
            _merge_into(found, merged, _resolved(lines, item, line))
        elif key in found and key not in merged:  # written twice: the JSON read refused it before
            raise _NotQuick
        else:
            found[key] = _resolved(lines, item, line)
            merged.discard(key)
    return found


def _merge_into(found: dict[str, Any], merged: set[str], source: Any) -> list[Any]:
    """A merge key's value (`<<: *a`, `<<: [*a, *b]`) into the mapping `found`, where it stands among its keys, as
    js-yaml merges it (and graphrt's full loader, full_yaml._GraphLoader.flatten_mapping): the keys of its mapping,
    or of its list's mappings in order, that `found` has not yet; each is in `merged` (a key written after may
    change it). Returns the values it gave."""
    given = []
    for each in ([source] if type(source) is dict else source if type(source) is list else [None]):
        if type(each) is not dict:  # a merge of what is no mapping: an error in YAML
            raise _NotQuick
        for key, value in each.items():
            if key not in found:
                found[key] = value
                merged.add(key)
                given.append(value)
    return given


_OPENING = frozenset("{[")
_CLOSING = frozenset("}]")
_BREAK_AFTER = frozenset("{[,:")  # where a flow collection's line may end: a line break there is only a space
_BREAK_BEFORE = frozenset("}],")


def _flow_lines(lines: "_Reader", first: str, at: int, indent: int) -> tuple[str, int]:
    """A flow collection that starts with `first` on the line before `at` and may go on over the lines after it
    (`inputs: {` ... `}`), written on one line, and the index in `items` of the line after it. A line break is a
    space: where it is one between tokens (after `{`, `[`, `,`, `:`, or before `}`, `]`, `,`), or in a plain
    scalar whose line goes on on the next (YAML folds it so); comments and empty lines between tokens are left
    out, and so is a comma before a closing bracket (YAML allows one, JSON does not). A quoted scalar over lines
    is folded as PyYAML folds it (_quoted_over_lines) and written as JSON's string. Anything else (a key over two
    lines, a plain scalar with an empty or comment line inside) is _NotQuick, and so is a line of it not more
    indented than its key (at `indent`), but for one that starts with its closing bracket there: PyYAML reads
    such lines, but one that looks like a key would be taken for one where an entry is left to the full parser."""
    items = lines.items
    end = len(items)
    written: list[str] = []  # the tokens kept, as written, and a space between lines
    depth = 0
    last = ""  # the last token kept
    before_last = ""  # the one before it
    text = first
    index = items[at - 1][2]  # the line of `text` in the text's lines
    adjacent = False  # this line is right after the last one read, which has no comment (a plain scalar may go on)
    commented = False  # this line ends with a comment
    while True:
        tokens = _FLOW_TOKEN.findall(text)
        if "".join(tokens) != text:  # a quoted scalar that closes on a line below, or what the full parser reads
            tokens, index = _tokens_over_lines(lines, text, index, indent)
            while at < end and items[at][2] <= index:
                at += 1
        for position, as_written in enumerate(tokens):
            token = as_written.lstrip(" ")
            if token[0] == "#":
                commented = True
                continue
            if position == 0 and written:  # the first token of a line after the first
                if last not in _BREAK_AFTER and token not in _BREAK_BEFORE and not (
                        adjacent and last[0] not in _NOT_PLAIN and token[0] not in _NOT_PLAIN  # a plain one goes on,
                        and (len(tokens) < 2 or tokens[1].lstrip(" ") != ":")):  # but for a key over two lines
                    raise _NotQuick
                written.append(" ")
            if token in _OPENING:
                depth += 1
            elif token in _CLOSING:
                depth -= 1
                if last == "," and before_last not in _BREAK_AFTER:  # `[a, b,]`: the comma is left out
                    comma = len(written) - 1
                    while written[comma].lstrip(" ") != ",":
                        comma -= 1
                    del written[comma]
            written.append(as_written)
            before_last, last = last, token
        if depth <= 0:
            break
        if at >= end:  # the file ends inside the collection
            raise _NotQuick
        column, text, following = items[at]  # the next line that is not a comment's or empty
        adjacent, index, commented = not commented and following == index + 1, following, False
        at += 1
        if column < indent or (column == indent and text[0] not in _CLOSING) or text[0] == _TAB:
            raise _NotQuick
    return "".join(written), at


_NOT_PLAIN = frozenset("\"'*{}[],:#")  # the first characters of a flow token that is no plain scalar
_FLOW_TOKENS = LazyPattern(r"(?:\ *" + _FLOW_SCALAR + "|" + _FLOW_MARK + "|" + _FLOW_COMMENT + ")*+", re.VERBOSE)


def _tokens_over_lines(lines: "_Reader", text: str, index: int, indent: int) -> tuple[list[str], int]:
    """The tokens of a flow collection's line `text` (line `index` of the text) whose last is a quoted scalar that
    closes on a line below, with those of the line it closes on after it; and that line's index. The scalar's token
    is its value as JSON's string."""
    covered = _FLOW_TOKENS.match(text).end()  # type: ignore[union-attr]  # it matches, if only nothing
    head = _FLOW_TOKEN.findall(text[:covered])
    if text[covered:covered + 1] == "'" and head and head[-1].lstrip(" ")[:1] == "'":  # `'it'` of `'it''s` going on
        covered -= len(head.pop())  # below: the scalar opens there
    rest = text[covered:]
    opening = rest.lstrip(" ")
    if opening[:1] != "'" and opening[:1] != '"':
        raise _NotQuick
    line = lines.lines[index]
    value, index, after = _quoted_over_lines(lines, line[len(line.rstrip(" ")) - len(opening):], index, indent,
                                             _QUOTED_FLOW_LINE)
    after = after.rstrip(" ")
    more = _FLOW_TOKEN.findall(after)
    if "".join(more) != after:  # another quoted scalar over lines, or what the full parser reads
        more, index = _tokens_over_lines(lines, after, index, indent)
    if more and more[0].lstrip(" ") == ":":  # a key over lines
        raise _NotQuick
    scalar = rest[:len(rest) - len(opening)] + json.dumps(value, ensure_ascii=False)
    return [*head, scalar, *more], index


def _skipped(items: list[tuple[int, str, int]], at: int) -> bool:
    """Whether lines `items` leaves out (empty, or starting with `#`) come after the line before `at`: a quote left open
    there goes on over them (a line of text may start with `#`)."""
    return at >= len(items) or items[at][2] != items[at - 1][2] + 1


def _flow_below(lines: "_Reader", found: dict[str, Any], key: str, indent: int, depth: int, at: int) -> int:
    """A mapping's flow value that starts on the line below its key (at `at`; the key at `indent`), left in its place
    to be read with the others (_read_flows); returns the index of the line after it."""
    found[key] = None
    written, after = _flow_lines(lines, lines.items[at][1], at + 1, indent)
    lines.pending.append((found, key, written, depth + 1, at))
    return after


def _key(match: re.Match[str]) -> str:
    written = match.group(1)
    if len(written) > _LONGEST_KEY or written == "<<":  # a merge key is read with its mapping (_merge_line)
        raise _NotQuick
    if written[0] not in _KEY_FIRST and written not in _KEY_WORDS:
        return written
    if written[0] == '"':
        return _JSON_PLAIN.decode(written) if "\\" in written else written[1:-1]
    if written[0] == "'":
        return written[1:-1].replace("''", "'")
    if not isinstance(_plain(written), str):  # `1:`, `true:`, `null:` are not text keys
        raise _NotQuick
    return written


class _Reader:
    """The text's content lines, (indentation, text without it) with comments and blank lines left out, read
    in order; and what the full loader checks of a graph's shape: values in all, containers' depth."""

    def __init__(self, text: str, max_depth: int, max_values: int) -> None:
        if _DOCUMENTS.search(text):
            raise _NotQuick
        self.lines = text.split("\n")
        # (indentation, text, the line's index in `lines`)
        self.items: list[tuple[int, str, int]] = [
            (len(line) - len(content), content.rstrip(" "), index)
            for index, line in enumerate(self.lines) for content in (line.lstrip(" "),) if content and content[0] != "#"]
        self.at = 0
        self.values = 1  # the top value
        self.keys = 0  # keys of the flow mappings measured
        self.anchors: dict[str, Any] = {}  # the values of the anchors read so far, by name
        self.anchored_at: dict[str, int] = {}  # and the index in `items` of each one's line
        # the block mappings with merge keys, and the keys the merges gave them, not written since, by id (_merge_line)
        self.merged: dict[int, tuple[dict[str, Any], set[str]]] = {}
        self.memo = _TokenMemo()  # flow tokens read so far, and their JSON
        # flow values read later, at once (_read_flows): (the mapping, the key in it, the value's text, its depth,
        # the index in `items` of the line after the key's: an int made already, not one more each line)
        self.pending: list[tuple[dict[str, Any], str, str, int, int]] = []
        # entries left to the full parser, read later at once (_read_pieces): (the mapping, the key in it, the
        # entry's first line and the line after it in `lines`, its indentation, the value's depth)
        self.pieces: list[tuple[dict[str, Any], str, int, int, int, int]] = []
        self.max_depth = max_depth
        self.max_values = max_values

    def count(self, container: dict[str, Any] | list[Any], depth: int) -> None:
        """Counts a block container's values; past the loader's limits, the full loader says so."""
        if depth > self.max_depth:
            raise _Whole
        self.values += len(container)
        if self.values > self.max_values:
            raise _Whole

    def measure(self, value: Any, depth: int) -> None:
        """Counts a flow value's values, as `count` does a block's."""
        if type(value) is dict:
            children = value.values()
            self.keys += len(value)
        elif type(value) is list:
            children = value
        else:
            return
        if depth > self.max_depth:  # self.count, written out: this runs for each container of each flow line
            raise _Whole
        self.values += len(value)
        if self.values > self.max_values:
            raise _Whole
        depth += 1
        for child in children:
            if type(child) is dict or type(child) is list:
                self.measure(child, depth)


def _block(lines: _Reader, indent: int, depth: int) -> Any:
    """The block (mapping or sequence) whose lines start at `indent`, at `depth`."""
    content = lines.items[lines.at][1]
    if content == "-" or content.startswith("- "):
        return _sequence(lines, indent, depth)
    return _mapping(lines, indent, None, depth)


# A whole `key: value` line with a key that is text as written, in one match: then what the other readers read
# (group 2: flow, a literal block, an anchor), a plain scalar (3), a single-quoted one (4), a double-quoted one
# whose escapes are JSON's (5), an alias (6), nothing but a comment (7) or nothing (the match's lastindex is 1).
# Any other line takes _KEY's longer way.
_LINE = re.compile(r"""([A-Za-z_$][A-Za-z0-9_$\-./]*):(?:
    \ +([\[{|>&].*)
  | \ +(?:
        ((?:[^-?:,\[\]{}\#&*!|>'"%@`\s\x01]|[-?:][^\s\x01,\[\]{}])(?:[^\s:]++|:(?=[^\s\x01])|\ +(?=[^\s\#]))*+)
      | '([^'\n]*(?:''[^'\n]*)*)'
      | "((?:[^"\\\n]++|\\["\\/bfnrt]|\\u(?![dD][89a-fA-F])[0-9a-fA-F]{4})*+)"
      | \*([A-Za-z0-9_-]+)
    )(?:\ +\#.*)?
  | (\ +\#.*)?
)\Z""", re.VERBOSE)


def _mapping(lines: _Reader, indent: int, first: str | None, depth: int) -> dict[str, Any]:
    """A block mapping at `indent`; `first`: its first line's text, when it followed a `- ` on that line.

    The mappings below its keys (`key:`, then more indented lines) are read in the same loop, each pushed on
    a stack while its lines are read: a graph is mostly small mappings, and a call for each cost a tenth of
    a line's time. Lines of the plainest kinds are read with one match (_LINE); the others by the readers
    of their kinds."""
    found: dict[str, Any] = {}
    stack: list[tuple[dict[str, Any], str, int, int]] = []  # (mapping, key, indentation, depth) around `found`
    items = lines.items
    end = len(items)
    at = lines.at  # kept here while the loop reads one line; `lines.at` around each call that reads more
    line_match = _LINE.match
    anchors = lines.anchors
    pending = lines.pending
    multi_end = -1  # the line after the last value read over several lines (a flow collection, a quoted scalar)
    while True:  # the loop below, again after an entry it leaves to the full parser (outside it: no cost a line)
        try:
            while True:
                if first is not None:
                    content, first = first, None
                else:
                    if at < end:
                        item = items[at]
                        below = item[0]
                    else:
                        below = -1
                    if below != indent:  # the mapping ends
                        if below > indent:  # a line more indented, after a value that was whole (a scalar that goes on)
                            if at == multi_end:  # after a collection or a quoted scalar over lines: an error
                                raise _Whole
                            found, indent, depth, at = _recover(lines, stack, found, indent, depth, at, written=True)
                            continue
                        if depth > lines.max_depth:  # lines.count, written out for the many small mappings of a graph
                            raise _Whole
                        lines.values += len(found)
                        if lines.values > lines.max_values:
                            raise _Whole
                        if not stack:
                            break
                        parent, key, indent, depth = stack.pop()
                        parent[key] = found
                        found = parent
                        continue
                    content = item[1]
                    at += 1
                line = line_match(content)
                if line is not None:  # the plainest lines, read here without a call
                    key = line.group(1)
                    if (key in found and not _overrides(lines, found, key)) or key in _KEY_WORDS:  # written twice,
                        raise _NotQuick  # but over what a merge gave, or a key that is not text
                    kind = line.lastindex
                    if kind == 3:
                        value = line.group(3)
                        found[key] = _plain(value) if value[0] in _FIRST else value
                        continue  # a line more indented next is refused at the loop's top: a scalar that goes on
                    elif kind == 4:
                        value = line.group(4)
                        found[key] = value.replace("''", "'") if "''" in value else value
                        continue
                    elif kind == 5:
                        value = line.group(5)
                        found[key] = _JSON_PLAIN.decode('"' + value + '"') if "\\" in value else value
                        continue
                    elif kind == 6:
                        name = line.group(6)
                        if name not in anchors:
                            raise _NotQuick
                        value = found[key] = anchors[name]
                        if type(value) is dict or type(value) is list:
                            lines.measure(value, depth + 1)
                        continue
                    elif kind == 2:  # flow, a block scalar, an anchor: read by their readers
                        rest = line.group(2)
                        first_char = rest[0]
                        if first_char == "{" or first_char == "[":  # its place, filled by _read_flows with the others
                            found[key] = None
                            if at < end and (items[at][0] > indent or (rest[-1] not in "}]" and items[at][1][0] in "}]")) \
                                    or (_skipped(items, at) and (rest.count("'") % 2 or rest.count('"') % 2)):
                                after_key = at
                                rest, at = _flow_lines(lines, rest, at, indent)
                                pending.append((found, key, rest, depth + 1, after_key))
                                multi_end = at
                                continue
                            pending.append((found, key, rest, depth + 1, at))
                            continue
                        lines.at = at
                        if first_char == "|" or first_char == ">":
                            found[key] = _block_scalar(lines, indent, rest)
                        else:
                            found[key] = _anchored(lines, indent, rest, depth + 1)
                        at = lines.at
                        continue
                    # else the key alone on its line (or with a comment): read below, as the other lines' keys
                else:
                    if content[:3] == "<<:":  # a merge key
                        _merge_line(lines, found, content[3:], depth)
                        continue
                    match = _KEY.match(content)
                    if match is None:
                        raise _NotQuick
                    key = _key(match)
                    if key in found and not _overrides(lines, found, key):
                        raise _NotQuick
                    rest = content[match.end():]
                    if rest and rest[0] != "#":
                        first_char = rest[0]
                        if first_char == "{" or first_char == "[":
                            found[key] = None
                            after_key = at
                            if at < end and (items[at][0] > indent or (rest[-1] not in "}]" and items[at][1][0] in "}]")) \
                                    or (_skipped(items, at) and (rest.count("'") % 2 or rest.count('"') % 2)):
                                rest, at = _flow_lines(lines, rest, at, indent)  # over several lines
                                multi_end = at
                            pending.append((found, key, rest, depth + 1, after_key))
                            continue
                        lines.at = at
                        if first_char == "|" or first_char == ">":
                            found[key] = _block_scalar(lines, indent, rest)
                        elif first_char == "&" or first_char == "*":
                            found[key] = _anchored(lines, indent, rest, depth + 1)
                        elif first_char == "'" or first_char == '"':
                            try:
                                found[key] = _scalar(rest, lines, depth + 1)
                            except _Whole:
                                raise
                            except _NotQuick:  # it may close on a line below
                                found[key], at = _quoted_lines(lines, rest, at, indent)
                                multi_end = at
                                continue
                        else:
                            found[key] = _scalar(rest, lines, depth + 1)  # one that goes on below: the loop's top
                        at = lines.at
                        continue
                # a key alone on its line: a mapping below (the most common), a flow collection below, or else a
                # sequence below or at the key's own indentation, or nothing: null
                if at < end and items[at][0] > indent and items[at][1][0] not in "-{[":
                    stack.append((found, key, indent, depth))
                    found, indent, depth = {}, items[at][0], depth + 1
                    continue
                if at < end and items[at][0] > indent and items[at][1][0] != "-":
                    at = multi_end = _flow_below(lines, found, key, indent, depth, at)
                    continue
                lines.at = at
                found[key] = _nested(lines, indent, depth + 1, sequence_here=True)
                at = lines.at
            break  # the mapping ended
        except _Whole:
            raise
        except _NotQuick:  # this entry is the full parser's, or the one around it
            found, indent, depth, at = _recover(lines, stack, found, indent, depth, at, written=False)
    lines.at = at
    return found


# A merge key's value on its line: an alias, or a flow sequence of aliases; then a comment, or nothing.
_MERGE_VALUE = LazyPattern(r"\ +(\*[A-Za-z0-9_-]+|\[\ *\*[A-Za-z0-9_-]+(?:\ *,\ *\*[A-Za-z0-9_-]+)*\ *\])(?:\ +\#.*)?\Z")
_ALIAS_NAME = LazyPattern(r"\*([A-Za-z0-9_-]+)")


def _merge_line(lines: _Reader, found: dict[str, Any], rest: str, depth: int) -> None:
    """A merge key's line in the block mapping `found` at `depth` (`<<: *a`, `<<: [*a, *b]`; `rest` after `<<:`):
    the keys its aliases' mappings give it there (_merge_into), their values counted where they stand. Anchors are
    read in order: one not read yet is after it."""
    written = _MERGE_VALUE.match(rest)
    if written is None:
        raise _NotQuick
    anchors = lines.anchors
    names = _ALIAS_NAME.findall(written.group(1))
    if any(name not in anchors for name in names):
        raise _NotQuick
    values = [anchors[name] for name in names]
    merged = lines.merged.setdefault(id(found), (found, set()))[1]
    for value in _merge_into(found, merged, values[0] if written.group(1)[0] == "*" else values):
        if type(value) is dict or type(value) is list:
            lines.measure(value, depth + 1)


def _overrides(lines: _Reader, found: dict[str, Any], key: str) -> bool:
    """Whether the key of the block mapping `found` written again is one a merge gave (_merge_line) and may change:
    a scalar (a container it gave is counted already)."""
    entry = lines.merged.get(id(found))
    if entry is None or entry[0] is not found or key not in entry[1]:
        return False
    value = found[key]
    if type(value) is dict or type(value) is list:
        return False
    entry[1].discard(key)
    return True


# Left whole to the full parser when an entry holds one: what could be an anchor or an alias (it would tie the entry
# to the rest of the file), or a document's marker.
_TIED = LazyPattern(r"(?:^|[\s\[{,:])[&*][^\s,\[\]{}]|^(?:---|\.\.\.)", re.MULTILINE)


def _recover(lines: _Reader, stack: list[tuple[dict[str, Any], str, int, int]], found: dict[str, Any], indent: int,
             depth: int, at: int, *, written: bool) -> tuple[dict[str, Any], int, int, int]:
    """Leaves the entry of `found` being read when the reader met what it does not know (the line before `at`
    is in it) to the full parser, or the entry around it: the mappings on `stack` are tried outwards. Returns
    the mapping the reader goes on with, its indentation and depth, and the line after the entry.
    `written`: the entry's key is in `found` already (its value was whole, then a line went on below it)."""
    if written:
        after = _plain_lines(lines, found, indent, at)
        if after is not None:
            return found, indent, depth, after
    while True:
        after = _piece(lines, found, indent, depth, at, written)
        if after is not None:
            return found, indent, depth, after
        if not stack:
            raise _NotQuick
        found, _, indent, depth = stack.pop()  # the entry whose value was being read is the piece now
        written = False


def _plain_lines(lines: _Reader, found: dict[str, Any], indent: int, at: int) -> int | None:
    """A plain scalar that goes on over the lines below its key's (the line before `at`), more indented than the key,
    as PyYAML folds it: a line break is a space, or the empty lines after it are line breaks; its value replaces the
    first line's in `found`. Returns the index of the line after it, or None where the reader leaves it (a comment
    among its lines, `: ` or ` #` in one, a value that was not plain)."""
    items = lines.items
    content = items[at - 1][1]
    match = _KEY.match(content) if items[at - 1][0] == indent else None
    if match is None:
        return None
    first = content[match.end():]
    if not first or not _PLAIN_START.match(first) or " #" in first or ": " in first or ":" + _TAB in first \
            or first[-1] == ":":
        return None
    key = _key(match)
    value = _plain(first)
    if not found or next(reversed(found)) != key or found[key] != value or type(found[key]) is not type(value):
        return None  # the line is not the one its key's value was read from
    raw = lines.lines
    written = [first]
    empty = 0
    index = items[at - 1][2] + 1
    last = items[-1][2]
    while index <= last:
        text = raw[index].strip(" ")
        if not text:
            empty += 1
        elif text[0] == "#":  # a comment ends it, and what is more indented after is the full parser's
            return None
        elif len(raw[index]) - len(raw[index].lstrip(" ")) <= indent:
            break
        elif " #" in text or ": " in text or ":" + _TAB in text or text[-1] == ":" or text[0] == _TAB:
            return None
        else:
            written.append("\n" * empty if empty else " ")
            written.append(text)
            empty = 0
        index += 1
    if len(written) == 1:
        return None
    found[key] = "".join(written)  # text: no rule of the loader reads a value with a space or a line break
    while at < len(items) and items[at][2] < index:
        at += 1
    return at


# A line of a quoted scalar that goes on over lines: its text, then the closing quote and what may follow it on the
# line (spaces, a comment) if it closes there. A double-quoted one's escapes are YAML's (_yaml_escapes), and a
# backslash may end its line (group 2: the line break is escaped).
_QUOTED_LINE = {"'": LazyPattern(r"([^']*+(?:''[^']*+)*+)(?:'(\ *(?:\ \#.*)?))?\Z"),
                '"': LazyPattern(r'((?:[^"\\]|\\.)*+)(?:(\\)|"(\ *(?:\ \#.*)?))?\Z')}
# ... and in a flow collection, where anything may follow the closing quote (the collection's tokens read it).
_QUOTED_FLOW_LINE = {"'": LazyPattern(r"([^']*+(?:''[^']*+)*+)(?:'(.*))?\Z"),
                     '"': LazyPattern(r'((?:[^"\\]|\\.)*+)(?:(\\)|"(.*))?\Z')}


def _quoted_lines(lines: _Reader, rest: str, at: int, indent: int) -> tuple[str, int]:
    """A single- or double-quoted scalar that opens with `rest` on the line before `at` and closes on a line below,
    as PyYAML folds it (_quoted_over_lines); its value and the index in `items` of the line after it."""
    items = lines.items
    index = items[at - 1][2]
    line = lines.lines[index]
    value, index, _ = _quoted_over_lines(lines, line[len(line.rstrip(" ")) - len(rest):], index, indent, _QUOTED_LINE)
    while at < len(items) and items[at][2] <= index:
        at += 1
    return value, at


def _quoted_over_lines(lines: _Reader, text: str, index: int, indent: int,
                       patterns: dict[str, LazyPattern]) -> tuple[str, int, str]:
    """A single- or double-quoted scalar that opens with `text` (from its quote to the end of line `index` of the
    text, as written: its spaces at the end may be escaped) and closes on a line below, as PyYAML folds it: the
    spaces around a line break are dropped, and the break is a space, or the empty lines after it are line breaks;
    escaped with a backslash (double-quoted), it is nothing but those. Returns its value, the index of the line it
    closes on, and what follows its closing quote there (`patterns`: what may). A line of it with text not more
    indented than its key (at `indent`) is _NotQuick: PyYAML reads it, but it could be taken for a key where an
    entry is left to the full parser."""
    quote = text[0]
    pattern = patterns[quote]
    closing = 2 if quote == "'" else 3  # the group of what follows the closing quote
    raw = lines.lines
    text = text[1:]
    written: list[str] = []
    empty = 0  # empty lines since the last line with text
    escaped = False  # the last line with text ended with a backslash
    while True:
        match = pattern.match(text)
        if match is None:
            raise _NotQuick
        part = match.group(1)
        closed = match.group(closing) is not None
        if written:
            part = part.lstrip(" ")
            if part[:1] == _TAB:  # white space in YAML, dropped there
                raise _NotQuick
            if not part and not closed and (quote == "'" or match.group(2) is None):  # an empty line
                empty += 1
                index += 1
                if index >= len(raw) - (raw[-1] == ""):
                    raise _NotQuick
                text = raw[index]
                if text.startswith(("---", "...")) or (text.strip(" ") and len(text) - len(text.lstrip(" ")) <= indent):
                    raise _NotQuick  # a document's marker (PyYAML refuses it), a line as far left as the key
                continue
            written.append("\n" * empty if escaped or empty else " ")
        if not closed and not (quote == '"' and match.group(2) is not None):
            part = _before_break(part, quote)  # the spaces before a line break
        written.append(part)
        if closed:
            break
        escaped, empty = quote == '"' and match.group(2) is not None, 0
        index += 1
        if index >= len(raw) - (raw[-1] == ""):
            raise _NotQuick
        text = raw[index]
        if text.startswith(("---", "...")) or (text.strip(" ") and len(text) - len(text.lstrip(" ")) <= indent):
            raise _NotQuick
    if quote == "'":
        value = "".join(written).replace("''", "'")
    else:
        value = _yaml_escapes("".join(written))
    return value, index, match.group(closing)


def _before_break(part: str, quote: str) -> str:
    """A quoted scalar's line without the spaces before its line break, but for one a backslash escapes."""
    kept = part.rstrip(" ")
    if quote == '"' and len(kept) < len(part) and (len(kept) - len(kept.rstrip("\\"))) % 2:
        kept += " "  # `\ `: an escaped space
    return kept


def _piece(lines: _Reader, found: dict[str, Any], indent: int, depth: int, at: int, written: bool) -> int | None:
    """Makes the entry of `found` at `indent` that holds the line before `at` a piece (`lines.pieces`), its place
    in `found` kept; returns the line after it, or None if it is no entry of `found` with a key that is text."""
    items = lines.items
    start = at - 1
    while start >= 0 and items[start][0] > indent:
        start -= 1
    key = _entry_key(items, start, indent) if start >= 0 else None
    if key is None:
        return None
    if written:
        if not found or next(reversed(found)) != key:
            return None
    elif key in found:
        return None
    after = _entry_end(items, start, indent)
    if after < at:
        return None
    first = items[start][2]
    pieces, pending = lines.pieces, lines.pending
    while pieces and pieces[-1][2] >= first:  # inside this entry: read with it
        pieces.pop()
    while pending and pending[-1][4] > start:
        pending.pop()
    found[key] = None
    _add_piece(lines, found, key, start, after, indent, depth + 1)
    return after


def _entry_key(items: list[tuple[int, str, int]], start: int, indent: int) -> str | None:
    """The key of the entry at `indent` on line `start` (after a `- ` there, for a sequence item's first key), if it
    is text; else None."""
    below, content, _ = items[start]
    if below != indent:
        if below > indent or content[0] != "-":
            return None
        rest = content[1:].lstrip(" ")
        if below + len(content) - len(rest) != indent:
            return None
        content = rest
    match = _KEY.match(content)
    if match is None:
        return None
    try:
        return _key(match)
    except _NotQuick:
        return None


def _entry_end(items: list[tuple[int, str, int]], start: int, indent: int) -> int:
    """The index of the line after the entry whose key is on line `start` at `indent`: its value's lines are
    more indented, or a sequence at the key's indentation, or a flow collection's closing bracket."""
    after = start + 1
    while after < len(items):
        below, content, _ = items[after]
        if below < indent and content[0] not in "}]":
            break
        if below == indent and content[0] not in "}]" and content != "-" and not content.startswith("- "):
            break
        after += 1
    return after


def _add_piece(lines: _Reader, found: dict[str, Any], key: str, start: int, after: int, indent: int,
               depth: int) -> None:
    """Records the entry of `key` in `found`, at `indent` on lines start to after (indices in `items`), as a piece."""
    items = lines.items
    first = items[start][2]
    if after < len(items):
        stop = items[after][2]
    elif lines.lines[-1] == "":
        stop = len(lines.lines) - 1
    else:  # the file's last line has no line break: the full parser reads the whole file
        raise _Whole
    if _TIED.search("\n".join(lines.lines[first:stop])):
        raise _Whole
    lines.pieces.append((found, key, first, stop, indent, depth))


def _read_pieces(lines: _Reader, full: Callable[[str], Any]) -> None:
    """Reads the entries left to the full parser (lines.pieces), all in one call of `full`: each under a key of its
    own (`p0:` ...) in one text. Any error, or a value that is not what the file's own reading would give here
    (a key that is not text), leaves the whole file to the full parser, which says where the error is."""
    written: list[str] = []
    for number, (_, _, first, stop, indent, _) in enumerate(lines.pieces):
        written.append(f"p{number}:")
        block = lines.lines[first:stop]
        if indent == 0:  # under its own key, one column in
            block = [" " + line if line else line for line in block]
        else:
            dash = len(block[0]) - len(block[0].lstrip(" "))
            if dash < indent:  # a sequence item's first key: its `-` is a space, the columns kept
                block[0] = block[0][:dash] + " " + block[0][dash + 1:]
        written.extend(block)
    read = full("\n".join(written) + "\n")
    if type(read) is not dict or len(read) != len(lines.pieces):
        raise _Whole
    for number, (found, key, _, _, _, depth) in enumerate(lines.pieces):
        entry = read.get(f"p{number}")
        if type(entry) is not dict or len(entry) != 1 or key not in entry:
            raise _Whole
        value = found[key] = entry[key]
        if type(value) is dict or type(value) is list:
            if not _text_keys(value):
                raise _Whole
            lines.measure(value, depth)
    lines.pieces = []


def _text_keys(value: Any) -> bool:
    """Whether every key in a value the full parser read is text, as the file's own reading keeps it."""
    if type(value) is dict:
        return all(type(key) is str for key in value) and all(map(_text_keys, value.values()))
    if type(value) is list:
        return all(map(_text_keys, value))
    return True


# `&name` before a mapping's value, or `*name` as the value (the names PyYAML and js-yaml both read).
_ANCHOR = LazyPattern(r"([&*])([A-Za-z0-9_-]+)(?= |$)")  # compiled on first use, as _BLOCK_HEADER: few files have any


def _anchored(lines: _Reader, indent: int, rest: str, depth: int, *, item: bool = False) -> Any:
    """A mapping's value with an anchor (`key: &name value`), or an alias (`key: *name`): the anchored value
    itself, as PyYAML gives it; `item`: a sequence's item (`- &name value`, `- *name`) at `indent`. An alias's value
    is counted again where it stands, as the loader counts the values aliases expand to (so a "billion laughs" file
    is past MAX_VALUES here too, and the full parser's)."""
    match = _ANCHOR.match(rest)
    if match is None:
        raise _NotQuick
    line = lines.at - 1
    name = match.group(2)
    after = rest[match.end():].lstrip(" ")
    anchors = lines.anchors
    if match.group(1) == "*":
        if (after and after[0] != "#") or name not in anchors:
            raise _NotQuick
        value = anchors[name]
        lines.measure(value, depth)
    elif name in anchors:  # an anchor written twice: PyYAML refuses it
        raise _NotQuick
    elif not after or after[0] == "#":
        value = _nested(lines, indent, depth, sequence_here=not item)
        if lines.pending:  # an alias of it is counted as it is: its flow values are read now
            _read_flows(lines)
    elif after[0] in "|>":
        value = _block_scalar(lines, indent, after)
    elif after[0] in "&*!":
        raise _NotQuick
    elif after[0] in "{[":
        value = _flow_values(lines, [after], depth)[0]
    else:
        value = _scalar(after, lines, depth)
    items = lines.items
    if lines.at < len(items) and items[lines.at][0] > indent:  # a value that goes on below: the full parser's
        raise _NotQuick
    if match.group(1) == "&":
        if name in anchors:  # the same name on a value inside this one
            raise _NotQuick
        anchors[name] = value
        lines.anchored_at[name] = line
    return value


# A block scalar's header: literal or folded, its chomping (`-`, `+`) and indentation indicator in either order, a comment.
_BLOCK_HEADER = LazyPattern(r"([|>])(?:([-+])([1-9])?|([1-9])([-+])?)?(?:\ +\#.*)?")


def _block_scalar(lines: _Reader, indent: int, header: str) -> str:
    """A literal (`|`) or folded (`>`) block scalar whose header ends the line of the mapping key or sequence item at
    `indent`, by its chomping and indentation indicator, as PyYAML reads it (a line of spaces past the text's column
    is a line of text, those spaces; with no text, its empty lines are its line breaks); _NotQuick for lines of spaces
    before the text that reach past the column it finds, a line less indented than the text and more than `indent`,
    or no line break at the end of the file."""
    written = _BLOCK_HEADER.fullmatch(header)
    if written is None:
        raise _NotQuick
    increment = written.group(3) or written.group(4)
    raw = lines.lines
    start = lines.items[lines.at - 1][2] + 1
    # the block's end, its last line with text, the text's column (given, or the first text line's)
    end, last, column = start, -1, indent + int(increment) if increment else 0
    first = -1  # its first line with text
    while end < len(raw):
        line = raw[end]
        text = line.lstrip(" ")
        if text:
            at = len(line) - len(text)
            if at <= indent:
                break
            if not column:
                if text[0] == _TAB:  # where the text's indentation is found, a tab is no space: an error in YAML
                    raise _NotQuick
                column = at
            elif at < column:  # less indented than the text, more than the key: the full parser's
                raise _NotQuick
            if first < 0:
                first = end
            last = end
        elif column and len(line) > column:  # spaces past the text's column: a line of text, those spaces
            last = end
        end += 1
    if end == len(raw):
        if raw[-1] != "":  # the text ends without a line break
            raise _NotQuick
        end -= 1  # the end of the text, after its last line break, is no line
    chomping = written.group(2) or written.group(5)
    if last < 0:  # no text: only empty lines, each a line break kept (`|+`), or nothing
        value = "\n" * (end - start) if chomping == "+" else ""
    else:
        if not increment and any(len(line) > column for line in raw[start:first]):  # spaces past the column found
            raise _NotQuick  # after them: an error in YAML
        text = "\n".join(line[column:] for line in raw[start:last + 1])
        if written.group(1) == ">":
            text = _folded(text)
        if chomping == "-":
            value = text
        elif chomping == "+":
            value = text + "\n" * (end - last)
        else:
            value = text + "\n"
    items = lines.items
    while lines.at < len(items) and items[lines.at][2] < end:
        lines.at += 1
    return value


# Each pattern starts with a line break, which the regular expression engine finds fast, and is replaced with a
# text of its own, in C: between two lines of text (a space in a folded scalar), the first of several (dropped).
_LONE_BREAK = LazyPattern(r"\n(?<!\n\n)(?!\n)")
_FIRST_BREAK = LazyPattern(r"\n(?<!\n\n)(?=\n)")


def _folded(text: str) -> str:
    """A folded block scalar's text from its literal text, as PyYAML folds it: the line break between two lines of
    text that do not start with a space is a space, or nothing if empty lines are between them; the other line
    breaks are kept."""
    if "\n " in text or text[:1] == " " or "\n" + _TAB in text or text[:1] == _TAB:  # lines more indented: one by one
        return _folded_lines(text.split("\n"))
    body = text.lstrip("\n")  # empty lines before the first line of text are kept; the last line is text
    lead = len(text) - len(body)
    body = _LONE_BREAK.sub(" ", body)
    if "\n\n" in body:
        body = _FIRST_BREAK.sub("", body)
    return "\n" * lead + body


def _folded_lines(lines: Iterable[str]) -> str:
    """_folded, line by line: for text with lines more indented than the rest."""
    found: list[str] = []
    before: str | None = None  # the last line of text
    empty = 0  # empty lines since
    for line in lines:
        if not line:
            empty += 1
            continue
        if before is None:
            found.append("\n" * empty)
        elif before[0] != " " and before[0] != _TAB and line[0] != " " and line[0] != _TAB:
            found.append("\n" * empty if empty else " ")
        else:
            found.append("\n" * (empty + 1))
        found.append(line)
        before, empty = line, 0
    return "".join(found)


def _read_flows(lines: _Reader) -> None:
    """Reads the flow values of mappings' keys (`key: {...}`), left in their places by _mapping, those at one depth
    in one call into the json module: a file of one node a line (what tools write), or of blocks with a flow value
    or two (`inputs: {v: ':a'}`), then costs one call, not one a line. Where the call fails, the values are read
    in halves, and one that fails alone is left to the full parser (a piece)."""
    groups: dict[tuple[int, bool], tuple[list[tuple[dict[str, Any], str, str, int, int]], list[str]]] = {}
    for each in lines.pending:
        written = each[2]
        places, texts = groups.setdefault((each[3], written[1:2] in ('"', "}", "]")), ([], []))
        places.append(each)
        texts.append(written)
    lines.pending.clear()  # the same list: _mapping's loops hold it (a new one lost the values after an anchored block)
    for (depth, json_like), (group, texts) in groups.items():
        _read_flow_group(lines, group, texts, depth, json_like)


def _read_flow_group(lines: _Reader, group: list[tuple[dict[str, Any], str, str, int, int]], texts: list[str],
                     depth: int, json_like: bool) -> None:
    try:
        values = _json_values(lines, texts, depth) if json_like else None
        if values is None:
            values = _flow_values(lines, texts, depth, [each[4] for each in group])
    except _Whole:
        raise
    except _NotQuick:
        if len(group) > 1:
            half = len(group) // 2
            _read_flow_group(lines, group[:half], texts[:half], depth, json_like)
            _read_flow_group(lines, group[half:], texts[half:], depth, json_like)
            return
        found, key, _, _, after_key = group[0]
        start = after_key - 1
        items = lines.items
        content = items[start][1]
        rest = content[1:].lstrip(" ") if content[0] == "-" else content  # a sequence item's first key
        indent = items[start][0] + len(content) - len(rest)
        _add_piece(lines, found, key, start, _entry_end(items, start, indent), indent, depth)
        return
    for each, value in zip(group, values):
        each[0][each[1]] = value


# A `- ` item's line: the first key of a mapping (group 1) with its plain key, or a whole line whose value is a scalar
# _LINE reads: plain (2), single-quoted (3), double-quoted with JSON's escapes (4), then a comment or nothing. Any
# other item takes the longer way.
_ITEM = re.compile(r"""-\ +(?:
    ([A-Za-z_$][A-Za-z0-9_$\-./]*):(?:\ |\Z)  # a mapping's first key: no scalar (group 1)
  | (?:
        ((?:[^-?:,\[\]{}\#&*!|>'"%@`\s\x01]|[-?:][^\s\x01,\[\]{}])(?:[^\s:]++|:(?=[^\s\x01])|\ +(?=[^\s\#]))*+)
      | '([^'\n]*(?:''[^'\n]*)*)'
      | "((?:[^"\\\n]++|\\["\\/bfnrt]|\\u(?![dD][89a-fA-F])[0-9a-fA-F]{4})*+)"
    )(?:\ +\#.*)?\Z
)""", re.VERBOSE)


def _sequence(lines: _Reader, indent: int, depth: int, first: str | None = None) -> list[Any]:
    """A block sequence at `indent`; `first`: its first item's line (`- x`), when it followed a `- ` on that line.

    Items that are one scalar on their line are read with one match (_ITEM), as _mapping reads its plainest lines."""
    found: list[Any] = []
    items = lines.items
    end = len(items)
    at = lines.at  # kept here while the loop reads one line; `lines.at` around each call that reads more
    item_match = _ITEM.match
    while True:
        if first is not None:
            content, first = first, None
        else:
            if at >= end or items[at][0] != indent:
                break
            content = items[at][1]
            if content != "-" and not content.startswith("- "):
                break
            at += 1
        item = item_match(content)
        if item is not None:
            kind = item.lastindex
            value = item.group(kind)
            if kind == 1:  # `- key: ...`: a mapping, its first line this one
                lines.at = at
                start = item.start(1)
                found.append(_mapping(lines, indent + start, content[start:], depth + 1))
                at = lines.at
                continue
            if kind == 2:
                found.append(_plain(value) if value[0] in _FIRST else value)
            elif kind == 3:
                found.append(value.replace("''", "'") if "''" in value else value)
            else:
                found.append(_JSON_PLAIN.decode('"' + value + '"') if "\\" in value else value)
            if at < end and items[at][0] > indent:  # a scalar that goes on below: the full parser's
                raise _NotQuick
            continue
        lines.at = at
        rest = content[1:].lstrip(" ")
        if not rest or rest[0] == "#":
            found.append(_nested(lines, indent, depth + 1, sequence_here=False))
        elif rest.startswith("? "):
            raise _NotQuick
        elif rest[0] == "&" or rest[0] == "*":
            found.append(_anchored(lines, indent, rest, depth + 1, item=True))
        elif rest == "-" or rest.startswith("- "):  # a sequence in the item, its first item on this line
            found.append(_sequence(lines, indent + len(content) - len(rest), depth + 1, rest))
        elif _KEY.match(rest):
            found.append(_mapping(lines, indent + len(content) - len(rest), rest, depth + 1))
        elif rest[0] in "|>":
            found.append(_block_scalar(lines, indent, rest))
        elif rest[0] == "'" or rest[0] == '"':
            try:
                found.append(_scalar(rest, lines, depth + 1))
            except _NotQuick:  # it may close on a line below
                value, lines.at = _quoted_lines(lines, rest, lines.at, indent)
                found.append(value)
            if lines.at < end and items[lines.at][0] > indent:
                raise _NotQuick
        else:
            if rest[0] in "{[" and ((lines.at < end and (items[lines.at][0] > indent or items[lines.at][1][0] in "}]"))
                                    or (_skipped(items, lines.at) and (rest.count("'") % 2 or rest.count('"') % 2))):
                rest, lines.at = _flow_lines(lines, rest, lines.at, indent)  # a flow collection over several lines
            found.append(_scalar(rest, lines, depth + 1))
            if lines.at < end and items[lines.at][0] > indent:
                raise _NotQuick
        at = lines.at
    lines.at = at
    if at < end and items[at][0] > indent:
        raise _NotQuick
    lines.count(found, depth)
    return found


def _nested(lines: _Reader, indent: int, depth: int, *, sequence_here: bool) -> Any:
    """The value of a `key:` or `-` with nothing after it: the block below it, or null.

    A mapping's value may be a sequence at the key's own indentation (`key:` then `- a`)."""
    items = lines.items
    if lines.at < len(items):
        below, content, _ = items[lines.at]
        if below > indent:
            return _block(lines, below, depth)
        if sequence_here and below == indent and (content == "-" or content.startswith("- ")):
            return _sequence(lines, indent, depth)
    return None


# What JSON reads and YAML does not, or otherwise: an escaped surrogate (PyYAML refuses it), a key whose `:` is on a
# line after it (an implicit key is on one line), a line of 1,000 characters or more (a key of over 1,024 is no
# implicit key in flow; a minified file takes the usual way).
_NOT_JSON_AS_YAML = LazyPattern(r'\\u[dD][89a-fA-F]|"[\ \n]*\n[\ \n]*:|^[^\n]{1000}', re.MULTILINE)


def _json_document(text: str, max_depth: int, max_values: int) -> Any | None:
    """The value of a file that is one JSON object (a graph saved as JSON in a .yaml file), read by the json
    module, as YAML reads it: None where YAML would read it otherwise, or it is no JSON (a flow mapping in YAML's
    own style, which the full parser reads). A key written twice is refused (_mapping_once), as YAML refuses it;
    NaN is text in YAML (_JSON refuses it). Raises _Whole past the loader's limits."""
    if _NOT_JSON_AS_YAML.search(text):
        return None
    try:
        value = _JSON.decode(text)
    except (ValueError, _NotQuick):
        return None
    _Reader("", max_depth, max_values).measure(value, 0)
    return value


def quick_load(text: str, *, max_depth: int, max_values: int, full: Callable[[str], Any] | None = None) -> Any | None:
    """The value of a YAML text written in the plain part of YAML graph files use; None for any other text,
    and for a value nested more than `max_depth` levels or of more than `max_values` values (the full
    loader's limits: it gives the error).

    `full` reads a YAML text with the full loader (None where it fails): given, the entries of block mappings
    this reader does not know are read by it, all at once, and the rest of the file here; without it, or when an
    entry is tied to the rest of the file (an anchor, an alias), the whole file is left (None)."""
    if text[:1] == "\ufeff":  # a byte order mark at the start, as Windows' editors write one: no text in YAML
        text = text[1:]
    if "\r" in text:  # Windows' line breaks, each one line break in YAML; a lone CR is the full parser's
        if text.count("\r") != text.count("\r\n"):
            return None
        text = text.replace("\r\n", "\n")
    if "---" in text[:4096]:
        start = _DOCUMENT_START.match(text)
        if start is not None:
            text = text[:start.start(1)] + text[start.end(1):]
    if "\n..." in text[-4096:]:
        end = _DOCUMENT_END.search(text, max(len(text) - 4096, 0))
        if end is not None:
            text = text[:end.start(1)] + text[end.end(1):]
    tabs = "\t" in text
    if tabs:
        if _TAB in text or _BAD_TAB.search(text):
            return None
        text = text.replace("\t", _TAB)
        if full is not None:
            full = _tabs_given_back(full)
    if (_NOT_QUICK_ASCII if text.isascii() else _not_quick()).search(text):
        return None
    try:
        if tabs:
            return _with_tabs(_quick_value(text, max_depth, max_values, full), set())
        return _quick_value(text, max_depth, max_values, full)
    except (_NotQuick, RecursionError):
        return None


def _tabs_given_back(full: Callable[[str], Any]) -> Callable[[str], Any]:
    """`full`, given the text of the entries left to it with their tabs."""
    return lambda text: full(text.replace(_TAB, "\t"))


def _with_tabs(value: Any, seen: set[int]) -> Any:
    """The value with the tabs of its text, in place (a value an alias repeats is changed once)."""
    if type(value) is str:
        return value.replace(_TAB, "\t") if _TAB in value else value
    if (type(value) is not dict and type(value) is not list) or id(value) in seen:
        return value
    seen.add(id(value))
    if type(value) is list:
        value[:] = [_with_tabs(item, seen) for item in value]
    else:
        pairs = [(_with_tabs(key, seen), _with_tabs(item, seen)) for key, item in value.items()]
        value.clear()
        value.update(pairs)
    return value


def _quick_value(text: str, max_depth: int, max_values: int, full: Callable[[str], Any] | None) -> Any | None:
    """quick_load's value of a text whose characters it reads (its tabs as _TAB); raises _NotQuick where it leaves the
    text to the full parser."""
    if text[:1] == "{" or (text[:1] in " \n" and text.lstrip(" \n")[:1] == "{"):
        return _json_document(text, max_depth, max_values)
    lines = _Reader(text, max_depth, max_values)
    if not lines.items or lines.items[0][0] != 0:
        return None
    value = _block(lines, 0, 0)
    if lines.at != len(lines.items):
        return None
    if lines.pending:
        _read_flows(lines)
    if lines.pieces:
        if full is None or lines.anchors:
            return None
        _read_pieces(lines, full)
    return value
