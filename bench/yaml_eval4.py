"""The fourth evaluation set, `python -m bench yaml --set eval4`: more shapes of hand-written and saved graph files.

Written on 6 Dec 2026 (branch `eval4`) because the third set (bench/yaml_eval3.py) has been seen: the round after
its baseline taught the quick reader its shapes (BENCHMARKS.md, "YAML parsing"). This one was committed before it
was measured, and before graphrt's reader was timed on it; measured once on the reader as it was (187e126), it
found two files going whole to PyYAML and four in pieces, and the round after taught the reader those shapes, so
this set has been seen too (BENCHMARKS.md, "A fourth and a fifth set"). Its shapes are ones the tuned styles
(bench/yaml_styles.py) and the first three sets (bench/yaml_eval.py, bench/yaml_eval2.py, bench/yaml_eval3.py)
lack; they were chosen by what graph files people write and tools save contain, not by what the reader does.
Each file is about 50,000 nodes, made by a seeded generator, and is read alike by graphrt, PyYAML and js-yaml 4.3
(at 200 and at 50,000 nodes); each stays within graphrt's 1,000,000 values a graph at 50,000 nodes (655,000 to
885,000), which is why the densest shapes stand in one node of eight or sixteen:

- `zero_indent`: block sequences written flush with their key everywhere (`array:` / `- a`), nested sequences
  (`- - a`, `- - - a`), a long list of scalars (24 to 40) in one node in sixteen, a bare `-` with its mapping or
  sequence on the lines below, items after `-   ` (several spaces), inside the nested graphs of mapAgent nodes too;
- `eol_comments`: end-of-line comments after values of every kind (plain, quoted, numbers, booleans, `~`, an
  empty value, flow mappings and sequences, sequence items, block scalar headers, node and section keys), comments
  holding `#`, `:`, quotes and URLs, and `#` inside text where it is not a comment;
- `plain_punct`: plain scalars holding what plain text may hold: URLs with ports, queries and fragments
  (`https://host:8443/a?b=c#top`), `#` not after a space (`C#`, `issue#12`), `:` not before a space, ` - `,
  `@`, backticks, `$`, `%`, `&`, `*`, `!`, `|`, `>`, `[x]`, `{x}` inside, `-v`/`?q`/`<` at the start, times
  (`09:30`), in block values, sequence items and flow collections;
- `odd_keys`: node names quoted (`"n1":`, `'n2':`), quoted keys in block and flow mappings, keys with dashes,
  dots, spaces, brackets, `@`, `$`, `#`, an escaped quote or a unicode escape, number-like keys in quotes (`"200":`),
  HTTP headers, nested graphs whose node names have dashes;
- `nested_graphs`: in one node of eight, a mapAgent or nestedAgent holding graphs three to six levels deep, the
  outer levels in block style, then one level as one flow line or as a flow mapping wrapped over lines, the rest
  on flow lines inside it; in another of eight, a nestedAgent whose graph of two or three levels is one flow line;
- `anchored_scalars`: anchors on scalars (`&model3 gpt-4o-mini`, numbers, a quoted string, a literal block, a
  sequence item, a name with a dash) and on block and flow sequences, defined afresh (new names) every hundred
  nodes and used by alias 25 to 75 times each in the hundred: as block values, in flow mappings and sequences
  (`[*model3, gpt-4o]`), as sequence items (`- *model3`); no merge keys;
- `empty_typed`: empty values (`key:` as null, a bare `-` item, `isResult:` ending a node), `~`, `{}`/`[]` (also
  `{ }`, `[ ]`) in block and flow, `''` and `""`; strings that look like other types in quotes (`"0.5"`,
  `'true'`, `"null"`, `"1e3"`, `'007'`, `'0x1F'`, `'~'`, `'[]'`) beside plain ones (`0.5`, `yes`, `off`, `007`,
  `0x1F`, `.5`, `1e3`);
- `whitespace_markers`: a `--- # comment` line starting the document and a `... # comment` line ending it,
  trailing spaces after keys, values, flow collections and block scalar headers and on block scalar lines, blank
  lines holding spaces (between nodes, inside and at the end of block scalars, fewer, as many and more than the
  text's indentation), literal and folded scalars with chomping and indentation indicators (`|-`, `>+`, `|2`,
  `>-`, `|+`) with blank lines inside and at their end;
- `long_prompts`: one node in ten with a very long single-line double-quoted prompt (2 to 8 KB) holding
  `${:node.x}` templates, escapes (`\\u00e9`, `\\x41`, `\\U0001F600`, `\\t`, `\\"`, `\\\\`, `\\/`, `\\n`) and
  unicode text, and a 400-character system prompt; two in ten with 300-character prompts of the same kind, the
  rest with a short double-quoted note holding an escape and a template;
- `flow_multiline`: plain, single- and double-quoted scalars over several lines inside flow mappings and sequences
  (folded lines, a blank line, an escaped line break, `it''s` across a break), flow collections wrapped over lines.
"""

