"""The JSON Schema of a graph's inputs: what a caller may inject (MCP's tool schemas, serve's OpenAPI document).

A graph's inputs are its static nodes without `update` (loop state is not an
input), each typed after its value, which is also the default; a static node
without a value is required. The graph's `metadata.inputs` may add JSON Schema
per input (a `description`, a `type` for a required input, an `enum`).

A schema is shown to clients, so a default never carries a credential: none is
listed for an input named like a key, and credentials written in others (a URL's
password) are masked.
"""

from __future__ import annotations

from typing import Any

from graphrt.base.jsvalue import UNDEFINED, to_json_compatible
from graphrt.base.secrets import SECRET_KEY, Redactor
from graphrt.graphdata.refs import LOOP_COUNTER
from graphrt.graphdata.spec import GraphSpec

__all__ = ["inputs_schema"]

_REDACTOR = Redactor({})  # credentials written in a graph (the environment's are for a run's answers)
_JSON_TYPES = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"), (list, "array"), (dict, "object"))


def _json_type(value: Any) -> str | None:
    for python_type, name in _JSON_TYPES:
        if isinstance(value, python_type):
            return name
    return None


def inputs_schema(spec: GraphSpec, graph_data: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema of a compiled graph's injectable inputs (`graph_data` for its `metadata.inputs`)."""
    metadata = graph_data.get("metadata") if isinstance(graph_data.get("metadata"), dict) else {}
    written_inputs = metadata.get("inputs") if isinstance(metadata.get("inputs"), dict) else {}
    properties: dict[str, Any] = {}
    required: list[str] = []
    for node in spec.statics:
        if node.node_id == LOOP_COUNTER or node.node_id.startswith("__") or node.update is not None:
            continue
        prop: dict[str, Any] = {}
        if node.value is UNDEFINED or node.value is None:
            required.append(node.node_id)
        else:
            kind = _json_type(node.value)
            if kind is not None:
                prop["type"] = kind
            if not SECRET_KEY.search(node.node_id):  # a key written in the graph is no default to show a client
                prop["default"] = _REDACTOR.value(to_json_compatible(node.value))
        written = written_inputs.get(node.node_id)
        properties[node.node_id] = {**prop, **written} if isinstance(written, dict) else prop
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema
