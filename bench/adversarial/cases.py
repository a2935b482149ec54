"""The campaign's cases, surface by surface: each a graph file (or MCP messages) and the command that reads it.

A case is plain data (JSON), so the worker process that runs it can be killed when
it hangs: `files` (name -> JSON content with hostile placeholders), `argv` (the
`graphrt` command line, `{dir}` the case's folder), and what a right answer is
(`expect`: the results on stdout; `outside`: a file that must stay unread and unwritten).
"""

from __future__ import annotations

from typing import Any, Iterator

from .values import FEW, VALUES, h

SECRET = "sk-campaign-0123456789abcdefLEAK"
"""Planted as OPENAI_API_KEY and in MCP servers' env: it must never reach what a user or client reads."""
ENV_SECRET = "campaign-env-value-LEAK-42"
"""An MCP server's env value that looks like no key: only the config says it is one."""
OUTSIDE = "outside-secret-content-BREACH"
"""The content of a file outside every base folder."""

Case = dict[str, Any]

# Agents that need something no case gives (a person, a real model download): fed anyway, with the config below.
_INPUT_NAMES = ["text", "array", "item", "url", "rows", "messages", "prompt", "query", "name", "loopCount"]
_PARAM_HAZARDS = {"maxRetries", "maxRounds", "retryDelay", "timeout", "limit", "count", "chunkSize", "overlap",
                  "duration", "loopCount", "limitTokens", "resultNodeId", "template", "key", "baseURL"}


def _run_case(case_id: str, surface: str, nodes: dict[str, Any], *, extra: dict[str, Any] | None = None,
              argv: list[str] | None = None, expect: Any = None) -> Case:
    graph = {"version": 0.5, "nodes": nodes, **(extra or {})}
    return {"id": case_id, "surface": surface, "files": {"g.json": graph},
            "argv": argv or ["run", "-q", "{dir}/g.json"], "expect": expect}


def agent_cases(agents: dict[str, dict[str, Any]]) -> Iterator[Case]:
    """Every agent, each of its inputs (from its schema, or the usual names) fed each hostile value,
    and its riskier params fed a few; `agents` is name -> {inputs: [...], params: [...]}."""
    for name, schema in sorted(agents.items()):
        inputs = (schema["inputs"] or [n for n in _INPUT_NAMES[:3]])[:4]
        if name == "nestedAgent" and "loopCount" not in inputs:
            inputs.append("loopCount")
        graph = {"nestedAgent": {"n": {"value": 1}, "r": {"agent": "copyAgent", "inputs": {"x": ":n"},
                                                                "isResult": True}}}.get(name)
        for field in inputs:
            for value in VALUES:
                node = {"agent": name, "inputs": {field: ":s"}, "isResult": True}
                if graph is not None:
                    node["graph"] = {"version": 0.5, "nodes": graph}
                yield _run_case(f"agents/{name}/inputs.{field}/{value}", "agents",
                                {"s": {"value": h(value)}, "a": node})
        for param in [p for p in schema["params"] if p in _PARAM_HAZARDS][:5]:
            # A sleep of a billion milliseconds is what was asked for: the run's timeout is what ends it.
            argv = ["run", "-q", "{dir}/g.json", *(["--timeout", "3"] if param == "duration" else [])]
            for value in FEW:
                yield _run_case(f"agents/{name}/params.{param}/{value}", "agents",
                                {"s": {"value": "hello"}, "a": {"agent": name, "inputs": {"text": ":s"},
                                                                "params": {param: h(value)}, "isResult": True}},
                                argv=argv)


_NODE_FIELDS = ["retry", "timeout", "priority", "if", "unless", "defaultValue", "params", "inputs", "output",
                "passThrough", "console", "repeatUntil", "anyInput", "isResult", "label", "filterParams", "graph"]
_GRAPH_FIELDS = [("loop", "count"), ("loop", "while"), ("concurrency", None), ("concurrency", "global"), ("retry", None),
                 ("version", None), ("metadata", None)]
_FIELD_VALUES = ["billion", "int_at_limit", "int_past_float", "neg_past_float", "e18", "float_max", "minus_one",
                 "str_10mb", "digits_5000", "surrogate", "nul", "deep_list", "wide_dict", "null", "empty"]