from __future__ import annotations

import random
from typing import Callable

from .yaml_styles import seeded_chain

__all__ = ["EVAL4"]

_WORDS = ("search", "the", "index", "for", "recent", "papers", "on", "graph", "agents", "and", "rank", "them", "by",
          "relevance", "cite", "each", "source", "with", "its", "title", "keep", "answers", "short", "use", "only",
          "retrieved", "passages", "if", "none", "match", "say", "so", "draft", "reply", "review", "notes")


def _words(rng: random.Random, count: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(count))


_START = ["version: 0.5", "nodes:", "  n0:", "    value: start"]


def _ended(lines: Callable[[int], list[str]], end: list[str]) -> Callable[[int], list[str]]:
    """`lines`, then `end` (lines after the last node)."""
    return lambda n: lines(n) + end


# ----- zero_indent: sequences flush with their key, nested sequences, long lists -----

def _zero_indent(i: int, rng: random.Random) -> list[str]:
    shape = i % 4
    if shape == 0:
        return [f"  n{i}:", "    agent: arrayFlatAgent", "    inputs:", "      array:", f"      - - :n{i - 1}",
                f"        - :n{max(0, i - 2)}", f"      - - - {rng.choice(_WORDS)}",
                f"          - {rng.choice(_WORDS)}",
                f"        - {rng.choice(_WORDS)}", "      - []", "    params:", "      depth: 2"]
    if shape == 1 and i % 16 == 1:  # a long list in one node in sixteen: within 1,000,000 values at 50,000 nodes
        items = [f"      - {rng.randint(0, 999)}" if k % 5 == 4 else f"      - {rng.choice(_WORDS)}"
                 for k in range(24 + i % 17)]
        return [f"  n{i}:", "    value:", "      stopwords:", *items, "      pairs:",
                f"      - - {rng.choice(_WORDS)}", f"        - {rng.randint(-50, 50)}", "      - - - nested",
                "          - deeper", "        - 0.5", "      -", "        - after a bare dash", "      - last"]
    if shape == 1:
        return [f"  n{i}:", "    agent: arrayJoinAgent", "    inputs:", "      array:", f"      - :n{i - 1}",
                f"      - {rng.choice(_WORDS)}", "    params:", "      separator: ' '"]
    if shape == 2:
        return [f"  n{i}:", "    agent: openAIAgent", "    inputs:", "      messages:", "      - role: system",
                f"        content: {_words(rng, 8)}", "      -", "        role: user", f"        content: :n{i - 1}",
                "    params:", "      model: gpt-4o", "      stop:", "      - END", '      - "\\n\\n"', "      tags:",
                "      - - eval", f"        - {rng.choice(_WORDS)}"]
    return [f"  n{i}:", "    agent: mapAgent", "    inputs:", "      rows:", f"      - :n{i - 1}",
            f"      - :n{max(0, i - 3)}", "    params:", "      compositeResult: true", "    graph:", "      nodes:",
            "        join:", "          agent: arrayJoinAgent", "          inputs:", "            array:",
            "            -   :row", f"            -   {rng.choice(_WORDS)}", "          params:",
            "            separator: ', '", "          isResult: true"]


