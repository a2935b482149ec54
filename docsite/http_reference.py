"""The HTTP API page, made from the OpenAPI document `graphrt serve` serves at /openapi.json.

Every operation with its parameters, body and answers, then every schema as a table of its
properties; a `$ref` becomes a link to the schema's section. The document itself
(graphrt/serve/openapi.py) is the one source: its enums come from graphrt/base/states.py.
"""

from __future__ import annotations

import json
from typing import Any

from docsite.markdown import anchor, cell, json_block

__all__ = ["http_page", "type_of"]

_METHODS = ("get", "post", "put", "patch", "delete")


def _schema_link(ref: str) -> str:
    name = ref.rsplit("/", 1)[-1]
    return f"[`{name}`](#{anchor(name)})"


def type_of(schema: Any) -> str:
    """A schema in a few words of Markdown: `string`, `array of Run`, `"a" | "b"`, a link for a `$ref`."""
    if not isinstance(schema, dict) or not schema:
        return "any"
    if "$ref" in schema:
        return _schema_link(schema["$ref"])
    if "const" in schema:
        return f"`{json.dumps(schema['const'])}`"
    if "enum" in schema:
        return " \\| ".join(f"`{json.dumps(value)}`" for value in schema["enum"])
    for combined in ("oneOf", "anyOf"):
        if combined in schema:
            return " or ".join(type_of(part) for part in schema[combined])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(f"`{part}`" for part in kind)
    if kind == "array":
        return f"array of {type_of(schema.get('items'))}"
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        return f"object of {type_of(schema['additionalProperties'])}"
    return f"`{kind}`" + (f" ({schema['format']})" if "format" in schema else "") if kind else "any"


def _properties(schema: dict[str, Any]) -> list[str]:
    properties = schema.get("properties") or {}
    if not properties:
        return []
    required = set(schema.get("required") or ())
    rows = ["| property | type | required | description |", "| --- | --- | --- | --- |"]
    for name, value in properties.items():
        rows.append(f"| `{name}` | {type_of(value)} | {'yes' if name in required else ''} | "
                    f"{cell(value.get('description', '') if isinstance(value, dict) else '')} |")
    return rows


def _operation(method: str, path: str, operation: dict[str, Any]) -> list[str]:
    parts = [f"### {method.upper()} {path}", "", cell(operation.get("summary", "")) + ".", ""]
    if operation.get("description"):
        parts += [operation["description"], ""]
    if operation.get("security") == []:
        parts += ["No key needed.", ""]
    parameters = operation.get("parameters") or []
    if parameters:
        parts += ["| parameter | in | type | required | description |", "| --- | --- | --- | --- | --- |"]
        parts += [f"| `{p['name']}` | {p['in']} | {type_of(p.get('schema'))} | {'yes' if p.get('required') else ''} | "
                  f"{cell(p.get('description', ''))} |" for p in parameters]
        parts.append("")
    body = operation.get("requestBody", {}).get("content", {})
    for media, content in body.items():
        parts += [f"Body ({media}): {type_of(content.get('schema'))}", ""]
    parts += ["| answer | description | body |", "| --- | --- | --- |"]
    for status, response in operation.get("responses", {}).items():
        contents = response.get("content") or {}
        shown = "; ".join(f"{media}: {type_of(content.get('itemSchema') or content.get('schema'))}"
                          for media, content in contents.items())
        headers = ", ".join(f"`{name}` header" for name in response.get("headers") or {})
        said = cell("; ".join(filter(None, (shown, headers))))
        parts.append(f"| {status} | {cell(response.get('description', ''))} | {said} |")
    return parts + [""]


def _schema(name: str, schema: dict[str, Any]) -> list[str]:
    parts = [f"### {name}", ""]
    if schema.get("description"):
        parts += [schema["description"], ""]
    rows = _properties(schema)
    if rows:
        parts += rows
    elif "oneOf" in schema:
        told = f", told apart by `{schema['discriminator']['propertyName']}`." if "discriminator" in schema else "."
        parts.append("One of: " + ", ".join(type_of(part) for part in schema["oneOf"]) + told)
    else:
        parts.append(json_block(schema))
    return parts + [""]


def http_page(document: dict[str, Any] | None = None) -> str:
    """The whole page, from `document` (default: graphrt serve's own, without any served graph)."""
    if document is None:
        from graphrt.serve.openapi import openapi_document

        document = openapi_document()
    info = document["info"]
    schemes = document.get("components", {}).get("securitySchemes", {})
    keys = ", ".join(f"`{scheme['scheme']}` (`Authorization: Bearer KEY`)" if scheme.get("scheme") == "bearer"
                     else f"`{scheme.get('name')}` header" for scheme in schemes.values())
    parts = [f"# HTTP API", "",
             f"{info.get('description', '')} Generated from the OpenAPI {document['openapi']} document "
             "(`graphrt/serve/openapi.py`) that `graphrt serve` answers at `/openapi.json`; a running server's "
             "document also describes each graph it serves (`POST /graphs/NAME/runs` with that graph's inputs).", "",
             f"With a key (`--api-key`, or `GRAPHRT_API_KEY`), every request but those marked otherwise needs it: "
             f"{keys}. [How to serve graphs](../how-to/serve.md) explains the server; this page lists what it answers.",
             "", "## Operations", ""]
    for path, operations in document["paths"].items():
        for method in _METHODS:
            if method in operations:
                parts += _operation(method, path, operations[method])
    parts += ["## Schemas", ""]
    for name, schema in document.get("components", {}).get("schemas", {}).items():
        parts += _schema(name, schema)
    return "\n".join(parts).rstrip() + "\n"
