"""The third evaluation set, `python -m bench yaml --set eval3`: graph files as people write them or tools save them.

Written on 5 Dec 2026 (branch `eval3`) because the first two evaluation sets (bench/yaml_eval.py,
bench/yaml_eval2.py) have both been used while tuning the quick reader: this one was committed before it was
measured, and measured once on main as a baseline. That baseline found four files going whole to PyYAML
(`crlf`, `json_pretty`, `tabs_text`, `merge_defaults`), and the round after it taught the reader each of those
shapes: so this set has been seen too, and a next round of tuning needs a fourth, written before it
(BENCHMARKS.md, "YAML parsing"). Its shapes are ones the tuned styles and the first two sets lack. Each file is
about 50,000 nodes, made by a seeded generator:

- `crlf`: an ordinary mixed file (block mappings, flow inputs, literal prompts, comment lines) saved with
  Windows line endings (`\\r\\n`), as an editor on Windows saves it;
- `messages`: chat message lists as block sequences of mappings (`- role: user` / `  content: ...`), content as
  literal blocks or double-quoted with escapes, and message lists inside the nested graphs of mapAgent and
  nestedAgent nodes (deeper indentation, sequences written flush with their key and indented);
- `indent4`: four-space indentation, sequences flush with their key (`key:` / `- a`), keys quoted now and then,
  end-of-line comments;
- `json_pretty`: the graph as `JSON.stringify(graph, null, 2)` writes it, saved in a .yaml file;
- `numbers`: value nodes (one node in four) holding data: lists of floats with exponents, signed and bare-point
  numbers, ints, booleans, nulls (`~`, `null`, empty), numbers in quotes, in flow and block style;
- `markdown_prompts`: prompts with markdown (headings, `**bold**`, lists, code fences holding `{}`, `:` and
  quotes, quotes `>`) as literal blocks and as double-quoted strings with `\\n`;
- `tools_schemas`: openAIAgent tools: function definitions holding JSON Schemas (nested `type: object`,
  `properties`, `required`, `enum`, `items`, `$ref`), in block style and as flow mappings, in three nodes of
  eight (`numbers` and this file, denser at first, went past the 1,000,000 values graphrt reads in a graph at
  50,000 nodes);
- `tabs_text`: tab characters inside single- and double-quoted scalars and inside literal text (code samples,
  tab-separated rows); never as indentation;
- `merge_defaults`: a node's settings anchored once and merged into one node in fifty after it (`<<: *llm`,
  `<<: [*strict, *llm]`, an anchored mapping that itself merges), in block and flow mappings, keys overridden,
  and aliases (`console: *quiet`) in others. Not every node merges: js-yaml 4.3 refuses a file whose merges
  copy more than 10,000 keys in all (its `maxTotalMergeKeys`), as a first draft that merged in every node found.
"""

from __future__ import annotations

import json
import random
from typing import Any, Callable

from .yaml_styles import seeded_chain

__all__ = ["EVAL3"]

_WORDS = ("reply", "in", "plain", "words", "to", "the", "customer", "order", "ticket", "refund", "shipping", "date",
          "check", "status", "before", "answering", "give", "a", "short", "summary", "of", "each", "message", "then",
          "ask", "one", "question", "about", "missing", "details", "translate", "into", "French", "report")


def _words(rng: random.Random, count: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(count))


_START = ["version: 0.5", "nodes:", "  n0:", "    value: start"]


# ----- crlf: an ordinary file saved on Windows -----

def _crlf_node(i: int, rng: random.Random) -> list[str]:
    shape = i % 3
    lines = [f"# step {i}"] if i % 10 == 0 else []
    if shape == 0:
        lines += [f"  n{i}:", "    agent: stringTemplateAgent", f"    inputs: {{v: ':n{i - 1}', step: {i}}}",
                  "    params:", "      template: |-", f"        {_words(rng, 8)}", "",
                  f"        {_words(rng, 5)}: ${{v}}"]
    elif shape == 1:
        lines += [f"  n{i}:", "    agent: copyAgent", "    inputs:", f"      v: :n{i - 1}",
                  f"      label: {_words(rng, 3)}", "    params: {namedKey: v}"]
    else:
        lines += [f"  n{i}:", "    agent: openAIAgent", "    inputs:", f"      prompt: :n{i - 1}", "    params:",
                  "      model: gpt-4o-mini", f"      temperature: 0.{i % 10}",
                  f'      system: "You are a helpful assistant. {_words(rng, 4)}."', "    isResult: true"]
    return [line + "\r" for line in lines]


# ----- messages: chat message lists -----

