"""A node checked against its agent's function info: its inputs and params against the agent's schemas, and the
properties other nodes read of its result against the agent's output schema.

What can be told from the file alone: a missing or unknown input or param, a
literal value (no reference in it) that breaks its schema, a reference to a
property the result does not have. GraphAI checks none of these, so they are
warnings, but for an agent that checks its own inputs (`checks_inputs`): a literal
that breaks its schema fails the node whenever it runs, an error of the file.
"""

from __future__ import annotations

from typing import Any, Callable, Container

from graphrt.authoring.agent_info import AgentInfo
from graphrt.base.patterns import LazyPattern
from graphrt.graphdata.propfuncs import is_prop_function
from graphrt.graphdata.refs import NodeRef, parse_ref, template_refs

__all__ = ["AgentSchemas", "agent_info"]

_ARRAY_INDEX = LazyPattern(r"^\$(\d+|last)$")

Add = Callable[[str, "str | None", "str | None", str], None]
"""How an issue is reported: `add(message, node_id, field, severity)`."""


def agent_info(agents: Container[str], agent: Any) -> AgentInfo | None:
    """The function info of a node's agent, if `agents` is a registry that has it (and can load it)."""
    why_unavailable = getattr(agents, "why_unavailable", None)
    if callable(why_unavailable) and isinstance(agent, str) and why_unavailable(agent):
        return None  # rules.py reports it; its module is not imported
    get = getattr(agents, "get", None)
    info = get(agent) if callable(get) and isinstance(agent, str) else None
    return info if isinstance(info, AgentInfo) else None


def _is_literal(value: Any) -> bool:
    """True if the value is the same at every run: no reference, template or `@` utility in it."""
    if isinstance(value, str):
        return parse_ref(value) is None and not template_refs(value) and not value.startswith("@")
    if isinstance(value, list):
        return all(_is_literal(item) for item in value)
    if isinstance(value, dict):
        return all(_is_literal(item) for item in value.values())
    return True


def _missing_property(schema: Any, props: tuple[str, ...]) -> tuple[str, list[str]] | None:
    """The first of `props` that an object schema does not list: `(prop, listed)`, or None.

    Only `properties` count: a schema that allows more (`additionalProperties`
    or `patternProperties`), or that cannot be followed (`anyOf`, prop
    functions), says nothing.
    """
    for prop in props:
        if not isinstance(schema, dict) or is_prop_function(prop):
            return None
        types = schema.get("type")
        types = {types} if isinstance(types, str) else set(types or ())
        if _ARRAY_INDEX.match(prop):
            if types == {"array"}:
                schema = schema.get("items")
                continue
            return None
        properties = schema.get("properties")
        if not isinstance(properties, dict) or not types <= {"object"}:
            return None
        if prop in properties:
            schema = properties[prop]
            continue
        if schema.get("additionalProperties") not in (None, False) or "patternProperties" in schema:
            return None
        return prop, sorted(properties)
    return None


