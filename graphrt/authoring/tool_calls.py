"""The tool-call protocol: how an LLM calls agents as tools (GraphAI's toolsAgent).

Tool schemas. `AgentInfo.tools` lists an agent's functions as OpenAI function schemas:

    {"type": "function",
     "function": {"name": "Calculator--add", "description": "Adds two numbers.",
                  "parameters": {"type": "object", "properties": {...}, "required": [...]}}}

A tool's name is `agentName--func` for a toolset's functions, and `agentName`
for an agent that is one function: the part before `--` is the agent to call,
the part after it the function within the agent (`split_tool_name`).

Calling. The agent runs as a node (or is called with a context) whose inputs are

    func       the function after `--` (absent when the name has no `--`)
    arg        the arguments the LLM produced: an object, or its JSON text
    tool_call  the LLM's tool call as it came: {"id", "name", "arguments"}
    data       anything the caller passes through (optional)

exactly what GraphAI's toolsAgent sends; `tool_call_inputs(tool_call)` builds
them. Inputs with `tool_call`, or with both `func` and `arg`, are a tool call.

Result. A tool returns `{"content": str, "data": ...}`; content is what the
LLM reads next. From what the Python function returned:

    a str                           {"content": the string}
    a dict with "content"/"data"    the dict as is
    anything else                   {"content": its JSON text, "data": the value}

Errors. The arguments are checked against the function's `parameters` schema
before it runs. Unreadable arguments, a bad or missing argument, an unknown
function, or a ToolCallError raised by the function itself give
`{"content": message, "error": message}`, written for the LLM to correct
itself; the node does not fail. Any other exception fails the node as usual.

Offered to an LLM. A name must be what LLM APIs take (`LLM_TOOL_NAME`: letters,
digits, `_` and `-`, at most 64: OpenAI refuses the rest with a 400), at most
`MAX_LLM_TOOLS` tools go in one request, and a description at most
`MAX_TOOL_DESCRIPTION` characters: tools from outside (an MCP server's) that break
these are left out or cut, `llm_offer` says which.
"""

from __future__ import annotations

import json
import re
from typing import Any, Mapping

from graphrt.base.errors import ToolCallError
from graphrt.base.jsvalue import UNDEFINED, json_stringify
from graphrt.base.schema import format_path, violations

__all__ = [
    "SEPARATOR",
    "tool_name",
    "split_tool_name",
    "function_tool",
    "is_tool_call",
    "tool_call_inputs",
    "read_arguments",
    "check_arguments",
    "tool_result",
    "error_result",
]

SEPARATOR = "--"


def tool_name(agent: str, func: str | None = None) -> str:
    """`agent--func`, or `agent` for an agent that is one function."""
    return f"{agent}{SEPARATOR}{func}" if func else agent


def split_tool_name(name: str) -> tuple[str, str | None]:
    """`("agent", "func")` from `agent--func`; `("agent", None)` from `agent`."""
    agent, separator, func = name.partition(SEPARATOR)
    return agent, (func if separator else None)


def function_tool(name: str, description: str, parameters: Mapping[str, Any]) -> dict[str, Any]:
    """An OpenAI function-tool schema."""
    return {"type": "function", "function": {"name": name, "description": description, "parameters": dict(parameters)}}


def is_tool_call(inputs: Mapping[str, Any]) -> bool:
    """Whether a node's inputs are a tool call: `tool_call`, or both `func` and `arg`."""
    def has(key: str) -> bool:  # an input whose reference found nothing (UNDEFINED) is not there
        return inputs.get(key, UNDEFINED) is not UNDEFINED

    return has("tool_call") or (has("func") and has("arg"))


def tool_call_inputs(tool_call: Mapping[str, Any], data: Any = UNDEFINED) -> dict[str, Any]:
    """The inputs toolsAgent gives the agent of a tool call `{"id", "name", "arguments"}`."""
    call = tool_call.get("function", tool_call)  # an OpenAI message's tool call nests name/arguments
    _, func = split_tool_name(str(call.get("name", "")))
    inputs: dict[str, Any] = {"arg": call.get("arguments", {}), "tool_call": dict(tool_call)}
    if func is not None:
        inputs["func"] = func
    if data is not UNDEFINED:
        inputs["data"] = data
    return inputs


def read_arguments(arg: Any, tool: str) -> dict[str, Any]:
    """The arguments as an object; JSON text is parsed. Raises ToolCallError when they are not an object."""
    if arg is None or arg is UNDEFINED or arg == "":
        return {}
    if isinstance(arg, str):
        try:
            arg = json.loads(arg)
        except ValueError as error:
            raise ToolCallError(f"the arguments for {tool} are not valid JSON ({error})") from error
    if not isinstance(arg, dict):
        raise ToolCallError(f"the arguments for {tool} must be a JSON object, got {json_stringify(arg)}")
    return arg


def check_arguments(schema: Mapping[str, Any], arguments: Mapping[str, Any], tool: str) -> None:
    """Raises ToolCallError naming every bad argument."""
    found = violations(schema, arguments)
    if found:
        details = "; ".join(f"{format_path(v.path)}: {v.message}" if v.path else v.message for v in found)
        raise ToolCallError(f"invalid arguments for {tool}: {details}")


def tool_result(value: Any) -> dict[str, Any]:
    """A function's return value as a tool result (see the module docstring)."""
    if isinstance(value, str):
        return {"content": value}
    if isinstance(value, dict) and ("content" in value or "data" in value):
        return value
    return {"content": json_stringify(value), "data": value}


def error_result(error: ToolCallError | str) -> dict[str, Any]:
    """A failed tool call as a result the LLM reads."""
    message = error.message if isinstance(error, ToolCallError) else error
    return {"content": message, "error": message}


LLM_TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""A tool name LLM APIs accept (OpenAI's rule; Anthropic's and Gemini's are as strict)."""

MAX_LLM_TOOLS = 128
"""The most tools one LLM request may offer (OpenAI's limit)."""

MAX_TOOL_DESCRIPTION = 1024


def llm_offer(schemas: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """The tool schemas an LLM may be offered, and what was left out (a name it refuses, past the count).

    Descriptions longer than MAX_TOOL_DESCRIPTION are cut; the schemas given are not changed.
    """
    offered, left_out = [], []
    for schema in schemas:
        function = schema.get("function") if isinstance(schema, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(name, str) or not LLM_TOOL_NAME.fullmatch(name):
            left_out.append(f"{str(name)[:80]!r}: not a name LLM APIs take")
            continue
        if len(offered) >= MAX_LLM_TOOLS:
            left_out.append(f"{name!r}: over {MAX_LLM_TOOLS} tools")
            continue
        description = function.get("description")
        if isinstance(description, str) and len(description) > MAX_TOOL_DESCRIPTION:
            schema = {**schema, "function": {**function, "description": description[:MAX_TOOL_DESCRIPTION] + "..."}}
        offered.append(schema)
    return offered, left_out