def field_cases() -> Iterator[Case]:
    """Every GraphData field given each hostile value, through run, validate and viz."""
    for field in _NODE_FIELDS:
        for value in _FIELD_VALUES:
            nodes = {"s": {"value": 1}, "a": {"agent": "copyAgent", "inputs": {"x": ":s"}, field: h(value),
                                               "isResult": True}}
            if field == "inputs":
                nodes["a"]["inputs"] = {"x": h(value)}
            for command in ("run", "validate", "viz"):
                yield _run_case(f"fields/node.{field}/{value}/{command}", "fields", nodes,
                                argv=[command, *(["-q"] if command == "run" else []), "{dir}/g.json"])
        for value in ("billion", "int_at_limit", "str_10mb", "surrogate"):  # a failing agent retried that often
            yield _run_case(f"fields/node.retry-of-a-failing-agent/{value}", "fields",
                            {"s": {"value": "nope"}, "a": {"agent": "jsonParserAgent", "inputs": {"text": ":s"},
                                                           "retry": h(value), "isResult": True}})
    for key, sub in _GRAPH_FIELDS:
        for value in _FIELD_VALUES:
            extra = {key: {sub: h(value)} if sub else h(value)}
            nodes = {"s": {"value": 1}, "a": {"agent": "copyAgent", "inputs": {"x": ":s"}, "isResult": True}}
            for command in ("run", "validate", "viz"):
                yield _run_case(f"fields/graph.{key}{'.' + sub if sub else ''}/{value}/{command}", "fields", nodes,
                                extra=extra, argv=[command, *(["-q"] if command == "run" else []), "{dir}/g.json"])
    for value in ("billion", "int_at_limit", "int_past_float", "str_10mb", "surrogate", "deep_list"):
        yield _run_case(f"fields/static.update/{value}", "fields",
                        {"s": {"value": 1, "update": h(value)}, "a": {"agent": "copyAgent", "inputs": {"x": ":s"},
                                                                        "isResult": True}}, extra={"loop": {"count": 2}})


_PROPS = ["add(1)", "add(" + "9" * 5000 + ")", "add(" + "9" * 400 + ")", "toNumber()", "toString()", "length()",
          "sum()", "max()", "min()", "average()", "equal(1)", "slice(" + "9" * 5000 + ")", "split(,)", "join(,)",
          "keys()", "values()", "toJSON()", "jsonParse()", "trim()", "codeBlock()", "not()", "$0", "$last",
          "default(" + "9" * 5000 + ")", "flat()", "isEmpty()"]
_PROP_VALUES = ["int_at_limit", "int_past_float", "neg_past_float", "digits_5000", "ints_past_float", "str_10mb",
                "words_2mb", "million_list", "float_max"]


def prop_cases() -> Iterator[Case]:
    """Each prop function applied to each hostile value, in every field that reads a reference."""
    for prop in _PROPS:
        for value in _PROP_VALUES:
            ref = f":s.{prop}"
            places = {
                "inputs": ({"s": {"value": h(value)}, "a": {"agent": "copyAgent", "inputs": {"x": ref}, "isResult": True}}, None),
                "if": ({"s": {"value": h(value)}, "a": {"agent": "copyAgent", "inputs": {"x": 1}, "if": ref,
                                                         "isResult": True}}, None),
                "unless": ({"s": {"value": h(value)}, "a": {"agent": "copyAgent", "inputs": {"x": 1}, "unless": ref,
                                                             "isResult": True}}, None),
                "update": ({"s": {"value": h(value), "update": ref}, "a": {"agent": "copyAgent", "inputs": {"x": ":s"},
                                                                            "isResult": True}}, {"loop": {"count": 2}}),
                "while": ({"s": {"value": h(value)}, "a": {"agent": "copyAgent", "inputs": {"x": 1}, "isResult": True}},
                          {"loop": {"while": ref}}),
                "output": ({"s": {"value": h(value)}, "a": {"agent": "copyAgent", "inputs": {"x": ":s"},
                                                             "output": {"y": f".x.{prop}"}, "isResult": True}}, None),
                "passThrough": ({"s": {"value": h(value)}, "a": {"agent": "copyAgent", "inputs": {"x": 1},
                                                                  "passThrough": {"p": ref}, "isResult": True}}, None),
                "template": ({"s": {"value": h(value)}, "a": {"agent": "copyAgent", "inputs": {"x": "<${" + ref + "}>"},
                                                               "isResult": True}}, None),
            }
            for place, (nodes, extra) in places.items():
                # A loop whose condition stays true is endless by design (in GraphAI too): the run's timeout ends it.
                argv = ["run", "-q", "{dir}/g.json", *(["--timeout", "3"] if place == "while" else [])]
                yield _run_case(f"props/{place}/{prop[:24]}/{value}", "props", nodes, extra=extra, argv=argv)
            if value in ("int_at_limit", "int_past_float"):
                yield _run_case(f"props/inputs/{prop[:24]}/{value}/validate", "props", places["inputs"][0],
                                argv=["validate", "{dir}/g.json"])
                yield _run_case(f"props/inputs/{prop[:24]}/{value}/viz", "props", places["inputs"][0],
                                argv=["viz", "{dir}/g.json"])


