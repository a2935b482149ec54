"""Checks beyond GraphAI's own rules, made before every run and by `graphrt validate`.

validate.py applies GraphAI's rules. This module adds what graphrt can tell
from the file and the agents' function info: the GraphData JSON Schema that
ships as graphdata.schema.json, nested graphs (a node's `graph:`, checked as
its agent's function info says the agent runs it: `nested_graph`), references
to properties that an agent's output schema does not list, literal inputs and
params that break an agent's schema, and nodes whose results nobody uses. GraphAI checks none of these, so they are warnings. The
only errors are those of a nested graph that is sure to run: GraphAI fails on
them too, only later, when the node runs.
"""

from __future__ import annotations

import functools
import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Container, Iterator

if TYPE_CHECKING:
    import jsonschema

from graphrt.authoring.agent_info import AgentInfo, NestedGraph
from graphrt.base.errors import ValidationIssue, describe_issue
from graphrt.base.patterns import LazyPattern
from graphrt.base.schema import quick_check_of, validator_of, violations
from graphrt.base.secrets import SECRET_KEY, hide_credentials
from graphrt.check.rules import rule_issues
from graphrt.graphdata.loader import GraphSource
from graphrt.graphdata.propfuncs import is_prop_function
from graphrt.graphdata.refs import NodeRef, graph_references, parse_ref, template_refs

__all__ = ["SCHEMA_FILE", "NestedIssue", "agent_info", "graphdata_schema", "lint_issues", "nested_graph"]

SCHEMA_FILE = Path(__file__).with_name("graphdata.schema.json")

_ARRAY_INDEX = LazyPattern(r"^\$(\d+|last)$")


@dataclass(frozen=True)
class NestedIssue(ValidationIssue):
    """An issue inside a node's nested graph: `node_id` is the outer node, `nested` the inner ones."""

    nested: tuple[str, ...] = ()

    def __str__(self) -> str:
        return describe_issue(self.message, self.node_id, self.field, self.location, self.nested)


@functools.cache
def graphdata_schema() -> dict[str, Any]:
    """The JSON Schema of GraphData that graphrt ships (graphdata.schema.json)."""
    return json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


@functools.cache
def _graph_validators() -> tuple[Any, Any]:
    """Validators of the graph without its nodes' insides, and of one node (the `$defs/node` of the same schema).

    A graph is checked as a whole and then node by node, so that nodes of the
    same shape (see `_node_shape`) are checked once.
    """
    schema = graphdata_schema()
    top = {**schema, "properties": {**schema["properties"], "nodes": {"type": "object", "minProperties": 1}}}
    import jsonschema  # on first use: importing it costs ~50 ms at start

    cls = jsonschema.validators.validator_for(schema)
    return cls(top), cls(schema).evolve(schema=schema["$defs"]["node"])


_ANY, _TYPE = "any", "type"


@functools.cache
def _node_properties() -> dict[bool, dict[str, str]]:
    """Per kind of node (computed: True), what the schema looks at in each property's value.

    `any`: nothing (only a description); `type`: only its JSON type. Every other
    property's value is looked at whole.
    """
    defs = graphdata_schema()["$defs"]
    kinds = {}
    for computed, name in ((True, "computedNode"), (False, "staticNode")):
        kinds[computed] = {
            key: _ANY if set(sub) <= {"description"} else _TYPE if set(sub) <= {"type", "description"} else ""
            for key, sub in defs[name]["properties"].items()
        }
    return kinds


def _node_shape(node: Any) -> tuple[Any, ...] | None:
    """All that the node schema can see of a node: nodes of one shape are valid or invalid together.

    A value the schema checks beyond its type is part of the shape as it is
    (as JSON text); None when that cannot be (a value that is not JSON).
    """
    if not isinstance(node, dict):
        return None
    computed = "agent" in node
    properties = _node_properties()[computed]
    parts: list[Any] = [computed]
    for key, value in node.items():
        how = properties.get(key, _ANY)  # an unknown key is an error whatever its value
        if how == _ANY:
            parts.append(key)
        elif how == _TYPE and not isinstance(value, float):  # 1.0 is an integer to JSON Schema, 1.5 is not
            parts.append((key, type(value)))
        else:
            try:
                parts.append((key, json.dumps(value, sort_keys=True, allow_nan=False)))
            except (TypeError, ValueError):
                return None
    return tuple(parts)