def _message(pad: str, role: str, rng: random.Random, style: int) -> list[str]:
    if style == 0:
        return [f"{pad}- role: {role}", f"{pad}  content: |", f"{pad}    {_words(rng, 7)}",
                f"{pad}    {_words(rng, 5)}"]
    if style == 1:
        return [f"{pad}- role: {role}", f'{pad}  content: "{_words(rng, 4)}\\n\\"{_words(rng, 2)}\\" {_words(rng, 3)}"']
    if style == 2:
        return [f"{pad}- content: {_words(rng, 6)}", f"{pad}  role: {role}"]
    return [f"{pad}- {{role: {role}, content: '{_words(rng, 5)}, it''s fine'}}"]


def _messages(i: int, rng: random.Random) -> list[str]:
    shape = i % 4
    if shape == 0:
        lines = [f"  n{i}:", "    value:"]
        for k, role in enumerate(("system", "user", "assistant", "user")[: 2 + i % 3]):
            lines += _message("      ", role, rng, (i + k) % 4)
        return lines
    if shape == 1:
        return [f"  n{i}:", "    agent: openAIAgent", "    inputs:", f"      messages: :n{i - 1}",
                f"      prompt: :n{i - 1}.$last.content", "    params:", "      model: gpt-4o", "      stream: false"]
    if shape == 2:
        lines = [f"  n{i}:", "    agent: mapAgent", "    inputs:", f"      rows: :n{i - 2}", "    params:",
                 "      compositeResult: true", "    graph:", "      nodes:", "        ask:",
                 "          agent: openAIAgent", "          inputs:", "            messages:"]
        lines += _message("            ", "system", rng, 0)  # flush with its key
        lines += ["            - role: user", "              content: ${:row.content}", "          isResult: true"]
        return lines
    lines = [f"  n{i}:", "    agent: nestedAgent", "    inputs:", f"      history: :n{i - 3}", "    graph:",
             "      version: 0.5", "      nodes:", "        history:", "          value: []", "        reply:",
             "          agent: openAIAgent", "          inputs:", "            messages:"]
    lines += _message("              ", "system", rng, 1)
    lines += _message("              ", "user", rng, 0)
    return lines + ["          isResult: true"]


# ----- indent4: four spaces, sequences flush with their key, quoted keys, comments -----

def _indent4(i: int, rng: random.Random) -> list[str]:
    def key(name: str) -> str:  # quoted now and then
        return f'"{name}"' if i % 5 == 0 else f"'{name}'" if i % 7 == 0 else name

    shape = i % 3
    if shape == 0:
        return [f"    n{i}:    # {_words(rng, 3)}", f"        {key('agent')}: arrayFlatAgent",
                f"        {key('inputs')}:",
                "            array:", f"            - :n{i - 1}", f"            - :n{max(0, i - 2)}  # two back",
                "        params:", "            depth: 1"]
    if shape == 1:
        return [f"    n{i}:", "        agent: stringTemplateAgent", "        inputs:", f"            v: :n{i - 1}",
                f"        {key('params')}:", "            template: |", f"                {_words(rng, 7)}",
                "                    ${v}", "            stops:", "            - END", "            - '\\n\\n'",
                "        console:", "            before: true   # log it"]
    return [f"    n{i}:", "        agent: copyAgent  # the agent", "        inputs:", f"            v: :n{i - 1}",
            "        params: {namedKey: v}", f"        {key('isResult')}: {'true' if i % 2 else 'false'}"]


# ----- json_pretty: JSON.stringify(graph, null, 2) in a .yaml file -----

def _json_node(i: int, rng: random.Random) -> dict[str, Any]:
    shape = i % 4
    if shape == 0:
        return {"agent": "stringTemplateAgent", "inputs": {"v": f":n{i - 1}"},
                "params": {"template": f"{_words(rng, 5)}\n\"${{v}}\"\n\t{_words(rng, 3)} é"}}
    if shape == 1:
        return {"agent": "copyAgent", "inputs": {"v": f":n{i - 1}", "list": [f":n{max(0, i - 2)}", i, None, True]},
                "params": {"namedKey": "v"}, "console": {}}
    if shape == 2:
        return {"agent": "mapAgent", "inputs": {"rows": f":n{i - 1}"}, "params": {"compositeResult": True, "limit": 10},
                "graph": {"nodes": {"item": {"agent": "copyAgent", "inputs": {"v": ":row"}, "isResult": True}}},
                "retry": 2, "timeout": 3000.5, "passThrough": {"tags": []}}
    return {"value": {"rows": [rng.randint(-100, 100) for _ in range(3)], "label": _words(rng, 3), "ratio": 0.25}}


