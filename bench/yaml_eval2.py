"""The second evaluation set, `python -m bench yaml --set eval2`: hand-written shapes the quick reader left whole.

Written on 5 Dec 2026 before the reader was taught any of them (branch `yaml16`), measured once on main
before tuning, and never tuned against after. Each file is about 50,000 nodes, made by a seeded generator:

- `folded`: prompts as folded block scalars with every chomping indicator (`>`, `>-`, `>+`) and explicit
  indentation indicators (`>2`, `>-4`), paragraphs between blank lines, now and then a more-indented line;
- `literal`: literal block scalars with every chomping and indentation indicator (`|-`, `|+`, `|2`, `|-4`,
  `|+2`), trailing blank lines, text starting with spaces, and literals as sequence items (`- |`);
- `flow_wrapped`: flow mappings and sequences spread over several lines, as people wrap a long `inputs: {...}`
  or `[...]`: brackets on lines of their own, continuation lines aligned, trailing commas, comments inside;
- `multiline_scalars`: plain scalars over several lines, and single- and double-quoted ones (folded lines,
  blank lines, an escaped line break);
- `comments_inside`: comments after block scalar headers and inside wrapped flow collections, `#` lines inside
  literal text (which are text), comment lines at odd indentations between keys and sequence items;
- `rare_constructs`: an ordinary block-style file where one node in fifty has one of the above: the file that
  went whole to PyYAML for one construct;
- `own_cases`, `wild_cases`: the graphs of ../shared/conformance/graphai-own and graphai-wild (JSON, never
  measured before), each written out by a seeded writer in these styles (block or wrapped flow collections,
  literal and folded text, multi-line plain text), each under a key of its own, repeated up to the size.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any, Callable

from .yaml_styles import seeded_chain

__all__ = ["EVAL2", "case_graphs", "write_yaml"]

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"

_WORDS = ("summarize", "the", "article", "below", "in", "three", "sentences", "and", "keep", "names", "as",
          "written", "answer", "only", "from", "context", "if", "unsure", "say", "so", "list", "each", "step",
          "of", "plan", "with", "care", "user", "question", "tool", "result", "reply", "JSON", "fields")


def _words(rng: random.Random, count: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(count))


def _node_head(i: int, agent: str = "stringTemplateAgent") -> list[str]:
    return [f"  n{i}:", f"    agent: {agent}", "    inputs:", f"      v: :n{i - 1}"]


_START = ["version: 0.5", "nodes:", "  n0:", "    value: start"]


_FOLDED_HEADERS = (">", ">-", ">+", ">2", ">-4", "> # the prompt")


def _folded(i: int, rng: random.Random) -> list[str]:
    header = _FOLDED_HEADERS[i % len(_FOLDED_HEADERS)]
    pad = " " * (6 + (4 if header == ">-4" else 2))
    lines = [*_node_head(i), "    params:", f"      template: {header}"]
    for paragraph in range(1 + i % 3):
        if paragraph:
            lines.append("")
        lines += [pad + _words(rng, 9) for _ in range(2)]
        if i % 7 == 0:
            lines.append(pad + "  - " + _words(rng, 4))  # a more-indented line: kept as written
    lines.append(pad + "${v}")
    if header == ">+":
        lines.append("")
    return lines


_LITERAL_HEADERS = ("|", "|-", "|+", "|2", "|-4", "|+2", "|4-")


def _literal(i: int, rng: random.Random) -> list[str]:
    header = _LITERAL_HEADERS[i % len(_LITERAL_HEADERS)]
    pad = " " * (6 + (4 if "4" in header else 2))
    lines = [*_node_head(i), "    params:", f"      template: {header}"]
    first = "  " if header in ("|2", "|-4") else ""  # text that starts with spaces needs the indicator
    lines += [pad + first + _words(rng, 8), pad + _words(rng, 6), "", pad + "${v}"]
    if "+" in header:
        lines += ["", ""]
    if i % 5 == 0:
        lines += ["    console:", "      before:", "        - |-", "          " + _words(rng, 5),
                  "        - |", "          ${v}"]
    return lines


def _flow_wrapped(i: int, rng: random.Random) -> list[str]:
    shape = i % 5
    previous = f"':n{i - 1}'"
    lines = [f"  n{i}:", "    agent: copyAgent"]
    if shape == 0:
        lines += ["    inputs: {", f"      v: {previous},", f"      label: step {i},", "      flag: true", "    }"]
    elif shape == 1:
        lines += [f"    inputs: {{v: {previous},", f"             label: '{_words(rng, 3)}',",
                  f"             count: {i}}}"]
    elif shape == 2:
        lines += ["    inputs:", "      array: [", f"        {previous},", f"        ':n{max(0, i - 2)}',", "      ]"]
    elif shape == 3:
        lines += ["    inputs: {v: [", f"      {previous}, {i}, null,", "      {deep: yes, list: [a, b]}", "    ]}"]
    else:
        lines += ["    inputs: {", f"      v: {previous},  # the node before", "      # what follows is fixed",
                  f'      text: "{_words(rng, 4)}"', "    }"]
    return lines + ["    params: {namedKey: v}"]


def _multiline_scalars(i: int, rng: random.Random) -> list[str]:
    shape = i % 4
    lines = [*_node_head(i), "    params:"]
    if shape == 0:
        lines += [f"      template: {_words(rng, 8)}", f"        {_words(rng, 8)}", f"        ${{v}} {_words(rng, 3)}"]
    elif shape == 1:
        lines += [f"      template: '{_words(rng, 7)}", f"        it''s {_words(rng, 7)}", "", "        ${v}'"]
    elif shape == 2:
        lines += [f'      template: "{_words(rng, 7)}', f'        \\"{_words(rng, 3)}\\" {_words(rng, 4)}\\', '        ${v}"']
    else:
        lines += [f"      template: {_words(rng, 6)}", "", f"        {_words(rng, 6)} ${{v}}"]
    return lines + [f"    description: {_words(rng, 5)}"]


def _comments_inside(i: int, rng: random.Random) -> list[str]:
    shape = i % 3
    lines = [f"  n{i}:  # step {i}", "    agent: stringTemplateAgent", "    inputs: {  # what it reads",
             f"      v: ':n{i - 1}',  # the one before", "      # nothing else", "    }"]
    if shape == 0:
        return lines + ["    params:", "      template: |-  # the prompt", "        # Task", f"        {_words(rng, 8)}",
                        "        ${v}"]
    if shape == 1:
        return lines + ["    params:", "  # a comment less indented", "      template: >-", f"        {_words(rng, 8)}",
                        "        ${v}", "      # after the text"]
    return lines + ["    params:", "      template: ${v}", "      stops:", "        # the first", "        - '\\n'",
                    "          # the second, more indented", "        - END"]


def _rare_constructs(i: int, rng: random.Random) -> list[str]:
    lines = [f"  n{i}:", "    agent: copyAgent", "    inputs:", f"      v: :n{i - 1}"]
    if i % 50 != 25:
        return lines + ["    params:", "      namedKey: v"]
    rare = (i // 50) % 4
    if rare == 0:
        return lines + ["    params:", "      template: >-", f"        {_words(rng, 8)}", "        ${v}"]
    if rare == 1:
        return lines + ["    params:", "      template: |2", f"          {_words(rng, 5)}", "        ${v}"]
    if rare == 2:
        return lines + ["    params: {", "      namedKey: v,", f"      note: {_words(rng, 3)}", "    }"]
    return lines + ["    params:", f"      template: {_words(rng, 6)}", f"        {_words(rng, 6)} ${{v}}"]


# ----- the conformance cases' graphs, written out in these styles -----

_PLAIN = re.compile(r"[A-Za-z_$][A-Za-z0-9_$.\-/() ]*[A-Za-z0-9_$.)]\Z|[A-Za-z_$]\Z")
_WORDY_KEY = re.compile(r"[A-Za-z_$][A-Za-z0-9_$\-]*\Z")
_NOT_TEXT = frozenset(("true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL", "yes", "no", "on",
                       "off", "y", "n", "Yes", "No", "On", "Off", "Y", "N"))


def _scalar(value: Any) -> str:
    """A scalar on one line: plain where that reads back as the same value, else JSON's text (valid YAML)."""
    if isinstance(value, str):
        if (_PLAIN.match(value) and value not in _NOT_TEXT and "  " not in value) or (
                value.startswith(":") and _PLAIN.match(value[1:] or "-") and " " not in value):
            return value
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value)


