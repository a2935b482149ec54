"""The OpenAPI 3.1 document of the server's API, served at /openapi.json."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from graphrt.base.states import CallState, NodeState, RunStatus
from graphrt.serve.event_schemas import event_schemas
from graphrt.serve.node_routes import DEFAULT_NODE_PAGE, MAX_NODE_PAGE

__all__ = ["openapi_document"]

_STATUS = [status.value for status in RunStatus]
_NODE_STATE = [state.value for state in NodeState]
_EVENTS = event_schemas()


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


# Each event record as a schema `<type>Event`, and `Event`: any of them, told apart by `type`.
_EVENT_SCHEMAS: dict[str, Any] = {f"{name}Event": schema for name, schema in _EVENTS.items()}
_EVENT_SCHEMAS["Event"] = {"oneOf": [_ref(name) for name in _EVENT_SCHEMAS],
                           "discriminator": {"propertyName": "type",
                                             "mapping": {name: f"#/components/schemas/{name}Event" for name in _EVENTS}}}


def _json(schema: dict[str, Any], description: str, headers: dict[str, Any] | None = None) -> dict[str, Any]:
    response: dict[str, Any] = {"description": description, "content": {"application/json": {"schema": schema}}}
    if headers:
        response["headers"] = headers
    return response


_ERROR = _json(_ref("Error"), "what went wrong")
_WEBHOOK = {"type": "string", "format": "uri",
            "description": "an http(s) URL to POST to, signed, when the run finishes, fails, is cancelled or "
                           "asks a person (public hosts only unless the server allows private ones)"}
_RUN_ID = {"name": "run_id", "in": "path", "required": True, "schema": {"type": "string"}}
_WAIT = {"name": "wait", "in": "query", "required": False, "schema": {"type": "boolean"},
         "description": "wait until the run finishes, fails, is cancelled or asks a question"}
_SCHEMAS: dict[str, Any] = {
    "Error": {"type": "object", "required": ["error"], "properties": {"error": {"type": "string"}}},
    "Graph": {
        "type": "object",
        "required": ["name", "file"],
        "properties": {
            "name": {"type": "string", "description": "the path under the served folder, without the suffix"},
            "file": {"type": "string"},
            "error": {"type": "string", "description": "why the graph cannot run (load or validation error)"},
            "inputs": {"type": "object", "description": "static nodes a caller may set, with their default values",
                       "additionalProperties": {"type": "object", "properties": {"default": {}}}},
            "results": {"type": "array", "items": {"type": "string"}, "description": "the isResult nodes"},
            "mermaid": {"type": "string", "description": "the graph as a Mermaid flowchart"},
            "drawing": {"type": "object", "description": "top-level nodes and edges, for the viewer",
                        "properties": {"nodes": {"type": "array", "items": {"type": "object"}},
                                       "edges": {"type": "array", "items": {"type": "object"}}}},
            "loop": {"type": "boolean"},
        },
    },
    "StartRun": {
        "type": "object",
        "properties": {
            "inputs": {"type": "object", "description": "values for static nodes, by node id"},
            "all_results": {"type": "boolean", "description": "every node's result, not only isResult nodes'"},
            "webhook": _WEBHOOK,
            "budget": {"type": "object", "description": "what the run may spend, each limit within the server's: "
                       "tokens, cost (USD), llm_calls, tool_calls, seconds, and nodes: {NODE: {...}}; the run stops "
                       "before a call that would pass it",
                       "properties": {"tokens": {"type": "integer", "minimum": 1}, "cost": {"type": "number"},
                                      "llm_calls": {"type": "integer", "minimum": 1},
                                      "tool_calls": {"type": "integer", "minimum": 1}, "seconds": {"type": "number"},
                                      "nodes": {"type": "object"}}},
        },
    },
    "Answer": {"type": "object", "required": ["answer"], "properties": {"answer": {}}},
    "Tally": {
        "type": "object",
        "description": "some LLM calls' sums; a count no reply gave is null (unknown), never 0",
        "properties": {
            "calls": {"type": "integer"},
            **{name: {"type": ["integer", "null"]} for name in ("input_tokens", "output_tokens", "cached_tokens",
                                                                 "reasoning_tokens", "total_tokens")},
            "cost_usd": {"type": ["number", "null"], "description": "from the config's prices; null: unknown"},
            "calls_without_tokens": {"type": "integer"}, "calls_without_cost": {"type": "integer"},
        },
    },
    "Usage": {"allOf": [_ref("Tally"), {
        "type": "object",
        "description": "what a run (or a node, with what is nested in it) spent: every attempt of its LLM calls, "
                       "those kept (`used`) and those asked again or made by a node attempt run again (`retried`)",
        "properties": {
            "llm_calls": {"type": "integer"}, "used": _ref("Tally"), "retried": _ref("Tally"),
            "tool_calls": {"type": "integer"},
            "waited_seconds": {"type": "number", "description": "seconds its calls waited for rate limits"},
            "seconds": {"type": "number", "description": "a run's wall-clock time, across its resumptions"},
            "by_model": {"type": "object", "additionalProperties": _ref("Tally"),
                         "description": "by provider:model (openai:gpt-4o-mini)"},
        }}]},
    "Run": {
        "type": "object",
        "required": ["id", "graph", "status", "nodes"],
        "properties": {
            "id": {"type": "string"},
            "graph": {"type": "string"},
            "status": {"type": "string", "enum": _STATUS},
            "nodes": {"type": "object", "additionalProperties": {"type": "string", "enum": _NODE_STATE}},
            "results": {"type": "object", "description": "once finished"},
            "error": {"type": "string", "description": "once failed: FILE:LINE:COL: node ..., as the CLI prints it"},
            "question": {"type": "string", "description": "while interrupted: what the run asks"},
            "inputs": {"type": "object", "description": "the values the run was started with, by static node"},
            "parent": _ref("Lineage"),
            "usage": _ref("Usage"),
            "budget": {"type": "object", "description": "once a budget stopped it: which limit, what was spent, the "
                       "node whose budget it is (null: the run's) and the node about to call (`at`)",
                       "properties": {"limit": {"type": "string"}, "allowed": {"type": "number"},
                                      "spent": {"type": "number"}, "node": {"type": ["string", "null"]},
                                      "at": {"type": "string"}}},
            "answers": {"type": "array", "description": "what people answered, in order",
                        "items": {"type": "object", "properties": {"key": {"type": "string"}, "answer": {},
                                                                   "time": {"type": "number"}}}},
            "created_at": {"type": "number"},
            "updated_at": {"type": "number"},
            "last_event_id": {"type": "integer"},
            "url": {"type": "string"},
            "events_url": {"type": "string"},
        },
    },
    "NodeSummary": {
        "type": "object",
        "required": ["key", "node_id", "path", "state"],
        "description": "what a node of a run did, without its values",
        "properties": {
            "key": {"type": "string", "description": "nested graphs' node ids and map rows, then the node's id: a/0/b"},
            "node_id": {"type": "string"}, "path": {"type": "array"},
            "state": {"type": "string", "enum": _NODE_STATE}, "agent": {"type": "string"},
            "iteration": {"type": "integer"}, "iterations": {"type": "integer"}, "attempts": {},
            "position": {"type": "array", "items": {"type": "integer"},
                         "description": "the iteration of each loop it is in, outermost first"},
            "queued_at": {"type": "number"}, "started_at": {"type": "number"}, "ended_at": {"type": "number"},
            "asked_at": {"type": "number"}, "answered_at": {"type": "number"},
            "duration": {"type": "number", "description": "seconds its agent ran"},
            "waited": {"type": "number", "description": "seconds it waited for a person's answer"},
            "waiting": {"type": "object", "description": "while its agent waits for its turn under a rate limit "
                        "(its state stays executing): {for: 'rate limit', label, since, expected}",
                        "properties": {"for": {"type": "string"}, "label": {"type": "string"},
                                       "since": {"type": "number"}, "expected": {"type": "number"}}},
            "rate_waited": {"type": "number", "description": "seconds its LLM calls waited for rate limits"},
            "error": {"type": "object", "properties": {"text": {"type": "string"}, "type": {"type": "string"},
                                                       "field": {"type": "string"}, "location": {"type": "object"}}},
            "question": {"type": "string"},
            "usage": {"oneOf": [_ref("Usage"), {"type": "null"}],
                      "description": "what it spent, with what was nested in it; null: nothing"},
        },
    },
    "Node": {"allOf": [_ref("NodeSummary"), {"type": "object", "properties": {
        "inputs": {"description": "its inputs as resolved (redacted as traces are)"}, "result": {},
        "tokens": {"type": "string", "description": "the text it streamed"},
        "tool_calls": {"type": "array", "items": {"type": "object"}},
        "llm_calls": {"type": "array", "items": {"type": "object"},
                      "description": "each LLM request's attempt: provider, model, tokens, cost, error"},
        "progress": {"type": "array", "items": {"type": "object"}},
        "history": {"type": "array", "description": "its runs in earlier iterations of a loop"},
        "children": {"type": "array", "items": {"type": "string"}, "description": "keys of its nested graphs' nodes"},
        "calls": {"type": ["array", "null"], "items": _ref("Call"), "description": "the outside calls it made, and "
                  "the graphs it ran made, as the run's journal keeps them; null: the store keeps no journal"},
    }}]},
    "Call": {"type": "object", "description": "one outside call in the run's journal (an LLM request, a tool call)",
             "properties": {
                 "path": {"type": "string", "description": "the node that made it, with map rows and loop "
                          "iterations: agent@2/0/tool"},
                 "index": {"type": "integer", "description": "its index among that path's calls"},
                 "kind": {"type": "string", "enum": ["llm", "tool", "call"]}, "agent": {"type": "string"},
                 "state": {"type": "string", "enum": [state.value for state in CallState]},
                 "request": {"description": "the agent's inputs and params (redacted)"},
                 "result": {"description": "what it returned (redacted); null until it has"},
                 "started_at": {"type": "number"}, "ended_at": {"type": ["number", "null"]}}},
    "Lineage": {"type": "object", "description": "a fork's origin: the run and node it was forked from",
                "properties": {"run_id": {"type": "string"}, "node_id": {"type": "string"},
                               "set": {"type": "array", "items": {"type": "string"},
                                       "description": "the nodes the fork gave new values"}}},
    "Fork": {"type": "object", "required": ["from"], "properties": {
        "from": {"type": "string", "description": "the node to compute again, with every node that depends on it; "
                 "inside a nestedAgent's or mapAgent's graph, its key as /runs/{id}/nodes gives it (outer/inner, "
                 "outer/2/inner): only what depends on it runs there (it needs the run's saved event log)"},
        "set": {"type": "object", "description": "new values by node id: a static node's value, a computed node's "
                "result (and the `from` node's, nested or not)"},
        "iteration": {"type": "integer", "minimum": 0, "description": "the loop iteration to fork from: only the "
                      "latest is saved, another is a 400 that says so"},
    }},
    "RunSummary": {
        "type": "object",
        "properties": {"id": {"type": "string"}, "graph": {"type": "string"},
                       "status": {"type": "string", "enum": _STATUS},
                       "created_at": {"type": "number"}, "updated_at": {"type": "number"}},
    },
}


def _graph_paths(graphs: Iterable[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(paths, schemas): POST /graphs/NAME/runs of each graph that can run, typed with its inputs and results."""
    paths: dict[str, Any] = {}
    schemas: dict[str, Any] = {}
    for graph in graphs:
        if "error" in graph or "input_schema" not in graph:
            continue
        name = graph["name"]
        key = "".join(part.capitalize() for part in re.split(r"[^A-Za-z0-9]+", name) if part) or "Graph"
        schemas[f"{key}Inputs"] = graph["input_schema"]
        schemas[f"{key}Run"] = {"allOf": [_ref("Run"), {"type": "object", "properties": {"results": {
            "type": "object", "properties": {result: {} for result in graph.get("results", [])},
            "description": "once finished: the isResult nodes' values"}}}]}
        paths[f"/graphs/{name}/runs"] = {"post": {
            "summary": f"Start a run of {name}", "operationId": f"start{key}Run", "tags": ["graphs"],
            "parameters": [_WAIT],
            "requestBody": {"content": {"application/json": {"schema": {"type": "object", "properties": {
                "inputs": _ref(f"{key}Inputs"),
                "all_results": {"type": "boolean", "description": "every node's result, not only isResult nodes'"},
                "webhook": _WEBHOOK,
            }}}}},
            "responses": {"202": _json(_ref(f"{key}Run"), "queued; follow it at /runs/{id}"),
                          "200": _json(_ref(f"{key}Run"), "with ?wait=true: the settled run"),
                          "400": _ERROR, "413": _ERROR,
                          "429": _json(_ref("Error"), "the queue is full",
                                       {"Retry-After": {"schema": {"type": "integer"}}})}}}
    return paths, schemas