def _json_pretty(n: int) -> list[str]:
    rng = random.Random(304)
    lines = ["{", '  "version": 0.5,', '  "nodes": {', '    "n0": {', '      "value": "start"', "    },"]
    for i in range(1, n):
        text = json.dumps(_json_node(i, rng), indent=2, ensure_ascii=False)
        body = text.split("\n")
        lines.append(f'    "n{i}": {body[0]}')
        lines += ["    " + line for line in body[1:-1]]
        lines.append("    " + body[-1] + ("," if i < n - 1 else ""))
    return lines + ["  }", "}"]


# ----- numbers: data in value nodes -----

_FLOATS = ("0.125", "-3.5e-3", "12", "1.0e+6", ".5", "-0.75", "2E3", "+7", "0", "3.14159", "-12", "1e-9")


def _numbers(i: int, rng: random.Random) -> list[str]:
    shape = i % 4  # within graphrt's 1,000,000 values at 50,000 nodes (loader.MAX_VALUES)
    if shape == 0:
        data = ", ".join(rng.choice(_FLOATS) for _ in range(6))
        return [f"  n{i}:", "    value:", f"      data: [{data}]", "      weights:",
                *(f"        - {rng.choice(_FLOATS)}" for _ in range(3)), f"      count: {rng.randint(0, 10**6)}",
                "      flags: [true, false, ~]", "      threshold: 1.0e-4", "      missing:",
                "      ids: ['007', \"1e3\"]", "      enabled: True", "      matrix:",
                f"        - [{rng.choice(_FLOATS)}, {rng.choice(_FLOATS)}, -1]", "        - [0.5, .25, 1.5e2]"]
    if shape == 1:
        return [f"  n{i}:", "    agent: totalAgent", "    inputs:",
                f"      array: [':n{i - 1}.data', ':n{i - 1}.weights']",
                "    params: {min: -1, max: 1e3, scale: 0.001, round: 2}"]
    if shape == 3:
        return [f"  n{i}:", "    agent: copyAgent", f"    inputs: {{v: ':n{i - 1}', scale: {rng.choice(_FLOATS)}}}"]
    return [f"  n{i}:", "    agent: copyAgent", "    inputs:", f"      v: :n{i - 2}.count",
            f"      ratio: {rng.random():.6f}",
            f"      offset: -{rng.randint(1, 999)}", "      none: null", "    params:", "      namedKey: v",
            f"      defaults: {{a: 0, b: -0.5, c: {rng.randint(0, 99)}e2, d: false}}"]


# ----- markdown_prompts -----

def _markdown(i: int, rng: random.Random) -> list[str]:
    shape = i % 3
    head = [f"  n{i}:", "    agent: stringTemplateAgent", "    inputs:", f"      v: :n{i - 1}", "    params:"]
    if shape == 0:
        return head + ["      template: |", "        # Task", "", f"        {_words(rng, 6)}, **carefully**.", "",
                       "        ## Steps", f"        - *{_words(rng, 2)}*: {_words(rng, 4)}",
                       f"        - {_words(rng, 5)}",
                       "        1. check `status: open` first", "", "        ```json",
                       '        {"answer": "...", "sources": [], "ok": true}', "        ```", "",
                       "        > Note: don't guess; say \"I don't know\".", "", "        Input: ${v}"]
    if shape == 1:
        return head + [f'      template: "# {_words(rng, 2)}\\n\\n- **{_words(rng, 2)}**: ${{v}}\\n- {_words(rng, 3)}'
                       f'\\n\\n```python\\nprint({{\\"a\\": 1}})\\n```\\n"']
    return head + ["      template: |-", f"        ### {_words(rng, 3)} #{i}", "        | key | value |",
                   "        |-----|-------|", "        | a: b | {x} |", "", "        ```yaml",
                   "        key: value  # not a comment",
                   "        list: [1, 2]", "        ```", "        ${v}"]


# ----- tools_schemas: openAIAgent tools with JSON Schemas -----

