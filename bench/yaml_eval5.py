"""The fifth evaluation set, `python -m bench yaml --set eval5`: graph files shaped like GraphAI's samples, saved by
YAML dumpers, indented unevenly, written in other scripts, holding vectors and deep settings.

Written on 6 Dec 2026 (branch `eval5`) because the fourth set (bench/yaml_eval4.py) has been measured and then
tuned on. This one was committed before it was measured, and before graphrt's reader was timed on it; its figure
on 6a28c4e's reader is the unseen one (BENCHMARKS.md, "A fourth and a fifth set"), and the round after taught the
reader what its dumpers' files hold, so it has been seen too: a next round of tuning needs a sixth set. Its shapes
are ones the tuned styles (bench/yaml_styles.py) and the first four sets (bench/yaml_eval.py, bench/yaml_eval2.py,
bench/yaml_eval3.py, bench/yaml_eval4.py) lack; they were chosen by what graph files people write and tools save
contain, not by what the reader does. Each file is about 50,000 nodes, made by a seeded generator (seeds 501 to
509), and is read alike by graphrt, PyYAML and js-yaml 4.3 (at 200 and at 50,000 nodes); each stays within
graphrt's 1,000,000 values a graph at 50,000 nodes (487,000 to 893,000). The two PyYAML files are written by
PyYAML's own dumper (about 16 s each at 50,000 nodes), and `jsyaml_dump` by an imitation of js-yaml's `dump`
(`js_yaml_dump` below), so that making a file needs no node:

- `graphai_samples`: GraphAI's own sample graphs (weather, reception, nestedLoop, business_idea_jp) at scale:
  camelCase node names, a graph-level `loop: while:`, static nodes with `update:`, `console: {after: true}` and
  `console:` / `after: true`, `if`/`unless`, `anyInput`, `retry`, `timeout`, `priority`, `passThrough`,
  `defaultValue`, `"!="` and `"Location:"` quoted, `"\\e[32m"` escapes, message contents as plain text continued on
  a more-indented line, double-quoted templates over two lines, fetch URLs holding `${...}`, nested graphs with
  `loop: {while: ":people"}`, folded prompts with blank lines, Japanese literal templates;
- `tool_calls`: function-calling agents' graphs: toolsAgent and openAIAgent nodes whose `tools:` lists are block
  items, flow items (one wrapped over two lines), flow lines of names, and names with references; recorded
  histories with assistant `tool_calls` whose JSON `arguments` are strings in single quotes, in double quotes with
  `\\"`, and in literal blocks; tool results as JSON text; dynamic agents (`agent: ":llm8.tool.name"`);
- `pyyaml_dump`: a graph built in Python and saved by `yaml.safe_dump(graph, sort_keys=False)` (PyYAML's default
  style, `allow_unicode=False`): sequences flush with their keys, long strings wrapped at 80 columns as plain,
  single-quoted and double-quoted scalars (the last with `\\` line continuations), text that is not ASCII as
  `\\xE9`/`\\u65E5`/`\\U0001F600` escapes, strings holding line breaks as quoted scalars with empty lines;
- `pyyaml_flow`: a graph saved by `yaml.dump(graph, default_flow_style=None, allow_unicode=True)`: keys sorted
  (`nodes` before `version`, `step_10` before `step_2`), collections of scalars in flow style wrapped past 80
  columns onto more-indented lines, sequences of flow mappings, multi-line single-quoted strings inside flow
  collections;
- `jsyaml_dump`: a graph as js-yaml's `dump` writes it (default options; checked byte for byte against js-yaml
  4.3's dump): sequences indented under their keys, long strings folded with `>-` at 80 columns less the
  indentation, text with line breaks as `|`, `|-`, `|+`, `|2-`, quoting only where needed (`':node3'`, `'yes'`,
  `'0.5'`), `"\\t"` and `"\\e"` in double quotes, nested sequences (`- - a`), `1.e-7`;
- `indent_mixed`: three-space indentation (nodes at column 3), each node's body indented by two, three or four
  more as if pasted from other files, sequences indented by one to three spaces under their key, literal blocks
  and nested graphs at their own steps;
- `scripts`: node names, keys and values in CJK, Cyrillic, Arabic, Devanagari, Hangul, Thai and emoji (ZWJ
  sequences, flags, skin tones) as plain scalars, in references (`:要約16.text`), flow collections and literal
  text, with full-width punctuation (`：`, `、`, `「」`) and Arabic commas that are not YAML's;
- `embeddings`: vectors of 8 to 32 numbers as flow sequences (`[0.0123, -0.5, 3.2e-4, ...]`): one a node, block
  lists of them, inside flow mappings, with signs, exponents, bare points and integers;
- `config_deep`: nodes whose params are settings five to eight block mappings deep (booleans, ints, floats,
  nulls, strings, short lists), beside small nodes.
"""

from __future__ import annotations

import math
import random
import re
from decimal import Decimal
from typing import Any, Callable

from .yaml_styles import seeded_chain

__all__ = ["EVAL5", "js_yaml_dump"]

_WORDS = ("find", "the", "weather", "for", "each", "city", "in", "list", "then", "write", "a", "short", "report",
          "with", "sources", "and", "ask", "user", "to", "confirm", "before", "sending", "it", "by", "mail", "keep",
          "tone", "friendly", "use", "tools", "only", "when", "needed", "answer", "clearly", "forecast", "today")


def _words(rng: random.Random, count: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(count))


# ----- graphai_samples: GraphAI's sample graphs at scale -----

_GA_NAMES = ("messages", "userInput", "checkInput", "llmCall", "output", "messagesWithFirstRes", "toolCalls", "data",
             "nested", "prompt", "llm", "reducer")


def _ga(i: int) -> str:
    """The name of node `i` (0 is `continue`)."""
    return "continue" if i <= 0 else f"{_GA_NAMES[i % 12]}{i}"