_OPENAI_ERROR = _json({"type": "object", "required": ["error"], "properties": {"error": {
    "type": "object", "required": ["message", "type", "param", "code"],
    "properties": {"message": {"type": "string"}, "type": {"type": "string"},
                   "param": {"type": ["string", "null"]}, "code": {"type": ["string", "null"]}}}}},
    "an error in OpenAI's shape (a wrong key, a body over the limit, no such graph, a full queue, a failed run)")
_CHAT_PATHS = {
    "/v1/chat/completions": {"post": {
        "summary": "OpenAI-compatible chat completion: `model` names a graph that takes `messages`",
        "operationId": "chatCompletion", "tags": ["openai"],
        "requestBody": {"content": {"application/json": {"schema": {
            "type": "object", "required": ["model", "messages"],
            "properties": {"model": {"type": "string"}, "messages": {"type": "array", "items": {"type": "object"}},
                           "stream": {"type": "boolean"},
                           "stream_options": {"type": "object",
                                              "properties": {"include_usage": {"type": "boolean"}}}}}}}},
        "responses": {"200": {"description": "a chat.completion, or chat.completion.chunk events with stream=true"},
                      "400": _OPENAI_ERROR, "401": _OPENAI_ERROR, "404": _OPENAI_ERROR,
                      "413": _OPENAI_ERROR, "429": _OPENAI_ERROR, "500": _OPENAI_ERROR}}},
    "/v1/models": {"get": {"summary": "The graphs that take messages, as OpenAI lists models",
                           "operationId": "listModels", "tags": ["openai"],
                           "responses": {"200": {"description": "the chat graphs"}}}},
}