# ----- eol_comments: comments after values of every kind -----

def _eol_comments(i: int, rng: random.Random) -> list[str]:
    shape = i % 3
    if shape == 0:
        return [f"  n{i}:  # {_words(rng, 3)}", "    agent: openAIAgent   # the model call",
                "    inputs:    # what it reads", f"      prompt: :n{i - 1}  # the node before",
                f"      context: [':n{max(0, i - 2)}', ':n{max(0, i - 3)}']  # two more",
                "      options: {top: 3, strict: true}  # a flow mapping", "    params:  # settings",
                "      model: 'gpt-4o'  # single-quoted", f'      system: "You are {_words(rng, 4)}." # double-quoted',
                f"      temperature: 0.{i % 10}  # a float", f"      max_tokens: {256 * (1 + i % 4)}  # an int",
                "      stream: false  # a boolean", "      seed: ~  # null", "      user:   # empty, so null",
                f"      label: step {i} of the run  # plain text with spaces", "    isResult: true # the end"]
    if shape == 1:
        return [f"  n{i}:", "    agent: stringTemplateAgent  # agent: not this one",
                "    inputs:", f"      v: :n{i - 1}   # see: http://example.com/#v \"quoted\" 'too'", "    params:",
                "      template: |-  # the template", f"        {_words(rng, 6)} # text, not a comment", "        ${v}",
                "      stops:   # the list", "        - '\\n'  # single-quoted", '        - "END"  # double-quoted',
                "        - STOP  # plain", "        - [a, b]  # a flow sequence as an item",
                "        - {k: v}  # a flow mapping as an item", f"        - {i}  # a number",
                "    console: {before: true, after: false}  # a flow mapping at the end"]
    return [f"  n{i}:   #", "    agent: copyAgent # one space before", f"    inputs: {{v: ':n{i - 1}'}}  # flow inputs",
            "    params:", "      namedKey: v  #", "      note: 'it''s here'  # after an escaped quote",
            '      path: "C:\\\\tmp\\\\x"  # backslashes', "      empty: ''  # an empty string",
            "      nothing: []  # an empty list", "      ratio: -1.5e-3  # an exponent",
            f"      tag: issue#{i}  # a '#' inside text, then a comment", "    isResult: false  # ### repeated hashes"]


# ----- plain_punct: punctuation in plain scalars -----

def _plain_punct(i: int, rng: random.Random) -> list[str]:
    shape = i % 3
    if shape == 0:
        return [f"  n{i}:", "    agent: fetchAgent", "    inputs:",
                f"      url: https://api.example.com:8443/v1/items?id={i}&sort=asc#top", f"      query: :n{i - 1}",
                "    params:", "      method: GET", f"      note: see issue#{i}, the C# client and F#; a:b is text",
                f"      contact: ops+{i}@example.com or @oncall-{i % 7}",
                "      run: then `make test` - and check the log - twice", "      path: /usr/local/bin:/usr/bin:/bin",
                f"      when: 09:{i % 60:02d}", "      ratio: 3/4 - or 75%", "      cost: $12.50 (approx.)",
                "      regex: ^[a-z]+(-[a-z0-9]+)*$", "      flags: -v --no-cache -o=out.json",
                "      qs: ?q=graph&page=2", "      pipe: cat a.txt | grep b > c.txt", "      mail: <user@example.com>",
                "      bang: hello! world!", "      star: a*b and **bold** and *x", "      amp: R&D and &co",
                "      wiki: https://en.wikipedia.org/wiki/C_(programming_language)"]
    if shape == 1:
        return [f"  n{i}:", "    agent: copyAgent", "    inputs:", f"      v: :n{i - 1}",
                f"      links: [https://a.example.org/x?y=1#z, http://localhost:3000/api/v{i % 3}, "
                "mailto:team@example.com]",
                "      headers: {Accept: application/json, X-Trace: abc#123, Host: example.com:443}", "    params:",
                "      namedKey: v", "      steps:", "        - open https://example.com/login?next=/home#form",
                f"        - type user{i}@example.com - then press Enter", "        - wait 2s; retry 3x (max)",
                f"        - ticket#{i} stays open", "        - use {braces} and [brackets] inside",
                "      shell: echo $HOME && ls -la ~/work | head -n 5"]
    return [f"  n{i}:", "    agent: stringTemplateAgent", "    inputs:", f"      v: :n{i - 1}", "    params:",
            f"      template: Q:${{v}} -> A=see https://docs.example.com/#answers (by @{rng.choice(_WORDS)}, `v2`)",
            f"      footer: {_words(rng, 3)} - {_words(rng, 2)} | 100% & more!"]