def _tools(i: int, rng: random.Random) -> list[str]:
    shape = i % 8  # tools in three nodes of eight: within graphrt's 1,000,000 values at 50,000 nodes
    if shape > 2:
        return [f"  n{i}:", "    agent: copyAgent", "    inputs:", f"      v: :n{i - 1}", "    params: {namedKey: v}"]
    if shape == 0:
        return [f"  n{i}:", "    agent: openAIAgent", "    inputs:", f"      prompt: :n{i - 1}", "    params:",
                "      model: gpt-4o", "      tool_choice: auto", "      tools:", "        - type: function",
                "          function:",
                f"            name: get_order_{i}", f"            description: {_words(rng, 6)}",
                "            parameters:",
                "              type: object", "              properties:", "                order_id:",
                "                  type: string", f'                  description: "{_words(rng, 3)}, e.g. A-{i}"',
                "                status:", "                  type: string",
                "                  enum: [open, shipped, \"cancelled\", refunded]", "                items:",
                "                  type: array", "                  items:", "                    type: object",
                "                    properties:", "                      sku: {type: string}",
                "                      qty: {type: integer, minimum: 1}", "                    required: [sku, qty]",
                "              required:", "                - order_id", "              additionalProperties: false"]
    if shape == 1:
        return [f"  n{i}:", "    agent: openAIAgent", "    inputs:", f"      prompt: :n{i - 1}", "    params:",
                "      tools:", "        - {type: function, function: {name: search, description: 'Search the web', "
                "parameters: {type: object, properties: {query: {type: string}, limit: {type: integer, default: 5}}, "
                "required: [query]}}}",
                "        - type: function",
                "          function: {name: lookup, parameters: {type: object, properties: {}}}"]
    return [f"  n{i}:", "    agent: copyAgent", "    inputs:", f"      v: :n{i - 1}.tool_calls", "    params:",
            "      namedKey: v", "      schema:", '        $schema: "https://json-schema.org/draft/2020-12/schema"',
            '        $ref: "#/$defs/call"', "        $defs:", "          call:", "            type: object",
            "            properties:", "              name: {type: string, pattern: '^[a-z_]+$'}",
            "              arguments: {type: [object, 'null']}", "            required: [name]"]


# ----- tabs_text: tabs inside quoted and literal text -----

def _tabs(i: int, rng: random.Random) -> list[str]:
    shape = i % 3
    head = [f"  n{i}:", "    agent: stringTemplateAgent", "    inputs:", f"      v: :n{i - 1}", "    params:"]
    if shape == 0:
        return head + ["      template: |", "        def handle(row):", "        \tif row:",
                       f"        \t\treturn '{_words(rng, 2)}'",
                       "        \treturn ${v}", "      separator: \"\t\"",
                       f"      header: 'id\tname\t{_words(rng, 1)}'"]
    if shape == 1:
        return head + ["      template: |-", "        id\tname\tscore", f"        {i}\t{_words(rng, 2)}\t0.{i % 100}",
                       "        ${v}\t-\t-"]
    return head + [f'      template: "{_words(rng, 3)}:\t${{v}}\t(done)"', f"      note: '\t{_words(rng, 4)}'"]


# ----- merge_defaults: anchors merged into nodes -----

def _merge_first(i: int) -> list[str]:
    """Nodes 1 and 2, whose settings the nodes after them merge (node 2's are node 1's, merged, with two changed)."""
    if i == 1:
        return ["  n1:", "    agent: openAIAgent", "    inputs: {prompt: ':n0'}", "    params: &llm",
                "      model: gpt-4o-mini",
                "      temperature: 0.2", "      max_tokens: 512", "    console: &quiet {before: false, after: false}"]
    return ["  n2:", "    agent: openAIAgent", "    inputs: {prompt: ':n1'}", "    params: &strict", "      <<: *llm",
            "      temperature: 0", "      response_format: {type: json_object}"]


def _merge(i: int, rng: random.Random) -> list[str]:
    if i <= 2:
        return _merge_first(i)
    lines = [f"  n{i}:", "    agent: openAIAgent", "    inputs:", f"      prompt: :n{i - 1}"]
    if i % 50 != 25:  # js-yaml refuses more than 10,000 merged keys a file (maxTotalMergeKeys): merges are rarer
        return lines + ["    params:", "      model: gpt-4o-mini", f"      system: {_words(rng, 5)}",
                        *(["    console: *quiet"] if i % 5 == 0 else [])]
    shape = (i // 50) % 3
    if shape == 0:
        return lines + ["    params:", "      <<: *llm", f"      system: {_words(rng, 5)}"]
    if shape == 1:
        return lines + [f"    params: {{<<: *llm, temperature: 0.{i % 9 + 1}}}", "    console: *quiet"]
    return lines + ["    params:", "      <<: [*strict, *llm]", "      max_tokens: 128"]


EVAL3: dict[str, Callable[[int], list[str]]] = {
    "crlf": seeded_chain(301, [line + "\r" for line in ["# saved on Windows", *_START]], _crlf_node),
    "messages": seeded_chain(302, _START, _messages),
    "indent4": seeded_chain(303, ["version: 0.5", "nodes:", "    n0:", "        value: [1, 2, 3]   # the rows"], _indent4),
    "json_pretty": _json_pretty,
    "numbers": seeded_chain(305, ["version: 0.5", "nodes:", "  n0:", "    value: {data: [], count: 0}"], _numbers),
    "markdown_prompts": seeded_chain(306, _START, _markdown),
    "tools_schemas": seeded_chain(307, _START, _tools),
    "tabs_text": seeded_chain(308, _START, _tabs),
    "merge_defaults": seeded_chain(309, _START, _merge),
}
