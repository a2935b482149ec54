"""The evaluation set of `python -m bench yaml --set eval`: graph files the quick YAML reader was not tuned on.

The nine styles of bench/yaml_styles.py are the files graphdata/quick_yaml.py was made fast on, so their
ratios flatter it. This set was written before the reader's later tuning and is only measured, never tuned
on. Two kinds of file, each about 50,000 nodes:

- the repository's and GraphAI's conformance YAML files, each kept as it was written (its lines indented
  under a key of its own in one graph's `nodes`), the whole collection repeated up to the size: `conformance`
  (every file of ../shared/conformance), `conformance_quick` (those of them the quick reader reads alone),
  `repo` (graphs/ and examples/);
- graphs generated in shapes the tuned styles lack: `deep` (nested graphs eight levels down), `long_strings`
  (prompts as long plain, quoted and literal scalars), `comments` (comments and blank lines between and
  after the lines), `sequences` (block sequences of scalars and of mappings), `unicode` (text that is not
  ASCII), `wide` (nodes of many keys), `mixed` (block nodes with flow values, as hand-written graphs mix them).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Callable

__all__ = ["EVAL", "corpus_files"]

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


def _yaml_files(*roots: Path) -> list[Path]:
    return sorted(path for root in roots if root.is_dir() for suffix in ("*.yaml", "*.yml") for path in root.rglob(suffix))


def corpus_files(name: str) -> list[Path]:
    """The files a corpus style is made of."""
    if name == "repo":
        return _yaml_files(ROOT / "graphs", ROOT / "examples")
    files = _yaml_files(SHARED / "conformance")
    if name == "conformance_quick":
        from graphrt.graphdata import loader
        from graphrt.graphdata.quick_yaml import quick_load

        files = [path for path in files if quick_load(path.read_text(encoding="utf-8"), max_depth=loader.MAX_DEPTH,
                                                       max_values=loader.MAX_VALUES) is not None]
    return files


def _nodes_in(value: object) -> int:
    """The nodes a file's value holds: the entries of every `nodes` mapping in it, at any depth (at least 1)."""
    def count(item: object) -> int:
        if isinstance(item, dict):
            inner = sum(count(child) for child in item.values())
            nodes = item.get("nodes")
            return inner + (len(nodes) if isinstance(nodes, dict) else 0)
        if isinstance(item, list):
            return sum(count(child) for child in item)
        return 0
    return max(1, count(value))


def _indented(text: str, pad: str) -> list[str]:
    """A file's lines under a key: each indented by `pad`, its empty lines left empty (a literal block keeps its text)."""
    return [pad + line if line else line for line in text.rstrip("\n").split("\n")]


def _corpus(name: str) -> Callable[[int], list[str]]:
    def lines(n: int) -> list[str]:
        import yaml

        from graphrt.graphdata import full_yaml

        texts = []
        for path in corpus_files(name):
            text = path.read_text(encoding="utf-8")
            if any(line.startswith(("---", "...", "%")) for line in text.split("\n")):  # documents: not one value
                continue
            value = yaml.load(text, Loader=full_yaml._GraphLoader)  # noqa: S506 - a safe loader
            if value is None:
                continue
            texts.append((path.stem, text, _nodes_in(value)))
        per_copy = sum(nodes for _, _, nodes in texts)
        found = ["version: 0.5", "nodes:"]
        for copy in range(max(1, round(n / per_copy))):
            for stem, text, _ in texts:
                found.append(f"  c{copy}_{stem}:")
                found += _indented(text, "    ")
        return found
    return lines


_WORDS = ("the", "graph", "node", "reads", "its", "inputs", "and", "writes", "a", "result", "for", "each", "row",
          "of", "table", "with", "care", "then", "answers", "question", "in", "one", "line", "if", "it", "can")


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words))