def _schema_errors(data: dict[str, Any]) -> Iterator[tuple[tuple[Any, ...], jsonschema.ValidationError]]:
    """Every error of the GraphData schema, with the path its error is under: `("nodes", id)` for a node's."""
    quick = quick_check_of(graphdata_schema())
    if quick is not None and quick(data):
        return  # valid, and jsonschema not even imported
    top, node_validator = _graph_validators()
    for error in top.iter_errors(data):
        yield (), error
    nodes = data.get("nodes")
    if not isinstance(nodes, dict):
        return
    valid_shapes: set[tuple[Any, ...]] = set()
    for node_id, node in nodes.items():
        shape = _node_shape(node)
        if shape is not None and shape in valid_shapes:
            continue
        found = False
        for error in node_validator.iter_errors(node):
            found = True
            yield ("nodes", node_id), error
        if not found and shape is not None:
            valid_shapes.add(shape)


def lint_issues(
    data: dict[str, Any],
    agents: Container[str],
    source: GraphSource | None,
    found: list[ValidationIssue],
    *,
    warnings: bool = True,
) -> list[ValidationIssue]:
    """The issues of `data` that validate.py's checks (`found`) do not cover.

    With `warnings=False` only the checks that can find errors run (nested
    graphs, cycles): the others cost milliseconds, more than a small run.
    """
    return _Linter(data, agents, source or GraphSource(), found, full=warnings).run()


def agent_info(agents: Container[str], agent: Any) -> AgentInfo | None:
    """The function info of a node's agent, if `agents` is a registry that has it (and can load it)."""
    why_unavailable = getattr(agents, "why_unavailable", None)
    if callable(why_unavailable) and isinstance(agent, str) and why_unavailable(agent):
        return None  # rules.py reports it; its module is not imported
    get = getattr(agents, "get", None)
    info = get(agent) if callable(get) and isinstance(agent, str) else None
    return info if isinstance(info, AgentInfo) else None


def nested_graph(node: dict[str, Any], info: AgentInfo | None) -> NestedGraph:
    """What the node's agent does with its `graph:`, as its function info says (`nested_graph`).

    An agent that says nothing gives the graph the node's inputs, and a problem in it is only a warning.
    """
    inputs = frozenset(node["inputs"]) if isinstance(node.get("inputs"), dict) else frozenset()
    if info is None or info.nested_graph is None:
        return NestedGraph(inputs)
    params = node.get("params") if isinstance(node.get("params"), dict) else {}
    return info.nested_graph(inputs, params)


