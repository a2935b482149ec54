"""The ReAct kit of graphs/react.yaml: actions from any tools, the step format, and one step carried out.

ReAct alternates a thought and an action, then reads the action's observation. The tools are
the node's, given by reference as toolsAgent takes them (agent names, `agent--func`, an MCP
server or `server--tool`); each of their functions becomes an action the model writes as
`name[argument]`, described to it from the function info, and `finish[answer]` ends the task.

- reactPromptAgent: the system prompt that lists the actions, the messages to start from, the
  action names, and a GBNF grammar of the step format: a thought on one line, then
  `Action: name[free text]` over those names (and one for the first step, without finish, when
  the graph says to act first). The grammar holds the format only, never what an argument or the
  answer says; openAIAgent sends it only where it is known to be taken.
- reactActionAgent: the action in a reply (`Action: name[...]`; brackets inside the argument
  may nest), wherever it is.
- reactActAgent: carries an action out with the granted tools: the argument text becomes the
  tool's arguments (its one parameter, or a JSON object), checked against the tool's schema, and
  the tool runs as toolsAgent runs it. An unknown action, a bad argument or the tool's own
  failure is the observation, so that the model can correct itself; `finish` gives its argument,
  verbatim, as the answer. With `actFirst`, a finish before any action is refused the same way:
  the model reads that it must act first (a small model otherwise "answers" with the question's words).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.authoring.plugins import default_registry
from graphrt.authoring.tool_calls import split_tool_name
from graphrt.base.errors import ToolCallError
from graphrt.base.jsvalue import is_null

from .toolbox import Tool, Toolbox
from .tool_runner import ToolSession, granted_toolbox

__all__ = ["AGENTS", "FINISH", "Action", "actions_of", "format_grammar", "parse_action", "step_arguments",
           "system_prompt"]

FINISH = "finish"
_FINISH_USAGE = f"{FINISH}[answer]"
_FINISH_ABOUT = "gives the final answer and ends the task."
_ACTION_LABEL = re.compile(r"action\s*\d*\s*[:：]\s*[`*\"']*\s*([A-Za-z_][\w-]*)\s*\[", re.IGNORECASE)
_QUOTES = ('"', "'", "`")


@dataclass(frozen=True)
class Action:
    """One action the model may write: its name, how to write it, what it does, and its tool (None: finish)."""

    name: str
    usage: str
    description: str
    tool: Tool | None = None


def _short_name(tool: Tool) -> str:
    return tool.func or tool.agent


def actions_of(toolbox: Toolbox) -> list[Action]:
    """The actions of the granted tools, then finish.

    An action is named after its function (`search` for wikiAgent--search) when no other granted
    tool has that name and it is not `finish`; else after the whole tool name (`files--search`).
    """
    short = [_short_name(tool) for tool in toolbox.tools.values()]
    actions = []
    for tool, name in zip(toolbox.tools.values(), short):
        if short.count(name) > 1 or name.casefold() == FINISH:
            name = tool.name
        actions.append(Action(name, _usage(name, tool.parameters), _about(tool), tool))
    actions.append(Action(FINISH, _FINISH_USAGE, _FINISH_ABOUT))
    return actions


def _usage(name: str, parameters: dict[str, Any]) -> str:
    """How to write the action: `search[entity]`, `clock[]`, or `add[{"a": ..., "b": ...}]`."""
    properties = parameters.get("properties") or {}
    if not properties:
        return f"{name}[]"
    if len(properties) == 1:
        return f"{name}[{next(iter(properties))}]"
    fields = ", ".join(f'"{key}": ...' for key in properties)
    return f"{name}[{{{fields}}}]"


def _about(tool: Tool) -> str:
    """What the action does, from the function info: its description, then its parameters'."""
    function = tool.schema.get("function") or {}
    description = str(function.get("description") or "").strip()
    properties = tool.parameters.get("properties") or {}
    required = set(tool.parameters.get("required") or [])
    notes = []
    for key, schema in properties.items():
        schema = schema if isinstance(schema, dict) else {}
        kind = schema.get("type")
        detail = ", ".join(str(part) for part in (kind, None if key in required or len(properties) == 1 else "optional")
                           if part)
        about = str(schema.get("description") or "").strip()
        notes.append(f"{key}{f' ({detail})' if detail else ''}{f': {about}' if about else ''}")
    parts = [description or f"calls {tool.name}"]
    if notes:
        parts.append("; ".join(notes))
    return " ".join(part if part.endswith(".") else part + "." for part in parts)


