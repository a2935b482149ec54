"""Every agent's reference page, made from its function info, as GraphAI's agent docs are made from agent info.

One page per pack (`graphrt_agents.PACKS`), each agent with its description, what it needs installed,
its inputs, params and output schemas, its tools, config and samples; and an index of every agent, with
GraphAI's agents graphrt lacks and why (`UNAVAILABLE`). An agent whose pack's extra is not installed where
the site is built cannot be read: its section says so, and `missing` names it (the build's hook warns, so
that `mkdocs build --strict` fails where an extra is missing: CI's full pass installs every one).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from docsite.markdown import cell, fenced, json_block

__all__ = ["AgentPages", "agent_pages", "pack_pages"]


@dataclass
class AgentPages:
    """The pages by their path under docs/, and the agents that could not be read."""

    pages: dict[str, str] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)


def _summary(description: str) -> str:
    return description.strip().split("\n\n")[0].replace("\n", " ") if description else ""


def _schema_type(schema: Any) -> str:
    if not isinstance(schema, dict) or not schema:
        return "any"
    kind = schema.get("type")
    if "enum" in schema:
        return " \\| ".join(f"`{json.dumps(value)}`" for value in schema["enum"])
    for combined in ("anyOf", "oneOf"):
        if combined in schema:
            return " or ".join(_schema_type(part) for part in schema[combined])
    if isinstance(kind, list):
        return " or ".join(f"`{part}`" for part in kind)
    if kind == "array" and isinstance(schema.get("items"), dict):
        return f"array of {_schema_type(schema['items'])}"
    return f"`{kind}`" if kind else "any"


def _schema(title: str, schema: Any) -> list[str]:
    """A schema as a table of its properties when it is a plain object, else as JSON."""
    if not schema:
        return []
    properties = schema.get("properties") if isinstance(schema, dict) else None
    simple = isinstance(properties, dict) and set(schema) <= {"type", "properties", "required", "additionalProperties",
                                                            "description"}
    if not simple:
        return [f"**{title}**", "", json_block(schema), ""]
    required = set(schema.get("required") or ())
    rows = [f"**{title}**", "", "| name | type | required | description |", "| --- | --- | --- | --- |"]
    for name, value in properties.items():
        has_default = isinstance(value, dict) and "default" in value
        default = f" (default: `{json.dumps(value['default'])}`)" if has_default else ""
        description = value.get("description", "") if isinstance(value, dict) else ""
        rows.append(f"| `{name}` | {_schema_type(value)} | {'yes' if name in required else ''} | "
                    f"{cell(description + default)} |")
    return rows + [""]


def _facts(info: Any, pack: Any) -> list[str]:
    extra = f"`pip install 'graphrt[{pack.extra}]'`" if pack and pack.extra else "nothing more than graphrt"
    facts = [("pack", f"`{pack.name}`" if pack else ""), ("needs", extra),
             ("GraphAI package", f"`{info.package}`" if info.package else ""),
             ("category", ", ".join(info.category)), ("cache type", info.cache_type or ""),
             ("environment variables", ", ".join(f"`{name}`" for name in info.environment_variables)),
             ("streams tokens", "yes" if info.stream else ""),
             ("runs graphs", "yes (its node's `graph`)" if info.has_graph_data else ""),
             ("runs in the driver under an executor", "yes" if info.runs_local else ""),
             ("keeps state between calls", "yes" if info.stateful else ""), ("license", info.license)]
    return ["| | |", "| --- | --- |", *[f"| {key} | {cell(value)} |" for key, value in facts if value], ""]


_UNDEFINED_MARK = "\u0000undefined\u0000"


def _value(value: Any) -> str:
    """A sample's value as JSON (JavaScript's `undefined` written as such), on one line when it is short."""
    from graphrt.base.jsvalue import UNDEFINED

    def default(item: Any) -> Any:
        return _UNDEFINED_MARK if item is UNDEFINED else str(item)

    def dumps(indent: int | None) -> str:
        return json.dumps(value, indent=indent, ensure_ascii=False, default=default).replace(
            json.dumps(_UNDEFINED_MARK), "undefined")

    short = dumps(None)
    return short if len(short) <= 100 else dumps(2)


def _samples(info: Any) -> list[str]:
    parts: list[str] = []
    for number, sample in enumerate(info.samples, 1):
        title = sample.description or f"Sample {number}"
        body = [f"inputs: {_value(sample.inputs)}", f"params: {_value(sample.params)}"]
        if sample.graph is not None:
            body.append(f"graph: {_value(sample.graph)}")
        body.append(f"result: {_value(sample.result)}")
        indented = "    " + fenced("\n".join(body), "yaml").replace("\n", "\n    ")
        parts += [f'??? example "{cell(title)}"', "", indented, ""]
    return parts


def _agent(info: Any, pack: Any) -> list[str]:
    parts = [f"## {info.name}", ""]
    if info.description:
        parts += [info.description.strip(), ""]
    parts += _facts(info, pack)
    for title, schema in (("inputs", info.inputs), ("params", info.params), ("output", info.output),
                          ("config", info.config)):
        parts += _schema(title, schema)
    if info.tools:
        parts += ["**tools** (as an LLM sees them through toolsAgent)", "", "| tool | description |", "| --- | --- |"]
        parts += [f"| `{tool.get('function', {}).get('name')}` | "
                  f"{cell(tool.get('function', {}).get('description', ''))} |"
                  for tool in info.tools]
        parts.append("")
    if info.samples:
        parts += [f"**samples** ({len(info.samples)}; `graphrt test-agents {info.name}` runs them)", ""]
        parts += _samples(info)
    return parts


def _packs_in_order() -> list[str]:
    """The packs' names, in the order of the index's agents (without importing any agent)."""
    import graphrt_agents
    from graphrt.authoring.plugins import make_registry

    registry = make_registry(None)
    names: list[str] = []
    for name in graphrt_agents.INDEX.names():
        pack = registry.pack_of(name)
        if (pack.name if pack else "other") not in names:
            names.append(pack.name if pack else "other")
    return names


def pack_pages() -> list[str]:
    """Each pack's page, by its path under docs/."""
    return [f"reference/agents/{name}.md" for name in _packs_in_order()]