def file_cases() -> Iterator[Case]:
    """Whole files: very wide, long chains, huge values in many nodes; through validate, viz and run."""
    shapes = {
        "wide-20000": {f"n{i}": {"value": i} for i in range(20_000)},
        "wide-computed-5000": {"s": {"value": 1}, **{f"n{i}": {"agent": "copyAgent", "inputs": {"x": ":s"}}
                                                      for i in range(5_000)}},
        "fan-in-3000": {**{f"n{i}": {"value": i} for i in range(3_000)},
                        "all": {"agent": "copyAgent", "inputs": {f"i{i}": f":n{i}" for i in range(3_000)}, "isResult": True}},
        "chain-3000": {"n0": {"value": 0}, **{f"n{i}": {"agent": "copyAgent", "inputs": {"x": f":n{i - 1}"}}
                                              for i in range(1, 3_000)}},
        "dangling-2000": {"s": {"value": 1}, **{f"n{i}": {"agent": "copyAgent", "inputs": {"x": f":missing{i}"}}
                                                for i in range(2_000)}},
        "big-ints-1000": {"s": {"value": 1}, **{f"n{i}": {"agent": "copyAgent", "inputs": {"x": ":s.add(" + "9" * 5000 + ")"}}
                                                for i in range(1_000)}},
        "long-ids": {"x" * 100_000: {"value": 1}, "a": {"agent": "copyAgent", "inputs": {"x": ":" + "x" * 100_000}}},
    }
    for name, nodes in shapes.items():
        for command in ("validate", "viz", "run"):
            yield _run_case(f"files/{name}/{command}", "files", nodes,
                            argv=[command, *(["-q"] if command == "run" else []), "{dir}/g.json"])


def inject_cases() -> Iterator[Case]:
    """Hostile values given on the command line (`-i`), copied through and compared with what went in."""
    for value in VALUES:
        yield {"id": f"inject/{value}", "surface": "inject", "files": {"g.json": {
            "version": 0.5, "nodes": {"s": {"value": 0}, "a": {"agent": "copyAgent", "inputs": {"x": ":s"},
                                                               "isResult": True}}}},
               "argv": ["run", "-q", "{dir}/g.json", "-i", {"$inject": "s", "value": h(value)}],
               "expect": {"a": {"x": h(value)}}}


def confinement_cases() -> Iterator[Case]:
    """File agents, the shell agent and graphLoader asked to leave their folder: a breach if they do."""
    paths = ["../outside.txt", "{root}/outside.txt", "sub/../../outside.txt", "link-out/outside.txt", "link-file",
             "/etc/passwd", "\0", "x" * 100_000]
    for path in paths:
        yield {"id": f"confinement/fileReadAgent/{path[:20]}", "surface": "confinement",
               "files": {"g.json": {"version": 0.5, "nodes": {"a": {"agent": "fileReadAgent", "inputs": {"file": path},
                                                                     "params": {"baseDir": "{dir}/base"}, "isResult": True}}}},
               "argv": ["run", "-q", "{dir}/g.json"]}
        yield {"id": f"confinement/fileWriteAgent/{path[:20]}", "surface": "confinement",
               "files": {"g.json": {"version": 0.5, "nodes": {"a": {"agent": "fileWriteAgent",
                                                                     "inputs": {"file": path, "text": "written"},
                                                                     "params": {"baseDir": "{dir}/base"}, "isResult": True}}}},
               "argv": ["run", "-q", "{dir}/g.json"]}
        yield {"id": f"confinement/graphLoader/{path[:20]}", "surface": "confinement",
               "files": {"g.json": {"version": 0.5, "nodes": {"s": {"value": 1}, "a": {
                   "agent": "nestedAgent", "inputs": {"x": ":s"}, "graphLoader": {"fileName": path}, "isResult": True}}}},
               "argv": ["run", "-q", "{dir}/base/g.json"], "graph_in_base": True}
    for command in (["touch", "{root}/shell-ran"], ["sh", "-c", "touch {root}/shell-ran"]):
        yield {"id": f"confinement/runShellAgent/{command[0]}", "surface": "confinement",
               "files": {"g.json": {"version": 0.5, "nodes": {"a": {"agent": "runShellAgent",
                                                                     "inputs": {"commandArgs": command}, "isResult": True}}}},
               "argv": ["run", "-q", "{dir}/g.json"]}