def _is_literal(value: Any) -> bool:
    """True if the value is the same at every run: no reference, template or `@` utility in it."""
    if isinstance(value, str):
        return parse_ref(value) is None and not template_refs(value) and not value.startswith("@")
    if isinstance(value, list):
        return all(_is_literal(item) for item in value)
    if isinstance(value, dict):
        return all(_is_literal(item) for item in value.values())
    return True


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr) if not isinstance(value, str) else repr(value)
    text = hide_credentials(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _is_secret(path: list[str | int]) -> bool:
    """A value under a key such as `apiKey`: a message shows its type, never the value."""
    return any(isinstance(key, str) and SECRET_KEY.search(key) for key in path)


def _explain(error: jsonschema.ValidationError, under: tuple[Any, ...] = ()) -> Iterator[tuple[list[str | int], str]]:
    """A schema error as `(path, message)` pairs, in graphrt's words; `under` is where the validated value is."""
    path = [*under, *error.absolute_path]
    kind, expected, instance = error.validator, error.validator_value, error.instance
    if _is_secret(path) and kind not in ("additionalProperties", "required", "minProperties"):
        wanted = f"must be {' or '.join(expected) if isinstance(expected, list) else expected}" if kind == "type" else (
            f"does not fit the schema ({kind})")
        yield path, f"{wanted}, got {_json_type(instance)} (a credential: its value is not shown)"
        return
    if kind == "additionalProperties" and isinstance(instance, dict):
        known = error.schema.get("properties", {})
        for key in instance:
            if key not in known:
                yield [*path, key], f"unknown attribute '{key}' (allowed: {', '.join(known)})"
    elif kind == "type":
        types = " or ".join(expected) if isinstance(expected, list) else expected
        yield path, f"must be {'an' if types[0] in 'aeiou' else 'a'} {types}, got {_json_type(instance)} {_short(instance)}"
    elif kind in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        words = {"minimum": "at least", "exclusiveMinimum": "more than", "maximum": "at most", "exclusiveMaximum": "less than"}
        yield path, f"must be {words[kind]} {expected}, got {_short(instance)}"
    elif kind == "pattern" and expected == "^:.+":
        yield path, f"must be a reference like ':node.prop', got {_short(instance)}"
    elif kind == "minProperties" and expected == 1:
        yield path, "must not be empty"
    elif kind == "required":
        missing = [key for key in expected if isinstance(instance, dict) and key not in instance]
        yield path, f"'{missing[0] if missing else expected[0]}' is required"
    else:
        message = hide_credentials(error.message)
        yield path, message if len(message) <= 200 else message[:197] + "..."


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


class _Reported:
    """The places already reported (by validate.py, a nested graph's check, or this one), by node: a place is
    covered when it, a field it is under, or a field under it was reported (`console` covers `console.k1`, and
    `console.k1` covers `console`). Each question costs the field's depth, not the issues so far: a node with
    200,000 unknown keys was quadratic (the campaign's `validate` of a wide `console` ran for minutes)."""

    def __init__(self) -> None:
        self._fields: dict[str | None, set[str | None]] = {}
        self._above: dict[str | None, set[str]] = {}  # fields that a reported field is under

    def add(self, node_id: str | None, field: str | None) -> None:
        self._fields.setdefault(node_id, set()).add(field)
        if field is not None:
            parts = field.split(".")
            self._above.setdefault(node_id, set()).update(".".join(parts[:end]) for end in range(1, len(parts)))

    def covers(self, node_id: str | None, field: str | None) -> bool:
        fields = self._fields.get(node_id)
        if not fields:
            return False
        if field is None:
            return None in fields
        if field in fields or field in self._above.get(node_id, ()):
            return True
        parts = field.split(".")
        return any(".".join(parts[:end]) in fields for end in range(1, len(parts)))


class _Linter:
    """Collects the issues of one graph (and, through nested linters, of the graphs inside it)."""

    def __init__(
        self,
        data: dict[str, Any],
        agents: Container[str],
        source: GraphSource,
        found: list[ValidationIssue],
        injected: frozenset[str] = frozenset(),
        results_all: bool = False,
        full: bool = True,
    ) -> None:
        self.data = data
        self.agents = agents
        self.source = source
        self.found = found
        self.injected = injected
        self.results_all = results_all
        self.full = full
        self.issues: list[ValidationIssue] = []

    def add(self, message: str, node_id: str | None, field: str | None, severity: str = "warning") -> None:
        self.issues.append(ValidationIssue(message, node_id, field, self.source.locate_field(node_id, field), severity))

    def info(self, agent: Any) -> AgentInfo | None:
        return agent_info(self.agents, agent)

    def run(self) -> list[ValidationIssue]:
        nodes = self.data.get("nodes")
        nodes = nodes if isinstance(nodes, dict) else {}
        nested = set()
        for node_id, node in nodes.items():
            if isinstance(node, dict) and "agent" in node and isinstance(node.get("graph"), dict):
                self.check_nested(str(node_id), node)
                nested.add(node_id)
        if not self.full:
            for node_id, node in nodes.items():
                if isinstance(node, dict) and "agent" in node:
                    self.check_agent_schemas(str(node_id), node, errors_only=True)
            return self.issues
        self.check_schema(nested)
        if nodes:
            refs = list(graph_references(self.data))
            self.check_output_properties(refs, nodes)
            for node_id, node in nodes.items():
                if isinstance(node, dict) and "agent" in node:
                    self.check_agent_schemas(str(node_id), node)
            self.check_unused(refs, nodes)
        return self.issues

    # ----- GraphData schema -----

    def check_schema(self, nested: set[str]) -> None:
        reported = _Reported()
        for issue in itertools.chain(self.found, self.issues):
            reported.add(issue.node_id, issue.field)
        for under, error in _schema_errors(self.data):
            if callable(error.instance):
                continue  # an agent given as a Python function
            for path, message in _explain(error, under):
                if len(path) > 3 and path[0] == "nodes" and path[2] == "graph" and path[1] in nested:
                    continue  # the nested graph's own check reports it, with its injected nodes
                node_id = str(path[1]) if len(path) > 1 and path[0] == "nodes" else None
                parts = path[2:] if node_id is not None else path
                field = ".".join(str(part) for part in parts) or None
                if not reported.covers(node_id, field):
                    self.add(message, node_id, field)
                    reported.add(node_id, field)

    # ----- nested graphs -----

    def check_nested(self, node_id: str, node: dict[str, Any]) -> None:
        """Checks a node's `graph:` as the nested run will see it, with the node's inputs injected."""
        graph = node["graph"]
        run = nested_graph(node, self.info(node.get("agent")))
        names = run.inputs
        nested_nodes = graph.get("nodes")
        data = graph
        injected = frozenset()
        if isinstance(nested_nodes, dict) and nested_nodes:
            injected = frozenset(name for name in names if name not in nested_nodes)
            data = {**graph, "nodes": {**nested_nodes, **{name: {"value": None} for name in injected}}}
        source = self.source.nested("nodes", node_id, "graph")
        found = rule_issues(data, self.agents, source)
        inner = found + _Linter(data, self.agents, source, found, injected | names, run.all_results, self.full).run()
        # GraphAI fails on an invalid nested graph only when it runs it and does not suppress the error.
        sure_to_fail = run.fails_node and "if" not in node and "unless" not in node
        for issue in inner:
            severity = issue.severity if sure_to_fail else "warning"
            if issue.node_id is None:  # about the nested graph itself, e.g. its 'loop'
                field = "graph" + (f".{issue.field}" if issue.field else "")
                self.issues.append(NestedIssue(issue.message, node_id, field, issue.location, severity))
            else:
                nested = (issue.node_id, *getattr(issue, "nested", ()))
                self.issues.append(NestedIssue(issue.message, node_id, issue.field, issue.location, severity, nested))

    # ----- agent schemas -----

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
                self.add(f"'{ref.text}': {whose} has no property '{prop}'{has}", owner, field)

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
        if isinstance(info.params, dict) and isinstance(params, dict) and not (isinstance(inputs, dict) and "params" in inputs):
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
                self.add(f"{agent} needs {one} '{key}'", node_id, field)
        if schema.get("additionalProperties") is False and "patternProperties" not in schema:
            for key in values:
                if key not in properties and not (field == "inputs" and key == "params"):  # inputs.params overrides params
                    takes = f"it takes: {', '.join(properties)}" if properties else f"it takes no {field}"
                    self.add(f"{agent} takes no {one} '{key}' ({takes})", node_id, f"{field}.{key}")
        self.check_literals(node_id, field, values, properties, schema, agent, severity)

    def check_literals(self, node_id: str, field: str, values: dict[str, Any], properties: dict[str, Any],
                       schema: dict[str, Any], agent: str, severity: str) -> None:
        """Values written in the file (no reference in them) against their property's schema (within `schema`)."""
        one = field[:-1]
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
                for path, message in _explain(error, (key,)):
                    where = ".".join(str(part) for part in (field, *path))
                    self.add(f"{agent} {one} schema: {message}", node_id, where, severity)

    # ----- unused results -----

    def check_unused(self, refs: list[tuple[str | None, str, NodeRef]], nodes: dict[str, Any]) -> None:
        if self.results_all:
            return  # the agent returns every node's result (mapAgent's resultAll)
        used = {ref.node_id for owner, _, ref in refs if owner != ref.node_id}
        for node_id, node in nodes.items():
            node_id = str(node_id)
            if (
                not isinstance(node, dict)
                or node_id in used
                or node_id in self.injected
                or node_id.startswith("__")
                or node.get("isResult")
                or node.get("console")
            ):
                continue
            what = "result" if "agent" in node else "value"
            self.add(f"nothing uses this node's {what}: no node refers to it and it is not isResult", node_id, None)