def agent_pages() -> AgentPages:
    """The pages `reference/agents/index.md` and `reference/agents/PACK.md`, from the installed agents."""
    import graphrt_agents
    from graphrt.authoring.plugins import make_registry

    registry = make_registry(None)
    result = AgentPages()
    by_pack: dict[str, list[str]] = {}
    for name in graphrt_agents.INDEX.names():
        pack = registry.pack_of(name)
        by_pack.setdefault(pack.name if pack else "other", []).append(name)
    index = ["# Agents", "",
             f"Every agent graphrt ships, {sum(map(len, by_pack.values()))} in {len(by_pack)} packs, generated from "
             "each agent's function info when this site was built (`graphrt agents NAME --json` prints the same). "
             "[The packs and their extras](../../how-to/packs.md) says how to install a pack; "
             "[writing an agent](../../tutorials/first-agent.md) how function info is made.", "",
             "| agent | pack | needs | what it does |", "| --- | --- | --- | --- |"]
    for pack_name, names in by_pack.items():
        page = [f"# The `{pack_name}` pack", ""]
        for name in sorted(names, key=str.lower):
            pack = registry.pack_of(name)
            needs = f"`graphrt[{pack.extra}]`" if pack and pack.extra else ""
            reason = registry.why_unavailable(name)
            if reason:
                result.missing.append(name)
                page += [f"## {name}", "", f"!!! warning \"Not installed where this page was built\"", "",
                         f"    {reason}", ""]
                index.append(f"| [{name}]({pack_name}.md#{name.lower()}) | `{pack_name}` | {needs} | |")
                continue
            info = registry[name]
            page += _agent(info, pack)
            index.append(f"| [{name}]({pack_name}.md#{name.lower()}) | `{pack_name}` | {needs} | "
                         f"{cell(_summary(info.description))} |")
        result.pages[f"reference/agents/{pack_name}.md"] = "\n".join(page).rstrip() + "\n"
    index += ["", "## GraphAI's agents that graphrt does not have", "",
              "Validation names them as not available, with why, instead of \"unknown agent\".", "",
              "| agent | GraphAI package | why | instead |", "| --- | --- | --- | --- |"]
    for name, unavailable in graphrt_agents.UNAVAILABLE.items():
        index.append(f"| `{name}` | `{cell(unavailable.graphai_package)}` | {cell(unavailable.reason)} | "
                     f"{cell(unavailable.instead or '')} |")
    result.pages["reference/agents/index.md"] = "\n".join(index) + "\n"
    return result