def system_prompt(actions: list[Action], instructions: str = "") -> str:
    """The system prompt: the task, every action with what it does, and the step format."""
    listed = "\n".join(f"- {action.usage}: {action.description}" for action in actions)
    example = next((action.usage for action in actions if action.tool is not None), _FINISH_USAGE)
    lines = [
        instructions.strip() or "Answer the question by taking actions, one at a time.",
        f"The actions are:\n{listed}",
        "Each reply is one thought and one action, on two lines:",
        f"Thought: what you know so far and what to do next\nAction: one action, such as {example}",
        f"After each action you read its Observation. Take as many steps as you need; when you know the answer, "
        f"reply with {_FINISH_USAGE}.",
    ]
    return "\n".join(lines)


def _literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def format_grammar(names: list[str]) -> str:
    """The GBNF grammar of one step: `Thought: ...` on one line, then `Action: name[argument]` and nothing after.

    Only the format is held: the names are the actions', the thought is any line, and the argument is
    any text on that line in which brackets pair up (so that the action's own `]` ends it).
    """
    choice = " | ".join(_literal(name) for name in names)
    return "\n".join([
        'root ::= "Thought: " thought "\\nAction: " name "[" argument "]"',
        "thought ::= [^\\n]+",
        f"name ::= {choice}",
        "argument ::= ([^\\n\\[\\]] | \"[\" argument \"]\")*",
    ])


def _closing(text: str, start: int) -> int:
    """Where the bracket opened just before `start` closes (nested pairs skipped), else the end of the line."""
    depth = 0
    for index in range(start, len(text)):
        char = text[index]
        if char == "\n":
            return index
        if char == "[":
            depth += 1
        elif char == "]":
            if depth == 0:
                return index
            depth -= 1
    return len(text)