def _flow_scalar(value: Any) -> str:
    """A scalar inside a flow collection: `:ref` must be quoted there."""
    text = _scalar(value)
    return f"'{text}'" if text.startswith(":") else text


def _text_lines(value: str, column: int, rng: random.Random) -> list[str] | None:
    """A string as a block scalar's header and lines (literal when it has lines, folded or plain when long), or
    None when it is best written on one line."""
    pad = " " * column
    if "\n" in value and value.strip("\n") and not re.search(r"[\r\t\x00-\x08\x0b-\x1f\x7f\u0085\u2028\u2029\ufeff]", value):
        body = value.rstrip("\n")
        trailing = len(value) - len(body)
        chomp = "-" if trailing == 0 else "" if trailing == 1 else "+"
        if any(line.strip(" ") == "" and line for line in body.split("\n")):
            return None  # lines of spaces: JSON's text
        indicator = "2" if body.lstrip("\n").startswith(" ") else ""  # the text's column, 2 past the key's
        header = "|" + (indicator + chomp if rng.random() < 0.5 else chomp + indicator)
        return [header, *(pad + line if line else "" for line in body.split("\n")), *([""] * (trailing - 1))]
    words = value.split(" ")
    if len(value) > 50 and "\n" not in value and all(words) and not re.search(r"[\s\x00-\x1f\x7f\u0085\u2028\u2029\ufeff]",
                                                                               value.replace(" ", "")):
        half = len(words) // 2
        if rng.random() < 0.5 or not _PLAIN.match(value) or value in _NOT_TEXT or ": " in value or " #" in value:
            return [rng.choice((">-", ">-", ">2-")), pad + " ".join(words[:half]), pad + " ".join(words[half:])]
        return [" ".join(words[:half]), pad + " ".join(words[half:])]  # a plain scalar over two lines
    return None