def _ga_before(i: int, kind: str) -> str:
    """The nearest node named `kind` before `i` (or `continue`)."""
    back = (i - _GA_NAMES.index(kind)) % 12 or 12
    return _ga(i - back)


_PEOPLE = ("Steve Jobs", "Elon Musk", "Nikola Tesla", "Ada Lovelace", "Grace Hopper", "Alan Turing", "Marie Curie")


def _graphai_samples(i: int, rng: random.Random) -> list[str]:
    kind = i % 12
    name = _ga(i)
    if kind == 0:
        return [f"  {name}:", "    value:", "      - role: system",
                f"        content: You are a meteorologist. Use getWeather API, only when the user ask for",
                f"          the weather information. {_words(rng, rng.randint(3, 9))}.",
                f"    update: :{_ga(i + 11)}.array.$0", "    isResult: true"]
    if kind == 1:
        return [f"  {name}:", "    agent: textInputAgent", "    params:",
                f"      message: \"{rng.choice(('Location', 'You', 'City', 'Question'))}:\""]
    if kind == 2:
        return [f"  {name}:", "    agent: compareAgent", "    inputs:", "      array:", f"        - :{_ga(i - 1)}.text",
                '        - "!="', "        - /bye"]
    if kind == 3:
        lines = [f"  {name}:", "    agent: openAIAgent", "    params: {}", "    inputs:",
                 f"      messages: :{_ga(i - 3)}", f"      prompt: :{_ga(i - 2)}.text", f"    if: :{_ga(i - 1)}"]
        if i % 24 == 3:
            lines += ["    retry: 3", f"    timeout: {rng.choice((5000, 30000, 60000))}"]
        return lines
    if kind == 4:
        if (i // 12) % 2:
            return [f"  {name}:", "    agent: stringTemplateAgent", "    params:",
                    '      template: "\\e[32mAgent\\e[0m: ${message}"', "    console:", "      after: true",
                    "    inputs:", "      message:", f"        - :{_ga(i - 1)}.text", f"    if: :{_ga(i - 1)}.text"]
        return [f"  {name}:", "    agent: stringTemplateAgent", "    inputs:",
                f'      text: "Weather: ${{:{_ga(i - 1)}.text}}"', "    console: {after: true}",
                f"    if: :{_ga(i - 1)}.text"]
    if kind == 5:
        return [f"  {name}:", "    agent: pushAgent", "    inputs:", f"      array: :{_ga(i - 5)}", "      items:",
                f"        - :{_ga(i - 4)}.message", f"        - :{_ga(i - 2)}.message"]
    if kind == 6:
        tool = f":{_ga(i - 3)}.tool"
        agent = rng.choice(("(receptron.org)", "(example.com, ops@example.com)", "graphai-sample/0.5"))
        return [f"  {name}:", "    agent: nestedAgent", "    inputs:", f"      parent_messages: :{_ga(i - 1)}.array",
                f"      parent_tool: {tool}", f"    if: {tool}", "    graph:", "      nodes:",
                "        outputFetching:",
                "          agent: stringTemplateAgent", "          inputs:",
                '            text: "... fetching weather info: ${:parent_tool.arguments.latitude},',
                '              ${:parent_tool.arguments.longitude}"', "          console:", "            after: true",
                "        fetchPoints:", "          agent: fetchAgent", "          inputs:",
                "            url: https://api.weather.gov/points/${:parent_tool.arguments.latitude},"
                "${:parent_tool.arguments.longitude}",
                "            headers:", f"              User-Agent: {agent}", "        fetchForecast:",
                "          agent: fetchAgent", "          params:", "            type: text", "          inputs:",
                "            url: :fetchPoints.properties.forecast", "            headers:",
                f"              User-Agent: {agent}", "          unless: :fetchPoints.onError",
                "        extractError:", "          agent: stringTemplateAgent", "          inputs:",
                '            text: "${:fetchPoints.onError.error.title}:',
                '              ${:fetchPoints.onError.error.detail}"',
                "          if: :fetchPoints.onError", "        responseText:", "          agent: copyAgent",
                "          anyInput: true", "          inputs:", "            array:", "              - :fetchForecast",
                "              - :extractError", "        messagesWithToolRes:", "          agent: pushAgent",
                "          inputs:", "            array: :parent_messages", "            item:",
                "              role: tool", "              tool_call_id: :parent_tool.id",
                "              name: :parent_tool.name", "              content: :responseText.array.$0",
                "          isResult: true"]
    if kind == 7:
        people = rng.sample(_PEOPLE, rng.randint(2, 4))
        if (i // 12) % 2:
            return [f"  {name}:", f"    value: [{', '.join(people)}]"]
        return [f"  {name}:", "    value:", *(f"      - {person}" for person in people)]
    if kind == 8:
        return [f"  {name}:", "    agent: nestedAgent", "    isResult: true", "    inputs:",
                f"      people: :{_ga(i - 1)}",
                "    graph:", "      version: 0.5", '      loop: {while: ":people"}', "      nodes:", "        people:",
                "          update: :retriever.array", "        result:", "          value: []",
                "          update: :reducer.array", "          isResult: true", "        retriever:",
                "          agent: shiftAgent", "          inputs:", "            array: :people", "        query:",
                "          agent: copyAgent", "          inputs:", "            data:",
                "              name: :retriever.item", "        reducer:", "          agent: pushAgent",
                "          inputs:", "            array: :result", "            item: :query.data"]
    if kind == 9:
        if (i // 12) % 2:
            return [f"  {name}:", "    agent: stringTemplateAgent", "    inputs:",
                    f"      idea: :{_ga_before(i, 'llm')}.choices.$0.message.content",
                    f"      eval: :{_ga(i - 1)}.result", "    params:", "      template: |",
                    "        このビジネスアイデアコンテストの優勝者を選んでください.", "        [アイデア]", "        ${idea}", "",
                    "        [評価]", "        ${eval}"]
        return [f"  {name}:", "    agent: stringTemplateAgent", "    params:", "      template: >",
                f"        You are responsible in retrieving following information from the {rng.choice(_WORDS)}.", "",
                "        name: both first and last name", "", "        dob: date of birth. It MUST include the year",
                "", f"        When you get all the information, call the function '{rng.choice(('report', 'save'))}'.",
                "    inputs:", f"      message: :{_ga(i - 8)}.text", "    priority: 1"]
    if kind == 10:
        lines = [f"  {name}:", "    agent: openAIAgent", "    params:",
                 f"      model: {rng.choice(('gpt-4', 'gpt-4o'))}",
                 "    inputs:", f'      prompt: ":{_ga(i - 1)}"']
        if i % 36 == 10:
            lines += [f"    passThrough: {{id: {i}, lang: {rng.choice(('ja', 'en', 'fr'))}}}"]
        elif i % 36 == 22:
            lines += ["    passThrough:", f"      step: {i}", "      tags: [sample, weather]"]
        return lines + ["    console:", "      before: ...calling the model", "      after: true"]
    return [f"  {name}:", "    agent: copyAgent", "    anyInput: true", f"    unless: :{_ga(i - 8)}.tool",
            "    defaultValue: []", "    inputs:", "      array:", f"        - :{_ga(i - 6)}.array",
            f"        - :{_ga(i - 5)}.messagesWithToolRes.array"]


_GA_START = ["verbose: true", "version: 0.5", "concurrency: 8", "loop:", "  while: :continue", "nodes:",
             "  continue:", "    value: true", "    update: :checkInput2"]


# ----- tool_calls: function-calling agents' graphs -----

_TOOLS = ("get_weather", "get_time", "search_web", "send_mail", "lookup_order", "convert_currency")
_CITIES = ("Tokyo", "Paris", "São Paulo", "New York", "Zürich", "Nairobi", "Osaka", "Lima")


def _arguments(rng: random.Random) -> dict[str, Any]:
    return {"city": rng.choice(_CITIES), "unit": rng.choice(("celsius", "fahrenheit")), "days": rng.randint(1, 7)}


def _json_text(value: dict[str, Any], compact: bool = True) -> str:
    import json

    return json.dumps(value, ensure_ascii=False, separators=(",", ":") if compact else (", ", ": "))


def _tool_calls(i: int, rng: random.Random) -> list[str]:
    kind = i % 6
    call = f"call_{rng.getrandbits(40):010x}"
    if kind == 0:
        args = _arguments(rng)
        quoted = _json_text(args, compact=False).replace("\\", "\\\\").replace('"', '\\"')
        return [f"  history{i}:", "    value:", "      - role: system",
                f"        content: You can call tools. {_words(rng, 5)}.", "      - role: user",
                f"        content: What's the weather in {args['city']} for the next {args['days']} days?",
                "      - role: assistant", "        content: null", "        tool_calls:", f"          - id: {call}",
                "            type: function", "            function:", "              name: get_weather",
                f"              arguments: '{_json_text(args)}'",
                f"          - {{id: call_{i:06d}, type: function, function: {{name: get_time, "
                f"arguments: \"{quoted}\"}}}}",
                "      - role: tool", f"        tool_call_id: {call}", "        name: get_weather",
                "        content: |-", "          {", f'            "temp": {rng.randint(-5, 35)}.{rng.randint(0, 9)},',
                f'            "sky": "{rng.choice(("clear", "rain", "clouds"))}"', "          }"]
    if kind == 1:
        style = (i // 6) % 3
        if style == 0:
            tools = ["      tools:", "        - type: function", "          function:",
                     f"            name: {rng.choice(_TOOLS)}", f"            description: {_words(rng, 6)}",
                     "            parameters:", "              type: object",
                     "              properties: {city: {type: string}, days: {type: integer}}",
                     "              required: [city]",
                     "        - {type: function, function: {name: get_time,",
                     "            parameters: {type: object, properties: {}}}}"]
        elif style == 1:
            tools = [f"      tools: [files, {rng.choice(('search', 'calendar', 'mail'))}]"]
        else:
            tools = ["      tools:", "        - files", f"        - :toolDefs{max(5, i - 2)}", "        - search"]
        return [f"  agent{i}:", "    agent: toolsAgent", "    inputs:", "      llmAgent: openAIAgent", *tools,
                f"      messages: :history{i - 1}", "      userInput:", "        text: :question0.text",
                "        message:", "          role: user", f"          content: {_words(rng, 7)}", "    params:",
                f"      maxRounds: {rng.randint(2, 8)}", "    isResult: true"]
    if kind == 2:
        return [f"  llm{i}:", "    agent: openAIAgent", "    inputs:", f"      messages: :agent{i - 1}.messages",
                "    params:", "      model: gpt-4o-mini", f"      tools: :toolDefs{max(5, i - 3)}",
                "      tool_choice: {type: function, function: {name: get_weather}}",
                "      parallel_tool_calls: false"]
    if kind == 3:
        return [f"  dispatch{i}:", f'    agent: ":llm{i - 1}.tool.name"', "    inputs:",
                f"      arguments: :llm{i - 1}.tool.arguments", f"      id: :llm{i - 1}.tool.id",
                f"    if: :llm{i - 1}.tool"]
    if kind == 4:
        return [f"  toolMessage{i}:", "    agent: pushAgent", "    inputs:", f"      array: :agent{i - 3}.messages",
                "      item:", "        role: tool", f"        tool_call_id: :llm{i - 2}.tool.id",
                f"        name: :llm{i - 2}.tool.name",
                f"        content: '{{\"ok\": true, \"result\": ${{:dispatch{i - 1}.text}}}}'"]
    result = {"order": f"A-{i}", "status": rng.choice(("open", "shipped")), "items": rng.randint(1, 5)}
    escaped = _json_text(result).replace('"', '\\"')
    return [f"  toolDefs{i}:", "    value:", "      - type: function", "        function:",
            "          name: lookup_order", f'          description: "Look up an order by id, e.g. \\"A-{i}\\"."',
            "          parameters: {type: object, properties: {order_id: {type: string}}, required: [order_id]}",
            f"      - {{type: function, function: {{name: {rng.choice(_TOOLS)}, parameters: {{type: object}}}}}}",
            f'    note: "last result: {escaped}"']


# ----- pyyaml_dump, pyyaml_flow: graphs built in Python and saved by PyYAML -----

_NOT_ASCII = ("café", "naïve", "日本語で答えて", "Zürich", "€12", "—", "😀", "résumé", "Ελληνικά", "→")


def _py_text(rng: random.Random, i: int, size: int, foreign: float = 0.1) -> str:
    """Words and templates; now and then text that is not ASCII (which PyYAML escapes) or `Note:` and ` #`, which
    plain style cannot hold."""
    foreign = foreign if rng.random() < 0.35 else 0.0
    marks = 0.03 if rng.random() < 0.4 else 0.0
    parts: list[str] = []
    while sum(len(part) + 1 for part in parts) < size:
        pick = rng.random()
        if pick < 0.06:
            parts.append(f"${{:step_{max(0, i - rng.randint(1, 4))}.text}}")
        elif pick < 0.06 + foreign:
            parts.append(rng.choice(_NOT_ASCII))
        elif pick < 0.06 + foreign + marks:
            parts.append(rng.choice(("Note:", "#1", "Answer:", "(see #3)")))
        else:
            parts.append(rng.choice(_WORDS))
    return " ".join(parts)


def _py_node(i: int, rng: random.Random) -> dict[str, Any]:
    kind = i % 5
    before = f":step_{i - 1}"
    if kind == 0:
        node: dict[str, Any] = {"agent": "openAIAgent",
                                "inputs": {"prompt": _py_text(rng, i, rng.randint(90, 400)),
                                           "system": _py_text(rng, i, 60, foreign=0.0)},
                                "params": {"model": "gpt-4o-mini", "temperature": round(rng.random(), 2),
                                           "max_tokens": rng.choice((256, 512, 1024)), "stop": ["\n\n", "END"]}}
        if i % 10 == 0:
            node["isResult"] = True
        return node
    if kind == 1:
        template = "\n".join(_py_text(rng, i, rng.randint(20, 70), foreign=0.05) for _ in range(rng.randint(2, 4)))
        return {"agent": "stringTemplateAgent", "inputs": {"text": f"{before}.text", "label": f"step {i}: draft"},
                "params": {"template": template + ("\n" if i % 2 else "")}}
    if kind == 2:
        return {"agent": "copyAgent", "inputs": {"rows": [before, f":step_{max(0, i - 2)}", None],
                                                 "options": {"strict": i % 3 == 0, "limit": rng.randint(1, 50)}},
                "params": {"namedKey": "rows"}, "console": {"before": "copying rows...", "after": False}}
    if kind == 3:
        records: list[dict[str, Any]] = [{"id": f"r{i}-{k}", "score": round(rng.uniform(-1, 1), 4)}
                                         for k in range(rng.randint(1, 3))]
        records[0]["tags"] = rng.sample(_WORDS, 2)
        return {"value": {"records": records, "note": _py_text(rng, i, 50), "empty": [], "meta": {},
                          "count": len(records), "missing": None}}
    return {"agent": "fetchAgent",
            "inputs": {"url": f"https://api.example.com/v1/items/{i}?lang=ja&q={rng.choice(_WORDS)}",
                       "headers": {"Authorization": "Bearer ${:token.value}", "Accept": "application/json"}},
            "params": {"type": "json", "retry": 2}, "retry": 3, "timeout": 15000, "if": f"{before}.ok"}


def _pyyaml(seed: int, flow: bool) -> Callable[[int], list[str]]:
    """The graph as PyYAML saves it: `yaml.safe_dump(graph, sort_keys=False)`, or with `flow` as
    `yaml.dump(graph, default_flow_style=None, allow_unicode=True)`."""
    def lines(n: int) -> list[str]:
        import yaml

        rng = random.Random(seed)
        nodes: dict[str, Any] = {"step_0": {"value": "start"}}
        for i in range(1, n):
            nodes[f"step_{i}"] = _py_node(i, rng)
        graph = {"version": 0.5, "nodes": nodes}
        if flow:
            text = yaml.dump(graph, default_flow_style=None, allow_unicode=True)
        else:
            text = yaml.safe_dump(graph, sort_keys=False)
        return text.rstrip("\n").split("\n")
    return lines


# ----- jsyaml_dump: what js-yaml 4's dump(graph) writes -----

_JS_DEPRECATED_BOOLEANS = frozenset("y Y yes Yes YES on On ON n N no No NO off Off OFF".split())
_JS_BASE60 = re.compile(r"[-+]?[0-9_]+(?::[0-9_]+)+(?:\.[0-9_]*)?\Z")
_JS_INT = re.compile(r"[-+]?(?:0b[01]+|0x[0-9a-fA-F]+|0o[0-7]+|[0-9]+)\Z")
_JS_FLOAT = re.compile(r"(?:[-+]?[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9]+(?:[eE][-+]?[0-9]+)?"
                       r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))\Z")
_JS_DATE = re.compile(r"[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]\Z")
_JS_TIMESTAMP = re.compile(r"[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:"
                           r"[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?\Z")
_JS_ESCAPES = {0x00: "\\0", 0x07: "\\a", 0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0B: "\\v", 0x0C: "\\f",
               0x0D: "\\r", 0x1B: "\\e", 0x22: '\\"', 0x5C: "\\\\", 0x85: "\\N", 0xA0: "\\_", 0x2028: "\\L",
               0x2029: "\\P"}


def _js_printable(c: int) -> bool:
    return (0x20 <= c <= 0x7E or (0xA1 <= c <= 0xD7FF and c not in (0x2028, 0x2029))
            or (0xE000 <= c <= 0xFFFD and c != 0xFEFF) or 0x10000 <= c <= 0x10FFFF)


def _js_plain_safe(c: int, prev: int | None) -> bool:
    """js-yaml's isPlainSafe in block context."""
    ns_or_white = _js_printable(c) and c not in (0xFEFF, 0x0D, 0x0A)
    ns_char = ns_or_white and c not in (0x20, 0x09)
    prev_ns = prev is not None and _js_printable(prev) and prev not in (0xFEFF, 0x0D, 0x0A, 0x20, 0x09)
    return ((ns_or_white and c != 0x23 and not (prev == 0x3A and not ns_char))
            or (prev_ns and c == 0x23) or (prev == 0x3A and ns_char))


def _js_plain_first(c: int) -> bool:
    return _js_printable(c) and c not in (0xFEFF, 0x20, 0x09) and chr(c) not in "-?:,[]{}#&*!|=>'\"%@`"


def _js_ambiguous(text: str) -> bool:
    return (text in ("~", "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE", "<<")
            or bool(_JS_INT.match(text)) or (bool(_JS_FLOAT.match(text)) and "_" not in text)
            or bool(_JS_DATE.match(text)) or bool(_JS_TIMESTAMP.match(text)))


def _js_fold_line(line: str, width: int) -> str:
    if line == "" or line[0] == " ":
        return line
    start = curr = 0
    result = ""
    for match in re.finditer(r" [^ ]", line):
        nxt = match.start()
        if nxt - start > width:
            end = curr if curr > start else nxt
            result += "\n" + line[start:end]
            start = end + 1
        curr = nxt
    result += "\n"
    if len(line) - start > width and curr > start:
        result += line[start:curr] + "\n" + line[curr + 1:]
    else:
        result += line[start:]
    return result[1:]


def _js_fold(text: str, width: int) -> str:
    first = text.find("\n")
    first = len(text) if first == -1 else first
    result = _js_fold_line(text[:first], width)
    prev_more = text[0] in "\n "
    for match in re.finditer(r"(\n+)([^\n]*)", text[first:]):
        prefix, line = match.group(1), match.group(2)
        more = line[:1] == " "
        result += prefix + ("\n" if not prev_more and not more and line != "" else "") + _js_fold_line(line, width)
        prev_more = more
    return result


def _js_indent(text: str, spaces: int) -> str:
    pad = " " * spaces
    return "".join(pad + line if line not in ("", "\n") else line for line in text.splitlines(keepends=True))


def _js_block_header(text: str) -> str:
    indicator = "2" if re.match(r"\n* ", text) else ""
    clip = text[-1] == "\n"
    keep = clip and (text[-2:-1] == "\n" or text == "\n")
    return indicator + ("+" if keep else "" if clip else "-") + "\n"


def _js_escape(char: str) -> str:
    code = ord(char)
    if code in _JS_ESCAPES:
        return _JS_ESCAPES[code]
    if _js_printable(code):
        return char
    return f"\\x{code:02X}" if code <= 0xFF else f"\\u{code:04X}"


def _js_scalar(text: str, level: int, iskey: bool) -> str:
    """js-yaml's writeScalar (default options, block context): the style it chooses, and the text in it."""
    if text == "":
        return "''"
    if text in _JS_DEPRECATED_BOOLEANS or _JS_BASE60.match(text):
        return f"'{text}'"
    indent = 2 * max(1, level)
    width = max(40, 80 - indent)
    codes = [ord(c) for c in text]
    if any(c > 0xFFFF for c in codes):
        raise ValueError("the imitation counts characters, not UTF-16 units: BMP text only")
    plain = _js_plain_first(codes[0]) and codes[-1] not in (0x20, 0x09, 0x3A)
    has_break = foldable = False
    previous_break = -1
    prev = None
    for index, c in enumerate(codes):
        if c == 0x0A and not iskey:
            has_break = True
            foldable = foldable or (index - previous_break - 1 > width and text[previous_break + 1] != " ")
            previous_break = index
        elif not _js_printable(c):
            return '"' + "".join(map(_js_escape, text)) + '"'
        plain = plain and _js_plain_safe(c, prev)
        prev = c
    if not iskey:
        foldable = foldable or (len(codes) - previous_break - 1 > width and text[previous_break + 1] != " ")
    if not has_break and not foldable:
        return text if plain and not _js_ambiguous(text) else "'" + text.replace("'", "''") + "'"
    body = _js_fold(text, width) if foldable else text
    out = _js_indent(body, indent)
    return (">" if foldable else "|") + _js_block_header(text) + (out[:-1] if out.endswith("\n") else out)


def _js_number(value: int | float) -> str:
    """A number as JavaScript's `String(number)` writes it, with js-yaml's `.` before a bare exponent (`1.e-7`)."""
    if isinstance(value, float) and value == 0 and math.copysign(1, value) < 0:
        return "-0.0"
    if isinstance(value, int) or value == int(value) and abs(value) < 1e21:
        return str(int(value))
    sign, digits, exponent = Decimal(repr(value)).normalize().as_tuple()
    text = "".join(map(str, digits))
    k = len(text)
    n = exponent + k  # type: ignore[operator]
    if k <= n <= 21:
        out = text + "0" * (n - k)
    elif 0 < n <= 21:
        out = text[:n] + "." + text[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * -n + text
    else:
        mantissa = text if k == 1 else text[0] + "." + text[1:]
        out = f"{mantissa}e{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"
        if "." not in mantissa:
            out = out.replace("e", ".e")
    return ("-" if sign else "") + out


def _js_node(value: Any, level: int, compact: bool, iskey: bool = False) -> str:
    if isinstance(value, dict):
        if not value:
            return "{}"
        out = ""
        for key, item in value.items():
            if not compact or out:
                out += "\n" + "  " * level
            out += _js_node(key, level + 1, True, iskey=True)
            dumped = _js_node(item, level + 1, False)
            out += (":" if dumped.startswith("\n") else ": ") + dumped
        return out
    if isinstance(value, list):
        if not value:
            return "[]"
        out = ""
        for item in value:
            dumped = _js_node(item, level + 1, True)
            if not compact or out:
                out += "\n" + "  " * level
            out += ("-" if dumped.startswith("\n") else "- ") + dumped
        return out
    if isinstance(value, str):
        return _js_scalar(value, level, iskey)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return _js_number(value)


def js_yaml_dump(value: dict[str, Any]) -> str:
    """`value` as js-yaml 4's `dump(value)` writes it with its default options, for the JSON values this set holds
    (text in the Basic Multilingual Plane, keys not integer-like)."""
    return _js_node(value, 0, True) + "\n"


_JS_TEXTS = ("yes", "no", "on", "off", "0.5", "007", "1e3", "true", "null", "~", "-", "12:30", "a: b", "a #b",
             "#tag", "@user", "!important", "*", "&amp", "[draft]", "{x}", "%d items", "`code`", "it's fine",
             'say "hi"', "key:value", "C#", "?", " padded", "trailing ", "tab\there", "\x1b[1mbold\x1b[0m")


_JS_KEYS = ("Content-Type", "X-Request-Id", "yes", "on", "a: b", "#tag", "@id", "$ref", "key with spaces", "null",
            "true", "0.5", "-x", "it's", "ключ", "キー", "?q")


def _js_text(rng: random.Random, i: int, size: int) -> str:
    parts: list[str] = []
    while sum(len(part) + 1 for part in parts) < size:
        pick = rng.random()
        parts.append(f"${{:node{max(0, i - rng.randint(1, 3))}.text}}" if pick < 0.05
                     else rng.choice(("café", "日本語", "Zürich", "—")) if pick < 0.08 else rng.choice(_WORDS))
    return " ".join(parts)


def _js_node_value(i: int, rng: random.Random) -> dict[str, Any]:
    kind = i % 6
    before = f":node{i - 1}"
    if kind == 0:
        return {"agent": "openAIAgent", "inputs": {"prompt": _js_text(rng, i, rng.randint(100, 320)),
                                                   "messages": before},
                "params": {"model": "gpt-4o", "temperature": rng.choice((0.2, 0.7, 1e-7, 0.05)),
                           "stop": ["\n\n", "END", rng.choice(_JS_TEXTS)]}, "isResult": i % 12 == 0}
    if kind == 1 and (i // 6) % 4 == 1:  # long lines and paragraphs: folded, a more-indented line kept
        text = (f"{_js_text(rng, i, rng.randint(90, 200))}\n\n{_js_text(rng, i, rng.randint(90, 160))}\n"
                f"  - {_js_text(rng, i, 30)}\n{_js_text(rng, i, 100)}")
        return {"agent": "stringTemplateAgent", "inputs": {"text": f"{before}.text"}, "params": {"template": text}}
    if kind == 1:
        lines = [_js_text(rng, i, rng.randint(15, 60)) for _ in range(rng.randint(2, 4))]
        end = ("", "\n", "\n\n")[(i // 6) % 3]  # |-, | and |+
        lead = "  " if (i // 6) % 5 == 2 else ""  # text starting with spaces: |2
        return {"agent": "stringTemplateAgent", "inputs": {"text": f"{before}.text"},
                "params": {"template": lead + "\n".join(lines) + end}}
    if kind == 2:
        return {"agent": "copyAgent", "inputs": {"v": before, "pairs": [[rng.choice(_WORDS), rng.randint(0, 9)],
                                                                          [rng.choice(_JS_TEXTS)]]},
                "params": {"namedKey": "v"}, "console": {}, "passThrough": {"labels": []},
                "headers": {key: rng.choice(_WORDS) for key in rng.sample(_JS_KEYS, 3)}}
    if kind == 3:
        return {"value": {"rows": [{"name": rng.choice(_WORDS), "score": round(rng.uniform(-10, 10), 3),
                                    "flag": rng.choice(_JS_TEXTS)} for _ in range(rng.randint(1, 3))],
                          "total": rng.randint(-1000, 10**6), "ratio": rng.choice((0.5, 1.5e-8, 2.5e+25, -0.125)),
                          "none": None}}
    if kind == 4:
        return {"agent": "mapAgent", "inputs": {"rows": f"{before}.rows"},
                "params": {"compositeResult": True, "limit": rng.randint(2, 8)},
                "graph": {"nodes": {"item": {"agent": "copyAgent", "inputs": {"v": ":row.name"}, "isResult": True}}}}
    return {"agent": "fetchAgent", "inputs": {"url": f"https://example.com/api/{i}?page=2#top",
                                              "body": {"query": rng.choice(_JS_TEXTS), "escape": "a\tb\x1b"}},
            "if": f"{before}.ok", "timeout": 15000}


def _jsyaml(n: int) -> list[str]:
    rng = random.Random(505)
    nodes: dict[str, Any] = {"node0": {"value": "start"}}
    for i in range(1, n):
        nodes[f"node{i}"] = _js_node_value(i, rng)
    return js_yaml_dump({"version": 0.5, "nodes": nodes}).rstrip("\n").split("\n")


# ----- indent_mixed: three-space indentation, each node's body indented its own way -----

def _indent_mixed(i: int, rng: random.Random) -> list[str]:
    step = (2, 3, 4)[rng.randrange(3)]  # the node's own step, as if pasted from another file
    seq = rng.randint(1, 3)  # its sequences' items, past their key
    body = " " * (3 + step)
    inner = body + " " * step
    kind = i % 4
    head = [f"   n{i}:"]
    if kind == 0:
        return head + [f"{body}agent: openAIAgent", f"{body}inputs:", f"{inner}prompt: :n{i - 1}",
                       f"{inner}system: {_words(rng, 6)}", f"{body}params:", f"{inner}model: gpt-4o-mini",
                       f"{inner}temperature: 0.{rng.randint(0, 9)}", f"{inner}stop:",
                       f"{inner}{' ' * seq}- END", f"{inner}{' ' * seq}- '\\n\\n'", f"{body}isResult: true"]
    if kind == 1:
        text = inner + " " * rng.choice((2, 3, 4))
        return head + [f"{body}agent: stringTemplateAgent", f"{body}inputs:", f"{inner}v: :n{i - 1}", f"{body}params:",
                       f"{inner}template: |", f"{text}{_words(rng, 7)}", f"{text}  {_words(rng, 3)}", "",
                       f"{text}${{v}}", f"{inner}tags:", f"{inner}{' ' * seq}- {rng.choice(_WORDS)}",
                       f"{inner}{' ' * seq}- step {i}"]
    if kind == 2:
        other = rng.choice((2, 3, 4))  # the nested graph's own step
        g = inner + " " * other
        node = g + " " * other
        field = node + " " * other
        return head + [f"{body}agent: mapAgent", f"{body}inputs:", f"{inner}rows: :n{i - 2}.rows", f"{body}params:",
                       f"{inner}compositeResult: true", f"{body}graph:", f"{inner}nodes:", f"{g}item:",
                       f"{node}agent: copyAgent", f"{node}inputs:", f"{field}v: :row", f"{g}label:",
                       f"{node}agent: stringTemplateAgent", f"{node}inputs:", f"{field}item: :item",
                       f"{node}params:", f"{field}template: '{_words(rng, 3)}: ${{item}}'", f"{node}isResult: true"]
    if i % 8 == 3:
        return [f"   n{i}: {{agent: copyAgent, inputs: {{v: ':n{i - 1}'}}, params: {{namedKey: v}}}}"]
    return head + [f"{body}value:", f"{inner}rows:", *(f"{inner}{' ' * seq}- {rng.randint(0, 99)}" for _ in range(3)),
                   f"{inner}label: {_words(rng, 3)}", f"{inner}nested:", f"{inner}{' ' * step}deeper:",
                   f"{inner}{' ' * (2 * step)}flag: {rng.choice(('true', 'false'))}"]


# ----- scripts: names, keys and values in scripts other than Latin -----

_SCRIPT_NAMES = ("要約", "перевод", "ترجمة", "सारांश", "번역", "แปล", "🔎検索", "回答")
_SCRIPT_TEXT = (
    "東京の天気を調べて、明日の予定を立ててください",
    "注意：短く、丁寧に答えること",
    "「結果」を三行でまとめる",
    "Переведи текст на русский язык и сохрани имена",
    "Ответ должен быть коротким — без лишних слов",
    "ترجم النص إلى العربية، واحتفظ بالأسماء كما هي",
    "هل الطقس جيد اليوم؟",
    "इस लेख का सारांश तीन वाक्यों में लिखें",
    "질문에 한국어로 짧게 답하세요",
    "สรุปข้อความนี้เป็นภาษาไทย",
    "完成 👩‍💻 チーム 🇯🇵 👍🏽 OK",
    "天気 ☀️ → 雨 🌧️",
)
_SCRIPT_KEYS = ("入力", "名前", "город", "اللغة", "भाषा", "질문", "設定", "テンプレート")


def _script(i: int) -> str:
    return f"{_SCRIPT_NAMES[i % len(_SCRIPT_NAMES)]}{i}" if i else "開始"


def _scripts(i: int, rng: random.Random) -> list[str]:
    kind = i % 4
    name = _script(i)
    if kind == 0:
        return [f"  {name}:", "    agent: openAIAgent", "    inputs:", f"      prompt: :{_script(i - 1)}.text",
                f"      {rng.choice(_SCRIPT_KEYS)}: {rng.choice(_SCRIPT_TEXT)}", "    params:",
                f"      system: {rng.choice(_SCRIPT_TEXT)}", "      model: gpt-4o"]
    if kind == 1:
        return [f"  {name}:", "    agent: stringTemplateAgent", "    inputs:", f"      前: :{_script(i - 1)}.text",
                "    params:", "      template: |", f"        {rng.choice(_SCRIPT_TEXT)}", "        ${前}",
                f"        {rng.choice(_SCRIPT_TEXT)}"]
    if kind == 2:
        return [f"  {name}:", "    value:", f"      都市: [東京, 大阪, {rng.choice(('京都', '札幌', '福岡'))}]",
                f"      人: {{名前: {rng.choice(('太郎', '花子', 'Анна', 'فاطمة'))}, 年齢: {rng.randint(18, 90)}}}",
                f"      город: {rng.choice(('Москва', 'Санкт-Петербург', 'Казань'))}",
                f"      メモ: {rng.choice(_SCRIPT_TEXT)}", "      絵文字:", "        - 😀", "        - 👩‍👩‍👧",
                f"        - {rng.choice(_SCRIPT_TEXT)}"]
    language = rng.choice(("日本語", "русский", "العربية"))
    return [f"  {name}:", "    agent: copyAgent", f"    inputs: {{v: ':{_script(i - 1)}', 言語: {language}}}",
            "    params: {namedKey: v}", f"    console: {{after: true, before: {rng.choice(_SCRIPT_TEXT)}}}"]


# ----- embeddings: vectors of numbers as flow sequences -----

def _number(value: float, style: int) -> str:
    if style == 0:  # json.dumps of float64s
        return repr(value)
    if style == 1:  # rounded to 4 places
        return repr(round(value, 4))
    if style == 2:  # numpy's savetxt and printoptions: %.6e
        return f"{value:.6e}"
    return f"{value:.3g}".replace("e-0", "e-")  # %g, written as JavaScript writes exponents (3.2e-4)


def _vector(rng: random.Random, low: int, high: int) -> str:
    """8 to 32 numbers, one tool's way of writing them; a value now and then far below the others (3.2e-4)."""
    style = rng.randrange(4)
    values = [rng.gauss(0, 0.3) * (1e-3 if rng.random() < 0.1 else 1) for _ in range(rng.randint(low, high))]
    return "[" + ", ".join(_number(value, style) for value in values) + "]"


def _embeddings(i: int, rng: random.Random) -> list[str]:
    kind = i % 4
    if kind == 0:
        return [f"  n{i}:", "    value:", f"      id: doc-{i}", f"      text: {_words(rng, 6)}",
                f"      embedding: {_vector(rng, 8, 32)}"]
    if kind == 1 and i % 8 == 1:
        return [f"  n{i}:", "    agent: copyAgent", "    inputs:", f"      v: :n{i - 1}.embedding", "    params:",
                "      namedKey: v", "      centroids:", *(f"        - {_vector(rng, 8, 12)}" for _ in range(2))]
    if kind == 1:
        return [f"  n{i}:", "    agent: copyAgent", "    inputs:", f"      v: :n{i - 1}.embedding"]
    if kind == 2:  # weights typed by hand
        weights = ", ".join(rng.sample((".5", "+0.25", "1.0e+2", "0", "-1", "0.125", "1e-3", "2E-2"), 3))
        return [f"  n{i}:", "    agent: vectorSearchAgent", f"    inputs: {{query: ':n{i - 2}.embedding', k: 5}}",
                f"    params: {{metric: cosine, threshold: 0.{rng.randint(50, 95)}, weights: [{weights}]}}"]
    return [f"  n{i}:", "    agent: copyAgent",
            f"    inputs: {{v: ':n{i - 1}', bias: {_vector(rng, 8, 16)}}}", "    isResult: true"]


# ----- config_deep: settings five to eight mappings deep -----

_SETTING_KEYS = ("retrieval", "index", "hnsw", "build", "search", "filters", "cache", "generation", "sampling",
                 "penalties", "limits", "logging", "sinks", "file", "rotate", "network", "proxy", "tls", "auth",
                 "oauth", "scopes", "rate_limit", "window", "burst", "fallback", "models", "primary", "routing")
_LEAVES: dict[str, tuple[str, ...]] = {  # each setting, and values such a setting takes
    "enabled": ("true", "false"), "strict": ("true", "false", "False", "TRUE"), "verify": ("true", "false"),
    "ttl_seconds": ("3600", "60", "86400", "0", "null"), "retries": ("3", "0", "5"), "max_tokens": ("512", "4096"),
    "timeout_ms": ("30000", "1500", "~"), "keep": ("7", "30", "-1"), "top_p": ("0.95", "1.0", "0.9"),
    "temperature": ("0.7", "0", "0.25", "1.5"), "threshold": ("0.75", "0.5", ".8", "1e-3"),
    "backoff": ("1.5", "2.0", "exponential"), "path": ("/var/log/graph.log", "~/.cache/graphrt", "null"),
    "level": ("info", "debug", "warn"), "region": ("eu-west-1", "us-east-2", "ap-northeast-1", "null"),
    "name": ("primary", "fallback model", "gpt-4o-mini"), "mode": ("round_robin", "'off'", "'on'", "least-latency"),
    "endpoint": ("https://proxy.internal:3128", "http://localhost:8080/v1", "~"),
    "allow": ("[read, write]", "[]", "[search]"), "version": ("'2024'", "'1.0'", "2"), "seed": ("42", "null", "-1"),
}
_LEAF_KEYS = tuple(_LEAVES)


def _leaf(key: str, rng: random.Random) -> str:
    return rng.choice(_LEAVES[key])


def _settings(pad: str, depth: int, rng: random.Random) -> list[str]:
    """A mapping `depth` levels deep at `pad`: a few leaves at each level, and one or two keys going deeper."""
    lines = []
    keys = rng.sample(_SETTING_KEYS, 2)
    for leaf in rng.sample(_LEAF_KEYS, rng.randint(1, 2)):
        lines.append(f"{pad}{leaf}: {_leaf(leaf, rng)}")
    if depth > 1:
        lines += [f"{pad}{keys[0]}:", *_settings(pad + "  ", depth - 1, rng)]
        if depth > 3 and rng.random() < 0.3:
            lines += [f"{pad}{keys[1]}:", *_settings(pad + "  ", rng.randint(1, 2), rng)]
    return lines


def _config_deep(i: int, rng: random.Random) -> list[str]:
    if i % 4 == 0:
        return [f"  n{i}:", "    agent: openAIAgent", "    inputs:", f"      prompt: :n{i - 1}", "    params:",
                *_settings("      ", rng.randint(5, 8), rng), "    isResult: true"]
    if i % 4 == 2:
        return [f"  n{i}:", "    agent: copyAgent", "    inputs:", f"      v: :n{i - 1}", "    params:",
                "      namedKey: v", "      options:", *_settings("        ", rng.randint(3, 5), rng)]
    return [f"  n{i}:", "    agent: copyAgent", f"    inputs: {{v: ':n{i - 1}'}}"]


_START = ["version: 0.5", "nodes:", "  n0:", "    value: start"]

EVAL5: dict[str, Callable[[int], list[str]]] = {
    "graphai_samples": seeded_chain(501, _GA_START, _graphai_samples),
    "tool_calls": seeded_chain(502, ["version: 0.5", "nodes:", "  question0:", "    agent: textInputAgent",
                                     "    params:", '      message: "You:"'], _tool_calls),
    "pyyaml_dump": _pyyaml(503, flow=False),
    "pyyaml_flow": _pyyaml(504, flow=True),
    "jsyaml_dump": _jsyaml,
    "indent_mixed": seeded_chain(506, ["version: 0.5", "nodes:", "   n0:", "      value: start"], _indent_mixed),
    "scripts": seeded_chain(507, ["version: 0.5", "nodes:", "  開始:", "    value: はじめに"], _scripts),
    "embeddings": seeded_chain(508, _START, _embeddings),
    "config_deep": seeded_chain(509, _START, _config_deep),
}