def _unquoted(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in _QUOTES:
        return text[1:-1].strip()
    return text


def parse_action(text: str, names: list[str] | None = None) -> tuple[str, str] | None:
    """The (action, argument) in a reply, or None when it has none.

    An action labelled `Action:` wins, whatever its name (an unknown name is returned as written, so
    the model can be told); else the first `name[...]` of a known name anywhere in the reply. A known
    name is returned as the action spells it, whatever the reply's capitalisation.
    """
    known = {name.casefold(): name for name in names or []}
    labelled = _ACTION_LABEL.search(text)
    if labelled:
        name, start = labelled.group(1), labelled.end()
    else:
        if not known:
            return None
        pattern = re.compile(rf"(?<![\w-])({'|'.join(re.escape(name) for name in known)})\s*\[", re.IGNORECASE)
        found = pattern.search(text)
        if found is None:
            return None
        name, start = found.group(1), found.end()
    argument = _unquoted(text[start:_closing(text, start)])
    return known.get(name.casefold(), name), argument


async def react_action_agent(ctx: AgentContext) -> dict[str, Any]:
    """Finds the action in an LLM reply.

    Args:
        ctx: inputs `text` (the reply) and `actions` (the action names; without them only an action
            labelled `Action:` is found).

    Returns:
        `{func, arg, action, answer}`: `func` is the action's name, "" when the reply has none (`arg`
        is then the whole reply); `answer` is the argument of `finish`, verbatim, and None otherwise.
    """
    text = ctx.inputs.get("text")
    text = "" if is_null(text) else str(text)
    names = ctx.inputs.get("actions", ctx.params.get("actions"))
    found = parse_action(text, [str(name) for name in names] if isinstance(names, list) else None)
    func, arg = found if found else ("", text)
    return {
        "func": func,
        "arg": arg,
        "action": f"{func}[{arg}]" if found else None,
        "answer": arg if func == FINISH else None,
    }


async def _toolbox(ctx: AgentContext) -> Toolbox:
    tools = ctx.inputs.get("tools", ctx.params.get("tools"))
    registry = ctx.nesting.registry if ctx.nesting is not None else default_registry()
    return await granted_toolbox(ctx, list(tools) if isinstance(tools, list) else [], registry)


async def react_prompt_agent(ctx: AgentContext) -> dict[str, Any]:
    """Describes the granted tools to the model as ReAct actions.

    Args:
        ctx: inputs (or params) `tools` (as toolsAgent's), `instructions` (the task, before the list
            of actions; default "Answer the question by taking actions, one at a time."), `examples`
            (messages of worked examples, after the system prompt), `actFirst` (the first step must use
            a tool, not finish).

    Returns:
        `{system, messages, actions, grammar, firstGrammar}`: the system prompt, the messages to start
        from (the system prompt and the examples), the action names, the step format's GBNF grammar,
        and the first step's (without finish when `actFirst` is true).
    """
    actions = actions_of(await _toolbox(ctx))
    instructions = ctx.inputs.get("instructions", ctx.params.get("instructions"))
    system = system_prompt(actions, "" if is_null(instructions) else str(instructions))
    examples = ctx.inputs.get("examples", ctx.params.get("examples"))
    names = [action.name for action in actions]
    first = [action.name for action in actions if action.tool is not None] if _act_first(ctx) else names
    return {
        "system": system,
        "messages": [{"role": "system", "content": system}, *(examples if isinstance(examples, list) else [])],
        "actions": names,
        "grammar": format_grammar(names),
        "firstGrammar": format_grammar(first or names),
    }


def _act_first(ctx: AgentContext) -> bool:
    value = ctx.inputs.get("actFirst", ctx.params.get("actFirst"))
    return value is True


def _coerced(schema: dict[str, Any], text: str) -> Any:
    """The argument text as the parameter's type wants it, when it reads as one; else the text (the schema check
    then says what is wrong)."""
    kind = schema.get("type")
    if kind in ("integer", "number"):
        try:
            number = float(text.replace(",", "")) if kind == "number" else int(text.replace(",", ""))
        except ValueError:
            return text
        return int(number) if kind == "number" and number.is_integer() and "." not in text else number
    if kind == "boolean" and text.casefold() in ("true", "false", "yes", "no"):
        return text.casefold() in ("true", "yes")
    if kind in ("array", "object") and text[:1] in "[{":
        try:
            return json.loads(text)
        except ValueError:
            return text
    return text


def step_arguments(action: Action, text: str) -> dict[str, Any]:
    """A tool's arguments from the text between an action's brackets.

    A JSON object is the arguments as they are; else a tool of one parameter (or one required one)
    takes the text as that parameter, typed as its schema says; a tool without parameters takes none.

    Raises:
        ToolCallError: the tool takes several arguments and the text is not a JSON object of them.
    """
    assert action.tool is not None
    parameters = action.tool.parameters
    properties = parameters.get("properties") or {}
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if isinstance(value, dict):
            return value
    if not properties:
        return {}
    required = [key for key in parameters.get("required") or [] if key in properties]
    names = required if len(required) == 1 else list(properties)
    if len(names) != 1:
        raise ToolCallError(f"{action.name} takes {len(properties)} arguments: write them as a JSON object, "
                            f"as in {action.usage}")
    schema = properties[names[0]]
    return {names[0]: _coerced(schema if isinstance(schema, dict) else {}, _unquoted(text))}


def _listing(actions: list[Action]) -> str:
    return ", ".join(action.usage for action in actions)


async def react_act_agent(ctx: AgentContext) -> dict[str, Any]:
    """Carries out one ReAct action with the granted tools.

    Args:
        ctx: inputs `func` and `arg` (reactActionAgent's), `tools` (as reactPromptAgent's), `data`
            (the tools' state from the step before: per agent, the `data` it returned last),
            `passthrough` (per agent, the `data` of its first call, as toolsAgent's), `step` (0 for
            the first) and `actFirst` (a finish at step 0 is refused).

    Returns:
        `{content, data, outcome, answer}`: the observation; the tools' state; `finished` after
        finish (then `answer` is its argument, verbatim), `observed` after a tool (whatever it
        said, an error included), `invalid` for a reply with no action or an unknown one.
    """
    actions = actions_of(await _toolbox(ctx))
    by_name = {action.name.casefold(): action for action in actions}
    func = "" if is_null(ctx.inputs.get("func")) else str(ctx.inputs.get("func")).strip()
    text = "" if is_null(ctx.inputs.get("arg")) else str(ctx.inputs.get("arg")).strip()
    state = ctx.inputs.get("data")
    state = dict(state) if isinstance(state, dict) else {}
    action = by_name.get(func.casefold())
    if action is None:
        said = f"Unknown action '{func}'." if func else "Your reply has no action."
        content = f"{said} Write one thought, then one action, one of: {_listing(actions)}."
        return {"content": content, "data": state, "outcome": "invalid", "answer": None}
    step = ctx.inputs.get("step")
    if action.tool is None:
        if _act_first(ctx) and step == 0:
            tools = _listing([action for action in actions if action.tool is not None])
            content = f"Act first: {_FINISH_USAGE} comes after an observation. Use one of: {tools}."
            return {"content": content, "data": state, "outcome": "observed", "answer": None}
        return {"content": text, "data": state, "outcome": "finished", "answer": text}
    passthrough = ctx.inputs.get("passthrough")
    session = ToolSession(ctx, Toolbox({action.tool.name: action.tool}),
                          passthrough if isinstance(passthrough, dict) else {}, state=state)
    call = {"id": f"react_{step if isinstance(step, int) else 0}", "name": action.tool.name}
    try:
        arguments = step_arguments(action, text)
    except ToolCallError as error:  # the model acted, wrongly: it reads why, as it would a tool's error
        return {"content": f"Error: {error.message}", "data": state, "outcome": "observed", "answer": None}
    outcome = await session.call(call, arguments)
    return {"content": outcome.content, "data": session.state, "outcome": "observed", "answer": None}


_TOOLS_SCHEMA = {"type": "array", "description": "the tools, as toolsAgent takes them: agent names, agent--func, "
                 "MCP server names or server--tool"}

react_prompt_agent_info = AgentInfo(
    name="reactPromptAgent",
    func=react_prompt_agent,
    description="Describes the granted tools to an LLM as ReAct actions: system prompt, starting messages, action "
    "names and the step format's grammar (Thought, then Action: name[free text])",
    inputs={"type": "object", "properties": {
        "tools": _TOOLS_SCHEMA,
        "instructions": {"type": ["string", "null"], "description": "the task, before the list of actions"},
        "examples": {"type": ["array", "null"], "description": "worked examples: messages after the system prompt"},
        "actFirst": {"type": ["boolean", "null"], "description": "the first step must use a tool, not finish"},
    }},
    output={"type": "object", "properties": {
        "system": {"type": "string"}, "messages": {"type": "array"},
        "actions": {"type": "array", "items": {"type": "string"}}, "grammar": {"type": "string"},
        "firstGrammar": {"type": "string"},
    }},
    category=("llm", "react"),
    author="graphrt",
    license="MIT",
    has_graph_data=True,  # in the driver, beside the run's live MCP connections, whose tools it lists
)

react_action_agent_info = AgentInfo(
    name="reactActionAgent",
    func=react_action_agent,
    description="Finds the ReAct action (Action: name[argument]) in an LLM reply",
    inputs={"type": "object", "properties": {"text": {"type": ["string", "null"]},
                                             "actions": {"type": ["array", "null"], "items": {"type": "string"}}}},
    params={"type": "object", "properties": {"actions": {"type": "array", "items": {"type": "string"}}}},
    output={"type": "object", "properties": {
        "func": {"type": "string"}, "arg": {"type": "string"}, "action": {"type": ["string", "null"]},
        "answer": {"type": ["string", "null"]},
    }},
    samples=(
        Sample(inputs={"text": "Thought: I should look it up.\nAction: Search[Eiffel Tower]",
                       "actions": ["search", "lookup", "finish"]}, params={},
               result={"func": "search", "arg": "Eiffel Tower", "action": "search[Eiffel Tower]", "answer": None}),
        Sample(inputs={"text": "Thought: I know it.\nAction: finish[It was designed by [the company of] Gustave "
                       "Eiffel.]", "actions": ["search", "finish"]}, params={},
               result={"func": "finish", "arg": "It was designed by [the company of] Gustave Eiffel.",
                       "action": "finish[It was designed by [the company of] Gustave Eiffel.]",
                       "answer": "It was designed by [the company of] Gustave Eiffel."}),
        Sample(inputs={"text": "I am not sure.", "actions": ["search", "finish"]}, params={},
               result={"func": "", "arg": "I am not sure.", "action": None, "answer": None}),
    ),
    category=("llm", "react"),
    author="graphrt",
    license="MIT",
)

react_act_agent_info = AgentInfo(
    name="reactActAgent",
    func=react_act_agent,
    description="Carries out one ReAct action with the granted tools; an unknown action, a bad argument or a "
    "tool's failure becomes the observation; finish gives the answer",
    inputs={"type": "object", "properties": {
        "func": {"type": ["string", "null"]}, "arg": {"type": ["string", "null"]}, "tools": _TOOLS_SCHEMA,
        "data": {"type": ["object", "null"], "description": "per agent, the data it returned last"},
        "passthrough": {"type": ["object", "null"], "description": "per agent, the data of its first call"},
        "step": {"type": ["integer", "null"]},
        "actFirst": {"type": ["boolean", "null"], "description": "refuse a finish at step 0"},
    }},
    output={"type": "object", "properties": {
        "content": {"type": "string"}, "data": {"type": "object"},
        "outcome": {"type": "string", "enum": ["finished", "observed", "invalid"]},
        "answer": {"type": ["string", "null"]},
    }},
    category=("llm", "react"),
    author="graphrt",
    license="MIT",
    has_graph_data=True,  # in the driver: each tool runs as a one-node nested graph, as toolsAgent runs it
)

AGENTS: list[AgentInfo] = [react_prompt_agent_info, react_action_agent_info, react_act_agent_info]