def _key(key: str) -> str:
    return key if _WORDY_KEY.match(key) and key not in _NOT_TEXT else json.dumps(key, ensure_ascii=False)


def _flow(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(key)}: {_flow(item)}" for key, item in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(item) for item in value) + "]"
    return _flow_scalar(value)


def _wrapped(value: dict[str, Any] | list[Any], indent: int, rng: random.Random) -> list[str]:
    """A flow collection over several lines, one entry a line, the closing bracket on a line of its own."""
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        entries = [f"{pad}{_key(key)}: {_flow(item)}" for key, item in value.items()]
        opening, closing = "{", "}"
    else:
        entries = [pad + _flow(item) for item in value]
        opening, closing = "[", "]"
    trailing = "," if rng.random() < 0.3 else ""
    body = [entry + "," for entry in entries[:-1]] + [entries[-1] + trailing]
    if rng.random() < 0.3:
        body.insert(rng.randrange(len(body) + 1), pad + "# a comment inside")
    return [opening, *body, " " * indent + closing]


def _block_lines(value: Any, indent: int, rng: random.Random) -> list[str]:
    """A mapping's entries (or a sequence's items) at `indent`, each value in one of the styles above."""
    pad = " " * indent
    out: list[str] = []
    pairs = list(value.items()) if isinstance(value, dict) else [(None, item) for item in value]
    for key, item in pairs:
        lead = f"{pad}{_key(key)}:" if key is not None else f"{pad}-"
        if isinstance(item, (dict, list)) and item:
            style = rng.random()
            if style < 0.15 and len(_flow(item)) < 200:
                wrapped = _wrapped(item, indent, rng)
                out += [f"{lead} {wrapped[0]}", *wrapped[1:]]
            elif style < 0.3 and len(_flow(item)) < 100:
                out.append(f"{lead} {_flow(item)}")
            elif key is None:
                inner = _block_lines(item, indent + 2, rng)
                out += [f"{lead} {inner[0].lstrip(' ')}", *inner[1:]]
            else:
                out += [lead, *_block_lines(item, indent + 2, rng)]
            continue
        if isinstance(item, str):
            text = _text_lines(item, indent + 2, rng)
            if text is not None:
                out += [f"{lead} {text[0]}", *text[1:]]
                continue
        out.append(f"{lead} {_flow(item) if isinstance(item, (dict, list)) else _scalar(item)}")
    return out


def write_yaml(value: dict[str, Any], indent: int, seed: int) -> list[str]:
    """A JSON mapping as hand-written YAML lines at `indent`, its styles chosen by a generator seeded with `seed`."""
    return _block_lines(value, indent, random.Random(seed))


def case_graphs(name: str) -> list[tuple[str, dict[str, Any]]]:
    """(case id, graph) of every case of ../shared/conformance/graphai-own or graphai-wild, by id."""
    folder = SHARED / "conformance" / ("graphai-own" if name == "own_cases" else "graphai-wild") / "cases"
    found = []
    for path in sorted(folder.rglob("*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(case.get("graph"), dict) and case["graph"]:
            found.append((re.sub(r"[^A-Za-z0-9_]", "_", case["id"]), case["graph"]))
    return found


def _nodes_in(value: Any) -> int:
    if isinstance(value, dict):
        nodes = value.get("nodes")
        return sum(map(_nodes_in, value.values())) + (len(nodes) if isinstance(nodes, dict) else 0)
    if isinstance(value, list):
        return sum(map(_nodes_in, value))
    return 0


def _cases(name: str) -> Callable[[int], list[str]]:
    def lines(n: int) -> list[str]:
        graphs = case_graphs(name)
        per_copy = sum(max(1, _nodes_in(graph)) for _, graph in graphs)
        found = ["version: 0.5", "nodes:"]
        for copy in range(max(1, round(n / per_copy))):
            for index, (case_id, graph) in enumerate(graphs):
                found.append(f"  c{copy}_{case_id}:")
                found += write_yaml(graph, 4, seed=copy * 10_000 + index)
        return found
    return lines


EVAL2: dict[str, Callable[[int], list[str]]] = {
    "folded": seeded_chain(201, _START, _folded),
    "literal": seeded_chain(202, _START, _literal),
    "flow_wrapped": seeded_chain(203, ["version: 0.5", "nodes:", "  n0:", "    value: {rows: [1, 2, 3], label: start}"],
                           _flow_wrapped),
    "multiline_scalars": seeded_chain(204, _START, _multiline_scalars),
    "comments_inside": seeded_chain(205, ["# a graph written by hand", *_START], _comments_inside),
    "rare_constructs": seeded_chain(206, ["version: 0.5", "nodes:", "  n0:", "    value: 0"], _rare_constructs),
    "own_cases": _cases("own_cases"),
    "wild_cases": _cases("wild_cases"),
}