def _deep(n: int) -> list[str]:
    """Nested graphs eight levels down, two nodes a level, block style."""
    lines = ["version: 0.5", "nodes:"]

    def graph(pad: str, level: int, tag: str) -> list[str]:
        out = [f"{pad}source_{tag}:", f"{pad}  value: {level}",
               f"{pad}step_{tag}:", f"{pad}  agent: copyAgent", f"{pad}  inputs:", f"{pad}    v: :source_{tag}"]
        if level < 8:
            out += [f"{pad}inner_{tag}:", f"{pad}  agent: nestedAgent", f"{pad}  inputs:", f"{pad}    v: :step_{tag}",
                    f"{pad}  graph:", f"{pad}    nodes:", *graph(pad + "      ", level + 1, tag)]
        return out

    for top in range(n // 26 + 1):  # 26 nodes a tree
        lines += graph("  ", 0, str(top))
    return lines


def _long_strings(n: int) -> list[str]:
    rng = random.Random(1)
    lines = ["version: 0.5", "nodes:", "  n0:", "    value: start"]
    for i in range(1, n):
        kind = i % 4
        lines += [f"  n{i}:", "    agent: stringTemplateAgent", "    inputs:", f"      v: :n{i - 1}", "    params:"]
        if kind == 0:
            lines.append(f"      template: {_sentence(rng, 30)} ${{v}}.")
        elif kind == 1:
            lines.append(f"      template: '{_sentence(rng, 25)}, it''s ${{v}}: {_sentence(rng, 10)}'")
        elif kind == 2:
            lines.append(f'      template: "{_sentence(rng, 25)} \\"${{v}}\\" {_sentence(rng, 10)}\\n"')
        else:
            lines += ["      template: |-", *(f"        {_sentence(rng, 12)}" for _ in range(4)), "        ${v}"]
    return lines


def _comments(n: int) -> list[str]:
    lines = ["# A graph with its comments kept", "version: 0.5  # GraphData", "", "nodes:"]
    lines += ["  n0:", "    value: 0  # the start"]
    for i in range(1, n):
        lines += ["", f"  # node {i}: copies the one before", f"  n{i}:", f"    agent: copyAgent # the agent",
                  "    # what it reads", "    inputs:", f"      v: :n{i - 1}  # the node before",
                  "      # nothing else", "    params: {namedKey: v}  # one key"]
    return lines


def _sequences(n: int) -> list[str]:
    lines = ["version: 0.5", "nodes:", "  n0:", "    value:", "      - 0", "      - start"]
    for i in range(1, n):
        lines += [f"  n{i}:", "    agent: arrayFlatAgent", "    inputs:", "      array:", f"        - :n{i - 1}",
                  f"        - :n{max(0, i - 2)}", "    params:", "      rows:", "        - name: first",
                  f"          weight: {i % 7}", "        - second", "    anyInput: true"]
    return lines


def _unicode(n: int) -> list[str]:
    names = ("Ada", "Zoë", "Łukasz", "東京", "Ελένη", "Grüße", "naïve café", "😀 ok", "Søren", "Iñés")
    lines = ["version: 0.5", "nodes:", "  n0:", "    value: 出発"]
    for i in range(1, n):
        name = names[i % len(names)]
        lines += [f"  n{i}:", "    agent: stringTemplateAgent", "    inputs:", f"      v: :n{i - 1}", "    params:",
                  f"      template: 'Hallo {name}, ${{v}} → nächster'" if i % 2 else f'      template: "{name}: ${{v}} — fin"']
    return lines


def _wide(n: int) -> list[str]:
    lines = ["version: 0.5", "nodes:", "  n0:", "    value: 0"]
    for i in range(1, n):
        lines += [f"  n{i}:", "    agent: openAIAgent", "    inputs:", f"      prompt: :n{i - 1}", "    params:"]
        lines += [f"      option{k}: {'true' if k % 3 == 0 else k * 10 if k % 3 == 1 else f'value{k}'}" for k in range(8)]
        lines += ["    isResult: false", "    retry: 2", "    timeout: 3000", "    console: {before: true}"]
    return lines


def _mixed(n: int) -> list[str]:
    lines = ["version: 0.5", "loop:", "  while: :continue", "nodes:", "  n0: {value: {rows: [1, 2, 3]}}"]
    for i in range(1, n):
        if i % 3 == 0:
            lines.append(f"  n{i}: {{agent: copyAgent, inputs: {{v: ':n{i - 1}'}}}}")
        elif i % 3 == 1:
            lines += [f"  n{i}:", "    agent: mapAgent", f"    inputs: {{rows: ':n{i - 1}.rows'}}",
                      "    params: {limit: 10, compositeResult: true}", f"    if: :n{i - 1}"]
        else:
            lines += [f"  n{i}:", "    agent: copyAgent", "    inputs:", f"      v: [':n{i - 1}', {i}, null]",
                      f"      label: step {i}", "    isResult: true"]
    return lines


EVAL: dict[str, Callable[[int], list[str]]] = {
    "conformance": _corpus("conformance"),
    "conformance_quick": _corpus("conformance_quick"),
    "repo": _corpus("repo"),
    "deep": _deep,
    "long_strings": _long_strings,
    "comments": _comments,
    "sequences": _sequences,
    "unicode": _unicode,
    "wide": _wide,
    "mixed": _mixed,
}