# ----- odd_keys: quoted keys, keys with dashes, dots and spaces -----

def _node_key(i: int) -> str:
    return f'"n{i}"' if i % 3 == 1 else f"'n{i}'" if i % 3 == 2 else f"n{i}"


def _odd_keys(i: int, rng: random.Random) -> list[str]:
    shape = (i // 3) % 4  # the node key's quoting goes round by i % 3
    head = [f"  {_node_key(i)}:"]
    if shape == 3:
        return head + ['    "agent": copyAgent', f"    'inputs': {{\"v\": ':n{i - 1}'}}",
                       "    \"params\": {'namedKey': v}"]
    if shape == 0:
        return head + ['    "agent": fetchAgent', "    'inputs':", f'      "url": https://example.com/{i}',
                       f"      'query': :n{i - 1}", "    params:", "      headers:",
                       "        Content-Type: application/json",
                       f"        X-Request-Id: req-{i}", "        'Accept-Language': fr-CH, fr;q=0.9",
                       "      query:", f"        page.size: {10 + i % 5}", "        filter[status]: open",
                       "        first name: Ada", '        "last name": Lovelace']
    if shape == 1:
        return head + ["    agent: copyAgent", f"    inputs: {{\"v\": \":n{i - 1}\", 'w': ':n{max(0, i - 2)}'}}",
                       "    params:", "      namedKey: v", '      "@context": https://schema.org',
                       f'      "$id": q-{i}', '      "#tag": kept', "      'it''s': a quoted key with an escaped quote",
                       '      "key: with colon": yes', '      "caf\\u00e9": an escape in the key', '      "200": ok',
                       "      '404': not found", "      x.y.z: dots", "      snake_case-and-dash: mixed",
                       f"      flow: {{'flow key': 1, \"other-key\": {rng.randint(0, 9)}, plain.key: 3, x-y: [a]}}"]
    return head + ["    agent: nestedAgent", "    inputs:", f"      text: :n{i - 1}", "    graph:", "      nodes:",
                   '        "fetch-page":', "          agent: copyAgent", "          inputs: {v: ':text'}",
                   "        'clean-text':", "          agent: stringTemplateAgent",
                   "          inputs: {page: ':fetch-page'}",
                   f"          params: {{template: '{_words(rng, 3)} ${{page}}'}}",
                   "        final_answer-2:", "          agent: copyAgent", "          inputs:",
                   "            'v': :clean-text", "          isResult: true"]


# ----- nested_graphs: nested graphs several levels deep, block and flow mixed -----

def _flow_graph(level: int, depth: int, rng: random.Random) -> str:
    """A nested graph's value on one flow line: its nodes, and below them the next levels, to `depth`."""
    if level >= depth:
        return f"{{nodes: {{leaf{level}: {{agent: copyAgent, inputs: {{v: ':row'}}, isResult: true}}}}}}"
    agent = "mapAgent" if level % 2 else "nestedAgent"
    key = "rows" if agent == "mapAgent" else "row"
    return (f"{{version: 0.5, nodes: {{pick{level}: {{agent: copyAgent, inputs: {{v: ':row'}}, "
            f"params: {{label: {rng.choice(_WORDS)}}}}}, "
            f"inner{level}: {{agent: {agent}, inputs: {{{key}: ':pick{level}'}}, "
            f"graph: {_flow_graph(level + 1, depth, rng)}, isResult: true}}}}}}")


def _wrapped_graph(pad: str, level: int, depth: int, rng: random.Random) -> list[str]:
    """`graph:`'s value as a flow mapping over lines (`pad` is the key's indentation); the levels below it on one
    flow line each."""
    if level >= depth:
        return ["{nodes: {", f"{pad}    leaf{level}: {{agent: copyAgent, inputs: {{v: ':row'}},",
                f"{pad}      isResult: true}}", f"{pad}  }}", f"{pad}}}"]
    return ["{", f"{pad}  version: 0.5,", f"{pad}  nodes: {{",
            f"{pad}    pick{level}: {{agent: copyAgent, inputs: {{v: ':row'}}}},",
            f"{pad}    inner{level}: {{agent: mapAgent, inputs: {{rows: ':pick{level}'}},",
            f"{pad}      graph: {_flow_graph(level + 1, depth, rng)},", f"{pad}      isResult: true}}",
            f"{pad}  }}", f"{pad}}}"]


def _block_graph(pad: str, level: int, styles: list[str], rng: random.Random) -> list[str]:
    """A nested graph's nodes in block style, at `pad`, each node at `level` or below it written in `styles`."""
    depth = len(styles)
    lines = [f"{pad}pick{level}:", f"{pad}  agent: copyAgent", f"{pad}  inputs:", f"{pad}    v: :row",
             f"{pad}  params: {{label: {rng.choice(_WORDS)}}}", f"{pad}inner{level}:"]
    agent = "mapAgent" if level % 2 else "nestedAgent"
    key = "rows" if agent == "mapAgent" else "row"
    lines += [f"{pad}  agent: {agent}", f"{pad}  inputs:", f"{pad}    {key}: :pick{level}"]
    if agent == "mapAgent":
        lines.append(f"{pad}  params: {{compositeResult: true, concurrency: {1 + level}}}")
    style = styles[level] if level < depth else "flow"
    if level + 1 >= depth:
        lines.append(f"{pad}  graph: {_flow_graph(level + 1, level + 1, rng)}")
    elif style == "block":
        lines += [f"{pad}  graph:", f"{pad}    version: 0.5", f"{pad}    nodes:",
                  *_block_graph(pad + "      ", level + 1, styles, rng)]
    elif style == "wrapped":
        wrapped = _wrapped_graph(pad + "  ", level + 1, depth, rng)
        lines += [f"{pad}  graph: {wrapped[0]}", *wrapped[1:]]
    else:
        lines.append(f"{pad}  graph: {_flow_graph(level + 1, depth, rng)}")
    return lines + [f"{pad}  isResult: true"]


def _nested(i: int, rng: random.Random) -> list[str]:
    shape = i % 8  # nested graphs in two nodes of eight: within 1,000,000 values at 50,000 nodes
    if shape == 4:
        return [f"  n{i}:", "    agent: nestedAgent", "    inputs:", f"      row: :n{i - 1}",
                f"    graph: {_flow_graph(1, 2 + (i // 8) % 2, rng)}"]
    if shape:
        return [f"  n{i}:", "    agent: copyAgent", f"    inputs: {{v: ':n{i - 1}'}}"]
    depth = 2 + (i // 8) % 4  # 3 to 6 levels of graphs: the node's, and 2 to 5 under it
    block = rng.randint(1, depth - 1)  # the outer levels in block style; then one wrapped or flow, then flow
    styles = ["block"] * block + [rng.choice(("wrapped", "flow"))] + ["flow"] * (depth - block - 1)
    agent = "mapAgent" if (i // 32) % 2 else "nestedAgent"
    lines = [f"  n{i}:", f"    agent: {agent}", "    inputs:",
             f"      {'rows' if agent == 'mapAgent' else 'row'}: :n{i - 1}"]
    if agent == "mapAgent":
        lines.append("    params: {compositeResult: true}")
    return lines + ["    graph:", "      version: 0.5", "      nodes:",
                    *_block_graph("        ", 1, ["block", *styles], rng)]


# ----- anchored_scalars: anchors on scalars and sequences, aliased many times -----

def _anchored(i: int, rng: random.Random) -> list[str]:
    b = (i - 1) // 100  # a hundred nodes share their anchors, defined in the first of them
    head = [f"  n{i}:", "    agent: openAIAgent", "    inputs:", f"      prompt: :n{i - 1}"]
    if i % 100 == 1:
        return head + ["    params:", f"      model: &model{b} gpt-4o-mini",
                       f"      temperature: &temp{b} 0.{b % 9 + 1}",
                       f'      system: &system{b} "You are {_words(rng, 5)}."', f"      stop: &stops{b}",
                       "        - END", "        - '\\n\\n'", '        - "###"',
                       f"      tools: &tools{b} [search, fetch_page, summarize]", f"      template: &prompt{b} |",
                       f"        {_words(rng, 8)}", "        ${v}", f"      region: &region-{b} eu-west-1",
                       f"      limit: &limit{b} {100 + b}", "      order:", f"        - &first{b} {rng.choice(_WORDS)}",
                       f"        - *first{b}"]
    shape = i % 4
    if shape == 0:
        return head + ["    params:", f"      model: *model{b}", f"      temperature: *temp{b}",
                       f"      system: *system{b}", f"      stop: *stops{b}"]
    if shape == 1:
        return head + [f"    params: {{model: *model{b}, temperature: *temp{b}, tools: *tools{b}, limit: *limit{b}}}"]
    if shape == 2:
        return head + ["    params:", "      models:", f"        - *model{b}", "        - gpt-4o",
                       f"      fallbacks: [*model{b}, gpt-4o, *first{b}]", f"      template: *prompt{b}"]
    return [f"  n{i}:", "    agent: stringTemplateAgent", "    inputs:", f"      v: :n{i - 1}",
            f"      stops: *stops{b}", "    params:", f"      template: *prompt{b}", f"      region: *region-{b}",
            f"      tags: [*region-{b}, *first{b}, *limit{b}]"]


# ----- empty_typed: empty values, and strings that look like other types -----

def _empty_typed(i: int, rng: random.Random) -> list[str]:
    shape = i % 4
    if shape == 3:
        return [f"  n{i}:", "    agent: copyAgent", f"    inputs: {{v: ':n{i - 1}', flag: 'false', mark: \"\"}}",
                "    params: {namedKey: v, separator: ''}"]
    if shape == 0:
        return [f"  n{i}:", "    agent: copyAgent", "    inputs:", f"      v: :n{i - 1}", "      extra:",
                "      text: ''", '      note: ""', "      list: []", "      map: {}",
                "      nested: {a: [], b: {}, c: '', d: \"\", e: null, f: ~}", "    params:", "      namedKey: v",
                "    console: {}"]
    if shape == 1 and i % 8 == 1:
        return [f"  n{i}:", "    value:", '      version: "0.5"', "      ratio: 0.5", "      flag: 'true'",
                "      strict: true", '      word: "null"', "      none: null", '      limit: "1e3"', "      big: 1e3",
                "      code: '007'", "      code_plain: 007", f'      id: "{i}"', f"      count: {i}",
                f"      label: {rng.choice(_WORDS)}"]
    if shape == 1:
        return [f"  n{i}:", "    value:", "      neg: '-1'", "      neg_plain: -1", "      yes_word: yes",
                "      no_quoted: 'no'", "      off_word: off", "      tilde: '~'", '      dash: "-"',
                "      hex: '0x1F'",
                "      hex_plain: 0x1F", "      dot: '.5'", "      dot_plain: .5", '      inf: ".inf"',
                "      list_text: '[]'", '      map_text: "{}"']
    return [f"  n{i}:", "    agent: arrayJoinAgent", "    inputs:", "      array:", f"        - :n{i - 1}", "        -",
            "        - ''", "        - []", "        - {}", '        - ""', '        - "0"', "        - 0",
            "        - ~", "    params:", '      separator: ""', "      empty_seq: [ ]", "      empty_map: { }",
            "      flow: [~, null, '', \"\", [], {}, 'false', false]", "    isResult:"]


# ----- whitespace_markers: document markers, trailing spaces, blank lines of spaces, block scalars -----

def _whitespace(i: int, rng: random.Random) -> list[str]:
    shape = i % 4
    if shape == 0:
        return [f"  n{i}:  ", "    agent: stringTemplateAgent   ", "    inputs:  ", f"      v: :n{i - 1} ",
                "    params: ", "      template: |-  ", f"        {_words(rng, 6)}   ", "        ",
                f"        {_words(rng, 5)}", "          ", "   ", "          ${v}  ", "    isResult: true  ", "    "]
    if shape == 1:
        return [f"  n{i}:", "    agent: stringTemplateAgent", "    inputs:", f"      v: :n{i - 1}", "    params:",
                "      template: >+", f"        {_words(rng, 7)}", f"        {_words(rng, 7)}", "      ",
                f"        {_words(rng, 4)} ${{v}}", "", "        ", "      note: 'after the kept lines'  ", ""]
    if shape == 2:
        return [f"  n{i}:", "    agent: stringTemplateAgent", "    inputs:", f"      v: :n{i - 1}", "    params:",
                "      template: |2", f"          {_words(rng, 5)}", f"        {_words(rng, 6)}", "  ",
                "        ${v}", "      footer: >-   ", f"        {_words(rng, 5)}", "", f"        {_words(rng, 4)}",
                "        ", "      keep: |+", f"        {_words(rng, 3)}", "", "    ", "  "]
    return [f"  n{i}:", "    agent: copyAgent  ", f"    inputs: {{v: ':n{i - 1}'}}   ", "    params: {namedKey: v} ",
            "    description: 'quoted, with spaces after it'   ", f'    label: "{_words(rng, 3)}"  ',
            f"    summary: {_words(rng, 4)}   ", f"      {_words(rng, 4)}  ", "    anyInput: false   ", "  "]


# ----- long_prompts: long single-line double-quoted prompts -----

_ESCAPES = ("caf\\u00e9", "na\\u00efve", "\\x41PI", "\\t", "\\\"quoted\\\"", "C:\\\\data", "and\\/or", "\\u2014",
            "\\U0001F600", "\\n", "\\u65e5\\u672c", "r\\u00e9sum\\u00e9", "\\n\\n")
_TEXT = ("é", "naïve", "日本語", "→", "“smart quotes”", "$5", "50%", "a:b", "#1", "{x}", "[y]", "'single'")


def _prompt(i: int, rng: random.Random, size: int) -> str:
    """Double-quoted text of about `size` characters: sentences with templates, escapes and unicode."""
    parts: list[str] = []
    total = 0
    while total < size:
        sentence = []
        for _ in range(rng.randint(6, 18)):
            pick = rng.random()
            if pick < 0.06:
                sentence.append(rng.choice(_ESCAPES))
            elif pick < 0.09:
                back = max(0, i - rng.randint(1, 5))
                sentence.append(f"${{:n{back}.{rng.choice(('text', 'result', 'data.items'))}}}")
            elif pick < 0.12:
                sentence.append(rng.choice(_TEXT))
            else:
                sentence.append(rng.choice(_WORDS))
        text = " ".join(sentence)
        text = text[0].upper() + text[1:] + ("." if rng.random() < 0.8 else "?")
        parts.append(text)
        total += len(text) + 1
    return '"' + " ".join(parts) + '"'


def _long_prompts(i: int, rng: random.Random) -> list[str]:
    if i % 10 == 0:
        return [f"  n{i}:", "    agent: openAIAgent", "    inputs:",
                f"      prompt: {_prompt(i, rng, rng.randint(2048, 8192))}",
                f"      system: {_prompt(i, rng, 400)}", "    params:", "      model: gpt-4o", "    isResult: true"]
    if i % 10 in (3, 7):
        return [f"  n{i}:", "    agent: openAIAgent", "    inputs:", f"      prompt: {_prompt(i, rng, 300)}",
                f"      history: :n{i - 1}"]
    return [f"  n{i}:", "    agent: copyAgent", "    inputs:", f"      v: :n{i - 1}.text",
            f'      note: "{_words(rng, 4)} \\u00e9 ${{:n{i - 1}.text}}"', "    params: {namedKey: v}"]


# ----- flow_multiline: scalars over several lines inside flow collections -----

def _flow_multiline(i: int, rng: random.Random) -> list[str]:
    shape = i % 3
    if shape == 0:
        return [f"  n{i}:", "    agent: openAIAgent",
                f"    inputs: {{prompt: ':n{i - 1}', system: \"You are a {rng.choice(_WORDS)} assistant.",
                f"      Answer in \\\"{rng.choice(_WORDS)}\\\" only,",
                "      and cite sources.\", tags: [first tag, a tag over",
                "        two lines, 'single quoted", "        and it''s folded']}",
                f"    params: {{model: gpt-4o, note: plain text that {_words(rng, 3)}",
                "      goes on to a second line, temperature: 0.3}"]
    if shape == 1:
        return [f"  n{i}:", "    value: [", f"      {{q: what is {_words(rng, 2)}",
                "        over two lines, a: \"yes,",
                f"        {_words(rng, 3)}\"}},", "      'a single-quoted item", "", "      after a blank line',",
                f"      plain item over", f"        {_words(rng, 2)} lines,", f"      {i}", "    ]"]
    return [f"  n{i}:", "    agent: copyAgent",
            f"    inputs: {{v: ':n{i - 1}', text: \"first part, {_words(rng, 3)} \\",
            f"        second part\", list: [{_words(rng, 2)},", f"        {_words(rng, 2)}",
            "          still the item, last]}",
            "    params: {namedKey: v}"]


EVAL4: dict[str, Callable[[int], list[str]]] = {
    "zero_indent": seeded_chain(401, ["version: 0.5", "nodes:", "  n0:", "    value:", "    - start", "    - - 0"],
                                _zero_indent),
    "eol_comments": seeded_chain(402, ["version: 0.5  # GraphData's version", "nodes:  # the graph",
                                       "  n0:", "    value: start  # the first"], _eol_comments),
    "plain_punct": seeded_chain(403, _START, _plain_punct),
    "odd_keys": seeded_chain(404, ['"version": 0.5', "'nodes':", '  "n0":', "    'value': start"], _odd_keys),
    "nested_graphs": seeded_chain(405, _START, _nested),
    "anchored_scalars": seeded_chain(406, _START, _anchored),
    "empty_typed": seeded_chain(407, ["version: 0.5", "nodes:", "  n0:", "    value: {}"], _empty_typed),
    "whitespace_markers": _ended(seeded_chain(408, ["--- # a graph saved by an editor  ", "version: 0.5   ",
                                                    "nodes:  ", "  ", "  n0:", "    value: start  "], _whitespace),
                                 ["", "  ", "... # the end of the graph  ", "# saved by hand"]),
    "long_prompts": seeded_chain(409, _START, _long_prompts),
    "flow_multiline": seeded_chain(410, _START, _flow_multiline),
}