def leak_cases() -> Iterator[Case]:
    """Errors that could quote a key: an LLM server that is down, a URL with a password, a key as a param."""
    nodes = {
        "openai-down": {"a": {"agent": "openAIAgent", "inputs": {"prompt": "hi"},
                              "params": {"baseURL": "http://127.0.0.1:9/v1", "maxRetries": 0}, "isResult": True}},
        "openai-key-param": {"a": {"agent": "openAIAgent", "inputs": {"prompt": "hi"},
                                   "params": {"apiKey": SECRET, "baseURL": "http://127.0.0.1:9/v1", "maxRetries": 0},
                                   "isResult": True}},
        "fetch-password": {"a": {"agent": "vanillaFetchAgent", "inputs": {"url": f"http://u:{SECRET}@127.0.0.1:9/x"},
                                 "isResult": True}},
        "fetch-query-key": {"a": {"agent": "vanillaFetchAgent", "inputs": {"url": f"http://127.0.0.1:9/x?api_key={SECRET}"},
                                  "isResult": True}},
        "copy-key-in-error": {"s": {"value": SECRET}, "a": {"agent": "jsonParserAgent", "inputs": {"text": ":s"},
                                                            "isResult": True}},
    }
    for name, graph_nodes in nodes.items():
        for argv in (["run", "-q", "{dir}/g.json"], ["run", "{dir}/g.json", "--trace", "{dir}/trace.jsonl"]):
            yield {"id": f"leaks/{name}/{'trace' if '--trace' in argv else 'run'}", "surface": "leaks",
                   "files": {"g.json": {"version": 0.5, "nodes": graph_nodes}}, "argv": argv, "read_trace": "--trace" in argv}


def checkpoint_cases() -> Iterator[Case]:
    """Hostile values through a checkpointed run and its resume: the resumed results must be the run's."""
    for value in VALUES:
        yield {"id": f"checkpoint/{value}", "surface": "checkpoint", "files": {"g.json": {
            "version": 0.5, "nodes": {"s": {"value": h(value)}, "a": {"agent": "copyAgent", "inputs": {"x": ":s"},
                                                                      "isResult": True}}}},
               "argv": ["run", "-q", "{dir}/g.json", "--checkpoint", "{dir}/runs.db", "--run-id", "r1"],
               "then": ["resume", "-q", "--checkpoint", "{dir}/runs.db", "--run-id", "r1"]}


def tool_cases() -> Iterator[Case]:
    """toolsAgent and openAIAgent against the campaign's LLM: hostile tool arguments, round and retry counts."""
    for value in [*VALUES, "raw_5mb"]:
        yield _run_case(f"tools/toolsAgent/tool-argument/{value}", "tools", {"a": {
            "agent": "toolsAgent", "inputs": {"tools": ["wikiAgent"], "userInput": {"text": "look it up"}},
            "params": {"llmModel": f"campaign/tool-arg/{value}"}, "isResult": True}})
    for value in FEW:
        yield _run_case(f"tools/toolsAgent/maxRounds/{value}", "tools", {"a": {
            "agent": "toolsAgent", "inputs": {"tools": ["wikiAgent"], "userInput": {"text": "look it up"}},
            "params": {"llmModel": "campaign/always-tools", "maxRounds": h(value)}, "isResult": True}})
        yield _run_case(f"tools/openAIAgent/maxRetries-server-down/{value}", "tools", {"a": {
            "agent": "openAIAgent", "inputs": {"prompt": "hi"},
            "params": {"baseURL": "http://127.0.0.1:9/v1", "maxRetries": h(value), "retryDelay": 0}, "isResult": True}})


SURFACES = {
    "agents": None,  # needs the registry: see __main__
    "fields": field_cases,
    "props": prop_cases,
    "files": file_cases,
    "inject": inject_cases,
    "confinement": confinement_cases,
    "leaks": leak_cases,
    "checkpoint": checkpoint_cases,
    "tools": tool_cases,
    "mcp": None,  # graphrt mcp over stdio: see mcp.py
}