def openapi_document(graphs: Iterable[dict[str, Any]] = ()) -> dict[str, Any]:
    """The API as OpenAPI 3.1; with `graphs` (GET /graphs' entries), a typed start path per graph."""
    graph_paths, graph_schemas = _graph_paths(graphs)
    return {
        "openapi": "3.1.0",
        "info": {"title": "graphrt serve", "version": "1",
                 "description": "Run GraphAI graph files over HTTP: durable runs, live events, human-in-the-loop answers."},
        "components": {
            "schemas": {**_SCHEMAS, **_EVENT_SCHEMAS, **graph_schemas},
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"},
                                "apiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"}},
        },
        "security": [{"bearer": []}, {"apiKey": []}],
        "paths": {
            **graph_paths,
            **_CHAT_PATHS,
            "/graphs": {"get": {"summary": "The served graphs", "operationId": "listGraphs", "responses": {
                "200": _json({"type": "object", "properties": {"graphs": {"type": "array", "items": _ref("Graph")}}},
                             "every graph file of the served folder")}}},
            "/graphs/{name}": {"get": {
                "summary": "One graph", "operationId": "getGraph",
                "parameters": [{"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}],
                "responses": {"200": _json(_ref("Graph"), "the graph"), "404": _ERROR}}},
            "/graphs/{name}/runs": {"post": {
                "summary": "Start a run", "operationId": "startRun",
                "parameters": [{"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}, _WAIT],
                "requestBody": {"content": {"application/json": {"schema": _ref("StartRun")}}},
                "responses": {
                    "202": _json(_ref("Run"), "queued; follow it at /runs/{id}"),
                    "200": _json(_ref("Run"), "with ?wait=true: the settled run"),
                    "400": _ERROR, "404": _ERROR, "413": _ERROR,
                    "429": _json(_ref("Error"), "the queue is full", {"Retry-After": {"schema": {"type": "integer"}}}),
                }}},
            "/runs": {"get": {
                "summary": "Recent runs, newest first", "operationId": "listRuns",
                "parameters": [{"name": "limit", "in": "query", "schema": {"type": "integer", "maximum": 500}}],
                "responses": {"200": _json({"type": "object", "properties": {
                    "runs": {"type": "array", "items": _ref("RunSummary")}}}, "the runs")}}},
            "/runs/{run_id}": {"get": {"summary": "A run's status, node states, results or error",
                                       "operationId": "getRun", "parameters": [_RUN_ID],
                                       "responses": {"200": _json(_ref("Run"), "the run"), "404": _ERROR}}},
            "/runs/{run_id}/events": {"get": {
                "summary": "The run's events as Server-Sent Events",
                "description": "Each event's name is its type and its data the event as JSON: one of the "
                               "Event schemas (" + ", ".join(_EVENTS) + "). A node that asks a person is "
                               "NodeInterrupted (not a failure), one cancelled is NodeAborted. Send Last-Event-ID "
                               "(or ?last_event_id=) to get only the events after it. The stream ends when the run "
                               "ends.",
                "operationId": "runEvents",
                "parameters": [_RUN_ID, {"name": "Last-Event-ID", "in": "header", "schema": {"type": "string"}}],
                "responses": {"200": {"description": "the event stream",
                                      "content": {"text/event-stream": {
                                          "schema": {"type": "string"}, "itemSchema": _ref("Event")}}},
                              "404": _ERROR}}},
            "/runs/{run_id}/nodes": {"get": {
                "summary": "What each node of the run did (nested graphs' nodes too), without values, a page at a time",
                "description": "Nodes in the order the run first saw them: a page read again later holds the same "
                               "nodes, and nodes seen since come after the last. Follow `next` until it is null.",
                "operationId": "listRunNodes",
                "parameters": [_RUN_ID,
                               {"name": "offset", "in": "query", "required": False,
                                "schema": {"type": "integer", "minimum": 0, "default": 0},
                                "description": "nodes to skip"},
                               {"name": "limit", "in": "query", "required": False,
                                "schema": {"type": "integer", "minimum": 1, "maximum": MAX_NODE_PAGE,
                                           "default": DEFAULT_NODE_PAGE}, "description": "nodes in the page"}],
                "responses": {"200": _json({"type": "object", "required": ["run", "nodes", "total", "next"],
                                            "properties": {
                    "run": {"type": "string"},
                    "nodes": {"type": "object", "additionalProperties": _ref("NodeSummary"),
                              "description": "this page's nodes, by key"},
                    "offset": {"type": "integer"}, "limit": {"type": "integer"},
                    "total": {"type": "integer", "description": "the nodes the server keeps for the run"},
                    "next": {"type": ["string", "null"], "description": "the next page's path; null on the last"},
                    "left_out": {"type": ["object", "null"], "description": "null, or: nodes past the most the "
                                 "server keeps for a run were left out (their events are counted)",
                                 "properties": {"events": {"type": "integer"}, "max_nodes": {"type": "integer"},
                                                "message": {"type": "string"}}}}}, "a page of the nodes"),
                    "400": _ERROR, "404": _ERROR}}},
            "/runs/{run_id}/nodes/{key}": {"get": {
                "summary": "Everything about one node of the run: inputs, result, error, attempts, timings",
                "operationId": "getRunNode",
                "parameters": [_RUN_ID, {"name": "key", "in": "path", "required": True, "schema": {"type": "string"}}],
                "responses": {"200": _json(_ref("Node"), "the node"), "404": _ERROR}}},
            "/runs/{run_id}/webhooks": {"get": {
                "summary": "How the run's webhook calls stand: each delivery's event, URL (no query), state, calls",
                "operationId": "listRunWebhooks", "parameters": [_RUN_ID],
                "responses": {"200": _json({"type": "object", "properties": {"webhooks": {"type": "array", "items": {
                    "type": "object", "properties": {
                        "delivery_id": {"type": "string"}, "event": {"type": "string"}, "url": {"type": "string"},
                        "state": {"type": "string", "enum": ["pending", "delivered", "failed"]},
                        "calls": {"type": "integer"}, "next_at": {"type": "number"}, "error": {"type": "string"}}}}}},
                    "the deliveries, oldest first"), "404": _ERROR}}},
            "/runs/{run_id}/fork": {"post": {
                "summary": "A new run from one of this run's nodes: keeps every result that does not depend on it",
                "operationId": "forkRun", "parameters": [_RUN_ID],
                "requestBody": {"required": True, "content": {"application/json": {"schema": _ref("Fork")}}},
                "responses": {"202": _json(_ref("Run"), "the fork, queued; its `parent` names this run and node"),
                              "400": _ERROR, "404": _ERROR, "429": _ERROR}}},
            "/runs/{run_id}/resume": {"post": {
                "summary": "Answer the question an interrupted run asks, and continue it", "operationId": "resumeRun",
                "parameters": [_RUN_ID, _WAIT],
                "requestBody": {"required": True, "content": {"application/json": {"schema": _ref("Answer")}}},
                "responses": {"202": _json(_ref("Run"), "queued again"), "200": _json(_ref("Run"), "with ?wait=true"),
                              "404": _ERROR, "409": _ERROR, "429": _ERROR}}},
            "/runs/{run_id}/cancel": {"post": {
                "summary": "Cancel a run (its running agents are cancelled)", "operationId": "cancelRun",
                "parameters": [_RUN_ID],
                "responses": {"200": _json(_ref("Run"), "the cancelled run"), "404": _ERROR, "409": _ERROR}}},
            "/servers": {"get": {"summary": "The servers that serve the store, and the runs each holds",
                                 "operationId": "listServers",
                                 "responses": {"200": _json({"type": "object"},
                                                            "'servers': each live server's id, pid, host, URL, "
                                                            "since when, whether it drains, and its runs")}}},
            "/health": {"get": {"summary": "Liveness and load", "operationId": "health", "security": [],
                                "responses": {"200": _json({"type": "object"}, "running and queued runs, and on "
                                                           "a store several servers share, which server answered "
                                                           "('server') and how many runs it holds ('held')"),
                                              "503": _json({"type": "object"}, "the checkpoint store does not "
                                                           "answer: 'store' says why")}}},
        },
    }
