"""The JSON Schemas of the events a run's stream sends, made from the event classes so none is left out.

Every engine event (graphrt.observe.events: NodeInterrupted, NodeAborted and any
added later) is sent as its dataclass's fields with `type` naming the class; an
event of a node's state (a NodeTransition) has the `state` the run left the node in
among them. Two records are the server's
own: RunStatus (the run's status changed) and EventsMissed (a reader came back
after records it can no longer have).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from graphrt.base.states import NodeState, RunStatus
from graphrt.observe.events import Event

__all__ = ["event_classes", "event_schemas"]

# An annotation's text (the event modules use `from __future__ import annotations`) as JSON Schema.
_TYPES: dict[str, dict[str, Any]] = {
    "str": {"type": "string"},
    "int": {"type": "integer"},
    "float": {"type": "number"},
    "bool": {"type": "boolean"},
    "str | None": {"type": ["string", "null"]},
    "int | None": {"type": ["integer", "null"]},
    "float | None": {"type": ["number", "null"]},
    "dict[str, Any] | None": {"type": ["object", "null"]},
    "tuple[str | int, ...]": {"type": "array", "items": {"type": ["string", "integer"]},
                              "description": "the nested graphs it happened in: node ids, with map row indexes"},
    "NodeState": {"type": "string", "enum": [state.value for state in NodeState],
                  "description": "the state this event leaves the node in"},
}


def event_classes() -> list[type[Event]]:
    """Every concrete event class, in the order they are defined (subclasses after their base)."""
    found: list[type[Event]] = []
    pending = list(Event.__subclasses__())
    while pending:
        cls = pending.pop(0)
        if cls not in found:
            found.append(cls)
            pending[:0] = cls.__subclasses__()
    return found


def _schema_of(cls: type[Event]) -> dict[str, Any]:
    properties: dict[str, Any] = {"type": {"const": cls.__name__}}
    required = ["type"]
    for field in dataclasses.fields(cls):
        annotation = field.type if isinstance(field.type, str) else getattr(field.type, "__name__", "")
        properties[field.name] = dict(_TYPES.get(annotation, {}))
        if field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            required.append(field.name)
    schema: dict[str, Any] = {"type": "object", "required": required, "properties": properties}
    doc = (cls.__doc__ or "").strip().split("\n\n")[0]
    if doc:
        schema["description"] = " ".join(doc.split())
    return schema


def event_schemas() -> dict[str, dict[str, Any]]:
    """A schema per event record's `type`: the engine's events, then the server's RunStatus and EventsMissed."""
    schemas = {cls.__name__: _schema_of(cls) for cls in event_classes()}
    schemas["RunStatus"] = {
        "type": "object", "required": ["type", "run_id", "status", "nodes"],
        "description": "The run's status changed; it carries what GET /runs/{id} shows of the outcome.",
        "properties": {"type": {"const": "RunStatus"}, "run_id": {"type": "string"}, "time": {"type": "number"},
                       "status": {"type": "string", "enum": [status.value for status in RunStatus]},
                       "results": {}, "error": {"type": "string"}, "question": {"type": "string"},
                       "answers": {"type": "array"},
                       "usage": {"type": "object", "description": "what the run spent so far (the Usage schema)"},
                       "budget": {"type": "object", "description": "the budget that stopped it, if one did"},
                       "nodes": {"type": "object", "additionalProperties": {
                           "type": "string", "enum": [state.value for state in NodeState]}}}}
    schemas["EventsMissed"] = {
        "type": "object", "required": ["type", "count"],
        "description": "The reader asked for records the server no longer has: `count` of them are missing.",
        "properties": {"type": {"const": "EventsMissed"}, "count": {"type": "integer"}}}
    return schemas