class AgentSchemas:
    """The checks of one graph's nodes against their agents' function info, reporting through `add`."""

    def __init__(self, agents: Container[str], add: Add) -> None:
        self.agents = agents
        self.add = add

    def info(self, agent: Any) -> AgentInfo | None:
        return agent_info(self.agents, agent)

    # ----- what other nodes read of a result -----

    def result_schema(self, node: Any) -> tuple[Any, str, set[str]] | None:
        """What a node's result looks like: (schema, whose, extra keys from passThrough), or None."""
        if not isinstance(node, dict) or "agent" not in node:
            return None  # static values can be injected: nothing is known
        extra = set(node["passThrough"]) if isinstance(node.get("passThrough"), dict) else set()
        output = node.get("output")
        if isinstance(output, dict):
            schema = {"type": "object", "properties": {key: {} for key in output}}
            return schema, "the node's 'output'", extra
        if output is not None:
            return None
        info = self.info(node.get("agent"))
        if info is None or not isinstance(info.output, dict):
            return None
        return info.output, f"{info.name}'s output", extra

    def check_output_properties(self, refs: list[tuple[str | None, str, NodeRef]], nodes: dict[str, Any]) -> None:
        for owner, field, ref in refs:
            if not ref.props:
                continue
            known = self.result_schema(nodes.get(ref.node_id))
            if known is None:
                continue
            schema, whose, extra = known
            if ref.props[0] in extra:
                continue
            missing = _missing_property(schema, ref.props)
            if missing is not None:
                prop, listed = missing
                has = f" (it has: {', '.join(listed)})" if listed else ""
                self.add(f"'{ref.text}': {whose} has no property '{prop}'{has}", owner, field, "warning")

    # ----- inputs and params -----

    def check_agent_schemas(self, node_id: str, node: dict[str, Any], errors_only: bool = False) -> None:
        """Inputs and params against the agent's schemas; `errors_only`: only what is sure to fail the run."""
        info = self.info(node.get("agent"))
        if info is None:
            return
        # An agent that checks its own inputs (its info says `checks_inputs`) fails on a literal that breaks
        # its schema whenever the node runs: an error. For any other agent, a warning.
        checks_inputs = info.checks_inputs
        if errors_only and not checks_inputs:
            return
        inputs = node.get("inputs")
        if isinstance(info.inputs, dict) and isinstance(inputs, dict) and not node.get("anyInput"):
            self.check_against_schema(node_id, "inputs", inputs, info.inputs, info.name, checks_inputs, errors_only)
        params = node.get("params")
        overridden_whole = isinstance(inputs, dict) and "params" in inputs  # inputs.params replaces them all
        if isinstance(info.params, dict) and isinstance(params, dict) and not overridden_whole:
            overridden = set(inputs) if isinstance(inputs, dict) else set()
            params = {key: value for key, value in params.items() if key not in overridden}
            self.check_against_schema(node_id, "params", params, info.params, info.name, checks_inputs, errors_only)

    def check_against_schema(self, node_id: str, field: str, values: dict[str, Any], schema: dict[str, Any], agent: str,
                             literal_errors: bool = False, errors_only: bool = False) -> None:
        """Checks what is statically known: missing and unknown keys (warnings), and literal values.

        A literal that breaks the schema is an error when `literal_errors` (the agent refuses it at run time).
        """
        properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        one = field[:-1]  # "input", "param"
        severity = "error" if literal_errors else "warning"
        if errors_only:
            self.check_literals(node_id, field, values, properties, schema, agent, severity)
            return
        for key in schema.get("required") or ():
            if key not in values:
                self.add(f"{agent} needs {one} '{key}'", node_id, field, "warning")
        if schema.get("additionalProperties") is False and "patternProperties" not in schema:
            for key in values:
                # inputs.params overrides params: not an unknown input
                if key not in properties and not (field == "inputs" and key == "params"):
                    takes = f"it takes: {', '.join(properties)}" if properties else f"it takes no {field}"
                    self.add(f"{agent} takes no {one} '{key}' ({takes})", node_id, f"{field}.{key}", "warning")
        self.check_literals(node_id, field, values, properties, schema, agent, severity)

    def check_literals(self, node_id: str, field: str, values: dict[str, Any], properties: dict[str, Any],
                       schema: dict[str, Any], agent: str, severity: str) -> None:
        """Values written in the file (no reference in them) against their property's schema (within `schema`)."""
        one = field[:-1]
        # Imported on first use: a run checks the literals of agents that check their own inputs only, so most
        # runs import neither (nor jsonschema, which a schema too rich for base/quick_check.py needs).
        from graphrt.base.schema import validator_of, violations
        from graphrt.check.graphdata_schema import explain

        for key, value in values.items():
            subschema = properties.get(key)
            if not isinstance(subschema, (dict, bool)) or not _is_literal(value):
                continue
            try:
                if isinstance(subschema, dict) and not violations(subschema, value):
                    continue  # valid: a cached validator, and no jsonschema at all for a simple schema
            except Exception:  # noqa: BLE001 - e.g. a $ref that only the whole schema resolves: ask it below
                pass
            for error in validator_of(schema).evolve(schema=subschema).iter_errors(value):
                for path, message in explain(error, (key,)):
                    where = ".".join(str(part) for part in (field, *path))
                    self.add(f"{agent} {one} schema: {message}", node_id, where, severity)
